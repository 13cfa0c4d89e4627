#include "extract.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "xzmem.h"
#include "dl/dl.h"

/* Read-ahead per read(2): small, so memory stays flat for any archive. */
#define BLOCK_SIZE 16384

/*
 * No owner, time, ACL, xattr or flag restore. PERM so the modes we chose
 * are the modes on disk whatever the umask. The SECURE flags duplicate
 * our own checks on purpose: two independent guards on the one thing an
 * archive must never do, write outside dest.
 */
#define WRITE_FLAGS                                               \
	(ARCHIVE_EXTRACT_PERM | ARCHIVE_EXTRACT_SECURE_SYMLINKS | \
	 ARCHIVE_EXTRACT_SECURE_NODOTDOT |                        \
	 ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS)

/* One member being extracted. */
struct member {
	const char *label;  /* borrowed; the archive as the recipe names it */
	struct tf_buf name; /* owned; the member as written in the archive */
	struct tf_buf path; /* owned; where it goes, relative to dest */
	struct tf_buf link; /* owned; a hardlink's target, relative to dest */
};

#define MEMBER_INIT(label)                                     \
	{                                                      \
		(label), TF_BUF_INIT, TF_BUF_INIT, TF_BUF_INIT \
	}

/* What an archive may still cost (limit.h), and what it has cost. */
struct budget {
	uint64_t max_bytes;   /* TF_LIMIT_EXTRACT_BYTES */
	uint64_t max_entries; /* TF_LIMIT_EXTRACT_ENTRIES */
	uint64_t bytes;       /* bytes written so far, holes included */
	uint64_t archive;     /* the archive's own size */
	int by_ratio;         /* 1: max_bytes is TF_LIMIT_EXTRACT_RATIO's */
};

/* Longer names than the kernel takes in one path are refused. */
#define NAME_MAX_BYTES 4096

static const char *errstr(struct archive *a)
{
	const char *s = archive_error_string(a);

	return s ? s : "unknown libarchive error";
}

int tf_extract_strip(const char *path, int strip, struct tf_buf *out)
{
	const char *p = path;
	size_t start = out->len;

	while (*p) {
		size_t n = strcspn(p, "/");

		if (n && !(n == 1 && *p == '.')) {
			if (strip > 0) {
				strip--;
			} else {
				if (out->len > start)
					tf_buf_addch(out, '/');
				tf_buf_add(out, p, n);
			}
		}
		p += n;
		p += *p == '/';
	}
	return out->len > start;
}

enum tf_link_check tf_extract_check_symlink(const char *path,
					    const char *target)
{
	const char *p = path;
	int depth = 0, names = 0;

	if (*target == '/')
		return TF_LINK_OUTSIDE;
	/* path is clean (from tf_extract_strip): its slashes count dirs. */
	for (; *p; p++)
		depth += *p == '/';
	for (p = target; *p;) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			/*
			 * "x/.." is "." only if x is a directory; if x is
			 * a symlink the kernel goes elsewhere. Leading ".."
			 * walk up real directories, which we can count.
			 */
			if (names)
				return TF_LINK_DOTDOT_AFTER_NAME;
			if (--depth < 0)
				return TF_LINK_OUTSIDE;
		} else if (n && !(n == 1 && *p == '.')) {
			names++;
		}
		p += n;
		p += *p == '/';
	}
	return TF_LINK_INSIDE;
}

static int check_name(const struct member *m)
{
	const char *name = m->name.buf;

	if (!*name)
		return error("%s: member with an empty name", m->label);
	if (strlen(name) >= NAME_MAX_BYTES)
		return error(
			"%s: member '%.100s...': name is longer than %d bytes",
			m->label, name, NAME_MAX_BYTES - 1);
	if (*name == '/')
		return error("%s: member '%s': absolute path is not allowed",
			     m->label, name);
	if (!tf_path_is_safe_relative(name))
		return error(
			"%s: member '%s': path escapes the extraction directory",
			m->label, name);
	return 0;
}

