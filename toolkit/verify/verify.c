/*
 * Verify a wheel the way an installer sees it, without trusting who made
 * it: nothing here uses wheel.c. The archive is read through the wheel
 * reader's seekable mode (wheelread.h), which walks the central
 * directory as pip's zipfile does. Two passes keep memory bounded by
 * RECORD (capped), not by the wheel: the first reads names and the
 * .dist-info files, the second streams every entry through sha256 and
 * checks it against RECORD.
 */
#include "verify.h"
#include "wheel/wheel.h"

#include <errno.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit/audit.h"
#include "base/base.h"
#include "metadata/metadata.h"

/* Caps for what is held in memory from untrusted input. */
/* RECORD: about 100 bytes a line, so 64 MiB lists some 600,000 entries
   (a 90,000-file wheel's RECORD is 10 MiB). */
#define RECORD_CAP (64u << 20)
#define WHEEL_CAP (64u << 10)
/* Only the headers of METADATA are read; a long description may follow. */
#define METADATA_CAP (256u << 10)
#define CHUNK 65536

/* --- the filename --- */

void tf_wheel_name_release(struct tf_wheel_name *wn)
{
	if (!wn)
		return;
	free(wn->name);
	free(wn->version);
	free(wn->build);
	free(wn->python);
	free(wn->abi);
	free(wn->platform);
	memset(wn, 0, sizeof(*wn));
}

static int check_name_parts(const struct tf_wheel_name *wn, struct tf_buf *why)
{
	struct tf_buf v = TF_BUF_INIT;
	int bad;

	if (!tf_pyname_is_valid(wn->name))
		return tf_why(why, "'%s' is not a valid distribution name",
			       wn->name);
	bad = tf_pep440_normalize(wn->version, &v) < 0;
	tf_buf_release(&v);
	if (bad)
		return tf_why(why, "version '%s' is not a valid PEP 440 version",
			       wn->version);
	/* A build tag starts with a digit (binary distribution format). */
	if (wn->build && (wn->build[0] < '0' || wn->build[0] > '9' ||
			  !tf_wheel_tag_is_valid(wn->build)))
		return tf_why(why, "build tag '%s' is not valid", wn->build);
	if (!tf_wheel_tag_is_valid(wn->python) ||
	    !tf_wheel_tag_is_valid(wn->abi) ||
	    !tf_wheel_tag_is_valid(wn->platform))
		return tf_why(why, "tags '%s-%s-%s' are not valid", wn->python,
			       wn->abi, wn->platform);
	return 0;
}

/* Split s in place at '-' into 5 or 6 non-empty parts; the count or -1. */
static int split_dashes(char *s, char *parts[6])
{
	int i, nr = 0;

	for (;;) {
		if (nr == 6)
			return -1;
		parts[nr++] = s;
		s = strchrnul(s, '-');
		if (!*s)
			break;
		*s++ = '\0';
	}
	for (i = 0; i < nr; i++)
		if (!*parts[i])
			return -1;
	return nr < 5 ? -1 : nr;
}

int tf_wheel_name_parse(const char *filename, struct tf_wheel_name *wn,
			struct tf_buf *why)
{
	const char *base = tf_path_basename(filename);
	size_t n = strlen(base);
	char *stem, *parts[6];
	int nr;

	tf_wheel_name_release(wn);
	if (n < 4 || strcmp(base + n - 4, ".whl"))
		return tf_why(why, "filename does not end in '.whl'");
	stem = tf_strndup(base, n - 4);
	nr = split_dashes(stem, parts);
	if (nr < 0) {
		free(stem);
		return tf_why(why, "filename is not NAME-VERSION[-BUILD]-"
			       "PYTHON-ABI-PLATFORM.whl");
	}
	wn->name = tf_strdup(parts[0]);
	wn->version = tf_strdup(parts[1]);
	wn->build = nr == 6 ? tf_strdup(parts[2]) : NULL;
	wn->python = tf_strdup(parts[nr - 3]);
	wn->abi = tf_strdup(parts[nr - 2]);
	wn->platform = tf_strdup(parts[nr - 1]);
	free(stem);
	if (check_name_parts(wn, why) < 0) {
		tf_wheel_name_release(wn);
		return -1;
	}
	return 0;
}

/* --- RECORD as CSV --- */

/* Skip one blank line (LF, CRLF or CR) at r->pos; 0 if there is none. */
static int blank_line(struct tf_record_reader *r)
{
	char *p = r->pos;

	if (*p == '\r' && p[1] == '\n')
		p++;
	if (*p != '\r' && *p != '\n')
		return 0;
	r->pos = p + 1;
	r->line++;
	return 1;
}

/*
 * One field at r->pos, unquoted and NUL-terminated in place, with the
 * byte that ended it (',', CR, LF or NUL) in *term; NULL if a quote is
 * not closed or text follows a closing quote.
 */
