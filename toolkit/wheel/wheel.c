/*
 * Wheel: write a .whl (a zip, per the binary distribution format) with
 * zipout (zipout.h: blocks deflated in parallel, written by
 * minizip). Each file is read once, in blocks, straight into the
 * writer's buffers: the same bytes go to the sha256 for RECORD and to
 * the compressing threads, so memory stays bounded whatever the file
 * sizes. The output is a function of the spec and the file contents
 * only (not of the thread count): sorted entries, one fixed time (UTC),
 * fixed modes.
 */
#include "wheel.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "metadata/metadata.h"
#include "spool.h"
#include "zipout.h"
#include "variantjson.h"

/* Zip (DOS) times start at 1980-01-01 00:00:00 UTC. */
#define ZIP_TIME_MIN 315532800LL
/* Kept from the libarchive writer (its "UT" field held a signed 32-bit
   time), so a given epoch gives the same DOS time as before. */
#define ZIP_TIME_MAX 2147483647LL
#define DEFAULT_LEVEL 6

struct packer {
	const struct tf_wheel_spec *w;      /* borrowed */
	struct tf_zipout *z;                /* owned; the zip being written */
	struct tf_buf version;              /* normalized version */
	struct tf_buf distinfo;             /* "name-version.dist-info" */
	struct tf_spool record;             /* RECORD's lines so far, in a
					  temporary file (not memory: 6 MB
					  at 63,000 files) */
	struct tf_buf line;                 /* one RECORD line being made */
	time_t mtime;                       /* the time of every entry */
	const struct tf_wheel_file **files; /* owned array; in entry order */
	const struct tf_wheel_entry_point **eps; /* owned array; sorted */
	int record_done; /* RECORD itself is being written */
	/* With w->on_file: the stats of files[] opened but not yet reported
	   (zipout reports entries in order, a few blocks behind), a ring. */
	struct stat *pending; /* owned */
	size_t pending_head, nr_pending, pending_alloc;
	size_t nr_opened, nr_reported; /* of files[] */
};

#define PACKER_INIT                                                        \
	{                                                                  \
		NULL, NULL, TF_BUF_INIT, TF_BUF_INIT, TF_SPOOL_INIT,       \
			TF_BUF_INIT, 0, NULL, NULL, 0, NULL, 0, 0, 0, 0, 0 \
	}

static void packer_release(struct packer *p)
{
	tf_zipout_free(p->z);
	p->z = NULL;
	tf_buf_release(&p->version);
	tf_buf_release(&p->distinfo);
	tf_spool_release(&p->record);
	tf_buf_release(&p->line);
	free(p->files);
	free(p->eps);
	free(p->pending);
	p->pending = NULL;
	p->files = NULL;
	p->eps = NULL;
}

void tf_wheel_record_field(const char *field, struct tf_buf *out)
{
	if (!strpbrk(field, ",\"\r\n")) {
		tf_buf_addstr(out, field);
		return;
	}
	tf_buf_addch(out, '"');
	for (; *field; field++) {
		if (*field == '"')
			tf_buf_addch(out, '"');
		tf_buf_addch(out, *field);
	}
	tf_buf_addch(out, '"');
}

int tf_wheel_filename(const struct tf_wheel_spec *w, struct tf_buf *out)
{
	struct tf_buf b = TF_BUF_INIT;
	int ret = -1;

	if (!w->name || !tf_pyname_is_valid(w->name) || !w->version ||
	    !w->python_tag || !tf_wheel_tag_is_valid(w->python_tag) ||
	    !w->abi_tag || !tf_wheel_tag_is_valid(w->abi_tag) ||
	    !w->platform_tag || !tf_wheel_tag_is_valid(w->platform_tag))
		goto out;
	tf_pyname_wheel_escape(w->name, &b);
	tf_buf_addch(&b, '-');
	if (tf_pep440_normalize(w->version, &b) < 0)
		goto out;
	tf_buf_addf(&b, "-%s-%s-%s", w->python_tag, w->abi_tag,
		    w->platform_tag);
	if (w->variant_label) {
		if (!tf_wheel_label_is_valid(w->variant_label))
			goto out;
		tf_buf_addf(&b, "-%s", w->variant_label);
	}
	tf_buf_addstr(&b, ".whl");
	tf_buf_add(out, b.buf, b.len);
	ret = 0;
out:
	tf_buf_release(&b);
	return ret;
}

