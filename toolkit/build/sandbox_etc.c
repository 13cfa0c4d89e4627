/*
 * The /etc a step sees (sandbox_root.h, tf_sandbox_etc): one prepared
 * directory bound in one mount, not thirty binds of single files, each
 * of which cost a step about a millisecond (docs/performance.md).
 */
#include "sandbox_root.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"

/* What of /etc a build reads: the loader, the compilers' alternatives,
 * users and groups by name, names and services, CA certificates, the
 * time zone, the system's name, Perl's and Python's own settings (and
 * python3* below). docs/security.md lists the same. */
static const char *const etc[] = {
	"ld.so.cache",
	"ld.so.conf",
	"ld.so.conf.d",
	"alternatives",
	"ssl/certs",
	"ssl/openssl.cnf",
	"ca-certificates",
	"ca-certificates.conf",
	"passwd",
	"group",
	"hosts",
	"host.conf",
	"nsswitch.conf",
	"gai.conf",
	"services",
	"protocols",
	"networks",
	"localtime",
	"timezone",
	"debian_version",
	"os-release",
	"lsb-release",
	"mime.types",
	"magic",
	"perl",
	"dpkg",
	"distcc",
	"mtab",
	NULL,
};

/* Directories of hundreds of links (on Debian about 500 and 300): bound
 * as they are over an empty directory of the copy, two binds a step,
 * rather than made again as 800 inodes in every new cache, which took a
 * run seconds on an ext4 where many files were deleted lately (as a
 * test suite does) and a fresh cache for each test. */
static const char *const bound[] = {
	"alternatives",
	"ssl/certs",
	NULL,
};

/* The most bytes the copies may hold: /etc's allowed entries are a few
 * hundred KiB; more means something odd is there, not a bigger copy. */
#define ETC_MAX (64ULL << 20)
/* The deepest a copied directory may go. */
#define ETC_DEPTH 32

/* One thing of the prepared /etc. */
struct etc_item {
	char *rel;          /* owned: its path below /etc */
	char type;          /* 'd' directory, 'f' file, 'l' link */
	unsigned mode;      /* permission bits (not of a link) */
	struct tf_buf data; /* a file's bytes, a link's target */
};

/* What the prepared /etc holds, in any order until sorted. */
struct etc_list {
	struct etc_item *v; /* owned */
	size_t nr, alloc;
	size_t bytes;         /* of every data, against ETC_MAX */
	size_t left_out;      /* FIFOs, sockets, devices, unreadable files */
	struct stat *secrets; /* owned: the files left out, by identity */
	size_t nr_secrets;
	struct tf_strvec bound; /* the entries bound over the copy */
};

static struct etc_item *add(struct etc_list *l, const char *rel, char type,
			    unsigned mode)
{
	struct etc_item *it;

	if (l->nr == l->alloc) {
		l->alloc = l->alloc ? 2 * l->alloc : 256;
		l->v = tf_realloc(l->v, l->alloc * sizeof(*l->v));
	}
	it = &l->v[l->nr++];
	*it = (struct etc_item){ .rel = tf_strdup(rel),
				 .type = type,
				 .mode = mode,
				 .data = TF_BUF_INIT };
	return it;
}

static void list_release(struct etc_list *l)
{
	size_t i;

	for (i = 0; i < l->nr; i++) {
		free(l->v[i].rel);
		tf_buf_release(&l->v[i].data);
	}
	free(l->v);
	free(l->secrets);
	tf_strvec_release(&l->bound);
	*l = (struct etc_list){ .bound = TF_STRVEC_INIT };
}

/* 1 if path is dir or below it. */
static int is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0');
}

static int is_secret(const struct etc_list *l, const struct stat *st)
{
	size_t i;

	for (i = 0; i < l->nr_secrets; i++)
		if (st->st_dev == l->secrets[i].st_dev &&
		    st->st_ino == l->secrets[i].st_ino)
			return 1;
	return 0;
}

/* The bytes of the regular file name in dir into it; 0, or -1 when it
 * cannot be read (then it is left out, as a step could not read it). */
static int read_regular(int dir, const char *name, struct etc_list *l,
			struct etc_item *it)
{
	int fd = openat(dir, name,
			O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char chunk[65536];
	ssize_t n = -1;

	if (fd < 0)
		return -1;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode))
		while ((n = read(fd, chunk, sizeof(chunk))) > 0 &&
		       (l->bytes += (size_t)n) <= ETC_MAX)
			tf_buf_add(&it->data, chunk, (size_t)n);
	close(fd);
	return n == 0 ? 0 : -1;
}