static char *field(struct tf_record_reader *r, char *term)
{
	char *start = r->pos, *w = r->pos;

	if (*r->pos == '"') {
		for (r->pos++;; r->pos++) {
			if (!*r->pos)
				return NULL;
			if (*r->pos == '"' && r->pos[1] != '"')
				break;
			if (*r->pos == '"')
				r->pos++;
			else if (*r->pos == '\n')
				r->line++;
			*w++ = *r->pos;
		}
		r->pos++;
		if (*r->pos && !strchr(",\r\n", *r->pos))
			return NULL;
	}
	while (*r->pos && !strchr(",\r\n", *r->pos))
		*w++ = *r->pos++;
	/* Read the terminator before w, which may point at it, ends the field. */
	*term = *r->pos;
	*w = '\0';
	return start;
}

int tf_record_next(struct tf_record_reader *r)
{
	char *f[3], term;
	int nr = 0;

	while (blank_line(r))
		;
	if (!*r->pos)
		return 0;
	r->row_line = r->line;
	for (;;) {
		char *s = field(r, &term);

		if (!s || nr == 3)
			return -1;
		f[nr++] = s;
		if (term != ',')
			break;
		r->pos++;
	}
	if (term) {
		r->pos++;
		if (term == '\r' && *r->pos == '\n')
			r->pos++;
		r->line++;
	}
	if (nr != 3)
		return -1;
	r->path = f[0];
	r->hash = f[1];
	r->size = f[2];
	return 1;
}

/* --- the verifier --- */

struct record_row {
	const char *path; /* borrowed from verifier.record */
	const char *hash; /* borrowed; "sha256=..." or "" */
	const char *size; /* borrowed; digits or "" */
	size_t line;      /* where it is in RECORD */
	int seen;         /* 1 once the entry was found in the archive */
};

struct verifier {
	const char *path;        /* borrowed; the wheel as the user named it */
	struct tf_wheel_name wn; /* the filename's parts */
	struct tf_buf distinfo;  /* the .dist-info directory found, no '/' */
	struct tf_buf metadata;  /* METADATA's start (capped) */
	struct tf_buf wheel;     /* WHEEL (capped) */
	struct tf_buf record;    /* RECORD (capped), parsed in place */
	int have_metadata, have_wheel, have_record; /* found in pass 1 */
	struct record_row *rows; /* owned; sorted by path */
	size_t nr_rows;
	struct tf_elf_rules elf; /* what ELF entries must satisfy, from the tag */
	const char **entries;    /* owned array of borrowed RECORD paths */
	struct tf_buf isa_text;  /* .dist-info/tfbuild-isa (capped), parsed in place */
	int have_isa;
	struct tf_isa_policy isa; /* its declarations, pointing into isa_text */
	const char **isa_globs;  /* owned array behind isa.dispatch */
	struct tf_buf libs_text; /* .dist-info/tfbuild/libraries.json (capped) */
	int have_libs;
	struct tf_libs_record libs; /* its decisions */
	const char **requires;   /* owned array of Requires-Dist values,
				    pointing into metadata */
	size_t nr_requires;
	struct tf_strvec license_files; /* METADATA's License-File values */
	int conventions;         /* 1: an entry a convention is about */
	int packed;              /* 1: just written by this process, whose
				    packer computed every entry's digest from
				    its source bytes: entries are not inflated
				    again (tf_verify_wheel_packed) */
};

#define VERIFIER_INIT                                                      \
	{ NULL, TF_WHEEL_NAME_INIT, TF_BUF_INIT, TF_BUF_INIT, TF_BUF_INIT,  \
	  TF_BUF_INIT, 0, 0, 0, NULL, 0, TF_ELF_RULES_INIT, NULL,           \
	  TF_BUF_INIT, 0, TF_ISA_POLICY_INIT, NULL,                  \
	  TF_BUF_INIT, 0, TF_LIBS_RECORD_INIT, NULL, 0, TF_STRVEC_INIT, 0, 0 }

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
	tf_libs_record_release(&v->libs);
	free(v->requires);
	tf_strvec_release(&v->license_files);
	v->requires = NULL;
	v->nr_requires = 0;
	v->entries = NULL;
	tf_buf_release(&v->isa_text);
	free(v->isa_globs);
	v->isa_globs = NULL;
	v->rows = NULL;
	v->nr_rows = 0;
}

/* Report a defect: "WHEEL: ENTRY: what", or "WHEEL: what" without entry. */
static int defect(const struct verifier *v, const char *entry,
		  const char *fmt, ...) TF_PRINTF(3, 4);

