/*
 * Verify a wheel the way an installer sees it, without trusting who made
 * it: nothing here uses wheel.c. The archive is read through the wheel
 * reader's seekable mode (wheelread.h), which walks the central
 * directory as pip's zipfile does. Two passes keep memory bounded by
 * RECORD (capped), not by the wheel: the first reads names and the
 * .dist-info files, the second streams every entry through sha256 and
 * checks it against RECORD. Between them distinfo.c reads what the
 * .dist-info files say.
 */
#include "verify.h"
#include "verifier.h"
#include "wheel/wheel.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit/audit.h"
#include "isa/isa.h"
#include "macho/macho.h"
#include "plugin/plugin.h"
#include "base/base.h"
#include "wheelname.h"

/* Caps for what is held in memory from untrusted input. */
/* RECORD: about 100 bytes a line, so 64 MiB lists some 600,000 entries
   (a 90,000-file wheel's RECORD is 10 MiB). */
#define RECORD_CAP (64u << 20)
#define WHEEL_CAP (64u << 10)
/* Only the headers of METADATA are read; a long description may follow. */
#define METADATA_CAP (256u << 10)
#define CHUNK 65536
/* The SBOM: some 300 bytes a component. */
#define SBOM_CAP (16u << 20)

/* --- the verifier, and pass 1 --- */

static void verifier_release(struct verifier *v)
{
	tf_wheel_name_release(&v->wn);
	tf_buf_release(&v->distinfo);
	tf_buf_release(&v->metadata);
	tf_buf_release(&v->wheel);
	tf_buf_release(&v->record);
	free(v->rows);
	free(v->entries);
	tf_buf_release(&v->libs_text);
	tf_buf_release(&v->sbom_text);
	tf_verify_cuda_release(v);
	tf_libs_record_release(&v->libs);
	free(v->requires);
	tf_strvec_release(&v->license_files);
	v->requires = NULL;
	v->nr_requires = 0;
	v->entries = NULL;
	tf_buf_release(&v->isa_text);
	tf_buf_release(&v->variant_text);
	tf_elf_need_release(&v->need);
	tf_macos_wheel_free(v->macho);
	v->macho = NULL;
	free(v->isa_globs);
	v->isa_globs = NULL;
	v->rows = NULL;
	v->nr_rows = 0;
}

/*
 * Zip entry names are UTF-8 (or flagged as such). In tfbuild's C locale
 * libarchive cannot convert them and warns, which would hide the other
 * header warnings (local header disagreeing with the central directory)
 * that are defects. The reader's UTF-8 mode avoids that; where the
 * system has no UTF-8 locale, non-ASCII names are reported as
 * unreadable.
 */
static struct tf_wheel_reader *open_wheel(const struct verifier *v)
{
	struct tf_buf why = TF_BUF_INIT;
	struct tf_wheel_reader *r;

	/*
	 * A wheel this process just packed is read by the streaming reader,
	 * through its local headers (pass 1 compares their names with the
	 * central directory's, scan()): the seekable reader would hold the
	 * central directory (9 MB at 63,000 entries) on top of RECORD and
	 * its rows, the peak RSS of a recipe run.
	 */
	r = tf_wheel_open(
		v->path,
		(v->packed ? TF_WHEEL_STREAMABLE : TF_WHEEL_SEEKABLE) |
			TF_WHEEL_UTF8,
		CHUNK, &why);
	if (!r)
		tf_verify_defect(v, NULL, "cannot read the zip archive: %s",
				 why.buf);
	tf_buf_release(&why);
	return r;
}

