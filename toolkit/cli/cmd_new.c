/* tfbuild new: a new project from a template (scaffold/). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "base/base.h"
#include "scaffold/scaffold.h"
#include "opt.h"

const char tf_usage_new[] =
	"Write a new project into DIR from TEMPLATE: recipe.yaml, the sources\n"
	"of a small working example (a library, an extension module or a\n"
	"framework backend, with its tests: `--list` says which), README.md\n"
	"and a LICENSE to replace. It builds as it is, for both targets, its\n"
	"tests run on each target, and its wheels verify:\n"
	"  tfbuild new python-extension hello\n"
	"  tfbuild recipe --target all hello/recipe.yaml\n"
	"The recipe's comments say how to move the sources to an upstream\n"
	"release (url: and the sha256: that `tfbuild sha256 URL` prints).\n"
	"NAME (default: DIR's last component) is the distribution name; the\n"
	"Python module is its PEP 503 form with '-' as '_'. DIR must not exist,\n"
	"or be empty; the files are written beside it, then renamed to it.\n"
	"`tfbuild new --list` lists the templates, each with what it makes.\n";

const struct tf_opt tf_opts_new[] = {
	{ 0, "list", TF_OPT_FLAG, TF_ARG(list), NULL,
	  "list the templates and what each makes", NULL, 0, 0 },
	{ 0, "name", TF_OPT_STRING, TF_ARG(name), "NAME",
	  "the distribution name (default: DIR's last component)", NULL, 0, 0 },
	TF_OPT_END,
};

static int list(void)
{
	const struct tf_template *t;
	int width = 0;

	for (t = tf_templates; t->name; t++)
		if ((int)strlen(t->name) > width)
			width = (int)strlen(t->name);
	for (t = tf_templates; t->name; t++)
		printf("%-*s  %s\n", width, t->name, t->summary);
	return TF_EXIT_OK;
}

static int unknown(const struct tf_cmd *c, const char *name)
{
	const char *near = tf_words_nearest(name, tf_template_names());
	struct tf_buf all = TF_BUF_INIT;
	int ret;

	tf_words_join(tf_template_names(), &all);
	ret = tf_usage_error(c, "unknown template '%s'%s%s%s (templates: %s)",
			     name, near ? "; did you mean '" : "",
			     near ? near : "", near ? "'?" : "", all.buf);
	tf_buf_release(&all);
	return ret;
}

int cmd_new(struct tf_args *a)
{
	const struct tf_cmd *c = tf_cmd_find("new");
	struct tf_scaffold_names names;
	struct tf_buf why = TF_BUF_INIT, dir = TF_BUF_INIT;
	const struct tf_template *t;
	const char *name;
	int ret;

	if (a->list)
		return a->args.nr
			       ? tf_usage_error(c, "--list takes no argument")
			       : list();
	if (a->args.nr != 2)
		return tf_usage_error(c, a->args.nr < 2
						 ? "give a TEMPLATE and a DIR"
						 : "too many arguments");
	t = tf_template_find(a->args.v[0]);
	if (!t)
		return unknown(c, a->args.v[0]);
	/* "x/" and "x/." name x. */
	tf_buf_addstr(&dir, a->args.v[1]);
	while (dir.len > 1 && dir.buf[dir.len - 1] == '/')
		dir.buf[--dir.len] = '\0';
	name = a->name ? a->name : tf_path_basename(dir.buf);
	if (tf_scaffold_names_check(name, &names, &why)) {
		ret = tf_usage_error(c, "%s%s", why.buf,
				     a->name ? "" : "; give one with --name");
		goto out;
	}
	ret = TF_EXIT_FAILURE;
	if (tf_scaffold_write(t, dir.buf, &names))
		goto out;
	info("wrote %s from template '%s' (distribution '%s', module '%s')",
	     dir.buf, t->name, names.v[TF_PH_name].buf,
	     names.v[TF_PH_module].buf);
	info("next: tfbuild recipe --target all %s/recipe.yaml", dir.buf);
	ret = TF_EXIT_OK;
out:
	tf_scaffold_names_release(&names);
	tf_buf_release(&why);
	tf_buf_release(&dir);
	return ret;
}