static int defect(const struct verifier *v, const char *entry,
		  const char *fmt, ...)
{
	struct tf_buf what = TF_BUF_INIT, msg = TF_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	tf_buf_vaddf(&what, fmt, ap);
	va_end(ap);
	/* libarchive ends some messages with a newline: keep one line. */
	while (what.len && (what.buf[what.len - 1] == '\n' ||
			    what.buf[what.len - 1] == ' '))
		tf_buf_setlen(&what, what.len - 1);
	tf_buf_addstr(&msg, v->path);
	tf_buf_addstr(&msg, ": ");
	if (entry) {
		tf_buf_addstr(&msg, entry);
		tf_buf_addstr(&msg, ": ");
	}
	tf_buf_addstr(&msg, what.buf);
	error("%s", msg.buf);
	tf_buf_release(&what);
	tf_buf_release(&msg);
	return -1;
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
	r = tf_wheel_open(v->path, (v->packed ? TF_WHEEL_STREAMABLE :
				    TF_WHEEL_SEEKABLE) | TF_WHEEL_UTF8, CHUNK,
			  &why);
	if (!r)
		defect(v, NULL, "cannot read the zip archive: %s", why.buf);
	tf_buf_release(&why);
	return r;
}

static int check_entry_name(const struct verifier *v, const char *name,
			    int is_dir)
{
	struct tf_buf b = TF_BUF_INIT;
	int safe;

	if (!name || !*name)
		return defect(v, NULL, "an entry has an empty or unreadable name");
	if (name[0] == '/')
		return defect(v, name, "absolute entry name");
	if (strchr(name, '\\'))
		return defect(v, name, "entry name contains a backslash");
	/* A directory's trailing '/' is not an empty component. */
	tf_buf_addstr(&b, name);
	if (is_dir && b.len > 1 && b.buf[b.len - 1] == '/')
		tf_buf_setlen(&b, b.len - 1);
	safe = tf_path_is_safe_relative(b.buf);
	tf_buf_release(&b);
	if (!safe)
		return defect(v, name, "entry name has a '..' component");
	return 0;
}

/* Remember the first top-level *.dist-info directory; a second is a defect. */
static int note_dist_info(struct verifier *v, const char *name)
{
	const char *slash = strchr(name, '/');
	size_t n = slash ? (size_t)(slash - name) : 0, sl = strlen(".dist-info");

	if (n <= sl || strncmp(name + n - sl, ".dist-info", sl))
		return 0;
	if (!v->distinfo.len) {
		tf_buf_add(&v->distinfo, name, n);
		return 0;
	}
	if (v->distinfo.len == n && !strncmp(v->distinfo.buf, name, n))
		return 0;
	return defect(v, NULL, "more than one .dist-info directory: '%s' and "
		      "'%.*s'", v->distinfo.buf, (int)n, name);
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
			return defect(v, name, "larger than %zu KiB", cap >> 10);
		if ((size_t)n > room) {
			/* The rest is checked in pass 2, not kept. */
			tf_buf_add(b, chunk, room);
			return 0;
		}
		tf_buf_add(b, chunk, (size_t)n);
	}
	if (n < 0)
		return defect(v, name, "corrupt data: %s", tf_wheel_error(r));
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
	if (!strcmp(base, TF_LIBS_RECORD) && !v->have_libs++)
		return read_capped(v, r, name, &v->libs_text, WHEEL_CAP, 0);
	return 0;
}

/* Pass 1: entry names, the .dist-info directory and its metadata. */
static int is_self(const struct verifier *v, const char *path);

/*
 * A wheel just packed is not given to tf_zipcheck: pass 1 compares the
 * names its central directory lists, read as pip's zipfile reads them,
 * with its local headers', in step, and finds RECORD last.
 */
static int same_central(const struct verifier *v, struct tf_zip_names *cd,
			const struct tf_wheel_member *m, const char *after_record)
{
	const char *local = m->name, *name;
	int bad;

	if (!cd)
		return 0;
	if (after_record)
		return defect(v, after_record, "not the last entry of the archive");
	name = tf_zip_names_next(cd, &bad);
	if (bad)
		return defect(v, NULL, "the zip archive's central directory "
			      "cannot be read");
	if (!name)
		return defect(v, local, "in the local headers but not in the "
			      "central directory");
	if (!local || strcmp(name, local))
		return defect(v, local, "the central directory names the entry "
			      "'%s' that the local header calls '%s'", name,
			      local ? local : "");
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
		return defect(v, NULL, "the zip archive's central directory "
			      "cannot be read");
	if (name)
		return defect(v, name, "in the central directory but not in the "
			      "local headers");
	return 0;
}

