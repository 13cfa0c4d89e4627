/*
 * test-elf: let shell tests call the ELF reader and checks directly.
 *
 *   test-elf info FILE
 *       prints what tf_elf_read() found, one "key: value" per line, or
 *       "not ELF"
 *   test-elf [-v] check (--platform TAG | --compute ARCH) [--context C]
 *       [--allow-needed NAME]... [--isa-level N] [--export FILE:SYMBOL]...
 *       FILE=INWHEEL...
 *       runs tf_elf_verify_wheel(); prints "platform: TAG" (the computed
 *       one, or TAG as given); -v shows what decided a computed one
 *   test-elf verify --platform TAG [--context C] [--entry NAME]...
 *       FILE=INWHEEL...
 *       runs tf_elf_verify_file() on each file with tf_elf_rules_for_platform()
 *       (the wheel's entries are the INWHEELs and the NAMEs); prints
 *       "ok: INWHEEL" or "skip: INWHEEL (not ELF)" for each
 *
 * Exits 0, or 1 after tfbuild's error, or 2 on bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "elf.h"
#include "log.h"
#include "manylinux.h"
#include "wheel.h"

struct args {
	struct tf_elf_rules rules;
	const char *platform;          /* --platform, borrowed from argv */
	struct tf_strvec strings;      /* owned; storage for split values */
	struct tf_strvec allow;        /* owned; --allow-needed */
	struct tf_strvec entries;      /* owned; every path in the wheel */
	struct tf_elf_export *exports; /* owned array */
	struct tf_wheel_file *files;   /* owned array */
	size_t nr_files;
};

static TF_NORETURN void usage(void)
{
	fputs("usage: test-elf info FILE\n"
	      "       test-elf [-v] check (--platform TAG | --compute ARCH) "
	      "[options] FILE=INWHEEL...\n"
	      "       test-elf verify --platform TAG [--context C] "
	      "[--entry NAME]... FILE=INWHEEL...\n",
	      stderr);
	exit(2);
}

static const char *type_name(unsigned type)
{
	static const char *const names[] = { "NONE", "REL", "EXEC", "DYN",
					     "CORE" };

	return type < 5 ? names[type] : "OTHER";
}

static void print_info(const struct tf_elf_info *info)
{
	char buf[32];
	size_t i;

	printf("class: %d\nbyte-order: %s\nmachine: %s\ntype: %s\n",
	       info->elf_class,
	       info->big_endian ? "big-endian" : "little-endian",
	       tf_elf_machine_name(info->machine, buf), type_name(info->type));
	if (info->soname)
		printf("soname: %s\n", info->soname);
	for (i = 0; i < info->needed.nr; i++)
		printf("needed: %s\n", info->needed.v[i]);
	if (info->rpath)
		printf("rpath: %s\n", info->rpath);
	if (info->runpath)
		printf("runpath: %s\n", info->runpath);
	printf("min-load-align: %llu\n", info->min_load_align);
	for (i = 0; i < info->nr_versions; i++)
		printf("version: %s %s%s%s\n", info->versions[i].library,
		       info->versions[i].name,
		       info->versions[i].symbol ? " " : "",
		       info->versions[i].symbol ? info->versions[i].symbol
						: "");
	if (info->x86_isa_needed)
		printf("x86-isa-needed: x86-64-v%d\n",
		       tf_elf_x86_isa_level(info->x86_isa_needed));
	for (i = 0; i < info->exports.nr; i++)
		printf("export: %s\n", info->exports.v[i]);
}

static int cmd_info(int argc, char **argv)
{
	struct tf_elf_info info = TF_ELF_INFO_INIT;
	enum tf_elf_read_result ret;

	if (argc != 3)
		usage();
	ret = tf_elf_read(argv[2], argv[2], &info);
	if (ret == TF_ELF_READ_NOT_ELF)
		printf("not ELF\n");
	else if (ret == TF_ELF_READ_OK)
		print_info(&info);
	tf_elf_info_release(&info);
	return ret == TF_ELF_READ_ERROR ? 1 : 0;
}

/* Keep a copy of s[0..n) alive until exit, and return it. */
static const char *keep(struct args *a, const char *s, size_t n)
{
	tf_strvec_push_take(&a->strings, tf_strndup(s, n));
	return a->strings.v[a->strings.nr - 1];
}

static void add_export(struct args *a, const char *s)
{
	const char *colon = strrchr(s, ':');
	struct tf_elf_export *e;

	if (!colon)
		usage();
	a->exports =
		tf_realloc(a->exports, (a->rules.nr_exports + 1) * sizeof(*e));
	e = &a->exports[a->rules.nr_exports++];
	e->file = keep(a, s, (size_t)(colon - s));
	e->symbol = keep(a, colon + 1, strlen(colon + 1));
}