static int check_entry_name(const struct verifier *v, const char *name,
			    int is_dir)
{
	struct tf_buf b = TF_BUF_INIT;
	int safe;

	if (!name || !*name)
		return tf_verify_defect(v, NULL,
					"an entry has an empty or "
					"unreadable name");
	if (name[0] == '/')
		return tf_verify_defect(v, name, "absolute entry name");
	if (strchr(name, '\\'))
		return tf_verify_defect(v, name,
					"entry name contains a backslash");
	/* A directory's trailing '/' is not an empty component. */
	tf_buf_addstr(&b, name);
	if (is_dir && b.len > 1 && b.buf[b.len - 1] == '/')
		tf_buf_setlen(&b, b.len - 1);
	safe = tf_path_is_safe_relative(b.buf);
	tf_buf_release(&b);
	if (!safe)
		return tf_verify_defect(v, name,
					"entry name has a '..' component");
	return 0;
}

/* Remember the first top-level *.dist-info directory; a second is a defect. */
static int note_dist_info(struct verifier *v, const char *name)
{
	const char *slash = strchr(name, '/');
	size_t n = slash ? (size_t)(slash - name) : 0,
	       sl = strlen(".dist-info");

	if (n <= sl || strncmp(name + n - sl, ".dist-info", sl))
		return 0;
	if (!v->distinfo.len) {
		tf_buf_add(&v->distinfo, name, n);
		return 0;
	}
	if (v->distinfo.len == n && !strncmp(v->distinfo.buf, name, n))
		return 0;
	return tf_verify_defect(v, NULL,
				"more than one .dist-info directory: "
				"'%s' and '%.*s'",
				v->distinfo.buf, (int)n, name);
}

/* Read the current entry into b, keeping at most cap bytes. */
static int read_capped(const struct verifier *v, struct tf_wheel_reader *r,
		       const char *name, struct tf_buf *b, size_t cap,
		       int truncate)
{
	char chunk[CHUNK];
	ssize_t n;

	while ((n = tf_wheel_read(r, chunk, sizeof(chunk))) > 0) {
		size_t room = cap - b->len;

		if ((size_t)n > room && !truncate)
			return tf_verify_defect(v, name, "larger than %zu KiB",
						cap >> 10);
		if ((size_t)n > room) {
			/* The rest is checked in pass 2, not kept. */
			tf_buf_add(b, chunk, room);
			return 0;
		}
		tf_buf_add(b, chunk, (size_t)n);
	}
	if (n < 0)
		return tf_verify_defect(v, name, "corrupt data: %s",
					tf_wheel_error(r));
	return 0;
}

/* In pass 1, keep the contents of METADATA, WHEEL and RECORD. */
static int capture(struct verifier *v, struct tf_wheel_reader *r,
		   const struct tf_wheel_member *m, const char *name)
{
	size_t n = v->distinfo.len;
	const char *base;

	if (!n || strncmp(name, v->distinfo.buf, n) || name[n] != '/')
		return 0;
	base = name + n + 1;
	if (!strcmp(base, "METADATA") && !v->have_metadata++)
		return read_capped(v, r, name, &v->metadata, METADATA_CAP, 1);
	if (!strcmp(base, "WHEEL") && !v->have_wheel++)
		return read_capped(v, r, name, &v->wheel, WHEEL_CAP, 0);
	if (!strcmp(base, "RECORD") && !v->have_record++) {
		/* Its declared size, if plausible: no slack from growing
		   (RECORD is some 6 MB at 63,000 entries). */
		if (m->size_known && m->size > 0 && m->size <= RECORD_CAP)
			tf_buf_grow(&v->record, (size_t)m->size);
		return read_capped(v, r, name, &v->record, RECORD_CAP, 0);
	}
	if (!strcmp(base, TF_ISA_RECORD) && !v->have_isa++)
		return read_capped(v, r, name, &v->isa_text, WHEEL_CAP, 0);
	if (!strcmp(base, "variant.json") && !v->have_variant++)
		return read_capped(v, r, name, &v->variant_text, WHEEL_CAP, 0);
	if (!strcmp(base, TF_LIBS_RECORD) && !v->have_libs++)
		return read_capped(v, r, name, &v->libs_text, WHEEL_CAP, 0);
	if (!strcmp(base, TF_CUDA_RECORD) && !v->have_cuda++)
		return read_capped(v, r, name, &v->cuda_text, WHEEL_CAP, 0);
	if (!strcmp(base, TF_SBOM_RECORD) && !v->have_sbom++)
		return read_capped(v, r, name, &v->sbom_text, SBOM_CAP, 0);
	return 0;
}