/* --- validation: everything is checked before a byte is written --- */

static int has_line_break(const char *s)
{
	return s && strpbrk(s, "\r\n");
}

int tf_wheel_line_check(const char *value, struct tf_buf *why)
{
	if (!has_line_break(value))
		return 0;
	tf_buf_addstr(why, "contains a line break");
	return -1;
}

static int check_fields(const struct tf_wheel_spec *w)
{
	const char *const *r;
	struct tf_buf why = TF_BUF_INIT;
	int bad;

	if (w->compression_level < -1 || w->compression_level > 9)
		return error("wheel '%s': compression level %d is not 0-9",
			     w->name, w->compression_level);
	bad = tf_wheel_line_check(w->summary, &why)
		      ? error("wheel '%s': summary %s", w->name, why.buf)
	      : tf_wheel_line_check(w->license, &why)
		      ? error("wheel '%s': license %s", w->name, why.buf)
	      : tf_wheel_line_check(w->requires_python, &why)
		      ? error("wheel '%s': requires-python %s", w->name,
			      why.buf)
		      : 0;
	tf_buf_release(&why);
	if (bad)
		return -1;
	if (has_line_break(w->home_page))
		return error("wheel '%s': home page contains a line break",
			     w->name);
	for (r = w->requires_dist; r && *r; r++)
		if (!**r || has_line_break(*r))
			return error("wheel '%s': requirement '%s' is empty or "
				     "contains a line break",
				     w->name, *r);
	return 0;
}

static int check_names(const struct tf_wheel_spec *w)
{
	struct tf_buf v = TF_BUF_INIT;
	const char *tags[3] = { w->python_tag, w->abi_tag, w->platform_tag };
	static const char *const what[3] = { "python", "abi", "platform" };
	int i, bad;

	if (!w->name || !tf_pyname_is_valid(w->name))
		return error("wheel '%s': not a valid distribution name",
			     w->name ? w->name : "");
	bad = !w->version || tf_pep440_normalize(w->version, &v) < 0;
	tf_buf_release(&v);
	if (bad)
		return error("wheel '%s': version '%s' is not a valid PEP 440 "
			     "version",
			     w->name, w->version ? w->version : "");
	for (i = 0; i < 3; i++)
		if (!tags[i] || !tf_wheel_tag_is_valid(tags[i]))
			return error("wheel '%s': %s tag '%s' is not valid",
				     w->name, what[i], tags[i] ? tags[i] : "");
	return 0;
}

/* No empty or "." components either: each file has one spelling. */
static int is_plain_relative(const char *path)
{
	const char *p = path;

	if (!tf_path_is_safe_relative(path))
		return 0;
	for (;;) {
		size_t n = strcspn(p, "/");

		if (!n || (n == 1 && *p == '.'))
			return 0;
		if (!p[n])
			return 1;
		p += n + 1;
	}
}

/* Printable ASCII only: zip names get no charset conversion that way. */
static int is_plain_ascii(const char *path)
{
	for (; *path; path++)
		if (*path < 0x20 || *path > 0x7e || *path == '\\')
			return 0;
	return 1;
}

static int in_dist_info(const char *path)
{
	size_t n = strcspn(path, "/"), suffix = strlen(".dist-info");

	return n >= suffix &&
	       !strncasecmp(path + n - suffix, ".dist-info", suffix);
}

int tf_wheel_dst_check(const char *dst, struct tf_buf *why)
{
	if (!is_plain_relative(dst))
		tf_buf_addstr(why, "is not a safe relative path");
	else if (!is_plain_ascii(dst))
		tf_buf_addstr(
			why, "has a backslash, control or non-ASCII character");
	else if (in_dist_info(dst))
		tf_buf_addstr(why, "is inside a .dist-info directory");
	else
		return 0;
	return -1;
}

static int check_dst(const struct tf_wheel_spec *w, const char *dst)
{
	struct tf_buf why = TF_BUF_INIT;
	int ret = 0;

	if (tf_wheel_dst_check(dst, &why))
		ret = error("wheel '%s': file '%s' %s", w->name, dst, why.buf);
	tf_buf_release(&why);
	return ret;
}

static int cmp_files(const void *a, const void *b)
{
	const struct tf_wheel_file *x = *(const struct tf_wheel_file *const *)a;
	const struct tf_wheel_file *y = *(const struct tf_wheel_file *const *)b;

	return strcmp(x->dst, y->dst);
}