static void walk(struct etc_list *l, int dir, const char *name, const char *rel,
		 int depth);

/* The link name in dir, as a link at rel. */
static void add_link(struct etc_list *l, int dir, const char *name,
		     const char *rel)
{
	char link[4096];
	ssize_t n = readlinkat(dir, name, link, sizeof(link));

	if (n > 0 && (size_t)n < sizeof(link))
		tf_buf_add(&add(l, rel, 'l', 0)->data, link, (size_t)n);
}

/* What the open directory fd holds (closed here), as rel/NAME. */
static void walk_dir(struct etc_list *l, int fd, const char *rel, int depth)
{
	struct tf_buf subrel = TF_BUF_INIT;
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;

	if (!d && fd >= 0)
		close(fd);
	while (d && depth > 0 && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		tf_buf_reset(&subrel);
		if (*rel) {
			tf_buf_addstr(&subrel, rel);
			tf_buf_addch(&subrel, '/');
		}
		tf_buf_addstr(&subrel, e->d_name);
		if (e->d_type == DT_LNK) /* most of them: no stat needed */
			add_link(l, dirfd(d), e->d_name, subrel.buf);
		else
			walk(l, dirfd(d), e->d_name, subrel.buf, depth - 1);
	}
	if (d)
		closedir(d);
	tf_buf_release(&subrel);
}

/*
 * name in dir (a path from AT_FDCWD) as it would be seen bound at rel:
 * a link as the same link, a file's bytes, a directory and what it
 * holds; a secret, a FIFO, a socket or a device is left out. Names are
 * looked up from their directory (the *at calls), not from /: a run
 * reads about 800 of them. The owner may always read (and a
 * directory's owner change) the copy: nobody but tfbuild's user owns
 * it, and a step sees it read-only.
 */
static void walk(struct etc_list *l, int dir, const char *name, const char *rel,
		 int depth)
{
	struct stat st;

	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW))
		return;
	if (S_ISLNK(st.st_mode)) {
		add_link(l, dir, name, rel);
	} else if (S_ISREG(st.st_mode) && !is_secret(l, &st)) {
		struct etc_item *it =
			add(l, rel, 'f', (st.st_mode & 0777) | 0400);

		if (read_regular(dir, name, l, it)) {
			free(it->rel);
			tf_buf_release(&it->data);
			l->nr--;
			l->left_out++;
		}
	} else if (S_ISDIR(st.st_mode)) {
		add(l, rel, 'd', (st.st_mode & 0777) | 0700);
		walk_dir(
			l,
			openat(dir, name,
			       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC),
			rel, depth);
	} else if (!S_ISREG(st.st_mode)) {
		l->left_out++;
	}
}

/* 1 if real (a resolved path) is in an entry of the list below root. */
static int listed(const char *root, const char *real)
{
	struct tf_buf b = TF_BUF_INIT;
	size_t i;
	int found = 0;

	for (i = 0; !found && etc[i]; i++) {
		tf_buf_setf(&b, "%s/%s", root, etc[i]);
		found = is_under(real, b.buf);
	}
	tf_buf_release(&b);
	return found;
}

static int is_bound(const char *name)
{
	size_t i;

	for (i = 0; bound[i]; i++)
		if (!strcmp(name, bound[i]))
			return 1;
	return 0;
}

/*
 * The entry name of the machine's /etc (root): a directory of bound[]
 * as an empty one (bound over it: its name into l->binds); a link as
 * the same link
 * when it still resolves in a step (into /usr, /proc, or the list: the
 * loader's files, /etc/localtime, /etc/mtab), else what it names; the
 * directories above it (ssl/ for ssl/certs) as directories.
 */
static void entry(struct etc_list *l, const char *root, const char *name)
{
	struct tf_buf path = TF_BUF_INIT;
	const char *slash;
	struct stat st;
	char *real;

	for (slash = strchr(name, '/'); slash; slash = strchr(slash + 1, '/')) {
		tf_buf_setf(&path, "%.*s", (int)(slash - name), name);
		add(l, path.buf, 'd', 0755);
	}
	tf_buf_setf(&path, "%s/%s", root, name);
	if (is_bound(name) && !lstat(path.buf, &st) && S_ISDIR(st.st_mode)) {
		add(l, name, 'd', (st.st_mode & 0777) | 0700);
		tf_strvec_push(&l->bound, name);
	} else if (!lstat(path.buf, &st) && S_ISLNK(st.st_mode) &&
		   (real = realpath(path.buf, NULL))) {
		if (is_under(real, "/usr") || is_under(real, "/proc") ||
		    listed(root, real))
			walk(l, AT_FDCWD, path.buf, name, ETC_DEPTH);
		else
			walk(l, AT_FDCWD, real, name, ETC_DEPTH);
		free(real);
	} else {
		walk(l, AT_FDCWD, path.buf, name, ETC_DEPTH);
	}
	tf_buf_release(&path);
}