/*
 * A wheel just packed is not given to tf_zipcheck: pass 1 compares the
 * names its central directory lists, read as pip's zipfile reads them,
 * with its local headers', in step, and finds RECORD last (tfbuild
 * writes it last). In a wheel from elsewhere RECORD elsewhere is only
 * a warning: the wheel format encourages `.dist-info` at the end but
 * does not require it (tensorflow-cpu and torch put it first).
 */
static int same_central(const struct verifier *v, struct tf_zip_names *cd,
			const struct tf_wheel_member *m,
			const char *after_record)
{
	const char *local = m->name, *name;
	int bad;

	if (!cd)
		return 0;
	if (after_record)
		return tf_verify_defect(v, after_record,
					"not the last entry of the archive");
	name = tf_zip_names_next(cd, &bad);
	if (bad)
		return tf_verify_defect(v, NULL,
					"the zip archive's central "
					"directory cannot be read");
	if (!name)
		return tf_verify_defect(v, local,
					"in the local headers but "
					"not in the central directory");
	if (!local || strcmp(name, local))
		return tf_verify_defect(v, local,
					"the central directory names "
					"the entry '%s' that the local header "
					"calls '%s'",
					name, local ? local : "");
	return 0;
}

static int central_ends(const struct verifier *v, struct tf_zip_names *cd)
{
	const char *name;
	int bad;

	if (!cd)
		return 0;
	name = tf_zip_names_next(cd, &bad);
	if (bad)
		return tf_verify_defect(v, NULL,
					"the zip archive's central "
					"directory cannot be read");
	if (name)
		return tf_verify_defect(v, name,
					"in the central directory but "
					"not in the local headers");
	return 0;
}

/* Pass 1: entry names, the .dist-info directory and its metadata. */
static int scan(struct verifier *v)
{
	struct tf_wheel_reader *r = open_wheel(v);
	const struct tf_wheel_member *m;
	enum tf_wheel_step step;
	struct tf_zip_names *cd = NULL;
	struct tf_buf why = TF_BUF_INIT;
	char *record = NULL; /* RECORD's name once seen */
	int ret = -1, warned = 0;

	if (!r)
		return -1;
	if (v->packed && !(cd = tf_zip_names_open(v->path, &why))) {
		tf_verify_defect(v, NULL, "%s", why.buf);
		goto out;
	}
	while ((step = tf_wheel_next(r, &m)) == TF_WHEEL_MEMBER) {
		const char *name = m->name;

		if (same_central(v, cd, m, record) < 0 ||
		    check_entry_name(v, name, m->type == TF_WHEEL_DIR) < 0)
			goto out;
		if (m->type == TF_WHEEL_DIR)
			continue;
		if (m->type != TF_WHEEL_FILE) {
			tf_verify_defect(v, name, "not a regular file");
			goto out;
		}
		if (note_dist_info(v, name) < 0 || capture(v, r, m, name) < 0)
			goto out;
		v->conventions |= tf_conventions_relevant(name);
		if (!cd && record && !warned++)
			warning("%s: %s: not the last entry of the archive "
				"(the wheel format encourages it last)",
				v->path, record);
		if (!record && tf_verify_is_self(v, name))
			record = tf_strdup(name);
	}
	if (step != TF_WHEEL_END) {
		tf_verify_defect(v, NULL, "cannot read the zip archive: %s",
				 tf_wheel_error(r));
		goto out;
	}
	ret = central_ends(v, cd);
out:
	tf_wheel_close(r);
	tf_zip_names_close(cd);
	tf_buf_release(&why);
	free(record);
	return ret;
}

/* --- pass 2: every entry against RECORD --- */