static int check_type(const struct member *m, struct archive_entry *e)
{
	const char *what;

	switch (archive_entry_filetype(e)) {
	case AE_IFREG:
	case AE_IFDIR:
	case AE_IFLNK:
		return 0;
	case AE_IFCHR:
	case AE_IFBLK:
		what = "device nodes are";
		break;
	case AE_IFIFO:
		what = "FIFOs are";
		break;
	case AE_IFSOCK:
		what = "sockets are";
		break;
	default:
		what = "members of unknown type are";
		break;
	}
	return error("%s: member '%s': %s not allowed", m->label, m->name.buf,
		     what);
}

static int check_symlink(const struct member *m, const char *target)
{
	switch (tf_extract_check_symlink(m->path.buf, target)) {
	case TF_LINK_INSIDE:
		return 0;
	case TF_LINK_OUTSIDE:
		return error(
			"%s: member '%s': symlink target '%s' points outside the tree",
			m->label, m->name.buf, target);
	case TF_LINK_DOTDOT_AFTER_NAME:
		return error(
			"%s: member '%s': symlink target '%s' has '..' after a name",
			m->label, m->name.buf, target);
	}
	BUG("unknown symlink check result");
}

/*
 * A hardlink must name a member already extracted. Linking to a symlink
 * would copy a target checked for the link's directory into another
 * directory, so that is refused too. Runs with dest as the cwd.
 */
static int check_hardlink(struct member *m, const char *target, int strip)
{
	struct stat st;

	if (*target == '/' || !tf_path_is_safe_relative(target) ||
	    !tf_extract_strip(target, strip, &m->link))
		return error(
			"%s: member '%s': hardlink target '%s' points outside the tree",
			m->label, m->name.buf, target);
	if (!lstat(m->link.buf, &st) && S_ISLNK(st.st_mode))
		return error(
			"%s: member '%s': hardlink target '%s' is a symlink",
			m->label, m->name.buf, target);
	return 0;
}

static const char *type_name(mode_t type)
{
	switch (type) {
	case S_IFDIR:
		return "directory";
	case S_IFLNK:
		return "symlink";
	default:
		return "file";
	}
}

/*
 * A member may repeat an earlier one of the same type (tar appends
 * updates), never change its type: a file that becomes a directory or a
 * symlink that becomes a file is how an archive plays one checker
 * against the next. Runs with dest as the cwd.
 */
static int check_replace(const struct member *m, struct archive_entry *e)
{
	mode_t type = archive_entry_hardlink(e) ? AE_IFREG
						: archive_entry_filetype(e);
	struct stat st;

	if (lstat(m->path.buf, &st) < 0)
		return 0;
	if ((st.st_mode & S_IFMT) == (type & S_IFMT))
		return 0;
	return error(
		"%s: member '%s': replaces a %s of the same name extracted before",
		m->label, m->name.buf, type_name(st.st_mode & S_IFMT));
}

/* 0755 for directories and files the owner may run, else 0644. */
static void reduce_mode(struct archive_entry *e)
{
	mode_t type = archive_entry_filetype(e);

	if (type == AE_IFLNK)
		return;
	if (type == AE_IFDIR || (archive_entry_perm(e) & 0100))
		archive_entry_set_perm(e, 0755);
	else
		archive_entry_set_perm(e, 0644);
}

/*
 * Check one member and rewrite its names for dest. Returns 0 to extract
 * it, 1 to skip it (nothing left after strip), -1 to refuse.
 */
