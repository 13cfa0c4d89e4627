/*
 * embed-templates: turn templates/ into the C table tfbuild new writes
 * projects from (toolkit/scaffold/scaffold.h), at build time, so an
 * installed tfbuild carries its templates.
 *
 *   embed-templates TEMPLATES-DIR OUT.c
 *
 * Every directory TEMPLATES-DIR/NAME is a template: its `.summary` (one
 * line) says what it makes, every other file below it is a file of the
 * project. The output depends only on the files' paths, bytes and
 * executable bits, in bytewise sorted order. A "{{" in a path or a file
 * that does not start a placeholder of toolkit/scaffold/placeholders.inc
 * is an error here, naming FILE:LINE, so a template never surprises its
 * user at run time. Only libc: make must build it before anything else.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const ids[] = {
#define TF_PLACEHOLDER(id, what) #id,
#include "scaffold/placeholders.inc"
#undef TF_PLACEHOLDER
	NULL,
};

struct file {
	char *rel;  /* path below the template */
	char *full; /* path to read */
	int exec;
};

static int failed;

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "embed-templates: out of memory\n");
		exit(1);
	}
	return p;
}

static char *join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *s = xrealloc(NULL, n);

	snprintf(s, n, "%s%s%s", a, *a ? "/" : "", b);
	return s;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in dir, sorted bytewise, without . and .. */
static char **list(const char *dir, size_t *nr)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;

	*nr = 0;
	if (!d) {
		fprintf(stderr, "embed-templates: cannot open '%s': %s\n", dir,
			strerror(errno));
		exit(1);
	}
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			v = xrealloc(v, (*nr + 1) * sizeof(*v));
			v[(*nr)++] = strdup(e->d_name);
		}
	closedir(d);
	qsort(v, *nr, sizeof(*v), by_name);
	return v;
}

/* Every regular file below dir (rel: its path so far), depth first. */
static void walk(const char *dir, const char *rel, struct file **files,
		 size_t *nr)
{
	size_t i, n;
	char **names = list(dir, &n);

	for (i = 0; i < n; i++) {
		char *full = join(dir, names[i]), *r = join(rel, names[i]);
		struct stat st;

		if (lstat(full, &st) < 0) {
			fprintf(stderr, "embed-templates: %s: %s\n", full,
				strerror(errno));
			exit(1);
		}
		if (S_ISDIR(st.st_mode)) {
			walk(full, r, files, nr);
			free(full);
			free(r);
		} else if (S_ISREG(st.st_mode)) {
			*files = xrealloc(*files, (*nr + 1) * sizeof(**files));
			(*files)[(*nr)++] =
				(struct file){ r, full, !!(st.st_mode & 0111) };
		} else {
			fprintf(stderr,
				"embed-templates: %s: only files and directories may be in a template\n",
				full);
			exit(1);
		}
		free(names[i]);
	}
	free(names);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	size_t n = 0, got;
	char chunk[65536];

	if (!f) {
		fprintf(stderr, "embed-templates: cannot read '%s': %s\n", path,
			strerror(errno));
		exit(1);
	}
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		s = xrealloc(s, n + got + 1);
		memcpy(s + n, chunk, got);
		n += got;
	}
	fclose(f);
	s = xrealloc(s, n + 1);
	s[n] = '\0';
	*len = n;
	return s;
}

/* Report each "{{" in s that starts no known placeholder. */
static void check(const char *what, const char *s, size_t len)
{
	const char *p = s, *end = s + len;
	size_t i, n;

	while ((p = memmem(p, (size_t)(end - p), "{{", 2))) {
		for (i = 0; ids[i]; i++) {
			n = strlen(ids[i]);
			if ((size_t)(end - p) >= n + 4 &&
			    !memcmp(p + 2, ids[i], n) &&
			    !memcmp(p + 2 + n, "}}", 2))
				break;
		}
		if (!ids[i]) {
			const char *q;
			int line = 1;

			for (q = s; q < p; q++)
				line += *q == '\n';
			fprintf(stderr,
				"embed-templates: %s:%d: '%.*s' is no placeholder (known:",
				what, line,
				(int)strcspn(p, "\n") > 24
					? 24
					: (int)strcspn(p, "\n"),
				p);
			for (i = 0; ids[i]; i++)
				fprintf(stderr, " {{%s}}", ids[i]);
			fprintf(stderr, ")\n");
			failed = 1;
			p += 2;
			continue;
		}
		p += n + 4;
	}
}