/* The files in entry order, in an array the caller frees; NULL if bad. */
static const struct tf_wheel_file **sorted_files(const struct tf_wheel_spec *w)
{
	const struct tf_wheel_file **v = tf_calloc(w->nr_files + 1, sizeof(*v));
	size_t i;

	for (i = 0; i < w->nr_files; i++) {
		v[i] = &w->files[i];
		if (!v[i]->src || !v[i]->dst) {
			error("wheel '%s': file %zu has no source or destination",
			      w->name, i);
			goto fail;
		}
		if (check_dst(w, v[i]->dst) < 0)
			goto fail;
	}
	qsort(v, w->nr_files, sizeof(*v), cmp_files);
	for (i = 1; i < w->nr_files; i++) {
		if (!strcmp(v[i - 1]->dst, v[i]->dst)) {
			error("wheel '%s': file '%s' is listed twice", w->name,
			      v[i]->dst);
			goto fail;
		}
	}
	return v;
fail:
	free(v);
	return NULL;
}

static int is_word_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_';
}

/* Dotted words: "console_scripts", "tfmini.plugins". */
static int is_dotted(const char *s, size_t n)
{
	size_t i;

	if (!n || s[0] == '.' || s[n - 1] == '.')
		return 0;
	for (i = 0; i < n; i++)
		if (!is_word_char(s[i]) && !(s[i] == '.' && s[i + 1] != '.'))
			return 0;
	return 1;
}

/* An object reference, "module.sub" or "module.sub:attr.attr". */
static int is_object_ref(const char *s)
{
	const char *colon = strchr(s, ':');

	if (!colon)
		return is_dotted(s, strlen(s));
	return is_dotted(s, (size_t)(colon - s)) &&
	       is_dotted(colon + 1, strlen(colon + 1));
}

int tf_wheel_entry_point_check(const struct tf_wheel_entry_point *e,
			       struct tf_buf *why)
{
	const char *g = e->group ? e->group : "", *n = e->name ? e->name : "";
	const char *v = e->value ? e->value : "";
	size_t len = strlen(n);

	if (!is_dotted(g, strlen(g)))
		tf_buf_addf(why, "entry point group '%s' is not valid", g);
	else if (!len || n[0] == '[' || n[0] == ' ' || n[len - 1] == ' ' ||
		 strpbrk(n, "=\r\n"))
		tf_buf_addf(why, "entry point name '%s' in '%s' is not valid",
			    n, g);
	else if (!is_object_ref(v))
		tf_buf_addf(why,
			    "entry point '%s' in '%s': '%s' is not a valid "
			    "object reference",
			    n, g, v);
	else
		return 0;
	return -1;
}

static int check_entry_point(const struct tf_wheel_spec *w,
			     const struct tf_wheel_entry_point *e)
{
	struct tf_buf why = TF_BUF_INIT;
	int ret = 0;

	if (tf_wheel_entry_point_check(e, &why))
		ret = error("wheel '%s': %s", w->name, why.buf);
	tf_buf_release(&why);
	return ret;
}

static int cmp_entry_points(const void *a, const void *b)
{
	const struct tf_wheel_entry_point *x = *(const void *const *)a;
	const struct tf_wheel_entry_point *y = *(const void *const *)b;
	int c = strcmp(x->group, y->group);

	return c ? c : strcmp(x->name, y->name);
}

/* Entry points sorted by group, then name; NULL if one is bad. */
static const struct tf_wheel_entry_point **sorted_entry_points(
	const struct tf_wheel_spec *w)
{
	size_t i, n = w->nr_entry_points;
	const struct tf_wheel_entry_point **v = tf_calloc(n + 1, sizeof(*v));

	for (i = 0; i < n; i++) {
		v[i] = &w->entry_points[i];
		if (check_entry_point(w, v[i]) < 0)
			goto fail;
	}
	qsort(v, n, sizeof(*v), cmp_entry_points);
	for (i = 1; i < n; i++) {
		if (!cmp_entry_points(&v[i - 1], &v[i])) {
			error("wheel '%s': entry point '%s' in '%s' is defined "
			      "twice",
			      w->name, v[i]->name, v[i]->group);
			goto fail;
		}
	}
	return v;
fail:
	free(v);
	return NULL;
}

/* --- the generated .dist-info files --- */

