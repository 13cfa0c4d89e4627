/* The field tables of a recipe's wheels. */
#include "recipe_internal.h"

#include <stdint.h>
#include <string.h>

#include "base/base.h"
#include "audit/audit.h"
#include "isa/isa.h"
#include "metadata/metadata.h"

#include "recipe_meta.h"
#include "recipe.h"

STR_FIELD(tf_file_rule, from, "from")
STR_FIELD(tf_file_rule, src, "src")
STR_FIELD(tf_file_rule, dst, "dst")

/* follow-links: true or false (docs/recipe.md#links). */
static int parse_file_follow_links(struct loader *l, yaml_node_t *v, void *obj,
				   const char *where)
{
	struct tf_file_rule *f = obj;
	struct tf_str t;

	(void)where;
	if (tf_load_str(l, "follow-links", v, &t))
		return -1;
	if (t.style == TF_STR_PLAIN &&
	    (!strcmp(t.s, "true") || !strcmp(t.s, "false"))) {
		f->follow_links = !strcmp(t.s, "true");
		return 0;
	}
	l->errors++;
	return tf_error_at(
		&t.pos, "'follow-links' must be true or false, not '%s'", t.s);
}

static const struct field file_fields[] = {
	{ "from", 1, parse_tf_file_rule_from },
	{ "src", 1, parse_tf_file_rule_src },
	{ "dst", 1, parse_tf_file_rule_dst },
	{ "follow-links", 0, parse_file_follow_links },
	{ NULL, 0, NULL },
};

STR_FIELD(tf_wheel_def, name, "name")
STR_FIELD(tf_wheel_def, version, "version")
STR_FIELD(tf_wheel_def, python, "python")
STR_FIELD(tf_wheel_def, abi, "abi")
STR_FIELD(tf_wheel_def, platform, "platform")
STR_FIELD(tf_wheel_def, summary, "summary")
STR_FIELD(tf_wheel_def, license, "license")
STR_FIELD(tf_wheel_def, requires_python, "requires-python")
STR_FIELD(tf_wheel_def, max_size, "max-size")

static int parse_wheel_requires(struct loader *l, yaml_node_t *v, void *obj,
				const char *where)
{
	struct tf_wheel_def *w = obj;

	return tf_load_str_list(l, "requires-dist", v, &w->requires_dist,
				&w->nr_requires_dist);
}

static int parse_wheel_entry_points(struct loader *l, yaml_node_t *v, void *obj,
				    const char *where)
{
	struct tf_wheel_def *w = obj;
	yaml_node_pair_t *p;
	size_t n = 0;
	int ret = 0;

	if (v->type != YAML_MAPPING_NODE)
		return tf_load_bad(
			l, v,
			"'entry-points' must be a mapping of groups, not %s",
			kind_name(v));
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *g = node(l, p->value);

		if (g->type == YAML_MAPPING_NODE)
			n += (size_t)(g->data.mapping.pairs.top -
				      g->data.mapping.pairs.start);
	}
	w->entry_points =
		tf_arena_alloc(l->r, (n ? n : 1) * sizeof(*w->entry_points));
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top;
	     p++) {
		struct tf_str group = { NULL, { NULL, 0, 0 }, 0, 0 };
		struct tf_kv *kvs = NULL;
		size_t i, nr = 0;

		ret |= tf_load_str(l, "entry-points", node(l, p->key), &group);
		if (!group.s ||
		    tf_load_str_map(l, group.s, node(l, p->value), &kvs, &nr)) {
			ret = -1;
			continue;
		}
		for (i = 0; i < nr; i++) {
			struct tf_entry_point *e =
				&w->entry_points[w->nr_entry_points++];

			e->group = group;
			e->name = kvs[i].key;
			e->value = kvs[i].value;
		}
	}
	return ret ? -1 : 0;
}

void tf_file_rule_dst(const char *src, const char *dst, struct tf_buf *out)
{
	if (strcmp(dst, "."))
		tf_buf_addf(out, "%s/", dst);
	tf_buf_addstr(out, tf_path_basename(src));
}

/*
 * A rule given twice (the same `from`, `src` and `dst`) puts everything
 * it takes into the wheel twice. Rules that differ may still meet at a
 * path (two directories of one name merge, as cp -R would; two files of
 * one name do not), which only the packer can tell; rules written with
 * ${...} are compared by the plan, expanded.
 */