static int prepare(struct member *m, struct archive_entry *e, int strip)
{
	const char *name = archive_entry_pathname(e);
	const char *hardlink = archive_entry_hardlink(e);
	const char *symlink = archive_entry_symlink(e);

	tf_buf_reset(&m->name);
	tf_buf_reset(&m->path);
	tf_buf_reset(&m->link);
	if (!name)
		return error("%s: a member's name cannot be read", m->label);
	tf_buf_addstr(&m->name, name);
	if (check_name(m) < 0)
		return -1;
	if (!tf_extract_strip(m->name.buf, strip, &m->path))
		return 1;
	if (hardlink) {
		if (check_hardlink(m, hardlink, strip) < 0)
			return -1;
		archive_entry_set_hardlink(e, m->link.buf);
	} else if (check_type(m, e) < 0) {
		return -1;
	} else if (archive_entry_filetype(e) == AE_IFLNK &&
		   check_symlink(m, symlink ? symlink : "") < 0) {
		return -1;
	}
	if (check_replace(m, e) < 0)
		return -1;
	archive_entry_set_pathname(e, m->path.buf);
	reduce_mode(e);
	return 0;
}

static int over_budget(const struct member *m, const struct budget *b)
{
	struct tf_limit_extract e = { .max_bytes = b->max_bytes,
				      .archive = b->archive,
				      .by_ratio = b->by_ratio };
	struct tf_buf why = TF_BUF_INIT;

	tf_limit_extract_why(&e, &why);
	error("%s: member '%s': extracting it would exceed the limit of %llu "
	      "bytes (%s)",
	      m->label, m->name.buf, (unsigned long long)b->max_bytes, why.buf);
	tf_buf_release(&why);
	return -1;
}

/*
 * The disk writer says "Write failed"; errno says why (ENOSPC, EDQUOT,
 * EIO), and the member's path where.
 */
/* libarchive's own "no errno" value (ARCHIVE_ERRNO_MISC is -1). */
#define ARCHIVE_ERRNO_MISC_VALUE (-1)

static int write_failed(struct archive *out, const struct member *m)
{
	int e = archive_errno(out);

	if (e > 0 && e != ARCHIVE_ERRNO_MISC_VALUE)
		return error("%s: member '%s': cannot write '%s': %s (%s)",
			     m->label, m->name.buf, m->path.buf, strerror(e),
			     errstr(out));
	return error("%s: member '%s': %s", m->label, m->name.buf, errstr(out));
}

/*
 * The bytes a member declares are charged before anything is written
 * (a sparse member claiming a terabyte is refused at its header); the
 * bytes it really yields are charged as they come, for formats whose
 * sizes are unknown or lie.
 */
static int copy_data(struct archive *in, struct archive *out,
		     const struct member *m, struct budget *b)
{
	uint64_t start = b->bytes, end;

	const void *block;
	size_t size;
	la_int64_t offset;
	int r;

	while ((r = archive_read_data_block(in, &block, &size, &offset)) !=
	       ARCHIVE_EOF) {
		if (r != ARCHIVE_OK)
			return error("%s: member '%s': %s", m->label,
				     m->name.buf, errstr(in));
		end = start + (uint64_t)offset + size;
		if (offset < 0 || end < start || end > b->max_bytes)
			return over_budget(m, b);
		if (end > b->bytes)
			b->bytes = end;
		if (archive_write_data_block(out, block, size, offset) !=
		    ARCHIVE_OK)
			return write_failed(out, m);
	}
	return 0;
}

/* Write one prepared member. Any warning from the disk writer fails it. */
static int write_member(struct archive *in, struct archive *out,
			struct archive_entry *e, const struct member *m,
			struct budget *b)
{
	la_int64_t size =
		archive_entry_size_is_set(e) ? archive_entry_size(e) : 0;

	if (size < 0 || (uint64_t)size > b->max_bytes - b->bytes)
		return over_budget(m, b);
	if (archive_write_header(out, e) != ARCHIVE_OK)
		return write_failed(out, m);
	if (copy_data(in, out, m, b) < 0)
		return -1;
	if (archive_write_finish_entry(out) != ARCHIVE_OK)
		return write_failed(out, m);
	return 0;
}

