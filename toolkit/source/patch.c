#include "patch.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

/* Longest patch line we read whole; a file name is far shorter. */
#define LINE_CAP 65536
/* Most of patch's output kept to explain a failure. */
#define OUTPUT_CAP (256 * 1024)

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/*
 * Decode a C-quoted name, as git and diff write names with odd bytes:
 * "a/x\tb" or "a/\303\251". s points at the opening quote. Returns the
 * byte after the closing quote, or NULL if s is not well formed.
 */
static const char *unquote(const char *s, struct tf_buf *out)
{
	static const char from[] = "abfnrtv\\\"", to[] = "\a\b\f\n\r\t\v\\\"";

	for (s++; *s && *s != '"'; s++) {
		const char *esc;
		int v = 0, i;

		if (*s != '\\') {
			tf_buf_addch(out, *s);
			continue;
		}
		s++;
		for (i = 0; i < 3 && *s >= '0' && *s <= '7'; i++)
			v = v * 8 + *s++ - '0';
		if (i) {
			if (!v || v > 255)
				return NULL;
			tf_buf_addch(out, (char)v);
			s--;
		} else if (*s && (esc = strchr(from, *s))) {
			tf_buf_addch(out, to[esc - from]);
		} else {
			return NULL;
		}
	}
	return *s == '"' ? s + 1 : NULL;
}

/*
 * Where patch ends an unquoted name: at the first white space, unless a
 * tab comes later on the line, in which case the name may hold spaces
 * and ends at the white space before that tab.
 */
static size_t name_len(const char *s)
{
	const char *t, *u;

	for (t = s; *t; t++) {
		if (!isspace((unsigned char)*t))
			continue;
		for (u = t; *u != '\t' && isspace((unsigned char)u[1]); u++)
			;
		if (*u != '\t' && strchr(u + 1, '\t'))
			continue;
		break;
	}
	return (size_t)(t - s);
}

/* Read the next name at s into out (replacing it); returns where it ended. */
static const char *next_name(const char *s, struct tf_buf *out)
{
	const char *end;
	size_t n;

	tf_buf_reset(out);
	while (isspace((unsigned char)*s))
		s++;
	if (*s == '"' && (end = unquote(s, out)))
		return end;
	tf_buf_reset(out);
	n = name_len(s);
	tf_buf_add(out, s, n);
	return s + n;
}

/*
 * Strip as patch -p<strip> does: drop everything up to the strip'th run
 * of slashes. Returns 0 with the rest appended to out, or -1 if patch
 * would ignore the name (too few slashes, or nothing left).
 */
static int strip_name(const char *name, int strip, struct tf_buf *out)
{
	const char *p, *rest = name;

	for (p = name; *p; p++) {
		if (*p != '/')
			continue;
		while (p[1] == '/')
			p++;
		if (strip > 0) {
			strip--;
			rest = p + 1;
		}
	}
	if (strip > 0 || !*rest)
		return -1;
	tf_buf_addstr(out, rest);
	return 0;
}

/* 1 with the stripped path in bad if name is absolute or has "..". */
static int unsafe_name(const char *name, int strip, struct tf_buf *bad)
{
	struct tf_buf s = TF_BUF_INIT;
	int ret = 0;

	if (strcmp(name, "/dev/null") && !strip_name(name, strip, &s) &&
	    !tf_path_is_safe_relative(s.buf)) {
		tf_buf_reset(bad);
		tf_buf_addstr(bad, s.buf);
		ret = 1;
	}
	tf_buf_release(&s);
	return ret;
}

/* Check every name on a line: "diff --git a/x b/y" has two. */
static int unsafe_names(const char *s, int strip, struct tf_buf *bad)
{
	struct tf_buf name = TF_BUF_INIT;
	int ret = 0;

	while (!ret && *(s = next_name(s, &name)) != '\0')
		ret = unsafe_name(name.buf, strip, bad);
	if (!ret && name.len)
		ret = unsafe_name(name.buf, strip, bad);
	tf_buf_release(&name);
	return ret;
}

/*
 * Git's "rename from NAME" has no a/ prefix and runs to the end of the
 * line; patch ignores it, but a name with ".." there is no honest patch.
 */