static int check_rules_twice(struct loader *l, const struct tf_wheel_def *w)
{
	struct tf_buf dst = TF_BUF_INIT;
	size_t i, j;
	int ret = 0;

	for (i = 0; i < w->nr_files; i++) {
		const struct tf_file_rule *f = &w->files[i];

		if (strchr(f->src.s, '$') || strchr(f->dst.s, '$'))
			continue;
		for (j = 0; j < i; j++) {
			const struct tf_file_rule *g = &w->files[j];

			if (strcmp(f->from.s, g->from.s) ||
			    strcmp(f->src.s, g->src.s) ||
			    strcmp(f->dst.s, g->dst.s))
				continue;
			tf_buf_reset(&dst);
			tf_file_rule_dst(f->src.s, f->dst.s, &dst);
			ret = -1;
			if (++l->errors <= MAX_ERRORS)
				tf_error_twice(&f->pos, &g->pos, dst.buf, NULL);
			break;
		}
	}
	tf_buf_release(&dst);
	return ret;
}

static int parse_wheel_files(struct loader *l, yaml_node_t *v, void *obj,
			     const char *where)
{
	struct tf_wheel_def *w = obj;
	yaml_node_item_t *it;
	struct tf_buf sub = TF_BUF_INIT;
	int ret = 0;

	if (v->type != YAML_SEQUENCE_NODE)
		return tf_load_bad(l, v, "'files' must be a list, not %s",
				   kind_name(v));
	w->nr_files = (size_t)(v->data.sequence.items.top -
			       v->data.sequence.items.start);
	if (!w->nr_files)
		return tf_load_bad(l, v, "'files' in '%s' is empty", where);
	w->files = tf_arena_alloc(l->r, w->nr_files * sizeof(*w->files));
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++) {
		struct tf_file_rule *f =
			&w->files[it - v->data.sequence.items.start];

		tf_buf_setf(&sub, "%s.files[%d]", where,
			    (int)(it - v->data.sequence.items.start));
		f->pos = pos_of(l, node(l, *it));
		ret |= tf_load_map(l, node(l, *it), file_fields, f, sub.buf);
	}
	tf_buf_release(&sub);
	if (!ret)
		ret = check_rules_twice(l, w);
	return ret ? -1 : 0;
}

static int parse_wheel_allow_needed(struct loader *l, yaml_node_t *v, void *obj,
				    const char *where)
{
	struct tf_wheel_def *w = obj;

	return tf_load_str_list(l, "allow-needed", v, &w->allow_needed,
				&w->nr_allow_needed);
}

static int parse_wheel_isa_level(struct loader *l, yaml_node_t *v, void *obj,
				 const char *where)
{
	long long n;

	if (tf_load_int(l, "x86-64-level", v, 1, 4, &n))
		return -1;
	((struct tf_wheel_def *)obj)->isa_level = (int)n;
	return 0;
}

/* exports: {FILE: [SYMBOL, ...]} */
static int parse_wheel_exports(struct loader *l, yaml_node_t *v, void *obj,
			       const char *where)
{
	struct tf_wheel_def *w = obj;
	yaml_node_pair_t *p;
	size_t n = 0;
	int ret = 0;

	if (v->type != YAML_MAPPING_NODE)
		return tf_load_bad(
			l, v,
			"'exports' must map files to lists of symbols, not %s",
			kind_name(v));
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *s = node(l, p->value);

		if (s->type == YAML_SEQUENCE_NODE)
			n += (size_t)(s->data.sequence.items.top -
				      s->data.sequence.items.start);
	}
	w->exports = tf_arena_alloc(l->r, (n + 1) * sizeof(*w->exports));
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top;
	     p++) {
		struct tf_str file = { NULL, { NULL, 0, 0 }, 0, 0 },
			      *syms = NULL;
		size_t i, nr = 0;

		if (tf_load_str(l, "exports", node(l, p->key), &file) ||
		    tf_load_str_list(l, file.s, node(l, p->value), &syms,
				     &nr)) {
			ret = -1;
			continue;
		}
		for (i = 0; i < nr; i++) {
			w->exports[w->nr_exports].file = file;
			w->exports[w->nr_exports++].symbol = syms[i];
		}
	}
	return ret ? -1 : 0;
}