/* The member loop; runs with dest as the current directory. */
static int extract_all(struct archive *in, struct archive *out,
		       const char *label, int strip, struct budget *b)
{
	struct member m = MEMBER_INIT(label);
	struct archive_entry *e;
	long seen = 0, written = 0;
	int r, ret = 0;

	while (!ret && (r = archive_read_next_header(in, &e)) != ARCHIVE_EOF) {
		/* ARCHIVE_RETRY too: a damaged tar header is not skipped. */
		if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
			ret = error("%s: %s", label, errstr(in));
			break;
		}
		/* Warnings here are about names the locale cannot show. */
		if (r == ARCHIVE_WARN)
			verbose("%s: %s", label, errstr(in));
		if ((uint64_t)seen++ >= b->max_entries) {
			ret = error("%s: more than %llu members (%s)", label,
				    (unsigned long long)b->max_entries,
				    TF_LIMIT_EXTRACT_ENTRIES.env);
			break;
		}
		ret = prepare(&m, e, strip);
		if (ret > 0) {
			ret = 0;
			continue;
		}
		if (!ret)
			ret = write_member(in, out, e, &m, b);
		written += !ret;
	}
	if (!ret && !seen)
		ret = error("%s: archive is empty", label);
	else if (!ret && !written)
		ret = error("%s: nothing left to extract with strip %d", label,
			    strip);
	tf_buf_release(&m.name);
	tf_buf_release(&m.path);
	tf_buf_release(&m.link);
	return ret;
}

/* The formats a source archive comes in. */
static void support_formats(struct archive *a)
{
	/*
	 * Not archive_read_support_format_all(): it adds mtree, which takes
	 * any text file for an archive ("garbage" is a member), and "empty".
	 */
	archive_read_support_format_7zip(a);
	archive_read_support_format_ar(a);
	archive_read_support_format_cab(a);
	archive_read_support_format_cpio(a);
	archive_read_support_format_iso9660(a);
	archive_read_support_format_lha(a);
	archive_read_support_format_rar(a);
	archive_read_support_format_rar5(a);
	archive_read_support_format_tar(a);
	archive_read_support_format_xar(a);
	archive_read_support_format_zip(a);
	/*
	 * Not archive_read_support_filter_all(): it adds lrzip, grzip and
	 * lzop, which libarchive runs as external programs, and tfbuild
	 * starts child processes only through run.h.
	 */
	archive_read_support_filter_bzip2(a);
	archive_read_support_filter_compress(a);
	archive_read_support_filter_gzip(a);
	archive_read_support_filter_lz4(a);
	archive_read_support_filter_lzip(a);
	archive_read_support_filter_lzma(a);
	archive_read_support_filter_xz(a);
	archive_read_support_filter_zstd(a);
}

static struct archive *open_reader(const char *archive, const char *label,
				   int *fd)
{
	struct archive *a;

	if (tf_dl_archive() < 0)
		return NULL;
	*fd = open(archive, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		error_errno("%s: cannot open '%s'", label, archive);
		return NULL;
	}
	a = archive_read_new();
	if (!a) {
		error("%s: cannot create an archive reader", label);
		return NULL;
	}
	support_formats(a);
	if (archive_read_open_fd(a, *fd, BLOCK_SIZE) != ARCHIVE_OK) {
		error("%s: %s", label, errstr(a));
		archive_read_free(a);
		return NULL;
	}
	return a;
}

static struct archive *open_writer(const char *label)
{
	struct archive *a;

	if (tf_dl_archive() < 0)
		return NULL;
	a = archive_write_disk_new();
	if (!a) {
		error("%s: cannot create an archive writer", label);
		return NULL;
	}
	archive_write_disk_set_options(a, WRITE_FLAGS);
	return a;
}