static void add_file(struct args *a, const char *s)
{
	const char *eq = strchr(s, '=');
	struct tf_wheel_file *f;

	if (!eq)
		usage();
	a->files = tf_realloc(a->files, (a->nr_files + 1) * sizeof(*f));
	f = &a->files[a->nr_files++];
	f->src = keep(a, s, (size_t)(eq - s));
	f->dst = keep(a, eq + 1, strlen(eq + 1));
	tf_strvec_push(&a->entries, f->dst);
}

static int option(struct args *a, const char *opt, const char *val)
{
	if (!strcmp(opt, "--platform")) {
		a->platform = val;
	} else if (!strcmp(opt, "--compute")) {
		if (tf_arch_from_name(val) == TF_ARCH_NONE)
			usage();
		tf_platform_compute(&a->rules.platform, tf_arch_from_name(val));
	} else if (!strcmp(opt, "--context")) {
		a->rules.context = val;
	} else if (!strcmp(opt, "--allow-needed")) {
		tf_strvec_push(&a->allow, val);
	} else if (!strcmp(opt, "--isa-level")) {
		a->rules.isa_level = atoi(val);
	} else if (!strcmp(opt, "--export")) {
		add_export(a, val);
	} else if (!strcmp(opt, "--entry")) {
		tf_strvec_push(&a->entries, val);
	} else {
		return -1;
	}
	return 0;
}

static void parse_args(struct args *a, int argc, char **argv)
{
	int i;

	for (i = 2; i < argc; i++) {
		if (!strncmp(argv[i], "--", 2)) {
			if (i + 1 == argc ||
			    option(a, argv[i], argv[i + 1]) < 0)
				usage();
			i++;
		} else {
			add_file(a, argv[i]);
		}
	}
	a->rules.allow_needed = (const char *const *)a->allow.v;
	a->rules.nr_allow_needed = a->allow.nr;
	a->rules.exports = a->exports;
}

static int cmd_check(struct args *a)
{
	struct tf_buf platform = TF_BUF_INIT;
	int ret;

	if (a->platform &&
	    tf_platform_parse(a->platform, &a->rules.platform, &platform)) {
		error("--platform '%s': %s", a->platform, platform.buf);
		exit(2);
	}
	if (!a->platform && a->rules.platform.kind != TF_PLATFORM_MANYLINUX)
		usage();
	ret = tf_elf_verify_wheel(a->files, a->nr_files, &a->rules, &platform);
	if (!ret)
		printf("platform: %s\n",
		       a->platform ? a->platform : platform.buf);
	tf_buf_release(&platform);
	return ret ? 1 : 0;
}

static int cmd_verify(struct args *a)
{
	struct tf_elf_rules rules;
	enum tf_elf_verify_result ret;
	size_t i;

	if (!a->platform ||
	    tf_elf_rules_for_platform(&rules, a->platform, a->rules.context))
		return a->platform ? 1 : 2;
	rules.wheel_files = (const char *const *)a->entries.v;
	rules.nr_wheel_files = a->entries.nr;
	for (i = 0; i < a->nr_files; i++) {
		ret = tf_elf_verify_file(a->files[i].src, a->files[i].dst,
					 &rules);
		if (ret == TF_ELF_VERIFY_FAILED)
			return 1;
		printf("%s: %s%s\n",
		       ret == TF_ELF_VERIFY_NOT_ELF ? "skip" : "ok",
		       a->files[i].dst,
		       ret == TF_ELF_VERIFY_NOT_ELF ? " (not ELF)" : "");
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct args a = { .rules = TF_ELF_RULES_INIT,
			  .strings = TF_STRVEC_INIT,
			  .allow = TF_STRVEC_INIT,
			  .entries = TF_STRVEC_INIT };
	int ret;

	if (argc > 1 && !strcmp(argv[1], "-v")) {
		tf_verbosity = 2;
		argv++;
		argc--;
	}
	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "info"))
		return cmd_info(argc, argv);
	parse_args(&a, argc, argv);
	if (!strcmp(argv[1], "check"))
		ret = cmd_check(&a);
	else if (!strcmp(argv[1], "verify"))
		ret = cmd_verify(&a);
	else
		usage();
	tf_strvec_release(&a.strings);
	tf_strvec_release(&a.allow);
	tf_strvec_release(&a.entries);
	free(a.exports);
	free(a.files);
	return ret;
}
