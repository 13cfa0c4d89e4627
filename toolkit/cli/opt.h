#ifndef TF_OPT_H
#define TF_OPT_H

/*
 * Table-driven command-line options, in the manner of git's
 * parse-options: each command declares its options as an array of
 * struct tf_opt (see cli.h), and one parser handles all of them with
 * GNU conventions: options and arguments in any order, "--" ends
 * options, "--name=value" or "--name value", "-xVALUE" or "-x VALUE",
 * clustered short flags ("-vk"). An unknown option or command gets the
 * nearest valid name as a suggestion; a refused value lists the valid
 * ones.
 */

#include <stddef.h>

struct tf_buf;
struct tf_strvec;

enum tf_opt_kind {
	TF_OPT_FLAG,   /* --force: int set to 1 */
	TF_OPT_STRING, /* --out DIR: const char *, borrowed from argv */
	TF_OPT_LIST,   /* --set N=V, repeatable: pushed to a struct tf_strvec */
	TF_OPT_INT,    /* --jobs N: int within [min, max] */
	TF_OPT_CHOICE, /* --color WHEN: const char *, one of choices() */
	TF_OPT_CHOICES, /* --target NAME, repeatable: strvec, each in choices() */
	TF_OPT_VERBOSE, /* -v: tf_verbosity++ (no field) */
	TF_OPT_QUIET,   /* -q: tf_verbosity = 0 (no field) */
	TF_OPT_HELP,    /* -h: show the command's help (int field) */
	TF_OPT_VERSION, /* -V: print the version (int field) */
};

struct tf_opt {
	char short_name;       /* 'o', or 0 for none */
	const char *long_name; /* "out"; NULL ends a table */
	enum tf_opt_kind kind;
	size_t off;       /* offsetof(struct tf_args, field) */
	const char *arg;  /* "DIR" in help; NULL for flags */
	const char *help; /* one line for help, man page, completion */
	/* For _CHOICE and _CHOICES: the valid values, NULL-terminated. */
	const char *const *(*choices)(void);
	int min, max; /* for _INT */
};

#define TF_OPT_END                                              \
	{                                                       \
		0, NULL, TF_OPT_FLAG, 0, NULL, NULL, NULL, 0, 0 \
	}

/*
 * Apply argv[0..argc) to the struct at base: options from the tables
 * (tried in order, NULL-terminated list of tables), everything else
 * pushed to positional (borrowed strings). Returns 0, or -1 after
 * printing "tfbuild: ..." (unknown option with a suggestion, missing or
 * refused value listing the valid ones).
 */
int tf_opt_parse(const struct tf_opt *const *tables, int argc, char **argv,
		 void *base, struct tf_strvec *positional);

/* The option named by "--name" or "-x" (without the value), or NULL. */
const struct tf_opt *tf_opt_find(const struct tf_opt *const *tables,
				 const char *arg);

/* Print the options of the tables, one per line, as "  -o, --out DIR  help". */
void tf_opt_help(const struct tf_opt *const *tables, struct tf_buf *out);

#endif