/* Like tf_load_bad(), at a scalar's own position. */
static int bad_at(struct loader *l, const struct tf_str *s, const char *msg,
		  const char *arg)
{
	l->errors++;
	return tf_error_at(&s->pos, msg, arg);
}

/* Append globs g[0..n), declared for target (NULL: every one), to w. */
static void add_dispatch(struct loader *l, struct tf_wheel_def *w,
			 const struct tf_str *g, size_t n, const char *target)
{
	size_t total = w->nr_isa_dispatch + n, i;
	struct tf_str *all = tf_arena_alloc(l->r, (total + 1) * sizeof(*all));
	const char **for_ = tf_arena_alloc(l->r, (total + 1) * sizeof(*for_));

	if (w->nr_isa_dispatch) {
		memcpy(all, w->isa_dispatch, w->nr_isa_dispatch * sizeof(*all));
		memcpy(for_, w->isa_dispatch_for,
		       w->nr_isa_dispatch * sizeof(*for_));
	}
	for (i = 0; i < n; i++) {
		all[w->nr_isa_dispatch + i] = g[i];
		for_[w->nr_isa_dispatch + i] = target;
	}
	w->isa_dispatch = all;
	w->isa_dispatch_for = for_;
	w->nr_isa_dispatch = total;
}

/* One list of globs, for target (NULL: every target). */
static int dispatch_list(struct loader *l, struct tf_wheel_def *w,
			 yaml_node_t *v, const char *target)
{
	struct tf_str *g;
	size_t n, i;

	if (tf_load_str_list(l, "dispatch", v, &g, &n))
		return -1;
	for (i = 0; i < n; i++)
		if (!*g[i].s || *g[i].s == '/')
			return bad_at(l, &g[i],
				      "'dispatch' "
				      "pattern '%s' is not a relative path "
				      "inside the wheel",
				      g[i].s);
	add_dispatch(l, w, g, n, target);
	return 0;
}

/* dispatch: [GLOB...] for every target, or {TARGET: [GLOB...], ...}. */
static int parse_isa_dispatch(struct loader *l, yaml_node_t *v, void *obj,
			      const char *where)
{
	struct tf_wheel_def *w = obj;
	yaml_node_pair_t *p;
	int ret = 0;

	if (v->type != YAML_MAPPING_NODE)
		return dispatch_list(l, w, v, NULL);
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top;
	     p++) {
		struct tf_str target;

		if (tf_load_target(l, "dispatch", node(l, p->key), &target))
			ret = -1;
		else if (dispatch_list(l, w, node(l, p->value), target.s))
			ret = -1;
	}
	return ret;
}

/* minimum: LEVEL or [LEVEL, ...], one per family (x86-64-vN, armv8.N-a). */
static int parse_isa_minimum(struct loader *l, yaml_node_t *v, void *obj,
			     const char *where)
{
	struct tf_wheel_def *w = obj;
	enum tf_isa_family fam, seen[8];
	size_t i;
	int level;

	if (v->type == YAML_SCALAR_NODE) {
		w->isa_minimum = tf_arena_alloc(l->r, sizeof(*w->isa_minimum));
		w->nr_isa_minimum = 1;
		if (tf_load_str(l, "minimum", v, w->isa_minimum))
			return -1;
	} else if (tf_load_str_list(l, "minimum", v, &w->isa_minimum,
				    &w->nr_isa_minimum)) {
		return -1;
	}
	for (i = 0; i < w->nr_isa_minimum; i++) {
		const struct tf_str *m = &w->isa_minimum[i];
		size_t j;

		if (tf_isa_level_parse(m->s, &fam, &level))
			return bad_at(
				l, m,
				"unknown ISA level '%s' in "
				"'minimum' (known: x86-64-v1 to x86-64-v4, "
				"armv8.0-a to armv8.4-a)",
				m->s);
		for (j = 0; j < i && j < 8; j++)
			if (seen[j] == fam)
				return bad_at(l, m,
					      "'minimum' names two "
					      "levels of one family: '%s'",
					      m->s);
		if (i < 8)
			seen[i] = fam;
	}
	return 0;
}

static const struct field isa_fields[] = {
	{ "dispatch", 0, parse_isa_dispatch },
	{ "minimum", 0, parse_isa_minimum },
	{ NULL, 0, NULL },
};

