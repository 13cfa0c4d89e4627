/*
 * test-wheel: let shell tests call the wheel writer directly.
 *
 *   test-wheel pack OUTDIR --name N --version V --tag PY-ABI-PLAT
 *       [--summary S] [--license L] [--requires R]... [--requires-python P]
 *       [--home-page U] [--entry-point GROUP:NAME=VALUE]... [--epoch N]
 *       [--level N] [--jobs N] [--isa-record TEXT] FILE=DST...
 *
 * prints the wheel's path and exits 0, or exits 1 after tfbuild's error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"
#include "strpool.h"
#include "wheel.h"

struct args {
	struct tf_wheel_spec spec;
	struct tf_strpool strings;        /* owned; storage for the split values
					 (a pool: bench/pack.sh lists 63,000
					 files, and the writer's peak RSS is
					 measured with this tool) */
	struct tf_strvec requires;        /* owned; Requires-Dist lines */
	struct tf_wheel_entry_point *eps; /* owned array */
	struct tf_wheel_file *files;      /* owned array */
	size_t alloc_files;
	int sbom; /* 1: with the SBOM every tfbuild wheel carries */
};

static void usage(void)
{
	fputs("usage: test-wheel pack OUTDIR --name N --version V "
	      "--tag PY-ABI-PLAT [options] FILE=DST...\n"
	      "       (--files-from LIST: more FILE=DST, one per line)\n",
	      stderr);
	exit(2);
}

/* Keep a copy of s[0..n) alive until exit, and return it. */
static const char *keep(struct args *a, const char *s, size_t n)
{
	return tf_strpool_addn(&a->strings, s, n);
}

static void parse_tag(struct args *a, const char *tag)
{
	const char *d1 = strchr(tag, '-'),
		   *d2 = d1 ? strchr(d1 + 1, '-') : NULL;

	if (!d2)
		usage();
	a->spec.python_tag = keep(a, tag, (size_t)(d1 - tag));
	a->spec.abi_tag = keep(a, d1 + 1, (size_t)(d2 - d1 - 1));
	a->spec.platform_tag = keep(a, d2 + 1, strlen(d2 + 1));
}

static void add_entry_point(struct args *a, const char *s)
{
	const char *colon = strchr(s, ':'),
		   *eq = colon ? strchr(colon, '=') : NULL;
	struct tf_wheel_entry_point *e;

	if (!eq)
		usage();
	a->eps = tf_realloc(a->eps, (a->spec.nr_entry_points + 1) * sizeof(*e));
	e = &a->eps[a->spec.nr_entry_points++];
	e->group = keep(a, s, (size_t)(colon - s));
	e->name = keep(a, colon + 1, (size_t)(eq - colon - 1));
	e->value = keep(a, eq + 1, strlen(eq + 1));
}

static void add_file(struct args *a, const char *s)
{
	const char *eq = strchr(s, '=');
	size_t n = eq ? (size_t)(eq - s) : 0;
	struct tf_wheel_file *f;

	if (!eq)
		usage();
	if (a->spec.nr_files == a->alloc_files) {
		a->alloc_files = a->alloc_files ? a->alloc_files * 2 : 64;
		a->files = tf_realloc(a->files, a->alloc_files * sizeof(*f));
	}
	f = &a->files[a->spec.nr_files++];
	f->src = keep(a, s, n);
	/* FILE=FILE, as bench/pack.sh lists them: one copy. */
	f->dst = !strcmp(eq + 1, f->src) ? f->src
					 : keep(a, eq + 1, strlen(eq + 1));
}

/* FILE=DST lines from list: a tree of 90,000 files does not fit in argv. */
static void add_files_from(struct args *a, const char *list)
{
	FILE *f = fopen(list, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f) {
		perror(list);
		exit(1);
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (n)
			add_file(a, line);
	}
	free(line);
	fclose(f);
}

