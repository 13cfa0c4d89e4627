/*
 * tfbuild: arguments and the command table. Global options come before
 * the command; each command parses the rest itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "log.h"

static const char help_usage[] =
	"usage: tfbuild help [COMMAND]\n"
	"\n"
	"Show the commands, or the full usage of one command.\n";

const struct tf_cmd tf_commands[] = {
	{ "recipe", cmd_recipe, "run a recipe: fetch, patch, build, pack, verify",
	  tf_usage_recipe },
	{ "fetch", cmd_fetch, "fetch and verify a recipe's sources only",
	  tf_usage_fetch },
	{ "explain", cmd_explain, "say which steps a run would rebuild, and why",
	  tf_usage_explain },
	{ "verify", cmd_verify, "check existing wheels independently",
	  tf_usage_verify },
	{ "diff", cmd_diff, "say how two wheels that should be identical differ",
	  tf_usage_diff },
	{ "sha256", cmd_sha256, "print the SHA-256 of a file or URL",
	  tf_usage_sha256 },
	{ "help", cmd_help, "show help for a command", help_usage },
	{ NULL, NULL, NULL, NULL },
};

static const char exit_codes[] =
	"exit codes:\n"
	"  0  success\n"
	"  1  other failure (out of memory, I/O outside a stage)\n"
	"  2  usage error (unknown command or option, bad argument)\n"
	"  3  recipe error (does not parse or validate)\n"
	"  4  fetch error (download failed, checksum mismatch, not cached offline)\n"
	"  5  build error (extract, patch or build step failed)\n"
	"  6  wheel error (could not be written, or failed verification)\n";

static void print_main_usage(FILE *f)
{
	const struct tf_cmd *c;

	fprintf(f, "usage: tfbuild [-v | -q] COMMAND [ARGS]\n"
		   "       tfbuild --help | --version\n\ncommands:\n");
	for (c = tf_commands; c->name; c++)
		fprintf(f, "  %-8s %s\n", c->name, c->summary);
	fprintf(f, "\n%s\nSee 'tfbuild help COMMAND' and docs/ for more.\n",
		exit_codes);
}

const struct tf_cmd *tf_cmd_find(const char *name)
{
	const struct tf_cmd *c;

	for (c = tf_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

int cmd_help(int argc, char **argv)
{
	const struct tf_cmd *c;

	if (argc < 2) {
		print_main_usage(stdout);
		return TF_EXIT_OK;
	}
	if (argc > 2)
		return tf_usage_error(help_usage, "too many arguments");
	c = tf_cmd_find(argv[1]);
	if (!c) {
		fprintf(stderr, "tfbuild: unknown command '%s'\n\n", argv[1]);
		print_main_usage(stderr);
		return TF_EXIT_USAGE;
	}
	fputs(c->usage, stdout);
	return TF_EXIT_OK;
}

int main(int argc, char **argv)
{
	const struct tf_cmd *c;
	int i;

	/* Files tfbuild and its steps create get the same modes everywhere. */
	umask(022);
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose"))
			tf_verbosity++;
		else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet"))
			tf_verbosity = 0;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			print_main_usage(stdout);
			return TF_EXIT_OK;
		} else if (!strcmp(argv[i], "--version")) {
			printf("tfbuild %s\n", TF_VERSION);
			return TF_EXIT_OK;
		} else {
			fprintf(stderr, "tfbuild: unknown option '%s'\n\n", argv[i]);
			print_main_usage(stderr);
			return TF_EXIT_USAGE;
		}
	}
	if (i == argc) {
		print_main_usage(stderr);
		return TF_EXIT_USAGE;
	}
	c = tf_cmd_find(argv[i]);
	if (!c) {
		fprintf(stderr, "tfbuild: unknown command '%s'\n\n", argv[i]);
		print_main_usage(stderr);
		return TF_EXIT_USAGE;
	}
	return c->fn(argc - i, argv + i);
}