/* isa: {dispatch: [GLOB...], minimum: LEVEL}: see docs/isa.md. */
static int parse_wheel_isa(struct loader *l, yaml_node_t *v, void *obj,
			   const char *where)
{
	struct tf_buf sub = TF_BUF_INIT;
	int ret;

	tf_buf_setf(&sub, "%s.isa", where);
	ret = tf_load_map(l, v, isa_fields, obj, sub.buf);
	tf_buf_release(&sub);
	return ret;
}

STR_FIELD(tf_framework_def, name, "name")
STR_FIELD(tf_framework_def, site_packages, "site-packages")
STR_FIELD(tf_framework_def, version, "version")
STR_FIELD(tf_framework_def, pjrt_header, "pjrt-header")

static const struct field framework_fields[] = {
	{ "name", 1, parse_tf_framework_def_name },
	{ "site-packages", 1, parse_tf_framework_def_site_packages },
	{ "version", 0, parse_tf_framework_def_version },
	{ "pjrt-header", 0, parse_tf_framework_def_pjrt_header },
	{ NULL, 0, NULL },
};

/* framework: {name: torch, site-packages: DIR, version: 1.13} */
static int parse_wheel_framework(struct loader *l, yaml_node_t *v, void *obj,
				 const char *where)
{
	struct tf_wheel_def *w = obj;
	struct tf_buf sub = TF_BUF_INIT;
	int ret;

	tf_buf_setf(&sub, "%s.framework", where);
	w->framework.pos = pos_of(l, v);
	ret = tf_load_map(l, v, framework_fields, &w->framework, sub.buf);
	tf_buf_release(&sub);
	return ret;
}

/* The value node of key in mapping n (n itself if absent), for positions. */
static yaml_node_t *node_of_key(struct loader *l, yaml_node_t *n,
				const char *key)
{
	yaml_node_pair_t *p;

	for (p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top;
	     p++)
		if (!strcmp(scalar(node(l, p->key)), key))
			return node(l, p->value);
	return n;
}

/* libraries: {SONAME: vendor | system | {from: REQ, runpath: PATH}} */
STR_FIELD(tf_library_def, from, "from")
STR_FIELD(tf_library_def, runpath, "runpath")

static const struct field provided_fields[] = {
	{ "from", 1, parse_tf_library_def_from },
	{ "runpath", 1, parse_tf_library_def_runpath },
	{ NULL, 0, NULL },
};

static int parse_library(struct loader *l, yaml_node_t *v,
			 struct tf_library_def *d)
{
	struct tf_buf where = TF_BUF_INIT;
	int ret;

	if (v->type == YAML_MAPPING_NODE) {
		tf_buf_addf(&where, "libraries.%s", d->soname.s);
		d->kind = TF_LIB_PROVIDED;
		ret = tf_load_map(l, v, provided_fields, d, where.buf);
		if (!ret && !strstr(d->runpath.s, "$ORIGIN"))
			ret = tf_load_bad(l, node_of_key(l, v, "runpath"),
					  "'runpath' of '%s' must be relative "
					  "to $ORIGIN, not '%s'",
					  d->soname.s, d->runpath.s);
		tf_buf_release(&where);
		return ret;
	}
	if (v->type == YAML_SCALAR_NODE && !strcmp(scalar(v), "vendor"))
		d->kind = TF_LIB_VENDOR;
	else if (v->type == YAML_SCALAR_NODE && !strcmp(scalar(v), "system"))
		d->kind = TF_LIB_SYSTEM;
	else
		return tf_load_bad(
			l, v,
			"library '%s' must be 'vendor', "
			"'system' or {from: REQUIREMENT, runpath: "
			"PATH}, not %s%s%s",
			d->soname.s, v->type == YAML_SCALAR_NODE ? "'" : "",
			v->type == YAML_SCALAR_NODE ? scalar(v) : kind_name(v),
			v->type == YAML_SCALAR_NODE ? "'" : "");
	return 0;
}

