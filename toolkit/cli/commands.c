/*
 * The command table and the global options: what every command's name,
 * options, usage and exit codes are, read by main() to parse and by
 * cmd_help.c to document.
 */
#include <string.h>

#include "cli.h"
#include "opt.h"

const struct tf_cmd tf_commands[] = {
	{ "recipe", cmd_recipe,
	  "run a recipe: fetch, patch, build, pack, verify",
	  "[OPTIONS] RECIPE.yaml", tf_usage_recipe, tf_opts_recipe,
	  "0 ok, 2 usage, 3 recipe, 4 fetch, 5 build, 6 wheel, 7 busy",
	  "yaml" },
	{ "fetch", cmd_fetch, "fetch and verify a recipe's sources only",
	  "[OPTIONS] RECIPE.yaml", tf_usage_fetch, tf_opts_fetch,
	  "0 ok, 2 usage, 3 recipe, 4 fetch", "yaml" },
	{ "lock", cmd_lock,
	  "pin a recipe's target wheels from the package index",
	  "[OPTIONS] RECIPE.yaml", tf_usage_lock, tf_opts_lock,
	  "0 ok, 2 usage, 3 recipe, 4 fetch (pip failed, or a wheel did "
	  "not fit)",
	  "yaml" },
	{ "explain", cmd_explain,
	  "say which steps a run would rebuild, and why",
	  "[OPTIONS] RECIPE.yaml", tf_usage_explain, tf_opts_explain,
	  "0 ok, 2 usage, 3 recipe, 5 toolchain missing", "yaml" },
	{ "verify", cmd_verify, "check existing wheels independently",
	  "[OPTIONS] [WHEEL...]", tf_usage_verify, tf_opts_verify,
	  "0 every wheel is sound, 2 usage, 6 a wheel is defective", "whl" },
	{ "diff", cmd_diff,
	  "say how two wheels that should be identical differ",
	  "[--max N] A.whl B.whl", tf_usage_diff, tf_opts_diff,
	  "0 identical, 1 different, 2 usage, 6 a wheel cannot be read",
	  "whl" },
	{ "sha256", cmd_sha256, "print the SHA-256 of a file or URL",
	  "[--] FILE|URL...", tf_usage_sha256, tf_opts_sha256,
	  "0 every argument hashed, 2 usage, 4 an argument failed", "file" },
	{ "cache", cmd_cache,
	  "look after the local store of step outputs; make keys",
	  "stats|gc --max-size SIZE|clear|verify|keygen PREFIX", tf_usage_cache,
	  tf_opts_cache, "0 ok, 1 failure (verify: a corrupt file), 2 usage",
	  NULL },
	{ "new", cmd_new, "write a new project from a template",
	  "[--name NAME] TEMPLATE DIR | --list", tf_usage_new, tf_opts_new,
	  "0 ok, 1 DIR is not empty or cannot be written, 2 usage (an unknown template, a bad NAME)",
	  "template" },
	{ "help", cmd_help, "show help for a command", "[COMMAND]",
	  tf_usage_help, tf_opts_help, "0 ok, 2 usage", NULL },
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
	  "colours; auto: on a terminal, unless NO_COLOR is set", color_choices,
	  0, 0 },
	{ 0, "json", TF_OPT_FLAG, TF_ARG(json), NULL,
	  "write one JSON event per line on stdout (docs/events.md)", NULL, 0,
	  0 },
	{ 0, "log-format", TF_OPT_CHOICE, TF_ARG(log_format), "FORMAT",
	  "how to log (default: text); json is --json", format_choices, 0, 0 },
	{ 'h', "help", TF_OPT_HELP, TF_ARG(help), NULL, "show this help", NULL,
	  0, 0 },
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
