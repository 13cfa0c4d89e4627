/*
 * tfbuild's main(): the one parse of the command line against the
 * command table (commands.c), then the command, then the exit.
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
#include "opt.h"

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
			fprintf(stderr,
				"usage: tfbuild %s %s\nSee 'tfbuild help %s' for the options.\n",
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
