/* What a wheel's .dist-info says: METADATA, WHEEL, RECORD, declared rules. */
#include "verifier.h"
#include "verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "audit/audit.h"
#include "isa/isa.h"
#include "base/base.h"
#include "metadata/metadata.h"

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
		return tf_verify_defect(v, NULL, "no .dist-info directory");
	n = v->distinfo.len - strlen(".dist-info");
	for (dash = d; (dash = memchr(dash, '-', n - (size_t)(dash - d)));
	     dash++) {
		size_t name_len = (size_t)(dash - d);

		if (same_name(d, name_len, v->wn.name) &&
		    same_version(dash + 1, n - name_len - 1, v->wn.version))
			return 0;
	}
	return tf_verify_defect(v, d,
				"does not match the filename's name '%s' "
				"and version '%s'",
				v->wn.name, v->wn.version);
}

/*
 * Values tfbuild validates when a recipe is loaded are validated here
 * too, whoever wrote the wheel: License-Expression (SPDX),
 * Requires-Python (PEP 440), Requires-Dist (PEP 508), License-File (a
 * file under .dist-info/licenses, checked once RECORD is read).
 */
static int check_field(struct verifier *v, const char *entry, const char *key,
		       const char *val)
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
		ret = tf_verify_defect(v, entry, "%s '%s' %s: %s", key, val,
				       what, why.buf);
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
		tf_verify_defect(v, entry, "missing");
		goto out;
	}
	while (next_header(&pos, &key, &val)) {
		if (!strcasecmp(key, "Requires-Dist")) {
			v->requires = tf_realloc(v->requires,
						 (v->nr_requires + 1) *
							 sizeof(*v->requires));
			v->requires[v->nr_requires++] = val;
		}
		if (check_field(v, entry, key, val) < 0)
			goto out;
		if (!strcasecmp(key, "Metadata-Version")) {
			unsigned major = 0, minor = 0;

			sscanf(val, "%u.%u", &major, &minor);
			v->metadata_24 =
				major > 2 || (major == 2 && minor >= 4);
		}
		if (!strcasecmp(key, "Name") && !name)
			name = val;
		else if (!strcasecmp(key, "Version") && !version)
			version = val;
	}
	if (!name || !version)
		tf_verify_defect(v, entry, "no %s field",
				 name ? "Version" : "Name");
	else if (!same_name(name, strlen(name), v->wn.name))
		tf_verify_defect(v, entry,
				 "Name '%s' does not match the filename's '%s'",
				 name, v->wn.name);
	else if (!same_version(version, strlen(version), v->wn.version))
		tf_verify_defect(v, entry,
				 "Version '%s' does not match the "
				 "filename's '%s'",
				 version, v->wn.version);
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
			const struct tf_strvec *got,
			const struct tf_strvec *want)
{
	size_t i = 0, j = 0;

	while (i < got->nr || j < want->nr) {
		int c = i == got->nr    ? 1
			: j == want->nr ? -1
					: strcmp(got->v[i], want->v[j]);

		if (c < 0)
			return tf_verify_defect(v, entry,
						"Tag '%s' is not in "
						"the filename",
						got->v[i]);
		if (c > 0)
			return tf_verify_defect(v, entry,
						"no Tag line for "
						"'%s' from the filename",
						want->v[j]);
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
	const char *version = NULL, *purelib = NULL;
	struct tf_strvec got = TF_STRVEC_INIT, want = TF_STRVEC_INIT;
	int ret = -1;

	if (!v->have_wheel) {
		tf_verify_defect(v, entry, "missing");
		goto out;
	}
	while (next_header(&pos, &key, &val)) {
		if (!strcasecmp(key, "Wheel-Version") && !version)
			version = val;
		else if (!strcasecmp(key, "Tag"))
			tf_strvec_push(&got, val);
		else if (!strcasecmp(key, "Generator"))
			v->by_tfbuild = !strncmp(val, "tfbuild ", 8);
		else if (!strcasecmp(key, "Root-Is-Purelib") && !purelib)
			purelib = val;
	}
	/* The wheel format requires it: it says where the root installs. */
	if (!purelib) {
		tf_verify_defect(v, entry, "no Root-Is-Purelib field");
		goto out;
	}
	if (strcasecmp(purelib, "true") && strcasecmp(purelib, "false")) {
		tf_verify_defect(v, entry,
				 "Root-Is-Purelib '%s' is not 'true' or "
				 "'false'",
				 purelib);
		goto out;
	}
	if (!version) {
		tf_verify_defect(v, entry, "no Wheel-Version field");
		goto out;
	}
	if (!is_wheel_version_1(version)) {
		tf_verify_defect(v, entry, "Wheel-Version '%s' is not 1.x",
				 version);
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

int tf_verify_is_self(const struct verifier *v, const char *path)
{
	size_t n = v->distinfo.len;

	return !strncmp(path, v->distinfo.buf, n) && path[n] == '/' &&
	       !strcmp(path + n + 1, "RECORD");
}

/*
 * "ALGO=" and the urlsafe base64 digest: sha256 (43 digits), sha384 (64)
 * or sha512 (86), the spec's "sha256 or stronger"; padding is tolerated.
 */
static int is_hash_field(const char *s)
{
	static const struct {
		const char *prefix;
		size_t digits;
	} algos[] = {
		{ "sha256=", 43 },
		{ "sha384=", 64 },
		{ "sha512=", 86 },
	};
	size_t i, n;

	for (i = 0; i < sizeof(algos) / sizeof(*algos); i++) {
		if (strncmp(s, algos[i].prefix, 7))
			continue;
		n = strspn(
			s + 7,
			"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
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
		return tf_verify_defect(v, entry, "line %zu: empty path",
					row->line);
	if (tf_verify_is_self(v, row->path)) {
		if (*row->hash || *row->size)
			return tf_verify_defect(v, entry,
						"line %zu: RECORD's "
						"own line must have no hash "
						"and no size",
						row->line);
		return 0;
	}
	if (*row->hash && !is_hash_field(row->hash))
		return tf_verify_defect(v, entry,
					"line %zu: hash of '%s' is "
					"not sha256=<urlsafe base64> (or "
					"sha384, sha512)",
					row->line, row->path);
	if (row->size[digits] || digits > 18)
		return tf_verify_defect(v, entry,
					"line %zu: size '%s' of '%s' "
					"is not a number",
					row->line, row->size, row->path);
	return 0;
}

static int parse_record(struct verifier *v, const char *entry)
{
	struct tf_record_reader r = TF_RECORD_READER_INIT(v->record.buf);
	const char *p;
	size_t alloc = 1;
	int got;

	/* One row a line at most: sized once, not doubled. */
	for (p = v->record.buf;
	     (p = memchr(p, '\n', v->record.len - (size_t)(p - v->record.buf)));
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
		return tf_verify_defect(v, entry,
					"line %zu: not three CSV "
					"fields (path,hash,size)",
					r.row_line);
	return 0;
}

static int check_record(struct verifier *v)
{
	char *entry = tf_xstrfmt("%s/RECORD", v->distinfo.buf);
	size_t i;
	int ret = -1;

	if (!v->have_record) {
		tf_verify_defect(v, entry, "missing");
		goto out;
	}
	if (memchr(v->record.buf, '\0', v->record.len)) {
		tf_verify_defect(v, entry, "contains a NUL byte");
		goto out;
	}
	if (parse_record(v, entry) < 0)
		goto out;
	qsort(v->rows, v->nr_rows, sizeof(*v->rows), cmp_rows);
	for (i = 1; i < v->nr_rows; i++) {
		if (!strcmp(v->rows[i - 1].path, v->rows[i].path)) {
			tf_verify_defect(v, entry,
					 "line %zu: '%s' is listed twice",
					 v->rows[i].line, v->rows[i].path);
			goto out;
		}
	}
	ret = 0;
out:
	free(entry);
	return ret;
}

struct record_row *tf_verify_find_row(const struct verifier *v,
				      const char *path)
{
	struct record_row key = { path, NULL, NULL, 0, 0 };

	if (!v->nr_rows)
		return NULL;
	return bsearch(&key, v->rows, v->nr_rows, sizeof(*v->rows), cmp_path);
}

/* --- the rules the wheel declares for pass 2 --- */

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

	/* A wheel from elsewhere had no recipe to declare its dispatch: what
	   the audit cannot decide is said, not refused (docs/isa.md). */
	v->isa.undecided_ok = !v->packed;
	/* The platform's level, before the record raises it: a variant's
	   label sets its own (distvariant.c). */
	v->platform_isa_level = v->elf.isa_level;
	if (!v->have_isa)
		return tf_verify_variant(v);
	tf_buf_addf(&entry, "%s/%s", v->distinfo.buf, TF_ISA_RECORD);
	if (tf_isa_policy_parse(v->isa_text.buf, &v->isa, &v->isa_globs, &why))
		ret = tf_verify_defect(v, entry.buf, "%s", why.buf);
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
	if (!ret)
		ret = tf_verify_variant(v);
	tf_buf_release(&why);
	tf_buf_release(&entry);
	return ret;
}

/*
 * Each License-File of METADATA is in the wheel, under
 * .dist-info/licenses. Before Metadata-Version 2.4 (PEP 639) the field
 * was setuptools' own, its file beside METADATA: not found at either
 * place, it is a warning there.
 */
static int check_license_files(const struct verifier *v)
{
	char *entry = tf_xstrfmt("%s/METADATA", v->distinfo.buf);
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < v->license_files.nr; i++) {
		const char *file = v->license_files.v[i];
		char *path = tf_xstrfmt("%s/licenses/%s", v->distinfo.buf,
					file),
		     *beside = tf_xstrfmt("%s/%s", v->distinfo.buf, file);

		if (tf_verify_find_row(v, path) ||
		    (!v->metadata_24 && tf_verify_find_row(v, beside)))
			;
		else if (v->metadata_24)
			ret = tf_verify_defect(v, entry,
					       "License-File '%s' is "
					       "not in the wheel at '%s'",
					       file, path);
		else
			warning("%s: %s: License-File '%s' is not in the "
				"wheel, at '%s' (PEP 639) or '%s'",
				v->path, entry, file, path, beside);
		free(path);
		free(beside);
	}
	free(entry);
	return ret;
}

/*
 * The wheel's record of how its libraries are resolved: it extends the
 * rules exactly as the recipe did at pack time. A vendored library must
 * be in the wheel.
 */
static int libs_rules(struct verifier *v)
{
	char *entry = tf_xstrfmt("%s/%s", v->distinfo.buf, TF_LIBS_RECORD);
	struct tf_buf why = TF_BUF_INIT;
	size_t i;
	int ret = 0;

	if (v->have_libs &&
	    tf_libs_record_parse(v->libs_text.buf, v->libs_text.len, &v->libs,
				 &why))
		ret = tf_verify_defect(v, entry, "%s", why.buf);
	for (i = 0; !ret && i < v->libs.nr; i++) {
		const struct tf_lib *l = &v->libs.v[i];

		if (l->kind == TF_LIB_VENDOR && !tf_verify_find_row(v, l->file))
			ret = tf_verify_defect(v, entry,
					       "vendored '%s' is not "
					       "in the wheel at '%s'",
					       l->soname, l->file);
		else if (l->kind == TF_LIB_VENDOR && l->package)
			verbose("%s: vendored '%s' as %s, from Debian package "
				"%s",
				v->path, l->soname, l->file, l->package);
		else if (l->kind == TF_LIB_VENDOR)
			verbose("%s: vendored '%s' as %s", v->path, l->soname,
				l->file);
		else if (l->kind == TF_LIB_EXTERNAL)
			ret = tf_verify_external(v, l, entry);
		else if (l->kind == TF_LIB_FRAMEWORK)
			verbose("%s: '%s' provided by framework '%s' at run time",
				v->path, l->soname, l->from);
		else if (l->kind == TF_LIB_PROVIDED)
			verbose("%s: '%s' provided by '%s' at run time, on "
				"RUNPATH '%s'",
				v->path, l->soname, l->from, l->runpath);
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
		if (tf_pytag_check_entry(v->rows[i].path, v->wn.python,
					 v->wn.abi, v->wn.platform, &why) < 0)
			ret = tf_verify_defect(v, v->rows[i].path, "%s",
					       why.buf);
	tf_buf_release(&why);
	return ret;
}

int tf_verify_distinfo(struct verifier *v)
{
	if (check_dist_info(v) < 0 || check_metadata(v) < 0 ||
	    check_wheel_file(v) < 0 || check_record(v) < 0 ||
	    check_extensions(v) < 0 || elf_rules(v) < 0 ||
	    tf_verify_sbom(v) < 0)
		return -1;
	return 0;
}