static int unsafe_git_name(const char *s, struct tf_buf *bad)
{
	struct tf_buf name = TF_BUF_INIT;
	size_t n = strlen(s);
	int ret;

	if (*s != '"' || !unquote(s, &name)) {
		tf_buf_reset(&name);
		while (n && isspace((unsigned char)s[n - 1]))
			n--;
		tf_buf_add(&name, s, n);
	}
	ret = unsafe_name(name.buf, 0, bad);
	tf_buf_release(&name);
	return ret;
}

/* Note the line counts of a unified hunk header "@@ -a,b +c,d @@". */
static void start_hunk(struct tf_patch_scan *s, const char *line)
{
	const char *p = line + 4;
	long old = 1, new = 1;
	char *end;

	strtol(p, &end, 10);
	if (end == p)
		return;
	if (*end == ',')
		old = strtol(end + 1, &end, 10);
	if (strncmp(end, " +", 2))
		return;
	p = end + 2;
	strtol(p, &end, 10);
	if (end == p)
		return;
	if (*end == ',')
		new = strtol(end + 1, &end, 10);
	if (strncmp(end, " @@", 3) || old < 0 || new < 0)
		return;
	s->old_left = old;
	s->new_left = new;
}

/*
 * Count off one line of a hunk body; 1 if line belonged to the hunk. A
 * line that does not fit ends the hunk and is looked at as a header, so
 * a malformed hunk can only make the scan stricter.
 */
static int in_hunk(struct tf_patch_scan *s, const char *line)
{
	if (!s->old_left && !s->new_left)
		return 0;
	if ((*line == ' ' || !*line || !strcmp(line, "\r")) && s->old_left &&
	    s->new_left) {
		s->old_left--;
		s->new_left--;
		return 1;
	}
	if (*line == '-' && s->old_left) {
		s->old_left--;
		return 1;
	}
	if (*line == '+' && s->new_left) {
		s->new_left--;
		return 1;
	}
	if (*line == '\\')
		return 1;
	s->old_left = s->new_left = 0;
	return 0;
}

int tf_patch_scan_line(struct tf_patch_scan *s, const char *line,
		       struct tf_buf *bad)
{
	static const char *const named[] = { "--- ", "+++ ", "*** ",
					     "Index: " };
	static const char *const git[] = { "rename from ", "rename to ",
					   "copy from ", "copy to " };
	size_t i;

	if (in_hunk(s, line))
		return 0;
	if (starts(line, "@@ -")) {
		start_hunk(s, line);
		return 0;
	}
	for (i = 0; i < sizeof(named) / sizeof(*named); i++) {
		struct tf_buf name = TF_BUF_INIT;
		int ret;

		if (!starts(line, named[i]))
			continue;
		next_name(line + strlen(named[i]), &name);
		ret = name.len && unsafe_name(name.buf, s->strip, bad);
		tf_buf_release(&name);
		return ret;
	}
	if (starts(line, "diff --git "))
		return unsafe_names(line + 11, s->strip, bad);
	for (i = 0; i < sizeof(git) / sizeof(*git); i++)
		if (starts(line, git[i]))
			return unsafe_git_name(line + strlen(git[i]), bad);
	return 0;
}

/* What tf_patch_explain knows while reading patch's output. */
struct explain {
	int strip;              /* the -p level, to name a missing file */
	struct tf_buf file;     /* owned; the file patch is working on */
	int missing;            /* in a "can't find file to patch" report */
	long input_line;        /* the patch line that report is about */
	struct tf_buf old_name; /* owned; its "--- " name, stripped */
	struct tf_buf new_name; /* owned; its "+++ " name, stripped */
	struct tf_strvec *msgs; /* borrowed; where messages go */
};

/* Remember a name from patch's quote of the headers of a missing file. */
static void quoted_header(struct explain *x, const char *line)
{
	struct tf_buf name = TF_BUF_INIT, *dst = NULL;

	if (starts(line, "|--- ") && !x->old_name.len)
		dst = &x->old_name;
	else if (starts(line, "|+++ ") && !x->new_name.len)
		dst = &x->new_name;
	if (dst) {
		next_name(line + 5, &name);
		if (strcmp(name.buf, "/dev/null"))
			strip_name(name.buf, x->strip, dst);
	}
	tf_buf_release(&name);
}

static void missing_done(struct explain *x)
{
	const char *name = x->old_name.len ? x->old_name.buf : x->new_name.buf;

	if (*name)
		tf_strvec_pushf(x->msgs,
				"'%s' does not exist in the source tree", name);
	else
		tf_strvec_pushf(
			x->msgs,
			"the file patched at line %ld does not exist in the source tree",
			x->input_line);
	x->missing = 0;
}

