/* Toolchain overrides: a recipe's `toolchains` and toolchain files. */
#include "recipe_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "env/env.h"
#include "recipe.h"

STR_FIELD(tf_toolchain_def, cc, "cc")
STR_FIELD(tf_toolchain_def, ar, "ar")
STR_FIELD(tf_toolchain_def, strip, "strip")
STR_FIELD(tf_toolchain_def, cflags, "cflags")
STR_FIELD(tf_toolchain_def, ldflags, "ldflags")
STR_FIELD(tf_toolchain_def, sysroot, "sysroot")
STR_FIELD(tf_toolchain_def, python_include, "python-include")
STR_FIELD(tf_toolchain_def, emulator, "emulator")

static int parse_tf_toolchain_def_launcher(struct loader *l, yaml_node_t *v,
					   void *obj, const char *where)
{
	struct tf_str *s = &((struct tf_toolchain_def *)obj)->launcher;
	struct tf_buf valid = TF_BUF_INIT;
	const char *near;
	int ret;

	(void)where;
	if (tf_load_str(l, "launcher", v, s))
		return -1;
	if (tf_launcher_is_known(s->s))
		return 0;
	near = tf_words_nearest(s->s, tf_launcher_choices());
	tf_words_join(tf_launcher_choices(), &valid);
	ret = tf_load_bad(l, v, "unknown launcher '%s' (valid: %s)%s%s%s", s->s,
			  valid.buf, near ? "; did you mean '" : "",
			  near ? near : "", near ? "'?" : "");
	tf_buf_release(&valid);
	return ret;
}

/* The build machine's glibc minor (2.X), from confstr; 0 if unknown. */
static unsigned build_glibc_minor(void)
{
	char v[64];
	size_t n = confstr(_CS_GNU_LIBC_VERSION, v, sizeof(v));
	unsigned major, minor;

	if (!n || n > sizeof(v) ||
	    sscanf(v, "glibc %u.%u", &major, &minor) != 2 || major != 2)
		return 0;
	return minor;
}

/*
 * `glibc`: "2.X", the glibc whose symbols zig links the target against,
 * from 2.17 (manylinux2014, the oldest policy for aarch64; zig's
 * default for Linux) to the build machine's (whose loader runs the
 * tests). Not for macos-arm64, which has no glibc.
 */
static int parse_tf_toolchain_def_glibc(struct loader *l, yaml_node_t *v,
					void *obj, const char *where)
{
	struct tf_toolchain_def *t = obj;
	unsigned major, minor, build = build_glibc_minor();
	const char *s;
	int n = 0;

	(void)where;
	if (tf_load_str(l, "glibc", v, &t->glibc))
		return -1;
	s = t->glibc.s;
	if (t->target.s && !strcmp(t->target.s, "macos-arm64"))
		return tf_load_bad(
			l, v,
			"'glibc' is for the Linux targets: macos-arm64 has no glibc (its minimum is 'macos-minimum')");
	if (strspn(s, "0123456789.") != strlen(s) || *s == '.' ||
	    sscanf(s, "%3u.%3u%n", &major, &minor, &n) != 2 || s[n] ||
	    s[n - 1] == '.' || major != 2)
		return tf_load_bad(
			l, v,
			"'glibc' is '%s', not a glibc version 2.X (\"2.17\")",
			s);
	if (minor < 17)
		return tf_load_bad(
			l, v,
			"'glibc' is '%s': zig links against glibc 2.17 or later (manylinux_2_17, the oldest policy for aarch64)",
			s);
	if (build && minor > build)
		return tf_load_bad(
			l, v,
			"'glibc' is '%s': newer than this build machine's glibc 2.%u, whose loader runs the target's tests",
			s, build);
	t->glibc_minor = minor;
	return 0;
}

static const struct field toolchain_fields[] = {
	{ "cc", 0, parse_tf_toolchain_def_cc },
	{ "ar", 0, parse_tf_toolchain_def_ar },
	{ "strip", 0, parse_tf_toolchain_def_strip },
	{ "cflags", 0, parse_tf_toolchain_def_cflags },
	{ "ldflags", 0, parse_tf_toolchain_def_ldflags },
	{ "sysroot", 0, parse_tf_toolchain_def_sysroot },
	{ "python-include", 0, parse_tf_toolchain_def_python_include },
	{ "emulator", 0, parse_tf_toolchain_def_emulator },
	{ "launcher", 0, parse_tf_toolchain_def_launcher },
	{ "glibc", 0, parse_tf_toolchain_def_glibc },
	{ NULL, 0, NULL },
};

int tf_load_toolchains(struct loader *l, yaml_node_t *v, void *obj,
		       const char *where)
{
	struct tf_recipe *r = l->r;
	struct tf_toolchain_def *all;
	struct tf_buf sub = TF_BUF_INIT;
	yaml_node_pair_t *p;
	size_t n;
	int ret = 0;

	if (v->type != YAML_MAPPING_NODE)
		return tf_load_bad(
			l, v,
			"'toolchains' must be a mapping of target names, not %s",
			kind_name(v));
	n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	all = tf_arena_alloc(r, (r->nr_toolchains + n + 1) * sizeof(*all));
	if (r->nr_toolchains)
		memcpy(all, r->toolchains, r->nr_toolchains * sizeof(*all));
	r->toolchains = all;
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top;
	     p++) {
		struct tf_toolchain_def *t = &all[r->nr_toolchains++];
		yaml_node_t *k = node(l, p->key);

		if (tf_load_target(l, "toolchains", k, &t->target)) {
			ret = -1;
			continue;
		}
		t->pos = pos_of(l, k);
		tf_buf_setf(&sub, "toolchains.%s", t->target.s);
		ret |= tf_load_map(l, node(l, p->value), toolchain_fields, t,
				   sub.buf);
	}
	tf_buf_release(&sub);
	return ret ? -1 : 0;
}

const struct tf_toolchain_def *tf_recipe_toolchain(const struct tf_recipe *r,
						   const char *target)
{
	const struct tf_toolchain_def *found = NULL;
	size_t i;

	for (i = 0; i < r->nr_toolchains; i++)
		if (!strcmp(r->toolchains[i].target.s, target))
			found = &r->toolchains[i];
	return found;
}

static const struct field toolchain_file_fields[] = {
	{ "toolchains", 1, tf_load_toolchains },
	{ NULL, 0, NULL },
};

int tf_recipe_load_toolchains(struct tf_recipe *r, const char *path)
{
	struct tf_buf text = TF_BUF_INIT;
	yaml_document_t doc;
	struct loader l = { r, &doc, NULL, NULL, 0 };
	int ret;

	text.cap = RECIPE_MAX_BYTES;
	ret = tf_recipe_read_regular(path, &text);
	l.text = text.buf;
	l.file = tf_arena_strdup(r, path);
	if (!ret)
		ret = tf_load_document(path, &text, &doc);
	if (!ret) {
		ret = tf_load_map(&l, yaml_document_get_root_node(&doc),
				  toolchain_file_fields, r, "toolchain file");
		yaml_document_delete(&doc);
	}
	tf_buf_release(&text);
	return ret || l.errors ? -1 : 0;
}