/*
 * Extract from inside dest: SECURE_NOABSOLUTEPATHS refuses absolute
 * names, so members are written relative to the cwd. The writer is
 * closed before we leave, because closing applies the deferred directory
 * modes by those same relative names.
 *
 * Directories libarchive makes on its own, for members whose parents the
 * archive does not list, get 0777 less the umask it reads at each
 * member: under umask 0 anyone could write to them. Umask 022 meanwhile
 * gives them 0755 like the listed ones, whatever the caller's umask.
 */
static int extract_in(int dir, struct archive *in, struct archive *out,
		      const char *label, const char *dest, int strip,
		      struct budget *b)
{
	int cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), ret;
	mode_t mask;

	if (cwd < 0)
		return error_errno("cannot open the current directory");
	if (fchdir(dir) < 0) {
		close(cwd);
		return error_errno("cannot change to '%s'", dest);
	}
	mask = umask(022);
	ret = extract_all(in, out, label, strip, b);
	if (archive_write_close(out) != ARCHIVE_OK && !ret)
		ret = error("%s: %s", label, errstr(out));
	umask(mask);
	if (fchdir(cwd) < 0)
		ret = error_errno("cannot return to the working directory");
	close(cwd);
	return ret;
}

/*
 * libarchive decodes xz with no memory limit; the dictionary sizes in the
 * headers say what it will allocate, so they are checked first.
 */
static int check_memory(int fd, const char *label)
{
	uint64_t need, max;

	if (tf_limit_get(&TF_LIMIT_EXTRACT_MEMORY, &max) < 0 ||
	    tf_xz_memusage(fd, label, max, &need) < 0)
		return -1;
	if (need > max)
		return error(
			"%s: decompressing it needs %llu MiB of memory, over the limit of %llu MiB (%s)",
			label,
			(unsigned long long)((need + (1 << 20) - 1) >> 20),
			(unsigned long long)(max >> 20),
			TF_LIMIT_EXTRACT_MEMORY.env);
	return 0;
}

/* The archive's limits (limit.h), shared with target wheels. */
static int ratio_budget(int fd, struct budget *b)
{
	struct tf_limit_extract e;
	struct stat st;

	if (fstat(fd, &st) < 0 ||
	    tf_limit_extract_get((uint64_t)st.st_size, &e) < 0)
		return -1;
	b->max_bytes = e.max_bytes;
	b->max_entries = e.max_entries;
	b->archive = e.archive;
	b->by_ratio = e.by_ratio;
	return 0;
}

static int extract(const char *archive, const char *label, const char *dest,
		   int strip)
{
	struct archive *in = NULL, *out = NULL;
	struct budget b = { 0, 0, 0, 0, 0 };
	int fd = -1, dir = -1, ret = -1;

	in = open_reader(archive, label, &fd);
	if (!in || check_memory(fd, label) < 0 || ratio_budget(fd, &b) < 0)
		goto out;
	out = open_writer(label);
	if (!out)
		goto out;
	dir = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0) {
		error_errno("cannot open directory '%s'", dest);
		goto out;
	}
	ret = extract_in(dir, in, out, label, dest, strip, &b);
out:
	if (dir >= 0)
		close(dir);
	if (out)
		archive_write_free(out);
	if (in)
		archive_read_free(in);
	if (fd >= 0)
		close(fd);
	return ret;
}

/*
 * libarchive converts names to the locale's charset, and in the C locale
 * a UTF-8 name (zip's UTF-8 flag, pax) cannot be converted: the member
 * would have no name. A UTF-8 LC_CTYPE for this thread, only while we
 * extract, keeps names as the bytes the archive holds.
 */
int tf_extract(const char *archive, const char *label, const char *dest,
	       int strip)
{
	locale_t old;
	int ret;

	if (strip < 0)
		BUG("negative strip %d", strip);
	old = tf_locale_utf8_enter();
	ret = extract(archive, label, dest, strip);
	tf_locale_restore(old);
	return ret;
}