/* "Hunk #2 FAILED at 40." or "Hunk #1 FAILED at 1 (different line endings)." */
static int hunk_failed(struct explain *x, const char *line)
{
	long hunk, at;
	char *end;
	const char *num;

	if (!starts(line, "Hunk #"))
		return 0;
	hunk = strtol(line + 6, &end, 10);
	if (end == line + 6 || !starts(end, " FAILED at "))
		return 0;
	num = end + 11;
	at = strtol(num, &end, 10);
	if (end == num)
		return 0;
	if (starts(end, " (") && strlen(end) > 4)
		tf_strvec_pushf(
			x->msgs,
			"hunk #%ld of '%s' does not apply (at line %ld, %.*s)",
			hunk, x->file.buf, at, (int)strlen(end) - 4, end + 2);
	else
		tf_strvec_pushf(
			x->msgs,
			"hunk #%ld of '%s' does not apply (at line %ld)", hunk,
			x->file.buf, at);
	return 1;
}

static void explain_line(struct explain *x, const char *line)
{
	const char *p;

	if (x->missing) {
		if (*line == '|')
			quoted_header(x, line);
		else if (starts(line, "No file to patch."))
			missing_done(x);
		return;
	}
	if (starts(line, "checking file ") || starts(line, "patching file ")) {
		tf_buf_reset(&x->file);
		tf_buf_addstr(&x->file, line + 14);
	} else if (hunk_failed(x, line)) {
		return;
	} else if (starts(line, "can't find file to patch at input line ")) {
		x->missing = 1;
		x->input_line = strtol(line + 39, NULL, 10);
		tf_buf_reset(&x->old_name);
		tf_buf_reset(&x->new_name);
	} else if (starts(line,
			  "Reversed (or previously applied) patch detected!")) {
		tf_strvec_pushf(x->msgs, "already applied or reversed on '%s'",
				x->file.buf);
	} else if (starts(line, "File ") &&
		   (p = strstr(line,
			       " is not a regular file -- refusing to patch"))) {
		tf_strvec_pushf(x->msgs, "'%.*s' is not a regular file",
				(int)(p - line - 5), line + 5);
	} else if (starts(line, "patch: **** ")) {
		tf_strvec_pushf(x->msgs, "patch: %s", line + 12);
	} else if (starts(line, "tfbuild: ")) {
		tf_strvec_push(x->msgs, line + 9);
	}
}

void tf_patch_explain(const char *output, int strip, struct tf_strvec *msgs)
{
	struct explain x = { strip,       TF_BUF_INIT, 0,   0,
			     TF_BUF_INIT, TF_BUF_INIT, msgs };
	struct tf_buf line = TF_BUF_INIT;
	const char *p = output;

	while (*p) {
		size_t n = strcspn(p, "\n");

		tf_buf_reset(&line);
		tf_buf_add(&line, p, n);
		explain_line(&x, line.buf);
		p += n;
		p += *p == '\n';
	}
	if (x.missing)
		missing_done(&x);
	tf_buf_release(&line);
	tf_buf_release(&x.file);
	tf_buf_release(&x.old_name);
	tf_buf_release(&x.new_name);
}

/*
 * Read a line without its newline into line. Returns 0 at the end of
 * the file, 1 for a line, 2 for a line longer than line->cap (its rest
 * is dropped).
 */
static int read_line(FILE *f, struct tf_buf *line)
{
	int c, ret = 1;

	tf_buf_reset(line);
	while ((c = getc(f)) != EOF && c != '\n')
		if (tf_buf_addch(line, (char)c) < 0)
			ret = 2;
	if (c == EOF && !line->len && ret == 1)
		return 0;
	return ret;
}

/* Refuse a patch that names a file outside the tree, before patch runs. */
static int scan_file(const char *path, const char *label, int strip)
{
	struct tf_patch_scan s = TF_PATCH_SCAN_INIT(strip);
	struct tf_buf line = TF_BUF_INIT, bad = TF_BUF_INIT;
	FILE *f = fopen(path, "re");
	long nr = 0;
	int r, ret = 0;

	if (!f)
		return error_errno("cannot open patch '%s'", label);
	line.cap = LINE_CAP;
	while (!ret && (r = read_line(f, &line)) > 0) {
		nr++;
		if (r == 2 && !s.old_left && !s.new_left) {
			ret = error("%s:%ld: line is longer than %d bytes",
				    label, nr, LINE_CAP);
		} else if (tf_patch_scan_line(&s, line.buf, &bad)) {
			ret = error(
				"%s: refusing path '%s' outside the source tree",
				label, bad.buf);
		}
	}
	if (!ret && ferror(f))
		ret = error_errno("cannot read patch '%s'", label);
	fclose(f);
	tf_buf_release(&line);
	tf_buf_release(&bad);
	return ret;
}