static int option(struct args *a, const char *opt, const char *val)
{
	struct tf_wheel_spec *w = &a->spec;

	if (!strcmp(opt, "--name"))
		w->name = val;
	else if (!strcmp(opt, "--version"))
		w->version = val;
	else if (!strcmp(opt, "--tag"))
		parse_tag(a, val);
	else if (!strcmp(opt, "--summary"))
		w->summary = val;
	else if (!strcmp(opt, "--license"))
		w->license = val;
	else if (!strcmp(opt, "--requires"))
		tf_strvec_push(&a->requires, val);
	else if (!strcmp(opt, "--requires-python"))
		w->requires_python = val;
	else if (!strcmp(opt, "--home-page"))
		w->home_page = val;
	else if (!strcmp(opt, "--entry-point"))
		add_entry_point(a, val);
	else if (!strcmp(opt, "--epoch"))
		w->source_date_epoch = atoll(val);
	else if (!strcmp(opt, "--level"))
		w->compression_level = atoi(val);
	else if (!strcmp(opt, "--jobs"))
		w->jobs = atoi(val); /* deflating threads (zipout.h) */
	else if (!strcmp(opt, "--files-from"))
		add_files_from(a, val);
	else if (!strcmp(opt, "--isa-record"))
		w->isa_record = val; /* the text of .dist-info/tfbuild-isa */
	else if (!strcmp(opt, "--sbom"))
		a->sbom = strcmp(val, "no"); /* "no": a wheel without one */
	else
		return -1;
	return 0;
}

/*
 * The smallest SBOM tfbuild verify takes (docs/sbom.md): the package as
 * primary component, written to a temporary file that sbom_path names.
 */
static int write_sbom(const struct tf_wheel_spec *w, char *sbom_path)
{
	FILE *f;
	int fd = mkstemp(sbom_path);

	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		perror(sbom_path);
		return -1;
	}
	fprintf(f,
		"{\"bomFormat\": \"CycloneDX\", \"specVersion\": \"1.6\", "
		"\"version\": 1, \"metadata\": {\"component\": {\"type\": "
		"\"library\", \"name\": \"%s\", \"version\": \"%s\"}}}\n",
		w->name ? w->name : "", w->version ? w->version : "");
	return fclose(f) ? -1 : 0;
}

int main(int argc, char **argv)
{
	struct args a = { .strings = TF_STRPOOL_INIT,
			  .requires = TF_STRVEC_INIT,
			  .sbom = 1 };
	struct tf_wheel_file sbom_file;
	char sbom_path[] = "/tmp/test-wheel-sbom.XXXXXX";
	struct tf_buf path = TF_BUF_INIT;
	int i, ret;

	if (argc < 3 || strcmp(argv[1], "pack"))
		usage();
	a.spec.compression_level = -1;
	for (i = 3; i < argc; i++) {
		if (!strncmp(argv[i], "--", 2)) {
			if (i + 1 == argc ||
			    option(&a, argv[i], argv[i + 1]) < 0)
				usage();
			i++;
		} else {
			add_file(&a, argv[i]);
		}
	}
	a.spec.requires_dist = (const char *const *)a.requires.v;
	a.spec.entry_points = a.eps;
	a.spec.files = a.files;
	ret = 0;
	if (a.sbom) {
		ret = write_sbom(&a.spec, sbom_path);
		sbom_file.src = sbom_path;
		sbom_file.dst = "sboms/tfbuild.cdx.json";
		a.spec.meta_files = &sbom_file;
		a.spec.nr_meta_files = 1;
	}
	if (!ret)
		ret = tf_wheel_pack(&a.spec, argv[2], &path);
	if (a.sbom)
		unlink(sbom_path);
	if (!ret)
		printf("%s\n", path.buf);
	tf_buf_release(&path);
	tf_strpool_release(&a.strings);
	tf_strvec_release(&a.requires);
	free(a.eps);
	free(a.files);
	return ret ? 1 : 0;
}
