#ifndef TF_CLI_H
#define TF_CLI_H

/*
 * cli/: the commands, and the only exits: the command table
 * (commands.c), main() and its one parse of the command line (opt.h),
 * one thin cmd_<name>.c per command, what recipe, fetch and explain
 * share (session.h), and help, the man page and completion (cmd_help.c).
 *
 * Subcommands: one thin cmd_<name>.c each, listed in the command table
 * (commands.c) with their options. main() parses the whole command line
 * once, with one scheme for every command (opt.h): global options and
 * the command's own, anywhere among the arguments, into struct tf_args;
 * it handles --help, -V and usage errors itself. A command gets the
 * parsed arguments, calls the stages, and returns an exit code from
 * enum tf_exit; main() is the only place that exits.
 *
 * Adding an option is one line in a command's table, plus a field in
 * struct tf_args:
 *
 *   1. add the field below, e.g. `const char *framework;` (or an int,
 *      or a struct tf_strvec for a repeatable option: release it in
 *      tf_args_release());
 *   2. add the entry to the command's table, e.g. in cmd_verify.c:
 *      { 0, "framework", TF_OPT_STRING, TF_ARG(framework), "DIR",
 *        "check plugins against the framework in DIR" },
 *      or, for an option several commands share, define a TF_OPT_X
 *      entry below and put it in each table.
 *
 * Help (`tfbuild help CMD`), the man page (`tfbuild help --man`) and
 * shell completion (`tfbuild help --complete`) all come from the tables.
 */

#include <stddef.h>
#include <stdio.h>

#include "base/base.h"
#include "opt.h"
#include "env/env.h"

/* Everything a command line can say; fields are borrowed from argv. */
struct tf_args {
	/* global */
	int help;               /* -h, --help */
	int version;            /* -V, --version */
	const char *color;      /* --color: auto, always, never (NULL: auto) */
	const char *log_format; /* --log-format: text, json (NULL: text) */
	int json;               /* --json: --log-format json */
	/* recipe, fetch, explain */
	const char *out_dir;      /* --out */
	const char *cache_dir;    /* --cache */
	const char *build_dir;    /* --build-dir */
	const char *toolchain;    /* --toolchain */
	int jobs;                 /* --jobs, 0: number of CPUs */
	int offline;              /* --offline */
	int keep_going;           /* --keep-going */
	int recheck;              /* --recheck */
	int force;                /* --force */
	int wait;                 /* --wait (recipe) */
	const char *timeout;      /* --timeout TIME (recipe) */
	struct tf_strvec targets; /* owned; --target, each valid */
	struct tf_strvec sets;    /* owned; --set NAME=VALUE */
	const char *launcher;     /* --launcher NAME (recipe) */
	const char *distcc_hosts; /* --distcc-hosts HOSTS (recipe) */
	const char *sandbox;      /* --sandbox on|off (recipe) */
	/* recipe: the build cache (docs/cache.md) */
	const char *remote_cache; /* --remote-cache URL */
	int remote_cache_upload;  /* --remote-cache-upload */
	int remote_cache_timeout; /* --remote-cache-timeout SECONDS, 0: default */
	const char *trust;        /* --trust KEYFILE */
	const char *signing_key;     /* --signing-key KEYFILE */
	int no_store;                /* --no-store */
	const char *attestation_key; /* --attestation-key KEYFILE (recipe) */
	/* cache */
	const char *max_size; /* --max-size SIZE (cache gc, verify) */
	/* verify */
	const char *sums;              /* --sums */
	const char *provenance;        /* --provenance */
	const char *framework;         /* --framework DIR */
	const char *attestation_trust; /* --attestation-trust KEYFILE */
	/* lock */
	const char *index_url; /* --index-url URL */
	int upgrade;           /* --upgrade */
	/* diff */
	int max; /* --max, 0: default */
	/* new */
	int list;         /* --list */
	const char *name; /* --name NAME */
	/* help */
	int man;                /* --man */
	const char *completion; /* --completion: bash, zsh */
	struct tf_strvec args;  /* owned: the arguments that are not options */
};