/*
 * patch gets a clean environment: POSIXLY_CORRECT changes how it picks
 * file names and makes backups, PATCH_GET can have it check files out of
 * RCS or Perforce through a shell, and LC_ALL and QUOTING_STYLE fix the
 * wording and quoting of the messages tf_patch_explain reads.
 */
static void patch_env(struct tf_strvec *env)
{
	const char *path = getenv("PATH"), *tmp = getenv("TMPDIR");

	tf_strvec_pushf(env, "PATH=%s", path ? path : "/usr/bin:/bin");
	if (tmp)
		tf_strvec_pushf(env, "TMPDIR=%s", tmp);
	tf_strvec_push(env, "LC_ALL=C");
	tf_strvec_push(env, "QUOTING_STYLE=literal");
}

/* The last non-blank line of s, as a start and a length. */
static const char *last_line(const char *s, int *len)
{
	size_t end = strlen(s), start;

	while (end && isspace((unsigned char)s[end - 1]))
		end--;
	for (start = end; start && s[start - 1] != '\n'; start--)
		;
	*len = (int)(end - start);
	return s + start;
}

static int report(const char *label, int strip, const char *output, int status)
{
	struct tf_strvec msgs = TF_STRVEC_INIT;
	struct tf_buf how = TF_BUF_INIT;
	const char *last;
	size_t i;
	int len;

	tf_patch_explain(output, strip, &msgs);
	for (i = 0; i < msgs.nr; i++)
		error("%s: %s", label, msgs.v[i]);
	if (!msgs.nr) {
		tf_run_describe_status(status, &how);
		last = last_line(output, &len);
		error("%s: patch failed (%s)%s%.*s", label, how.buf,
		      len ? ": " : "", len, last);
	}
	tf_strvec_release(&msgs);
	tf_buf_release(&how);
	return -1;
}

/* With -v, what patch said about a patch that applied ("offset 3 lines"). */
static void show_output(const char *label, const char *output)
{
	while (*output) {
		int n = (int)strcspn(output, "\n");

		verbose("%s: %.*s", label, n, output);
		output += n;
		output += *output == '\n';
	}
}

static int run_patch(const char *tree, const char *patch, const char *label,
		     int strip, int dry_run)
{
	static const char *const args[] = { "patch",
					    "--batch",
					    "--forward",
					    "--fuzz=0",
					    "--no-backup-if-mismatch",
					    "--reject-file=-",
					    NULL };
	struct tf_run r = TF_RUN_INIT;
	struct tf_buf out = TF_BUF_INIT;
	int status, ret = 0;

	tf_strvec_pushv(&r.argv, args);
	tf_strvec_pushf(&r.argv, "-p%d", strip);
	if (dry_run)
		tf_strvec_push(&r.argv, "--dry-run");
	tf_strvec_pushv(&r.argv,
			(const char *const[]){ "-d", tree, "-i", patch, NULL });
	patch_env(&r.env);
	r.clean_env = 1;
	status = tf_run_capture(&r, &out, OUTPUT_CAP);
	if (status < 0)
		ret = -1;
	else if (status > 0)
		ret = report(label, strip, out.buf, status);
	else if (!dry_run)
		show_output(label, out.buf);
	tf_run_release(&r);
	tf_buf_release(&out);
	return ret;
}

int tf_patch_apply(const char *tree, const char *patch_path, const char *label,
		   int strip)
{
	struct tf_buf abs = TF_BUF_INIT;
	int ret;

	if (strip < 0)
		BUG("negative strip %d", strip);
	if (scan_file(patch_path, label, strip) < 0)
		return -1;
	/* patch -d changes directory before it opens -i. */
	if (tf_path_absolute(&abs, patch_path) < 0)
		return -1;
	ret = run_patch(tree, abs.buf, label, strip, 1);
	if (!ret)
		ret = run_patch(tree, abs.buf, label, strip, 0);
	tf_buf_release(&abs);
	return ret;
}
