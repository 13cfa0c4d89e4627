#ifndef TF_CMD_H
#define TF_CMD_H

/*
 * Subcommands: one thin cmd_<name>.c each. A command parses its own
 * options (argv[0] is the command name), calls the stages, and returns
 * an exit code from enum tf_exit. Commands are the only code besides
 * main() that decides exit codes.
 */

struct tf_cmd {
	const char *name;    /* as typed: "recipe" */
	int (*fn)(int argc, char **argv);
	const char *summary; /* one line for `tfbuild --help` */
	const char *usage;   /* full text for `tfbuild help NAME` */
};

/* The command table, ending with a NULL name. */
extern const struct tf_cmd tf_commands[];
const struct tf_cmd *tf_cmd_find(const char *name);
/* Print "tfbuild: MSG", a blank line and usage to stderr; return TF_EXIT_USAGE. */
int tf_usage_error(const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

int cmd_recipe(int argc, char **argv);
int cmd_fetch(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_sha256(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_help(int argc, char **argv);

extern const char tf_usage_recipe[];
extern const char tf_usage_fetch[];
extern const char tf_usage_verify[];
extern const char tf_usage_sha256[];
extern const char tf_usage_explain[];
extern const char tf_usage_diff[];

#endif