static void add_list(struct tf_buf *out, const char *key, const char *const *v)
{
	for (; v && *v; v++)
		tf_buf_addf(out, "%s: %s\n", key, *v);
}

static void add_field(struct tf_buf *out, const char *key, const char *v)
{
	if (v)
		tf_buf_addf(out, "%s: %s\n", key, v);
}

static void build_metadata(const struct packer *p, struct tf_buf *out)
{
	const struct tf_wheel_spec *w = p->w;
	int v24 = w->license || (w->license_files && *w->license_files);

	/* License-Expression and License-File are core metadata 2.4;
	   without them 2.1 will do. */
	tf_buf_addf(out, "Metadata-Version: %s\n", v24 ? "2.4" : "2.1");
	tf_buf_addf(out, "Name: %s\nVersion: %s\n", w->name, p->version.buf);
	add_field(out, "Summary", w->summary);
	add_field(out, "Description-Content-Type", w->description_content_type);
	add_field(out, "Keywords", w->keywords);
	add_field(out, "Home-page", w->home_page);
	add_field(out, "Author", w->author);
	add_field(out, "Author-email", w->author_email);
	add_field(out, "Maintainer", w->maintainer);
	add_field(out, "Maintainer-email", w->maintainer_email);
	add_field(out, "License-Expression", w->license);
	add_list(out, "License-File", w->license_files);
	add_list(out, "Classifier", w->classifiers);
	add_field(out, "Requires-Python", w->requires_python);
	add_list(out, "Requires-Dist", w->requires_dist);
	add_list(out, "Project-URL", w->project_urls);
	if (w->description) {
		tf_buf_addch(out, '\n');
		tf_buf_addstr(out, w->description);
	}
}

static void build_wheel_file(const struct packer *p, struct tf_buf *out)
{
	const struct tf_wheel_spec *w = p->w;
	struct tf_strvec tags = TF_STRVEC_INIT;
	int pure =
		!strcmp(w->platform_tag, "any") && !strcmp(w->abi_tag, "none");
	size_t i;

	tf_buf_addf(out,
		    "Wheel-Version: 1.0\nGenerator: tfbuild %s\n"
		    "Root-Is-Purelib: %s\n",
		    TF_VERSION, pure ? "true" : "false");
	if (tf_wheel_tags_expand(w->python_tag, w->abi_tag, w->platform_tag,
				 &tags) < 0)
		BUG("tags were validated");
	for (i = 0; i < tags.nr; i++)
		tf_buf_addf(out, "Tag: %s\n", tags.v[i]);
	tf_strvec_release(&tags);
}

static void build_entry_points(const struct tf_wheel_entry_point **v, size_t n,
			       struct tf_buf *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (!i || strcmp(v[i - 1]->group, v[i]->group))
			tf_buf_addf(out, "%s[%s]\n", i ? "\n" : "",
				    v[i]->group);
		tf_buf_addf(out, "%s = %s\n", v[i]->name, v[i]->value);
	}
	if (n)
		tf_buf_addch(out, '\n');
}

/* --- writing the zip --- */

static int zip_error(const struct packer *p, const char *path)
{
	return error("wheel '%s': cannot write '%s'", p->w->name, path);
}

static int put_header(struct packer *p, const char *path, long long size,
		      int exec)
{
	if (tf_zipout_begin(p->z, path, exec ? 0755 : 0644, (long long)p->mtime,
			    size) < 0)
		return zip_error(p, path);
	return 0;
}

static int put_data(struct packer *p, const char *path, const void *data,
		    size_t n)
{
	if (tf_zipout_write(p->z, data, n) < 0 || tf_zipout_end(p->z) < 0)
		return zip_error(p, path);
	return 0;
}

/* Keep the stat of the file just opened until zipout reports it. */
static void pending_push(struct packer *p, const struct stat *st)
{
	size_t i;

	if (p->nr_pending == p->pending_alloc) {
		struct stat *v;

		p->pending_alloc = p->pending_alloc ? 2 * p->pending_alloc : 64;
		v = tf_calloc(p->pending_alloc, sizeof(*v));
		for (i = 0; i < p->nr_pending; i++)
			v[i] = p->pending[(p->pending_head + i) % p->nr_pending];
		free(p->pending);
		p->pending = v;
		p->pending_head = 0;
	}
	p->pending[(p->pending_head + p->nr_pending++) % p->pending_alloc] =
		*st;
}