static int by_rel(const void *a, const void *b)
{
	return strcmp(((const struct etc_item *)a)->rel,
		      ((const struct etc_item *)b)->rel);
}

/* Sort l by path, the first of equal ones kept, and hash it into hex. */
static void settle(struct etc_list *l, char hex[TF_SHA256_HEX_LEN + 1])
{
	struct tf_sha256 *h = tf_sha256_new();
	unsigned char md[TF_SHA256_LEN];
	struct tf_buf head = TF_BUF_INIT;
	size_t i, kept = 0;

	qsort(l->v, l->nr, sizeof(*l->v), by_rel);
	for (i = 0; i < l->nr; i++) {
		if (kept && !strcmp(l->v[kept - 1].rel, l->v[i].rel)) {
			free(l->v[i].rel);
			tf_buf_release(&l->v[i].data);
			continue;
		}
		l->v[kept++] = l->v[i];
	}
	l->nr = kept;
	for (i = 0; i < l->nr; i++) {
		const struct etc_item *it = &l->v[i];

		tf_buf_setf(&head, "%c %o %zu %s", it->type, it->mode,
			    it->data.len, it->rel);
		tf_sha256_update(h, head.buf, head.len + 1);
		tf_sha256_update(h, it->data.buf, it->data.len);
	}
	tf_sha256_final(h, md); /* and freed */
	tf_sha256_hex(md, hex);
	tf_buf_release(&head);
}

/* What the machine's /etc (root) shows a step, into l. */
static void gather(struct etc_list *l, const char *root, int network)
{
	DIR *d = opendir(root);
	struct dirent *e;
	size_t i;

	for (i = 0; etc[i]; i++)
		entry(l, root, etc[i]);
	/* /etc/python3, /etc/python3.11: Debian's site settings */
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "python", 6))
			entry(l, root, e->d_name);
	if (d)
		closedir(d);
	if (network)
		entry(l, root, "resolv.conf");
}

static int has_item(const struct etc_list *l, const char *rel)
{
	size_t i;

	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->v[i].rel, rel))
			return 1;
	return 0;
}

/*
 * An empty file or directory (as root/rel is) for each rel of mounts
 * the copy lacks, and the directories above it: where a step's
 * `sandbox.read` of a path in /etc is bound over the read-only copy,
 * which bwrap cannot make a mount point in. One in a directory bound
 * over the copy (binds) needs none.
 */
static void mount_points(struct etc_list *l, const char *root,
			 const struct tf_strvec *mounts)
{
	struct tf_buf path = TF_BUF_INIT, up = TF_BUF_INIT;
	const char *slash, *rel;
	struct stat st;
	size_t i, j;

	for (i = 0; mounts && i < mounts->nr; i++) {
		rel = mounts->v[i];
		for (j = 0; j < l->bound.nr; j++)
			if (is_under(rel, l->bound.v[j]))
				break;
		tf_buf_setf(&path, "%s/%s", root, rel);
		if (j < l->bound.nr || has_item(l, rel) || stat(path.buf, &st))
			continue;
		for (slash = strchr(rel, '/'); slash;
		     slash = strchr(slash + 1, '/')) {
			tf_buf_setf(&up, "%.*s", (int)(slash - rel), rel);
			if (!has_item(l, up.buf))
				add(l, up.buf, 'd', 0755);
		}
		add(l, rel, S_ISDIR(st.st_mode) ? 'd' : 'f',
		    S_ISDIR(st.st_mode) ? 0755 : 0444);
	}
	tf_buf_release(&path);
	tf_buf_release(&up);
}

/* 1 if the directory dir holds exactly what hashes to hex. */
static int holds(const char *dir, const char *hex)
{
	struct etc_list l = { .bound = TF_STRVEC_INIT };
	char got[TF_SHA256_HEX_LEN + 1];
	int same;

	walk_dir(&l, open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), "",
		 ETC_DEPTH);
	settle(&l, got);
	/* a FIFO put there (as ld.so.preload) would not change the hash */
	same = l.bytes <= ETC_MAX && !l.left_out && !strcmp(got, hex);
	list_release(&l);
	return same;
}

static int make_item(const char *dir, const struct etc_item *it,
		     struct tf_buf *path)
{
	int fd;