/* RECORD.jws and RECORD.p7s sign RECORD, so RECORD cannot hash them. */
static int is_signature(const struct verifier *v, const char *path)
{
	size_t n = v->distinfo.len;

	return !strncmp(path, v->distinfo.buf, n) && path[n] == '/' &&
	       (!strcmp(path + n + 1, "RECORD.jws") ||
		!strcmp(path + n + 1, "RECORD.p7s"));
}

/*
 * An ELF entry is copied to a temporary file as it streams past, so
 * libelf can check it; fd is -1 until the entry shows the ELF magic.
 * So is a Mach-O entry of a macOS wheel, for LLVM (macho/).
 */
struct elf_copy {
	int fd;        /* owned, or -1 */
	char path[64]; /* the temporary file */
	int failed;    /* a write failed: the entry cannot be checked */
	int macos;     /* 1: the wheel's tag is macOS's: Mach-O is copied */
	int macho;     /* 1: the entry is Mach-O, not ELF */
};

static void elf_copy_chunk(struct elf_copy *c, const char *chunk, size_t n,
			   long long offset)
{
	if (offset == 0 && c->macos && tf_macho_magic(chunk, n))
		c->macho = 1;
	if (offset == 0 &&
	    ((n >= 4 && !memcmp(chunk, "\177ELF", 4)) || c->macho)) {
		const char *tmp = getenv("TMPDIR");

		snprintf(c->path, sizeof(c->path), "%.40s/tfbuild-elf.XXXXXX",
			 tmp && *tmp == '/' && strlen(tmp) < 40 ? tmp : "/tmp");
		c->fd = mkstemp(c->path);
		c->failed = c->fd < 0;
	}
	if (c->fd >= 0 && tf_write_all(c->fd, chunk, n) < 0)
		c->failed = 1;
}

/* Check a copied ELF entry against the platform's rules; -1 if it breaks one. */
static int elf_copy_finish(struct verifier *v, struct elf_copy *c,
			   const char *name, int ok)
{
	enum tf_elf_verify_result res;
	int ret = 0;

	if (c->fd < 0)
		return c->failed && ok
			       ? tf_verify_defect(v, name,
						  "cannot copy it to check it "
						  "as ELF: %s",
						  strerror(errno))
			       : 0;
	close(c->fd);
	if (ok && c->failed)
		ret = tf_verify_defect(
			v, name, "cannot copy it to check it as %s: %s",
			c->macho ? "Mach-O" : "ELF", strerror(errno));
	else if (ok && c->macho)
		v->macho_refused +=
			tf_macos_verify_file(c->path, name, &v->macos,
					     v->macho) < 0;
	/* Every ELF file is checked and its code audited (if it could be
	   read), each refusal said: the wheel fails at the end
	   (verify_archive). */
	else if (ok) {
		res = tf_elf_verify_file_need(c->path, name, &v->elf, &v->need);
		v->elf_refused += res < 0;
		if (res != TF_ELF_VERIFY_FAILED &&
		    tf_isa_audit_file(c->path, name, v->path, &v->isa) ==
			    TF_ISA_AUDIT_FAILED)
			v->isa_refused++;
		if (res != TF_ELF_VERIFY_FAILED &&
		    tf_verify_cuda_file(v, c->path, name) < 0)
			v->cuda_refused++;
	}
	unlink(c->path);
	c->fd = -1;
	return ret;
}

/*
 * Stream the current entry through the digest RECORD names for it
 * (sha256 when it names none); libarchive checks the CRC.
 */
static int hash_entry(struct verifier *v, struct tf_wheel_reader *r,
		      const char *name, const struct record_row *row,
		      char b64[TF_DIGEST_B64_MAX], long long *size)
{
	struct elf_copy copy = { .fd = -1, .macos = v->macos.macos };
	char algo[8] = "sha256";
	struct tf_digest *h;
	char chunk[CHUNK];
	ssize_t n;

	if (row && *row->hash)
		snprintf(algo, sizeof(algo), "%.6s", row->hash);
	h = tf_digest_new(algo);
	if (!h)
		BUG("RECORD hash '%s' passed its check", row->hash);
	*size = 0;
	while ((n = tf_wheel_read(r, chunk, sizeof(chunk))) > 0) {
		tf_digest_update(h, chunk, (size_t)n);
		elf_copy_chunk(&copy, chunk, (size_t)n, *size);
		*size += n;
	}
	if (n < 0) {
		tf_digest_free(h);
		elf_copy_finish(v, &copy, name, 0);
		return tf_verify_defect(v, name, "corrupt data: %s",
					tf_wheel_error(r));
	}
	tf_digest_final_b64(h, b64);
	return elf_copy_finish(v, &copy, name, 1);
}