static int parse_wheel_libraries(struct loader *l, yaml_node_t *v, void *obj,
				 const char *where)
{
	struct tf_wheel_def *w = obj;
	yaml_node_pair_t *p;
	size_t n;
	int ret = 0;

	if (v->type != YAML_MAPPING_NODE)
		return tf_load_bad(l, v,
				   "'libraries' must map sonames to how "
				   "they are resolved, not %s",
				   kind_name(v));
	n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	w->libraries = tf_arena_alloc(l->r, (n + 1) * sizeof(*w->libraries));
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top;
	     p++) {
		struct tf_library_def *d = &w->libraries[w->nr_libraries];
		yaml_node_t *k = node(l, p->key);
		size_t i;

		if (tf_load_str(l, "libraries", k, &d->soname)) {
			ret = -1;
			continue;
		}
		if (!*d->soname.s || strchr(d->soname.s, '/')) {
			ret |= tf_load_bad(l, k, "'%s' is not a soname",
					   d->soname.s);
			continue;
		}
		for (i = 0; i < w->nr_libraries; i++)
			if (!strcmp(w->libraries[i].soname.s, d->soname.s))
				break;
		if (i < w->nr_libraries) {
			ret |= tf_load_bad(l, k,
					   "duplicate key '%s' in 'libraries'",
					   d->soname.s);
			continue;
		}
		ret |= parse_library(l, node(l, p->value), d);
		w->nr_libraries++;
	}
	return ret ? -1 : 0;
}

static int parse_wheel_library_dirs(struct loader *l, yaml_node_t *v, void *obj,
				    const char *where)
{
	struct tf_wheel_def *w = obj;

	return tf_load_str_list(l, "library-dirs", v, &w->library_dirs,
				&w->nr_library_dirs);
}

/* readme: FILE or {file: FILE, content-type: TYPE} */
STR_FIELD(tf_wheel_def, readme, "file")
STR_FIELD(tf_wheel_def, readme_type, "content-type")

static const struct field readme_fields[] = {
	{ "file", 1, parse_tf_wheel_def_readme },
	{ "content-type", 0, parse_tf_wheel_def_readme_type },
	{ NULL, 0, NULL },
};

static int parse_wheel_readme(struct loader *l, yaml_node_t *v, void *obj,
			      const char *where)
{
	struct tf_wheel_def *w = obj;

	if (v->type == YAML_MAPPING_NODE)
		return tf_load_map(l, v, readme_fields, w, "readme");
	return tf_load_str(l, "readme", v, &w->readme);
}

static int parse_wheel_license_files(struct loader *l, yaml_node_t *v,
				     void *obj, const char *where)
{
	struct tf_wheel_def *w = obj;

	return tf_load_str_list(l, "license-files", v, &w->license_files,
				&w->nr_license_files);
}

static int parse_wheel_urls(struct loader *l, yaml_node_t *v, void *obj,
			    const char *where)
{
	struct tf_wheel_def *w = obj;

	return tf_load_str_map(l, "urls", v, &w->urls, &w->nr_urls);
}

STR_FIELD(tf_person, name, "name")
STR_FIELD(tf_person, email, "email")

static const struct field person_fields[] = {
	{ "name", 0, parse_tf_person_name },
	{ "email", 0, parse_tf_person_email },
	{ NULL, 0, NULL },
};

static int get_people(struct loader *l, const char *key, yaml_node_t *v,
		      struct tf_person **out, size_t *nr)
{
	yaml_node_item_t *it;
	struct tf_buf where = TF_BUF_INIT;
	int ret = 0;

	if (v->type != YAML_SEQUENCE_NODE)
		return tf_load_bad(
			l, v, "'%s' must be a list of {name, email}, not %s",
			key, kind_name(v));
	*nr = (size_t)(v->data.sequence.items.top -
		       v->data.sequence.items.start);
	*out = tf_arena_alloc(l->r, (*nr + 1) * sizeof(**out));
	for (it = v->data.sequence.items.start; it < v->data.sequence.items.top;
	     it++) {
		struct tf_person *p =
			&(*out)[it - v->data.sequence.items.start];
		yaml_node_t *n = node(l, *it);

		tf_buf_setf(&where, "%s[%d]", key,
			    (int)(it - v->data.sequence.items.start));
		if (tf_load_map(l, n, person_fields, p, where.buf)) {
			ret = -1;
		} else if (!p->name.s && !p->email.s) {
			ret = tf_load_bad(l, n,
					  "'%s' needs a 'name' or an 'email'",
					  where.buf);
		}
	}
	tf_buf_release(&where);
	return ret;
}

static int parse_wheel_authors(struct loader *l, yaml_node_t *v, void *obj,
			       const char *where)
{
	struct tf_wheel_def *w = obj;

	return get_people(l, "authors", v, &w->authors, &w->nr_authors);
}