	tf_buf_setf(path, "%s/%s", dir, it->rel);
	if (it->type == 'd')
		return mkdir(path->buf, 0700);
	if (it->type == 'l')
		return symlink(it->data.buf, path->buf);
	fd = open(path->buf,
		  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	if (tf_write_all(fd, it->data.buf, it->data.len) ||
	    fchmod(fd, it->mode)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* Write l into the new directory dir, directories' modes set last (a
 * directory of mode 0555 is filled first). 0, or -1 (said). */
static int write_list(const char *dir, const struct etc_list *l)
{
	struct tf_buf path = TF_BUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < l->nr; i++)
		if (make_item(dir, &l->v[i], &path))
			ret = error_errno("cannot write '%s'", path.buf);
	for (i = l->nr; !ret && i-- > 0;) {
		tf_buf_setf(&path, "%s/%s", dir, l->v[i].rel);
		if (l->v[i].type == 'd' && chmod(path.buf, l->v[i].mode))
			ret = error_errno("cannot change the mode of '%s'",
					  path.buf);
	}
	if (!ret && chmod(dir, 0755))
		ret = error_errno("cannot change the mode of '%s'", dir);
	tf_buf_release(&path);
	return ret;
}

/* Move the directory final, which does not hold what its name says
 * (changed by hand, or by a step run with --sandbox=off), out of the
 * way and remove it. 0, or -1 (said). */
static int discard(const char *base, const char *final)
{
	struct tf_buf trash = TF_BUF_INIT, to = TF_BUF_INIT;
	int ret = tf_mkdtemp_in(base, "etc-stale", &trash);

	if (!ret) {
		tf_buf_setf(&to, "%s/etc", trash.buf);
		if (rename(final, to.buf) && errno != ENOENT)
			ret = error_errno("cannot move '%s' aside", final);
		tf_rm_rf(trash.buf);
	}
	tf_buf_release(&trash);
	tf_buf_release(&to);
	return ret;
}

/* Write l into base/etc-HEX through a temporary; 0, or -1 (said). */
static int publish(const char *base, const char *final,
		   const struct etc_list *l, const char *hex)
{
	struct tf_buf tmp = TF_BUF_INIT;
	int ret = tf_mkdtemp_temp(base, "etc", &tmp);

	if (!ret && !(ret = write_list(tmp.buf, l)) && rename(tmp.buf, final)) {
		/* another tfbuild made it meanwhile: its copy is as good */
		if ((errno != EEXIST && errno != ENOTEMPTY) ||
		    !holds(final, hex))
			ret = error_errno("cannot rename '%s' to '%s'", tmp.buf,
					  final);
	}
	if (tmp.len) {
		tf_rm_rf(tmp.buf); /* gone after a rename: nothing to do */
		tf_signals_temp_forget(tmp.buf);
	}
	tf_buf_release(&tmp);
	return ret;
}

/* Which files the secrets are: what no copy holds, by any name. */
static void secret_ids(struct etc_list *l, const struct tf_strvec *secrets)
{
	size_t i;

	l->secrets = tf_calloc(secrets->nr + 1, sizeof(*l->secrets));
	for (i = 0; i < secrets->nr; i++)
		if (!stat(secrets->v[i], &l->secrets[l->nr_secrets]))
			l->nr_secrets++;
}

int tf_sandbox_etc(const struct tf_sandbox_etc_in *in, struct tf_buf *out,
		   struct tf_strvec *binds)
{
	struct etc_list l = { .bound = TF_STRVEC_INIT };
	size_t i;
	char hex[TF_SHA256_HEX_LEN + 1];
	struct tf_buf base = TF_BUF_INIT;
	int ret = 0;

	secret_ids(&l, in->secrets);
	gather(&l, in->root, in->network);
	mount_points(&l, in->root, in->mounts);
	if (l.bytes > ETC_MAX) {
		ret = error("cannot prepare the steps' /etc: the entries it "
			    "copies from '%s' hold more than %llu MiB",
			    in->root, ETC_MAX >> 20);
		goto out;
	}
	settle(&l, hex);
	for (i = 0; binds && i < l.bound.nr; i++)
		tf_strvec_push(binds, l.bound.v[i]);
	tf_buf_setf(&base, "%s/sandbox", in->dir);
	tf_buf_reset(out);
	tf_buf_addf(out, "%s/etc-%s", base.buf, hex);
	if (tf_path_is_dir(out->buf) && holds(out->buf, hex))
		goto out;
	if (tf_mkdir_p(base.buf) ||
	    (tf_path_is_dir(out->buf) && discard(base.buf, out->buf)) ||
	    publish(base.buf, out->buf, &l, hex))
		ret = -1;
out:
	list_release(&l);
	tf_buf_release(&base);
	return ret;
}