static int scan(struct verifier *v)
{
	struct tf_wheel_reader *r = open_wheel(v);
	const struct tf_wheel_member *m;
	enum tf_wheel_step step;
	struct tf_zip_names *cd = NULL;
	struct tf_buf why = TF_BUF_INIT;
	char *record = NULL; /* RECORD's name once seen (packed) */
	int ret = -1;

	if (!r)
		return -1;
	if (v->packed && !(cd = tf_zip_names_open(v->path, &why))) {
		defect(v, NULL, "%s", why.buf);
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
			defect(v, name, "not a regular file");
			goto out;
		}
		if (note_dist_info(v, name) < 0 || capture(v, r, m, name) < 0)
			goto out;
		v->conventions |= tf_conventions_relevant(name);
		if (cd && !record && is_self(v, name))
			record = tf_strdup(name);
	}
	if (step != TF_WHEEL_END) {
		defect(v, NULL, "cannot read the zip archive: %s",
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

/* --- the .dist-info files --- */

/*
 * The next "Key: value" line of an email-style header block, split in
 * place. Returns 1, or 0 at the blank line or end closing the block.
 * Continuation lines and lines without a colon are skipped.
 */
static int next_header(char **pos, char **key, char **value)
{
	for (;;) {
		char *line = *pos, *end = line + strcspn(line, "\n"), *colon;

		if (!*line)
			return 0;
		*pos = *end ? end + 1 : end;
		if (end > line && end[-1] == '\r')
			end--;
		*end = '\0';
		if (end == line)
			return 0;
		colon = strchr(line, ':');
		if (*line == ' ' || *line == '\t' || !colon)
			continue;
		*colon = '\0';
		for (colon++; *colon == ' ' || *colon == '\t'; colon++)
			;
		while (end > colon && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		*key = line;
		*value = colon;
		return 1;
	}
}

/* 1 if two spellings name the same distribution (PEP 503). */
static int same_name(const char *a, size_t alen, const char *b)
{
	struct tf_buf x = TF_BUF_INIT, y = TF_BUF_INIT;
	char *tmp = tf_strndup(a, alen);
	int same;

	tf_pyname_normalize(tmp, &x);
	tf_pyname_normalize(b, &y);
	same = !strcmp(x.buf, y.buf);
	free(tmp);
	tf_buf_release(&x);
	tf_buf_release(&y);
	return same;
}

/* 1 if two valid PEP 440 versions are the same once normalized. */
static int same_version(const char *a, size_t alen, const char *b)
{
	struct tf_buf x = TF_BUF_INIT, y = TF_BUF_INIT;
	char *tmp = tf_strndup(a, alen);
	int same;

	same = !tf_pep440_normalize(tmp, &x) && !tf_pep440_normalize(b, &y) &&
	       !strcmp(x.buf, y.buf);
	free(tmp);
	tf_buf_release(&x);
	tf_buf_release(&y);
	return same;
}

/* NAME-VERSION.dist-info must match the filename; try each '-' split. */
static int check_dist_info(const struct verifier *v)
{
	const char *d = v->distinfo.buf, *dash;
	size_t n;

	if (!v->distinfo.len)
		return defect(v, NULL, "no .dist-info directory");
	n = v->distinfo.len - strlen(".dist-info");
	for (dash = d; (dash = memchr(dash, '-', n - (size_t)(dash - d)));
	     dash++) {
		size_t name_len = (size_t)(dash - d);

		if (same_name(d, name_len, v->wn.name) &&
		    same_version(dash + 1, n - name_len - 1, v->wn.version))
			return 0;
	}
	return defect(v, d, "does not match the filename's name '%s' and "
		      "version '%s'", v->wn.name, v->wn.version);
}

/*
 * Values tfbuild validates when a recipe is loaded are validated here
 * too, whoever wrote the wheel: License-Expression (SPDX),
 * Requires-Python (PEP 440), Requires-Dist (PEP 508), License-File (a
 * file under .dist-info/licenses, checked once RECORD is read).
 */
static int check_field(struct verifier *v, const char *entry,
		       const char *key, const char *val)
{
	struct tf_buf why = TF_BUF_INIT;
	const char *what = NULL;
	int ret = 0;

	if (!strcasecmp(key, "License-Expression") && tf_spdx_check(val, &why))
		what = "is not a valid SPDX license expression";
	else if (!strcasecmp(key, "Requires-Python") &&
		 tf_specifiers_check(val, &why))
		what = "is not a PEP 440 specifier set";
	else if (!strcasecmp(key, "Requires-Dist") &&
		 tf_requirement_check(val, &why))
		what = "is not a PEP 508 requirement";
	else if (!strcasecmp(key, "License-File"))
		tf_strvec_push(&v->license_files, val);
	if (what)
		ret = defect(v, entry, "%s '%s' %s: %s", key, val, what, why.buf);
	tf_buf_release(&why);
	return ret;
}

static int check_metadata(struct verifier *v)
{
	char *entry = tf_xstrfmt("%s/METADATA", v->distinfo.buf);
	char *pos = v->metadata.buf, *key, *val;
	const char *name = NULL, *version = NULL;
	int ret = -1;

	if (!v->have_metadata) {
		defect(v, entry, "missing");
		goto out;
	}
	while (next_header(&pos, &key, &val)) {
		if (!strcasecmp(key, "Requires-Dist")) {
			v->requires = tf_realloc(v->requires, (v->nr_requires + 1) *
						 sizeof(*v->requires));
			v->requires[v->nr_requires++] = val;
		}
		if (check_field(v, entry, key, val) < 0)
			goto out;
		if (!strcasecmp(key, "Name") && !name)
			name = val;
		else if (!strcasecmp(key, "Version") && !version)
			version = val;
	}
	if (!name || !version)
		defect(v, entry, "no %s field", name ? "Version" : "Name");
	else if (!same_name(name, strlen(name), v->wn.name))
		defect(v, entry, "Name '%s' does not match the filename's '%s'",
		       name, v->wn.name);
	else if (!same_version(version, strlen(version), v->wn.version))
		defect(v, entry, "Version '%s' does not match the filename's "
		       "'%s'", version, v->wn.version);
	else
		ret = 0;
out:
	free(entry);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sort and drop repeats: Tag lines form a set. */
static void sort_unique(struct tf_strvec *sv)
{
	size_t i, j = 0;

	qsort(sv->v, sv->nr, sizeof(*sv->v), cmp_str);
	for (i = 0; i < sv->nr; i++) {
		if (j && !strcmp(sv->v[j - 1], sv->v[i]))
			free(sv->v[i]);
		else
			sv->v[j++] = sv->v[i];
	}
	sv->nr = j;
	if (sv->alloc)
		sv->v[j] = NULL;
}

/* The first tag in only one of the sorted sets, as a defect. */
static int compare_tags(const struct verifier *v, const char *entry,
			const struct tf_strvec *got, const struct tf_strvec *want)
{
	size_t i = 0, j = 0;

	while (i < got->nr || j < want->nr) {
		int c = i == got->nr ? 1 : j == want->nr ? -1 :
			strcmp(got->v[i], want->v[j]);

		if (c < 0)
			return defect(v, entry, "Tag '%s' is not in the "
				      "filename", got->v[i]);
		if (c > 0)
			return defect(v, entry, "no Tag line for '%s' from the "
				      "filename", want->v[j]);
		i++;
		j++;
	}
	return 0;
}

static int is_wheel_version_1(const char *s)
{
	if (s[0] != '1')
		return 0;
	if (!s[1])
		return 1;
	if (s[1] != '.' || !s[2])
		return 0;
	return strspn(s + 2, "0123456789") == strlen(s + 2);
}

static int check_wheel_file(struct verifier *v)
{
	char *entry = tf_xstrfmt("%s/WHEEL", v->distinfo.buf);
	char *pos = v->wheel.buf, *key, *val;
	const char *version = NULL;
	struct tf_strvec got = TF_STRVEC_INIT, want = TF_STRVEC_INIT;
	int ret = -1;

	if (!v->have_wheel) {
		defect(v, entry, "missing");
		goto out;
	}
	while (next_header(&pos, &key, &val)) {
		if (!strcasecmp(key, "Wheel-Version") && !version)
			version = val;
		else if (!strcasecmp(key, "Tag"))
			tf_strvec_push(&got, val);
	}
	if (!version) {
		defect(v, entry, "no Wheel-Version field");
		goto out;
	}
	if (!is_wheel_version_1(version)) {
		defect(v, entry, "Wheel-Version '%s' is not 1.x", version);
		goto out;
	}
	if (tf_wheel_tags_expand(v->wn.python, v->wn.abi, v->wn.platform,
				 &want) < 0)
		BUG("filename tags were validated");
	sort_unique(&got);
	sort_unique(&want);
	ret = compare_tags(v, entry, &got, &want);
out:
	tf_strvec_release(&got);
	tf_strvec_release(&want);
	free(entry);
	return ret;
}

/* --- RECORD --- */

static int cmp_path(const void *a, const void *b)
{
	const struct record_row *x = a, *y = b;

	return strcmp(x->path, y->path);
}

/* By path, then line, so "listed twice" names the later line. */
static int cmp_rows(const void *a, const void *b)
{
	const struct record_row *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	return c ? c : x->line < y->line ? -1 : x->line > y->line;
}

static int is_self(const struct verifier *v, const char *path)
{
	size_t n = v->distinfo.len;

	return !strncmp(path, v->distinfo.buf, n) && path[n] == '/' &&
	       !strcmp(path + n + 1, "RECORD");
}

/* RECORD.jws and RECORD.p7s sign RECORD, so RECORD cannot hash them. */
static int is_signature(const struct verifier *v, const char *path)
{
	size_t n = v->distinfo.len;

	return !strncmp(path, v->distinfo.buf, n) && path[n] == '/' &&
	       (!strcmp(path + n + 1, "RECORD.jws") ||
		!strcmp(path + n + 1, "RECORD.p7s"));
}

/*
 * "ALGO=" and the urlsafe base64 digest: sha256 (43 digits), sha384 (64)
 * or sha512 (86), the spec's "sha256 or stronger"; padding is tolerated.
 */
static int is_hash_field(const char *s)
{
	static const struct { const char *prefix; size_t digits; } algos[] = {
		{ "sha256=", 43 }, { "sha384=", 64 }, { "sha512=", 86 },
	};
	size_t i, n;

	for (i = 0; i < sizeof(algos) / sizeof(*algos); i++) {
		if (strncmp(s, algos[i].prefix, 7))
			continue;
		n = strspn(s + 7, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			   "0123456789-_");
		return n == algos[i].digits &&
		       (!s[7 + n] || !strcmp(s + 7 + n, "=") ||
			!strcmp(s + 7 + n, "=="));
	}
	return 0;
}

static int check_row(const struct verifier *v, const char *entry,
		     const struct record_row *row)
{
	size_t digits = strspn(row->size, "0123456789");

	if (!*row->path)
		return defect(v, entry, "line %zu: empty path", row->line);
	if (is_self(v, row->path)) {
		if (*row->hash || *row->size)
			return defect(v, entry, "line %zu: RECORD's own line "
				      "must have no hash and no size", row->line);
		return 0;
	}
	if (*row->hash && !is_hash_field(row->hash))
		return defect(v, entry, "line %zu: hash of '%s' is not "
			      "sha256=<urlsafe base64> (or sha384, sha512)",
			      row->line, row->path);
	if (row->size[digits] || digits > 18)
		return defect(v, entry, "line %zu: size '%s' of '%s' is not a "
			      "number", row->line, row->size, row->path);
	return 0;
}

static int parse_record(struct verifier *v, const char *entry)
{
	struct tf_record_reader r = TF_RECORD_READER_INIT(v->record.buf);
	const char *p;
	size_t alloc = 1;
	int got;

	/* One row a line at most: sized once, not doubled. */
	for (p = v->record.buf; (p = memchr(p, '\n', v->record.len -
					      (size_t)(p - v->record.buf)));
	     p++)
		alloc++;
	v->rows = tf_calloc(alloc, sizeof(*v->rows));

	while ((got = tf_record_next(&r)) > 0) {
		struct record_row *row;

		if (v->nr_rows == alloc) {
			alloc = alloc ? alloc * 2 : 64;
			v->rows = tf_realloc(v->rows, alloc * sizeof(*v->rows));
		}
		row = &v->rows[v->nr_rows++];
		row->path = r.path;
		row->hash = r.hash;
		row->size = r.size;
		row->line = r.row_line;
		row->seen = 0;
		if (check_row(v, entry, row) < 0)
			return -1;
	}
	if (got < 0)
		return defect(v, entry, "line %zu: not three CSV fields "
			      "(path,hash,size)", r.row_line);
	return 0;
}

static int check_record(struct verifier *v)
{
	char *entry = tf_xstrfmt("%s/RECORD", v->distinfo.buf);
	size_t i;
	int ret = -1;

	if (!v->have_record) {
		defect(v, entry, "missing");
		goto out;
	}
	if (memchr(v->record.buf, '\0', v->record.len)) {
		defect(v, entry, "contains a NUL byte");
		goto out;
	}
	if (parse_record(v, entry) < 0)
		goto out;
	qsort(v->rows, v->nr_rows, sizeof(*v->rows), cmp_rows);
	for (i = 1; i < v->nr_rows; i++) {
		if (!strcmp(v->rows[i - 1].path, v->rows[i].path)) {
			defect(v, entry, "line %zu: '%s' is listed twice",
			       v->rows[i].line, v->rows[i].path);
			goto out;
		}
	}
	ret = 0;
out:
	free(entry);
	return ret;
}

/* --- pass 2: every entry against RECORD --- */

static struct record_row *find_row(const struct verifier *v, const char *path)
{
	struct record_row key = { path, NULL, NULL, 0, 0 };

	if (!v->nr_rows)
		return NULL;
	return bsearch(&key, v->rows, v->nr_rows, sizeof(*v->rows), cmp_path);
}

/*
 * An ELF entry is copied to a temporary file as it streams past, so
 * libelf can check it; fd is -1 until the entry shows the ELF magic.
 */
struct elf_copy {
	int fd;          /* owned, or -1 */
	char path[64];   /* the temporary file */
	int failed;      /* a write failed: the entry cannot be checked */
};

static void elf_copy_chunk(struct elf_copy *c, const char *chunk, size_t n,
			   long long offset)
{
	if (offset == 0 && n >= 4 && !memcmp(chunk, "\177ELF", 4)) {
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
static int elf_copy_finish(const struct verifier *v, struct elf_copy *c,
			   const char *name, int ok)
{
	int ret = 0;

	if (c->fd < 0)
		return c->failed && ok ? defect(v, name, "cannot copy it to check it as ELF: %s",
						 strerror(errno)) : 0;
	close(c->fd);
	if (ok && c->failed)
		ret = defect(v, name, "cannot copy it to check it as ELF: %s",
			     strerror(errno));
	else if (ok && tf_elf_check_file(c->path, name, &v->elf) < 0)
		ret = -1;
	else if (ok && tf_isa_audit_file(c->path, name, v->path, &v->isa) < 0)
		ret = -1;
	unlink(c->path);
	c->fd = -1;
	return ret;
}

/*
 * Stream the current entry through the digest RECORD names for it
 * (sha256 when it names none); libarchive checks the CRC.
 */
static int hash_entry(const struct verifier *v, struct tf_wheel_reader *r,
		      const char *name, const struct record_row *row,
		      char b64[TF_DIGEST_B64_MAX], long long *size)
{
	struct elf_copy copy = { -1, "", 0 };
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
		return defect(v, name, "corrupt data: %s", tf_wheel_error(r));
	}
	tf_digest_final_b64(h, b64);
	return elf_copy_finish(v, &copy, name, 1);
}

static int compare_row(const struct verifier *v, const char *name,
		       const struct record_row *row, const char *b64,
		       long long size)
{
	if (!*row->hash)
		return defect(v, name, "has no hash in RECORD");
	if (!*row->size)
		return defect(v, name, "has no size in RECORD");
	if (size != atoll(row->size))
		return defect(v, name, "size %lld does not match RECORD (%s)",
			      size, row->size);
	if (strncmp(row->hash + 7, b64, strlen(b64)) ||
	    strspn(row->hash + 7 + strlen(b64), "=") !=
	    strlen(row->hash + 7 + strlen(b64)))
		return defect(v, name, "%.6s does not match RECORD", row->hash);
	return 0;
}

/*
 * A wheel this process just packed: the size its local header declares
 * (the writer's count of the bytes it compressed) stands for
 * the inflated size; the digest in RECORD is the packer's, taken from
 * the same bytes it compressed, and each compressed block was inflated
 * and compared as it was written (zip/zipout.c).
 */
static int declared_size(const struct verifier *v,
			 const struct tf_wheel_member *m, const char *name,
			 long long *size)
{
	if (!m->size_known)
		return defect(v, name, "no uncompressed size in its header");
	*size = m->size;
	return 0;
}

static int check_entry(struct verifier *v, struct tf_wheel_reader *r,
		       const struct tf_wheel_member *m, const char *name,
		       int *seen_self)
{
	struct record_row *row = find_row(v, name);
	int self = is_self(v, name), sig = is_signature(v, name);
	int *seen = row ? &row->seen : self ? seen_self : NULL;
	long long size;
	char b64[TF_DIGEST_B64_MAX];

	if (!row && !self && !sig)
		return defect(v, name, "not listed in RECORD");
	if (seen && (*seen)++)
		return defect(v, name, "duplicate entry name");
	if (v->packed) {
		if (declared_size(v, m, name, &size) < 0)
			return -1;
		if (self || !row || (sig && !*row->hash))
			return 0;
		if (!*row->hash)
			return defect(v, name, "has no hash in RECORD");
		if (!*row->size || size != atoll(row->size))
			return defect(v, name, "size %lld does not match RECORD (%s)",
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
		defect(v, NULL, "cannot read the zip archive: %s",
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
			return defect(v, v->rows[i].path, "listed in RECORD but "
				      "missing from the archive");
	return 0;
}

/*
 * The ISA declarations recorded in the wheel: files that dispatch at run
 * time, and a minimum level that also allows GNU property notes up to it.
 */
static int isa_rules(struct verifier *v)
{
	struct tf_buf why = TF_BUF_INIT, entry = TF_BUF_INIT;
	enum tf_isa_family fam;
	size_t i;
	int level, ret = 0;

	if (!v->have_isa)
		return 0;
	tf_buf_addf(&entry, "%s/%s", v->distinfo.buf, TF_ISA_RECORD);
	if (tf_isa_policy_parse(v->isa_text.buf, &v->isa, &v->isa_globs, &why))
		ret = defect(v, entry.buf, "%s", why.buf);
	else if (v->isa.minimum &&
		 !tf_isa_level_parse(v->isa.minimum, &fam, &level) &&
		 fam == TF_ISA_X86_64 && level > v->elf.isa_level)
		v->elf.isa_level = level;
	if (!ret && v->isa.minimum)
		verbose("%s: declared minimum ISA level %s", v->path,
			v->isa.minimum);
	for (i = 0; !ret && i < v->isa.nr_dispatch; i++)
		verbose("%s: declared run-time dispatch: %s", v->path,
			v->isa.dispatch[i]);
	tf_buf_release(&why);
	tf_buf_release(&entry);
	return ret;
}

/*
 * The wheel's record of how its libraries are resolved: it extends the
 * rules exactly as the recipe did at pack time. A vendored library must
 * be in the wheel.
 */
static int check_license_files(const struct verifier *v)
{
	char *entry = tf_xstrfmt("%s/METADATA", v->distinfo.buf);
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < v->license_files.nr; i++) {
		char *path = tf_xstrfmt("%s/licenses/%s", v->distinfo.buf,
					v->license_files.v[i]);

		if (!find_row(v, path))
			ret = defect(v, entry, "License-File '%s' is not in the "
				     "wheel at '%s'", v->license_files.v[i], path);
		free(path);
	}
	free(entry);
	return ret;
}

static int libs_rules(struct verifier *v)
{
	char *entry = tf_xstrfmt("%s/%s", v->distinfo.buf, TF_LIBS_RECORD);
	struct tf_buf why = TF_BUF_INIT;
	size_t i;
	int ret = 0;

	if (v->have_libs &&
	    tf_libs_record_parse(v->libs_text.buf, v->libs_text.len, &v->libs,
				 &why))
		ret = defect(v, entry, "%s", why.buf);
	for (i = 0; !ret && i < v->libs.nr; i++) {
		const struct tf_lib *l = &v->libs.v[i];

		if (l->kind == TF_LIB_VENDOR && !find_row(v, l->file))
			ret = defect(v, entry, "vendored '%s' is not in the "
				     "wheel at '%s'", l->soname, l->file);
		else if (l->kind == TF_LIB_VENDOR)
			verbose("%s: vendored '%s' as %s", v->path, l->soname,
				l->file);
		else if (l->kind == TF_LIB_FRAMEWORK)
			verbose("%s: '%s' provided by framework '%s' at run time",
				v->path, l->soname, l->from);
		else if (l->kind == TF_LIB_PROVIDED)
			verbose("%s: '%s' provided by '%s' at run time, on "
				"RUNPATH '%s'", v->path, l->soname, l->from,
				l->runpath);
		else
			verbose("%s: '%s' left to the system (allow-needed)",
				v->path, l->soname);
	}
	v->elf.libs = v->libs.v;
	v->elf.nr_libs = v->libs.nr;
	free(entry);
	tf_buf_release(&why);
	return ret;
}

/*
 * What the wheel's ELF files must satisfy, from its platform tag alone;
 * libraries shipped in the wheel (every path RECORD lists) may be needed.
 */
static int elf_rules(struct verifier *v)
{
	size_t i;

	if (tf_elf_rules_for_platform(&v->elf, v->wn.platform, v->path) < 0)
		return -1;
	v->entries = tf_calloc(v->nr_rows + 1, sizeof(*v->entries));
	for (i = 0; i < v->nr_rows; i++)
		v->entries[i] = v->rows[i].path;
	v->elf.wheel_files = v->entries;
	v->elf.nr_wheel_files = v->nr_rows;
	v->elf.requires = v->requires;
	v->elf.nr_requires = v->nr_requires;
	v->elf.abi3_minor = tf_abi3_minor(v->wn.python, v->wn.abi);
	return check_license_files(v) || libs_rules(v) || isa_rules(v) ? -1 : 0;
}

/* Extension module suffixes agree with the wheel's tags (pytag.h). */
static int check_extensions(const struct verifier *v)
{
	struct tf_buf why = TF_BUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < v->nr_rows; i++)
		if (tf_pytag_check_entry(v->rows[i].path, v->wn.python, v->wn.abi,
					 v->wn.platform, &why) < 0)
			ret = defect(v, v->rows[i].path, "%s", why.buf);
	tf_buf_release(&why);
	return ret;
}

static int verify_archive(struct verifier *v)
{
	if (scan(v) < 0 || check_dist_info(v) < 0 || check_metadata(v) < 0 ||
	    check_wheel_file(v) < 0 || check_record(v) < 0 ||
	    check_extensions(v) < 0 ||
	    elf_rules(v) < 0 || check_entries(v) < 0 || check_missing(v) < 0)
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
		defect(&v, NULL, "cannot open: %s", strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		defect(&v, NULL, "not a regular file");
		goto out;
	}
	/* A wheel just packed: scan() checks what it needs of this. */
	if (tf_wheel_name_parse(path, &v.wn, &why) < 0 ||
	    (!packed && tf_zipcheck(path, &why) < 0)) {
		defect(&v, NULL, "%s", why.buf);
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
		ret = tf_conventions_verify(path);
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