static void emit_bytes(FILE *out, const char *name, const char *s, size_t len)
{
	size_t i;

	fprintf(out, "static const unsigned char %s[] = {", name);
	for (i = 0; i < len; i++)
		fprintf(out, "%s0x%02x,", i % 12 ? " " : "\n\t",
			(unsigned char)s[i]);
	fprintf(out, "%s0x00\n};\n", len % 12 ? " " : "\n\t");
}

/* A C string literal of s (paths and summaries: printable text). */
static void emit_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++)
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			fprintf(out, "\\%03o", (unsigned char)*s);
		else
			fputc(*s, out);
	fputc('"', out);
}

int main(int argc, char **argv)
{
	size_t nt, t, i;
	char **names;
	char **summaries;
	size_t *counts;
	FILE *out;

	if (argc != 3) {
		fprintf(stderr, "usage: embed-templates TEMPLATES-DIR OUT.c\n");
		return 2;
	}
	names = list(argv[1], &nt);
	summaries = xrealloc(NULL, nt * sizeof(*summaries));
	counts = xrealloc(NULL, nt * sizeof(*counts));
	out = fopen(argv[2], "w");
	if (!out) {
		fprintf(stderr, "embed-templates: cannot write '%s': %s\n",
			argv[2], strerror(errno));
		return 1;
	}
	fprintf(out,
		"/* Generated from templates/ by tools/embed-templates.c: do not edit. */\n"
		"#include \"scaffold/scaffold.h\"\n");
	for (t = 0; t < nt; t++) {
		char *dir = join(argv[1], names[t]);
		struct file *files = NULL;
		size_t nr = 0, k = 0, len;

		walk(dir, "", &files, &nr);
		summaries[t] = NULL;
		for (i = 0; i < nr; i++) {
			char *text = slurp(files[i].full, &len), var[64];

			if (!strcmp(files[i].rel, ".summary")) {
				text[strcspn(text, "\n")] = '\0';
				summaries[t] = text;
				continue;
			}
			check(files[i].full, files[i].rel,
			      strlen(files[i].rel));
			check(files[i].full, text, len);
			snprintf(var, sizeof(var), "t%zu_f%zu", t, k++);
			emit_bytes(out, var, text, len);
			free(text);
		}
		if (!summaries[t] || !*summaries[t]) {
			fprintf(stderr,
				"embed-templates: %s/.summary: missing or empty: one line, what the template makes\n",
				dir);
			failed = 1;
		}
		fprintf(out,
			"static const struct tf_template_file t%zu[] = {\n", t);
		for (i = 0, k = 0; i < nr; i++) {
			if (!strcmp(files[i].rel, ".summary"))
				continue;
			fputs("\t{ ", out);
			emit_string(out, files[i].rel);
			fprintf(out,
				", %s, t%zu_f%zu, sizeof(t%zu_f%zu) - 1 },\n",
				files[i].exec ? "0755" : "0644", t, k, t, k);
			k++;
		}
		fputs("};\n", out);
		counts[t] = k;
		free(dir);
	}
	fputs("const struct tf_template tf_templates[] = {\n", out);
	for (t = 0; t < nt; t++) {
		fputs("\t{ ", out);
		emit_string(out, names[t]);
		fputs(", ", out);
		emit_string(out, summaries[t] ? summaries[t] : "");
		fprintf(out, ", t%zu, %zu },\n", t, counts[t]);
	}
	fputs("\t{ 0, 0, 0, 0 },\n};\n", out);
	if (fclose(out) || failed) {
		if (!failed)
			fprintf(stderr, "embed-templates: cannot write '%s'\n",
				argv[2]);
		remove(argv[2]);
		return 1;
	}
	return 0;
}