/* zipout reported the next of files[]: tell the caller what was read. */
static void report_file(struct packer *p, const unsigned char md[TF_SHA256_LEN])
{
	const struct stat *st;

	if (!p->w->on_file || p->nr_reported >= p->w->nr_files ||
	    !p->nr_pending)
		return;
	st = &p->pending[p->pending_head];
	p->pending_head = (p->pending_head + 1) % p->pending_alloc;
	p->nr_pending--;
	p->w->on_file(p->w->on_file_arg, p->files[p->nr_reported++], st, md);
}

/* RECORD's line for each entry as zipout writes it (all but RECORD). */
static void record_add(void *arg, const char *path, long long size,
		       const unsigned char md[TF_SHA256_LEN])
{
	struct packer *p = arg;
	char b64[44];

	report_file(p, md);
	if (p->record_done)
		return;
	tf_sha256_b64(md, b64);
	tf_buf_reset(&p->line);
	tf_wheel_record_field(path, &p->line);
	tf_buf_addf(&p->line, ",sha256=%s,%lld\n", b64, size);
	tf_spool_add(&p->record, p->line.buf, p->line.len);
}

static int changed(const struct packer *p, const struct tf_wheel_file *f)
{
	return error("wheel '%s': '%s' changed while it was being packed",
		     p->w->name, f->src);
}

/*
 * Read fd into the current entry's blocks, once (zipout hashes them).
 * The entry header promised size bytes, so the file must still have
 * exactly that many.
 */
