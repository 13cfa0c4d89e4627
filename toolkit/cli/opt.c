/* Table-driven option parsing (opt.h). */
#include "opt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

#define FIELD(base, o, type) ((type *)((char *)(base) + (o)->off))

const struct tf_opt *tf_opt_find(const struct tf_opt *const *tables,
				 const char *arg)
{
	const struct tf_opt *o;

	for (; *tables; tables++)
		for (o = *tables; o->long_name; o++) {
			if (arg[1] == '-' ? !strcmp(arg + 2, o->long_name)
					  : (arg[1] && !arg[2] &&
					     arg[1] == o->short_name))
				return o;
		}
	return NULL;
}

/* "--out" or "-o": how the user can spell the option, for messages. */
static const char *spelled(const struct tf_opt *o, int is_long)
{
	static char b[128];

	if (is_long || !o->short_name)
		snprintf(b, sizeof(b), "--%s", o->long_name);
	else
		snprintf(b, sizeof(b), "-%c", o->short_name);
	return b;
}

static int refuse_choice(const struct tf_opt *o, int is_long, const char *v)
{
	struct tf_buf valid = TF_BUF_INIT;
	const char *near = tf_words_nearest(v, o->choices());

	tf_words_join(o->choices(), &valid);
	error("%s '%s': not a valid value; valid values are %s%s%s%s",
	      spelled(o, is_long), v, valid.buf, near ? " (did you mean '" : "",
	      near ? near : "", near ? "'?)" : "");
	tf_buf_release(&valid);
	return -1;
}

static int in_choices(const struct tf_opt *o, const char *v)
{
	const char *const *c;

	for (c = o->choices(); *c; c++)
		if (!strcmp(*c, v))
			return 1;
	return 0;
}

/* Store value (NULL for options without one) into the field of o. */
static int apply(const struct tf_opt *o, int is_long, const char *v, void *base)
{
	char *end;
	long n;

	switch (o->kind) {
	case TF_OPT_FLAG:
	case TF_OPT_HELP:
	case TF_OPT_VERSION:
		*FIELD(base, o, int) = 1;
		return 0;
	case TF_OPT_VERBOSE:
		tf_verbosity++;
		return 0;
	case TF_OPT_QUIET:
		tf_verbosity = 0;
		return 0;
	case TF_OPT_STRING:
		*FIELD(base, o, const char *) = v;
		return 0;
	case TF_OPT_LIST:
		tf_strvec_push(FIELD(base, o, struct tf_strvec), v);
		return 0;
	case TF_OPT_INT:
		n = strtol(v, &end, 10);
		if (*end || end == v || n < o->min || n > o->max)
			return error(
				"%s wants a number from %d to %d, not '%s'",
				spelled(o, is_long), o->min, o->max, v);
		*FIELD(base, o, int) = (int)n;
		return 0;
	case TF_OPT_CHOICE:
		if (!in_choices(o, v))
			return refuse_choice(o, is_long, v);
		*FIELD(base, o, const char *) = v;
		return 0;
	case TF_OPT_CHOICES:
		if (!in_choices(o, v))
			return refuse_choice(o, is_long, v);
		tf_strvec_push(FIELD(base, o, struct tf_strvec), v);
		return 0;
	}
	BUG("option kind %d", (int)o->kind);
}

static int takes_value(const struct tf_opt *o)
{
	return o->kind == TF_OPT_STRING || o->kind == TF_OPT_LIST ||
	       o->kind == TF_OPT_INT || o->kind == TF_OPT_CHOICE ||
	       o->kind == TF_OPT_CHOICES;
}

static int unknown(const struct tf_opt *const *tables, const char *arg)
{
	struct tf_strvec names = TF_STRVEC_INIT;
	const struct tf_opt *const *t;
	const struct tf_opt *o;
	const char *near;

	for (t = tables; *t; t++)
		for (o = *t; o->long_name; o++)
			tf_strvec_pushf(&names, "--%s", o->long_name);
	near = arg[1] == '-'
		       ? tf_words_nearest(arg, (const char *const *)names.v)
		       : NULL;
	if (near)
		error("unknown option '%s'; did you mean '%s'?", arg, near);
	else
		error("unknown option '%s'", arg);
	tf_strvec_release(&names);
	return -1;
}

/* One "--name[=value]" at argv[*i]; advances *i past a separate value. */
static int parse_long(const struct tf_opt *const *tables, int argc, char **argv,
		      int *i, void *base)
{
	const char *arg = argv[*i], *eq = strchr(arg, '=');
	char name[128];
	const struct tf_opt *o;

	snprintf(name, sizeof(name), "%.*s",
		 eq ? (int)(eq - arg) : (int)strlen(arg), arg);
	o = tf_opt_find(tables, name);
	if (!o)
		return unknown(tables, name);
	if (!takes_value(o)) {
		if (eq)
			return error("option '%s' takes no value", name);
		return apply(o, 1, NULL, base);
	}
	if (eq)
		return apply(o, 1, eq + 1, base);
	if (*i + 1 >= argc)
		return error("option '%s' needs a value (%s)", name, o->arg);
	return apply(o, 1, argv[++*i], base);
}

/* A cluster of short options "-vk", "-j4", "-o DIR" at argv[*i]. */
static int parse_short(const struct tf_opt *const *tables, int argc,
		       char **argv, int *i, void *base)
{
	const char *p = argv[*i] + 1;

	for (; *p; p++) {
		char one[3] = { '-', *p, 0 };
		const struct tf_opt *o = tf_opt_find(tables, one);

		if (!o)
			return unknown(tables, one);
		if (!takes_value(o)) {
			if (apply(o, 0, NULL, base))
				return -1;
			continue;
		}
		if (p[1])
			return apply(o, 0, p + 1, base);
		if (*i + 1 >= argc)
			return error("option '%s' needs a value (%s)", one,
				     o->arg);
		return apply(o, 0, argv[++*i], base);
	}
	return 0;
}

int tf_opt_parse(const struct tf_opt *const *tables, int argc, char **argv,
		 void *base, struct tf_strvec *positional)
{
	int i;

	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		int ret;

		if (!strcmp(a, "--")) {
			for (i++; i < argc; i++)
				tf_strvec_push(positional, argv[i]);
			break;
		}
		if (a[0] != '-' || !a[1]) {
			tf_strvec_push(positional, a);
			continue;
		}
		ret = a[1] == '-' ? parse_long(tables, argc, argv, &i, base)
				  : parse_short(tables, argc, argv, &i, base);
		if (ret)
			return -1;
	}
	return 0;
}

void tf_opt_help(const struct tf_opt *const *tables, struct tf_buf *out)
{
	const struct tf_opt *o;
	char left[64];

	for (; *tables; tables++)
		for (o = *tables; o->long_name; o++) {
			snprintf(left, sizeof(left), "%c%c%s--%s%s%s",
				 o->short_name ? '-' : ' ',
				 o->short_name ? o->short_name : ' ',
				 o->short_name ? ", " : "  ", o->long_name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
			tf_buf_addf(out, "  %-24s %s", left, o->help);
			if (o->choices) {
				tf_buf_addstr(out, " (");
				tf_words_join(o->choices(), out);
				tf_buf_addch(out, ')');
			}
			tf_buf_addch(out, '\n');
		}
}