static int compare_row(const struct verifier *v, const char *name,
		       const struct record_row *row, const char *b64,
		       long long size)
{
	if (!*row->hash)
		return tf_verify_defect(v, name, "has no hash in RECORD");
	if (!*row->size)
		return tf_verify_defect(v, name, "has no size in RECORD");
	if (size != atoll(row->size))
		return tf_verify_defect(v, name,
					"size %lld does not match RECORD (%s)",
					size, row->size);
	if (strncmp(row->hash + 7, b64, strlen(b64)) ||
	    strspn(row->hash + 7 + strlen(b64), "=") !=
		    strlen(row->hash + 7 + strlen(b64)))
		return tf_verify_defect(v, name, "%.6s does not match RECORD",
					row->hash);
	return 0;
}

/*
 * A wheel this process just packed: the size its local header declares
 * (the writer's count of the bytes it compressed) stands for
 * the inflated size; the digest in RECORD is the packer's, taken from
 * the same bytes it compressed, and each compressed block was inflated
 * and compared as it was written (wheel/zipout.c).
 */
static int declared_size(const struct verifier *v,
			 const struct tf_wheel_member *m, const char *name,
			 long long *size)
{
	if (!m->size_known)
		return tf_verify_defect(v, name,
					"no uncompressed size in its header");
	*size = m->size;
	return 0;
}

static int check_entry(struct verifier *v, struct tf_wheel_reader *r,
		       const struct tf_wheel_member *m, const char *name,
		       int *seen_self)
{
	struct record_row *row = tf_verify_find_row(v, name);
	int self = tf_verify_is_self(v, name), sig = is_signature(v, name);
	int *seen = row ? &row->seen : self ? seen_self : NULL;
	long long size;
	char b64[TF_DIGEST_B64_MAX];

	if (!row && !self && !sig)
		return tf_verify_defect(v, name, "not listed in RECORD");
	if (seen && (*seen)++)
		return tf_verify_defect(v, name, "duplicate entry name");
	if (v->packed) {
		if (declared_size(v, m, name, &size) < 0)
			return -1;
		if (self || !row || (sig && !*row->hash))
			return 0;
		if (!*row->hash)
			return tf_verify_defect(v, name,
						"has no hash in RECORD");
		if (!*row->size || size != atoll(row->size))
			return tf_verify_defect(v, name,
						"size %lld does not "
						"match RECORD (%s)",
						size, row->size);
		return 0;
	}
	if (hash_entry(v, r, name, row, b64, &size) < 0)
		return -1;
	/* RECORD cannot hash itself; signatures may go unhashed. */
	if (self || !row || (sig && !*row->hash))
		return 0;
	return compare_row(v, name, row, b64, size);
}

static int check_entries(struct verifier *v)
{
	struct tf_wheel_reader *r = open_wheel(v);
	const struct tf_wheel_member *m;
	enum tf_wheel_step step;
	int ret = -1, seen_self = 0;

	if (!r)
		return -1;
	while ((step = tf_wheel_next(r, &m)) == TF_WHEEL_MEMBER) {
		if (m->type == TF_WHEEL_DIR)
			continue;
		if (check_entry(v, r, m, m->name, &seen_self) < 0)
			goto out;
	}
	if (step != TF_WHEEL_END) {
		tf_verify_defect(v, NULL, "cannot read the zip archive: %s",
				 tf_wheel_error(r));
		goto out;
	}
	ret = 0;
out:
	tf_wheel_close(r);
	return ret;
}