static int copy_stream(struct packer *p, int fd, const struct tf_wheel_file *f,
		       long long size)
{
	unsigned char probe, *buf;
	long long total = 0;
	size_t room;
	ssize_t n;

	for (;;) {
		buf = tf_zipout_buffer(p->z, &room);
		if (!buf)
			return zip_error(p, f->dst);
		/* No room: the block ends with the file; check it does. */
		if (!room)
			buf = &probe;
		n = read(fd, buf, room ? room : 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return error_errno("wheel '%s': cannot read '%s'",
					   p->w->name, f->src);
		if (!n)
			break;
		total += n;
		if (total > size)
			return changed(p, f);
		if (tf_zipout_commit(p->z, (size_t)n) < 0)
			return zip_error(p, f->dst);
	}
	if (total != size)
		return changed(p, f);
	return tf_zipout_end(p->z) < 0 ? zip_error(p, f->dst) : 0;
}

static int add_file(struct packer *p, const struct tf_wheel_file *f)
{
	struct stat st;
	int ret = -1, fd = open(f->src, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return error_errno("wheel '%s': cannot open '%s'", p->w->name,
				   f->src);
	if (fstat(fd, &st) < 0) {
		error_errno("wheel '%s': cannot stat '%s'", p->w->name, f->src);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		error("wheel '%s': '%s' is not a regular file", p->w->name,
		      f->src);
		goto out;
	}
	/* files[] come first, in order; .dist-info's files are not reported */
	if (p->w->on_file && p->nr_opened < p->w->nr_files) {
		p->nr_opened++;
		pending_push(p, &st);
	}
	if (put_header(p, f->dst, (long long)st.st_size, !!(st.st_mode & 0111)))
		goto out;
	ret = copy_stream(p, fd, f, (long long)st.st_size);
out:
	close(fd);
	return ret;
}

/* Add a generated file to .dist-info (RECORD's line comes from zipout). */
static int add_meta(struct packer *p, const char *name, const struct tf_buf *b)
{
	char *path = tf_xstrfmt("%s/%s", p->distinfo.buf, name);
	int ret = put_header(p, path, (long long)b->len, 0) < 0 ||
				  put_data(p, path, b->buf, b->len) < 0
			  ? -1
			  : 0;

	free(path);
	return ret;
}

static int cmp_meta(const void *a, const void *b)
{
	const struct tf_wheel_file *x = a, *y = b;

	return strcmp(x->dst, y->dst);
}

/* The spec's extra .dist-info files, in bytewise order after the rest. */
static int add_meta_files(struct packer *p)
{
	const struct tf_wheel_spec *w = p->w;
	struct tf_wheel_file *v = tf_calloc(w->nr_meta_files + 1, sizeof(*v));
	size_t i;
	int ret = 0;

	if (w->nr_meta_files) {
		memcpy(v, w->meta_files, w->nr_meta_files * sizeof(*v));
		qsort(v, w->nr_meta_files, sizeof(*v), cmp_meta);
	}
	for (i = 0; i < w->nr_meta_files && !ret; i++) {
		struct tf_wheel_file f = v[i];
		char *dst = tf_xstrfmt("%s/%s", p->distinfo.buf, v[i].dst);

		if (!tf_path_is_safe_relative(v[i].dst) ||
		    !strcmp(v[i].dst, "RECORD") ||
		    !strcmp(v[i].dst, "METADATA") ||
		    !strcmp(v[i].dst, "WHEEL") ||
		    !strcmp(v[i].dst, "entry_points.txt"))
			ret = error(
				"wheel '%s': '%s' cannot go into .dist-info",
				w->name, v[i].dst);
		else if (i && !strcmp(v[i].dst, v[i - 1].dst))
			ret = error("wheel '%s': duplicate '%s' in .dist-info: "
				    "'%s' and '%s'",
				    w->name, v[i].dst, v[i - 1].src, v[i].src);
		f.dst = dst;
		if (!ret)
			ret = add_file(p, &f);
		free(dst);
	}
	free(v);
	return ret;
}

/* RECORD, last: the spooled lines and its own, read back into the zip. */
static int add_record(struct packer *p)
{
	char *path = tf_xstrfmt("%s/RECORD", p->distinfo.buf);
	unsigned char *buf;
	long long total = 0, size;
	size_t room;
	ssize_t n;
	int ret = -1;

	tf_buf_reset(&p->line);
	tf_wheel_record_field(p->distinfo.buf, &p->line);
	tf_buf_addstr(&p->line, "/RECORD,,\n");
	tf_spool_add(&p->record, p->line.buf, p->line.len);
	if (tf_spool_rewind(&p->record) < 0) {
		error_errno("wheel '%s': cannot write RECORD's temporary file",
			    p->w->name);
		goto out;
	}
	size = p->record.size;
	if (put_header(p, path, size, 0) < 0)
		goto out;
	for (;;) {
		buf = tf_zipout_buffer(p->z, &room);
		if (!buf || !room) /* the spool holds no more than size */
			break;
		n = tf_spool_read(&p->record, buf, room);
		if (n < 0) {
			error_errno(
				"wheel '%s': cannot read RECORD's temporary "
				"file",
				p->w->name);
			goto out;
		}
		if (!n)
			break;
		total += n;
		if (total > size || tf_zipout_commit(p->z, (size_t)n) < 0)
			break;
	}
	if (total != size)
		error("wheel '%s': RECORD's temporary file has %lld bytes, "
		      "not %lld",
		      p->w->name, total, size);
	else if (tf_zipout_end(p->z) < 0)
		zip_error(p, path);
	else
		ret = 0;
out:
	free(path);
	return ret;
}

static int add_dist_info(struct packer *p)
{
	struct tf_buf b = TF_BUF_INIT;
	int ret;

	/* Bytewise order: METADATA, WHEEL, entry_points.txt, tfbuild-isa,
	   then RECORD. */
	build_metadata(p, &b);
	ret = add_meta(p, "METADATA", &b);
	tf_buf_reset(&b);
	build_wheel_file(p, &b);
	if (!ret)
		ret = add_meta(p, "WHEEL", &b);
	tf_buf_reset(&b);
	build_entry_points(p->eps, p->w->nr_entry_points, &b);
	if (!ret && b.len)
		ret = add_meta(p, "entry_points.txt", &b);
	tf_buf_reset(&b);
	if (p->w->isa_record)
		tf_buf_addstr(&b, p->w->isa_record);
	if (!ret && b.len)
		ret = add_meta(p, "tfbuild-isa", &b);
	if (!ret)
		ret = add_meta_files(p);
	/* PEP 825: after tfbuild/ in bytewise order. */
	tf_buf_reset(&b);
	if (p->w->variant_json)
		tf_buf_addstr(&b, p->w->variant_json);
	if (!ret && b.len)
		ret = add_meta(p, "variant.json", &b);
	tf_buf_release(&b);
	if (ret)
		return -1;
	/* Every other entry written, so RECORD has all their lines. */
	if (tf_zipout_flush(p->z) < 0)
		return zip_error(p, "RECORD");
	p->record_done = 1;
	return add_record(p);
}

static int wheel_jobs(const struct tf_wheel_spec *w)
{
	long n;

	if (w->jobs > 0)
		return w->jobs;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

static int open_zip(struct packer *p, const char *tmp)
{
	struct tf_buf context = TF_BUF_INIT;

	tf_buf_addf(&context, "wheel '%s'", p->w->name);
	p->z = tf_zipout_open(tmp, p->w->compression_level, wheel_jobs(p->w),
			      context.buf);
	tf_buf_release(&context);
	if (!p->z)
		return -1;
	tf_zipout_on_entry(p->z, record_add, p);
	return 0;
}

static time_t clamp_time(long long t)
{
	if (t < ZIP_TIME_MIN)
		return (time_t)ZIP_TIME_MIN;
	if (t > ZIP_TIME_MAX)
		return (time_t)ZIP_TIME_MAX;
	return (time_t)t;
}

static int write_zip(struct packer *p, const char *tmp)
{
	size_t i;
	int ret;

	if (open_zip(p, tmp) < 0)
		return -1;
	for (i = 0; i < p->w->nr_files; i++)
		if (add_file(p, p->files[i]) < 0)
			return -1;
	if (add_dist_info(p) < 0)
		return -1;
	ret = tf_zipout_close(p->z);
	p->z = NULL;
	return ret ? zip_error(p, tmp) : 0;
}

/* Make the finished temporary file the wheel: mode, fsync, rename. */
static int commit(const struct packer *p, int fd, const char *tmp,
		  const char *dst, const char *out_dir)
{
	int dfd;

	if (fchmod(fd, 0644) < 0 || fsync(fd) < 0)
		return error_errno("wheel '%s': cannot write '%s'", p->w->name,
				   tmp);
	if (rename(tmp, dst) < 0)
		return error_errno("wheel '%s': cannot rename '%s' to '%s'",
				   p->w->name, tmp, dst);
	/* Make the rename itself durable; not all file systems allow it. */
	dfd = open(out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
}

static int prepare(struct packer *p, const struct tf_wheel_spec *w)
{
	p->w = w;
	if (check_names(w) < 0 || check_fields(w) < 0)
		return -1;
	p->files = sorted_files(w);
	if (!p->files)
		return -1;
	p->eps = sorted_entry_points(w);
	if (!p->eps)
		return -1;
	if (tf_pep440_normalize(w->version, &p->version) < 0)
		BUG("version was validated");
	tf_pyname_wheel_escape(w->name, &p->distinfo);
	tf_buf_addf(&p->distinfo, "-%s.dist-info", p->version.buf);
	p->mtime = clamp_time(w->source_date_epoch);
	return 0;
}

int tf_wheel_pack(const struct tf_wheel_spec *w, const char *out_dir,
		  struct tf_buf *path_out)
{
	struct packer p = PACKER_INIT;
	struct tf_buf name = TF_BUF_INIT, dst = TF_BUF_INIT;
	char *tmp = NULL;
	int fd = -1, ret = -1;

	if (prepare(&p, w) < 0 || tf_mkdir_p(out_dir) < 0)
		goto out;
	if (tf_wheel_filename(w, &name) < 0)
		BUG("wheel name was validated");
	tf_path_join(&dst, out_dir, name.buf);
	tmp = tf_xstrfmt("%s/.%s.XXXXXX", out_dir, name.buf);
	fd = tf_signals_mkstemp(tmp, 0);
	if (fd < 0) {
		error_errno(
			"wheel '%s': cannot create a temporary file in '%s'",
			w->name, out_dir);
		goto out;
	}
	/* RECORD's lines wait in a file beside the wheel, not in memory. */
	if (tf_spool_open(&p.record, out_dir) < 0) {
		error_errno("wheel '%s': cannot create a temporary file for "
			    "RECORD in '%s'",
			    w->name, out_dir);
		ret = -1;
	} else {
		ret = write_zip(&p, tmp);
	}
	if (!ret)
		ret = commit(&p, fd, tmp, dst.buf, out_dir);
	if (ret)
		unlink(tmp);
	else
		tf_buf_add(path_out, dst.buf, dst.len);
out:
	if (fd >= 0)
		close(fd);
	packer_release(&p);
	if (tmp)
		tf_signals_temp_forget(tmp);
	free(tmp);
	tf_buf_release(&name);
	tf_buf_release(&dst);
	return ret;
}