#define TF_ARGS_INIT                                               \
	{                                                          \
		.targets = TF_STRVEC_INIT, .sets = TF_STRVEC_INIT, \
		.args = TF_STRVEC_INIT                             \
	}
void tf_args_release(struct tf_args *a);

#define TF_ARG(field) offsetof(struct tf_args, field)

struct tf_cmd {
	const char *name; /* as typed: "recipe" */
	int (*fn)(struct tf_args *a);
	const char *summary; /* one line for `tfbuild --help` */
	const char *synopsis; /* after "tfbuild NAME ": "[OPTIONS] RECIPE.yaml" */
	const char *description;   /* paragraphs for help and the man page */
	const struct tf_opt *opts; /* its own options (global ones come too) */
	const char *exit_codes;    /* "0 ok, 2 usage, 3 recipe, 4 fetch" */
	const char *args_kind;     /* what its arguments complete to: "yaml",
				    "whl", "file" or NULL */
};

/* The command table, ending with a NULL name; the global options. */
extern const struct tf_cmd tf_commands[];
extern const struct tf_opt tf_global_opts[];
const struct tf_cmd *tf_cmd_find(const char *name);

/*
 * 0 if path is a regular file; else -1 after naming it and what it is.
 * Checked before a file given on the command line is read: a FIFO or a
 * device would block the open or the read forever (cmd.c).
 */
int tf_cmd_regular_file(const char *path);

/*
 * Print "tfbuild: MSG", the command's usage line and where to find more
 * to stderr; return TF_EXIT_USAGE. For argument errors found by commands.
 */
