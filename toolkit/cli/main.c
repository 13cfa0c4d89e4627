/*
 * tfbuild: the command table, and the one parse of the command line.
 * Global options may come before or after the command; a command's
 * options anywhere after it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "base/base.h"
#include "ui/ui.h"

const struct tf_cmd tf_commands[] = {
	{ "recipe", cmd_recipe, "run a recipe: fetch, patch, build, pack, verify",
	  "[OPTIONS] RECIPE.yaml", tf_usage_recipe, tf_opts_recipe,
	  "0 ok, 2 usage, 3 recipe, 4 fetch, 5 build, 6 wheel, 7 busy", "yaml" },
	{ "fetch", cmd_fetch, "fetch and verify a recipe's sources only",
	  "[OPTIONS] RECIPE.yaml", tf_usage_fetch, tf_opts_fetch,
	  "0 ok, 2 usage, 3 recipe, 4 fetch", "yaml" },
	{ "explain", cmd_explain, "say which steps a run would rebuild, and why",
	  "[OPTIONS] RECIPE.yaml", tf_usage_explain, tf_opts_explain,
	  "0 ok, 2 usage, 3 recipe, 5 toolchain missing", "yaml" },
	{ "verify", cmd_verify, "check existing wheels independently",
	  "[OPTIONS] [WHEEL...]", tf_usage_verify, tf_opts_verify,
	  "0 every wheel is sound, 2 usage, 6 a wheel is defective", "whl" },
	{ "diff", cmd_diff, "say how two wheels that should be identical differ",
	  "[--max N] A.whl B.whl", tf_usage_diff, tf_opts_diff,
	  "0 identical, 1 different, 2 usage, 6 a wheel cannot be read", "whl" },
	{ "sha256", cmd_sha256, "print the SHA-256 of a file or URL",
	  "[--] FILE|URL...", tf_usage_sha256, tf_opts_sha256,
	  "0 every argument hashed, 2 usage, 4 an argument failed", "file" },
	{ "cache", cmd_cache, "look after the local store of step outputs; make keys",
	  "stats|gc --max-size SIZE|clear|verify|keygen PREFIX", tf_usage_cache,
	  tf_opts_cache, "0 ok, 1 failure (verify: a corrupt file), 2 usage", NULL },
	{ "help", cmd_help, "show help for a command",
	  "[COMMAND]", tf_usage_help, tf_opts_help, "0 ok, 2 usage", NULL },
	{ NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL },
};

static const char *const *color_choices(void)
{
	static const char *const v[] = { "auto", "always", "never", NULL };
	return v;
}

static const char *const *format_choices(void)
{
	static const char *const v[] = { "text", "json", NULL };
	return v;
}

const struct tf_opt tf_global_opts[] = {
	{ 'v', "verbose", TF_OPT_VERBOSE, 0, NULL,
	  "show commands and build output (repeat for more)", NULL, 0, 0 },
	{ 'q', "quiet", TF_OPT_QUIET, 0, NULL, "show only errors", NULL, 0, 0 },
	{ 0, "color", TF_OPT_CHOICE, TF_ARG(color), "WHEN",
	  "colours; auto: on a terminal, unless NO_COLOR is set",
	  color_choices, 0, 0 },
	{ 0, "json", TF_OPT_FLAG, TF_ARG(json), NULL,
	  "write one JSON event per line on stdout (docs/events.md)", NULL, 0, 0 },
	{ 0, "log-format", TF_OPT_CHOICE, TF_ARG(log_format), "FORMAT",
	  "how to log (default: text); json is --json", format_choices, 0, 0 },
	{ 'h', "help", TF_OPT_HELP, TF_ARG(help), NULL, "show this help",
	  NULL, 0, 0 },
	{ 'V', "version", TF_OPT_VERSION, TF_ARG(version), NULL,
	  "print the version", NULL, 0, 0 },
	TF_OPT_END,
};

const struct tf_cmd *tf_cmd_find(const char *name)
{
	const struct tf_cmd *c;

	for (c = tf_commands; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/* Index of the command word: the first argument that is not an option. */
static int command_index(int argc, char **argv)
{
	const struct tf_opt *const tables[] = { tf_global_opts, NULL };
	int i;

	for (i = 1; i < argc; i++) {
		const struct tf_opt *o;

		if (!strcmp(argv[i], "--") || argv[i][0] != '-' || !argv[i][1])
			break;
		o = strchr(argv[i], '=') ? NULL : tf_opt_find(tables, argv[i]);
		if (o && (o->kind == TF_OPT_CHOICE || o->kind == TF_OPT_STRING))
			i++;
	}
	return i < argc && strcmp(argv[i], "--") ? i : -1;
}

/* Parse argv into a; the command, or NULL with *rc set to exit with. */
static const struct tf_cmd *parse(int argc, char **argv, struct tf_args *a,
				  int *rc)
{
	int ci = command_index(argc, argv), i, n = 0;
	const struct tf_cmd *c = NULL;
	const struct tf_opt *tables[3] = { tf_global_opts, NULL, NULL };
	char **rest = tf_calloc((size_t)argc + 1, sizeof(*rest));

	*rc = TF_EXIT_OK;
	if (ci > 0) {
		c = tf_cmd_find(argv[ci]);
		if (!c) {
			/* "-h" or "-V" anywhere still wins over a typo. */
			*rc = tf_cmd_unknown(argv[ci]);
			goto out;
		}
		tables[0] = c->opts;
		tables[1] = tf_global_opts;
	}
	for (i = 1; i < argc; i++)
		if (i != ci)
			rest[n++] = argv[i];
	if (tf_opt_parse(tables, n, rest, a, &a->args)) {
		if (c)
			fprintf(stderr, "usage: tfbuild %s %s\nSee 'tfbuild help %s' for the options.\n",
				c->name, c->synopsis, c->name);
		else
			fputs("See 'tfbuild --help'.\n", stderr);
		*rc = TF_EXIT_USAGE;
		c = NULL;
	}
out:
	free(rest);
	return c;
}

int main(int argc, char **argv)
{
	struct tf_args a = TF_ARGS_INIT;
	const struct tf_cmd *c;
	int rc;

	/* Files tfbuild and its steps create get the same modes everywhere. */
	umask(022);
	tf_run_pin_tz();
	tf_signals_catch();
	c = parse(argc, argv, &a, &rc);
	if (!c && rc)
		goto out;
	if (a.version) {
		printf("tfbuild %s\n", TF_VERSION);
		goto out;
	}
	if (!c) {
		tf_main_usage(a.help ? stdout : stderr);
		rc = a.help ? TF_EXIT_OK : TF_EXIT_USAGE;
		goto out;
	}
	if (a.help && c->fn != cmd_help) {
		rc = tf_cmd_help(c, stdout);
		goto out;
	}
	if (tf_ui_setup(a.color, a.json || (a.log_format &&
					    !strcmp(a.log_format, "json")))) {
		rc = TF_EXIT_USAGE;
		goto out;
	}
	rc = c->fn(&a);
	tf_ui_finish(rc);
out:
	tf_args_release(&a);
	/* The build loop stopped its steps on SIGINT/SIGTERM/SIGHUP and the
	 * command cleaned up: now die of that signal, as the caller expects
	 * (the shell stops a script on a child's SIGINT death, not on 130). */
	if (rc == 128 + SIGINT || rc == 128 + SIGTERM || rc == 128 + SIGHUP)
		tf_signals_die(rc - 128);
	return rc;
}