static int parse_wheel_maintainers(struct loader *l, yaml_node_t *v, void *obj,
				   const char *where)
{
	struct tf_wheel_def *w = obj;

	return get_people(l, "maintainers", v, &w->maintainers,
			  &w->nr_maintainers);
}

static int parse_wheel_keywords(struct loader *l, yaml_node_t *v, void *obj,
				const char *where)
{
	struct tf_wheel_def *w = obj;

	return tf_load_str_list(l, "keywords", v, &w->keywords,
				&w->nr_keywords);
}

static int parse_wheel_classifiers(struct loader *l, yaml_node_t *v, void *obj,
				   const char *where)
{
	struct tf_wheel_def *w = obj;

	return tf_load_str_list(l, "classifiers", v, &w->classifiers,
				&w->nr_classifiers);
}

static int parse_wheel_static_libraries(struct loader *l, yaml_node_t *v,
					void *obj, const char *where)
{
	struct tf_wheel_def *w = obj;

	return tf_load_str_list(l, "static-libraries", v, &w->static_libraries,
				&w->nr_static_libraries);
}

/*
 * cuda-archs: [sm_80, sm_90, compute_90]: what the wheel's fatbinaries
 * must carry (verify/cuda.c checks it; pack writes it sorted).
 */
static int parse_wheel_cuda_archs(struct loader *l, yaml_node_t *v, void *obj,
				  const char *where)
{
	struct tf_wheel_def *w = obj;
	size_t i, j;

	if (tf_load_str_list(l, "cuda-archs", v, &w->cuda_archs,
			     &w->nr_cuda_archs))
		return -1;
	if (!w->nr_cuda_archs)
		return tf_load_bad(l, v,
				   "'cuda-archs' in '%s' is empty (name the "
				   "GPU architectures its CUDA code carries: "
				   "[sm_80, compute_90])",
				   where);
	for (i = 0; i < w->nr_cuda_archs; i++) {
		const struct tf_str *a = &w->cuda_archs[i];

		if (!tf_cuda_arch_is_valid(a->s))
			return bad_at(l, a,
				      "'%s' in 'cuda-archs' is not a CUDA "
				      "architecture (sm_NN or compute_NN, "
				      "with an optional a or f: sm_90a)",
				      a->s);
		for (j = 0; j < i; j++)
			if (!strcmp(w->cuda_archs[j].s, a->s)) {
				l->errors++;
				return tf_error_at(&a->pos,
						   "'%s' is in 'cuda-archs' "
						   "twice: also at %s:%d:%d",
						   a->s,
						   w->cuda_archs[j].pos.file,
						   w->cuda_archs[j].pos.line,
						   w->cuda_archs[j].pos.col);
			}
	}
	return 0;
}

/* One `external-libraries` entry: SONAME: DISTRIBUTION. */
static int parse_external(struct loader *l, yaml_node_t *k, yaml_node_t *v,
			  struct tf_wheel_def *w)
{
	struct tf_external_def *d = &w->externals[w->nr_externals];
	size_t i;

	if (tf_load_str(l, "external-libraries", k, &d->soname) ||
	    tf_load_str(l, "external-libraries", v, &d->dist))
		return -1;
	if (!strstr(d->soname.s, ".so") || strchr(d->soname.s, '/'))
		return bad_at(l, &d->soname, "'%s' is not a soname",
			      d->soname.s);
	if (!tf_pyname_is_valid(d->dist.s))
		return bad_at(l, &d->dist,
			      "'%s' is not a distribution name (a target "
			      "wheel's: nvidia-cuda-runtime)",
			      d->dist.s);
	for (i = 0; i < w->nr_externals; i++)
		if (!strcmp(w->externals[i].soname.s, d->soname.s))
			return bad_at(l, &d->soname,
				      "duplicate key '%s' in "
				      "'external-libraries'",
				      d->soname.s);
	w->nr_externals++;
	return 0;
}

/*
 * external-libraries: {libcudart.so.13: nvidia-cuda-runtime}: libraries
 * a pinned target wheel provides (docs/libraries.md#external).
 */