int tf_usage_error(const struct tf_cmd *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "exit codes:\n  0  success\n..." for the main help and the man page. */
extern const char tf_exit_codes_text[];
/* `tfbuild --help`, to f. */
void tf_main_usage(FILE *f);
/* Print the full help of a command (usage, description, options, exit
   codes) to f; return 0. */
int tf_cmd_help(const struct tf_cmd *c, FILE *f);
/* Report an unknown command with the nearest one; return TF_EXIT_USAGE. */
int tf_cmd_unknown(const char *name);

/* Options several commands share. */
#define TF_OPT_OUT                                                      \
	{                                                               \
		'o', "out", TF_OPT_STRING, TF_ARG(out_dir), "DIR",      \
			"where wheels go (default: wheels)", NULL, 0, 0 \
	}
#define TF_OPT_BUILD_DIR                                                  \
	{                                                                 \
		0, "build-dir", TF_OPT_STRING, TF_ARG(build_dir), "DIR",  \
			"build tree (default: build/ beside the recipe)", \
			NULL, 0, 0                                        \
	}
#define TF_OPT_CACHE                                                         \
	{                                                                    \
		0, "cache", TF_OPT_STRING, TF_ARG(cache_dir), "DIR",         \
			"download cache (default: $XDG_CACHE_HOME/tfbuild)", \
			NULL, 0, 0                                           \
	}
#define TF_OPT_JOBS                                                                                   \
	{                                                                                             \
		'j', "jobs", TF_OPT_INT, TF_ARG(jobs), "N",                                           \
			"steps to run at once, and threads packing wheels (default: number of CPUs)", \
			NULL, 1, 1024                                                                 \
	}
#define TF_OPT_TARGET                                                      \
	{                                                                  \
		't', "target", TF_OPT_CHOICES, TF_ARG(targets), "NAME",    \
			"build for NAME, repeatable; default: the host's", \
			tf_target_choices, 0, 0                            \
	}
#define TF_OPT_SET                                                   \
	{                                                            \
		'D', "set", TF_OPT_LIST, TF_ARG(sets), "NAME=VALUE", \
			"override a recipe variable", NULL, 0, 0     \
	}
#define TF_OPT_TOOLCHAIN                                                       \
	{                                                                      \
		0, "toolchain", TF_OPT_STRING, TF_ARG(toolchain), "FILE",      \
			"toolchain overrides (YAML: toolchains: TARGET: ...)", \
			NULL, 0, 0                                             \
	}
#define TF_OPT_OFFLINE                                            \
	{                                                         \
		0, "offline", TF_OPT_FLAG, TF_ARG(offline), NULL, \
			"use only the download cache", NULL, 0, 0 \
	}
/* The build cache's options (recipe). */
#define TF_OPTS_CACHE                                                           \
	{ 0,                                                                    \
	  "remote-cache",                                                       \
	  TF_OPT_STRING,                                                        \
	  TF_ARG(remote_cache),                                                 \
	  "URL",                                                                \
	  "read step outputs from this Bazel HTTP remote cache "                \
	  "(env TFBUILD_REMOTE_CACHE; docs/cache.md)",                          \
	  NULL,                                                                 \
	  0,                                                                    \
	  0 },                                                                  \
		{ 0,                                                            \
		  "remote-cache-upload",                                        \
		  TF_OPT_FLAG,                                                  \
		  TF_ARG(remote_cache_upload),                                  \
		  NULL,                                                         \
		  "also upload what is built, signed with --signing-key",       \
		  NULL,                                                         \
		  0,                                                            \
		  0 },                                                          \
		{ 0,                                                            \
		  "remote-cache-timeout",                                       \
		  TF_OPT_INT,                                                   \
		  TF_ARG(remote_cache_timeout),                                 \
		  "SECONDS",                                                    \
		  "give up on a remote cache that stalls this long "            \
		  "(default: 30)",                                              \
		  NULL,                                                         \
		  1,                                                            \
		  3600 },                                                       \
		{ 0,                                                            \
		  "trust",                                                      \
		  TF_OPT_STRING,                                                \
		  TF_ARG(trust),                                                \
		  "KEYFILE",                                                    \
		  "public keys whose signed remote entries are used",           \
		  NULL,                                                         \
		  0,                                                            \
		  0 },                                                          \
		{ 0,                                                            \
		  "signing-key",                                                \
		  TF_OPT_STRING,                                                \
		  TF_ARG(signing_key),                                          \
		  "KEYFILE",                                                    \
		  "Ed25519 private key (PEM) that signs uploaded entries",      \
		  NULL,                                                         \
		  0,                                                            \
		  0 },                                                          \
	{                                                                       \
		0, "no-store", TF_OPT_FLAG, TF_ARG(no_store), NULL,             \
			"neither use nor fill the local store of step outputs", \
			NULL, 0, 0                                              \
	}
#define TF_OPT_RECHECK                                                         \
	{                                                                      \
		0, "recheck", TF_OPT_FLAG, TF_ARG(recheck), NULL,              \
			"re-hash cached downloads before using them", NULL, 0, \
			0                                                      \
	}

int cmd_recipe(struct tf_args *a);
int cmd_fetch(struct tf_args *a);
int cmd_verify(struct tf_args *a);
int cmd_sha256(struct tf_args *a);
int cmd_explain(struct tf_args *a);
int cmd_diff(struct tf_args *a);
int cmd_help(struct tf_args *a);
int cmd_cache(struct tf_args *a);
int cmd_lock(struct tf_args *a);
int cmd_new(struct tf_args *a);

extern const char tf_usage_recipe[];
extern const char tf_usage_fetch[];
extern const char tf_usage_verify[];
extern const char tf_usage_sha256[];
extern const char tf_usage_explain[];
extern const char tf_usage_diff[];
extern const char tf_usage_help[];
extern const char tf_usage_cache[];
extern const char tf_usage_lock[];
extern const char tf_usage_new[];
extern const struct tf_opt tf_opts_recipe[];
extern const struct tf_opt tf_opts_fetch[];
extern const struct tf_opt tf_opts_verify[];
extern const struct tf_opt tf_opts_sha256[];
extern const struct tf_opt tf_opts_explain[];
extern const struct tf_opt tf_opts_diff[];
extern const struct tf_opt tf_opts_help[];
extern const struct tf_opt tf_opts_cache[];
extern const struct tf_opt tf_opts_lock[];
extern const struct tf_opt tf_opts_new[];

#endif