static int check_missing(const struct verifier *v)
{
	size_t i;

	for (i = 0; i < v->nr_rows; i++)
		if (!v->rows[i].seen)
			return tf_verify_defect(v, v->rows[i].path,
						"listed in RECORD but missing "
						"from the archive");
	return 0;
}

/*
 * With -v, the lowest manylinux policy the ELF files allow, as
 * `auditwheel show` says it ("is consistent with the following platform
 * tag"): the tag may name a newer one, never an older one (refused).
 */
static void say_platform(const struct verifier *v)
{
	struct tf_buf tag = TF_BUF_INIT;
	const char *why;

	if (v->elf.platform.kind != TF_PLATFORM_MANYLINUX || tf_verbosity < 2)
		return;
	if (v->elf_refused) {
		verbose("%s: platform: its ELF files allow no manylinux tag "
			"(refused above)",
			v->path);
		return;
	}
	why = tf_elf_need_tag(&v->elf, &v->need, &tag);
	verbose("%s: platform: its ELF files allow %s (%s)", v->path, tag.buf,
		why);
	tf_buf_release(&tag);
}

/* A macosx_ tag: its Mach-O files are checked in pass 2 (audit/macos.h). */
static int macos_rules(struct verifier *v)
{
	struct tf_buf why = TF_BUF_INIT;
	int ret = 0;

	if (tf_macos_rules_for_platform(&v->macos, v->wn.platform, &why) < 0)
		ret = tf_verify_defect(v, NULL, "%s", why.buf);
	v->macos.context = v->path;
	v->macos.wheel_files = v->entries;
	v->macos.nr_wheel_files = v->nr_rows;
	v->macos.libs = v->libs.v;
	v->macos.nr_libs = v->libs.nr;
	if (v->macos.macos)
		v->macho = tf_macos_wheel_new();
	tf_buf_release(&why);
	return ret;
}

/* After pass 2: the Mach-O files' loads of each other. */
static void macos_finish(struct verifier *v)
{
	if (v->macho && tf_macos_wheel_finish(v->macho, &v->macos) < 0)
		v->macho_refused++;
}

static int verify_archive(struct verifier *v)
{
	if (scan(v) < 0 || tf_verify_distinfo(v) < 0 || macos_rules(v) < 0 ||
	    check_entries(v) < 0 || check_missing(v) < 0)
		return -1;
	macos_finish(v);
	say_platform(v);
	if (v->elf_refused || v->isa_refused || v->macho_refused ||
	    v->cuda_refused)
		return -1;
	return 0;
}

static int verify_wheel(const char *path, int packed)
{
	struct verifier v = VERIFIER_INIT;
	struct tf_buf why = TF_BUF_INIT;
	struct stat st;
	int ret = -1;

	v.path = path;
	v.packed = packed;
	if (stat(path, &st) < 0) {
		tf_verify_defect(&v, NULL, "cannot open: %s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		tf_verify_defect(&v, NULL, "not a regular file");
		goto out;
	}
	/* A wheel just packed: scan() checks what it needs of this. */
	if (tf_wheel_name_parse(path, &v.wn, &why) < 0 ||
	    (!packed && tf_zipcheck(path, &why) < 0)) {
		tf_verify_defect(&v, NULL, "%s", why.buf);
		goto out;
	}
	ret = verify_archive(&v);
	/* RECORD and its rows are not needed any more (peak RSS). */
	verifier_release(&v);
	/*
	 * A sound wheel must also follow its frameworks' loading
	 * conventions; one with no entry they are about (pass 1 saw every
	 * name) is not read once more for them.
	 */
	if (!ret && v.conventions)
		ret = tf_conventions_verify(path, !packed);
out:
	tf_buf_release(&why);
	verifier_release(&v);
	return ret;
}

int tf_verify_wheel(const char *path)
{
	return verify_wheel(path, 0);
}

int tf_verify_wheel_packed(const char *path)
{
	return verify_wheel(path, 1);
}