static int parse_wheel_externals(struct loader *l, yaml_node_t *v, void *obj,
				 const char *where)
{
	struct tf_wheel_def *w = obj;
	yaml_node_pair_t *p;
	size_t n;
	int ret = 0;

	if (v->type != YAML_MAPPING_NODE)
		return tf_load_bad(l, v,
				   "'external-libraries' in '%s' must map "
				   "sonames to the distributions that "
				   "provide them, not %s",
				   where, kind_name(v));
	n = (size_t)(v->data.mapping.pairs.top - v->data.mapping.pairs.start);
	if (!n)
		return tf_load_bad(
			l, v, "'external-libraries' in '%s' is empty", where);
	w->externals = tf_arena_alloc(l->r, (n + 1) * sizeof(*w->externals));
	for (p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top;
	     p++)
		ret |= parse_external(l, node(l, p->key), node(l, p->value), w);
	return ret ? -1 : 0;
}

/* A soname is resolved one way: in `libraries` or as external. */
static int check_externals(struct loader *l, const struct tf_wheel_def *w)
{
	size_t i, j;

	for (i = 0; i < w->nr_externals; i++)
		for (j = 0; j < w->nr_libraries; j++)
			if (!strcmp(w->externals[i].soname.s,
				    w->libraries[j].soname.s)) {
				const struct tf_pos *at =
					&w->libraries[j].soname.pos;

				l->errors++;
				return tf_error_at(&w->externals[i].soname.pos,
						   "'%s' is in "
						   "'external-libraries' and "
						   "in 'libraries' (at "
						   "%s:%d:%d): resolve it one "
						   "way",
						   w->externals[i].soname.s,
						   at->file, at->line, at->col);
			}
	return 0;
}

static const struct field wheel_fields[] = {
	{ "name", 1, parse_tf_wheel_def_name },
	{ "version", 1, parse_tf_wheel_def_version },
	{ "python", 0, parse_tf_wheel_def_python },
	{ "abi", 0, parse_tf_wheel_def_abi },
	{ "platform", 0, parse_tf_wheel_def_platform },
	{ "summary", 0, parse_tf_wheel_def_summary },
	{ "license", 0, parse_tf_wheel_def_license },
	{ "requires-python", 0, parse_tf_wheel_def_requires_python },
	{ "requires-dist", 0, parse_wheel_requires },
	{ "entry-points", 0, parse_wheel_entry_points },
	{ "files", 1, parse_wheel_files },
	{ "allow-needed", 0, parse_wheel_allow_needed },
	{ "x86-64-level", 0, parse_wheel_isa_level },
	{ "exports", 0, parse_wheel_exports },
	{ "isa", 0, parse_wheel_isa },
	{ "framework", 0, parse_wheel_framework },
	{ "libraries", 0, parse_wheel_libraries },
	{ "library-dirs", 0, parse_wheel_library_dirs },
	{ "readme", 0, parse_wheel_readme },
	{ "license-files", 0, parse_wheel_license_files },
	{ "urls", 0, parse_wheel_urls },
	{ "authors", 0, parse_wheel_authors },
	{ "maintainers", 0, parse_wheel_maintainers },
	{ "keywords", 0, parse_wheel_keywords },
	{ "classifiers", 0, parse_wheel_classifiers },
	{ "max-size", 0, parse_tf_wheel_def_max_size },
	{ "static-libraries", 0, parse_wheel_static_libraries },
	{ "cuda-archs", 0, parse_wheel_cuda_archs },
	{ "external-libraries", 0, parse_wheel_externals },
	{ NULL, 0, NULL },
};

static int check_wheel_item(struct loader *l, yaml_node_t *n, void *item,
			    const char *where)
{
	struct tf_wheel_def *w = item;
	uint64_t max;
	int ret = 0;

	w->pos = pos_of(l, n);
	if (w->max_size.s) {
		if (tf_limit_parse(w->max_size.s, &max) || !max) {
			l->errors++;
			ret = tf_error_at(&w->max_size.pos,
					  "max-size '%s' is not a size (a "
					  "number of bytes with an optional K, "
					  "M, G or T suffix: 100MiB)",
					  w->max_size.s);
		} else {
			w->max_bytes = max;
		}
	}
	ret |= check_externals(l, w);
	/* Metadata values are checked now, before anything is fetched. */
	return tf_wheel_def_validate_metadata(l->r, item) | ret;
}

int tf_load_wheels(struct loader *l, yaml_node_t *v, void *obj,
		   const char *where)
{
	struct tf_recipe *r = obj;

	return tf_load_list(l, v, "wheels", wheel_fields, sizeof(*r->wheels),
			    (void **)&r->wheels, &r->nr_wheels,
			    check_wheel_item);
}
