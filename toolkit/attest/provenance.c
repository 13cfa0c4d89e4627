/*
 * SHA256SUMS and provenance. jansson builds and parses the JSON; keys
 * are emitted sorted and compact-indented so the file is byte-stable.
 */
#include "provenance.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cache/cache.h"
#include "stamp/stamp.h"
#include "base/base.h"
#include "fetch/fetch.h"
#include "metadata/metadata.h"
#include "plugin/plugin.h"
#include "env/env.h"
#include "index/index.h"
#include "plan/plan.h"
#include "recipe/recipe.h"

#define STATEMENT_TYPE "https://in-toto.io/Statement/v1"
#define PROVENANCE_TYPE "https://slsa.dev/provenance/v1"
#define BUILD_TYPE "https://tfbuild.dev/buildtypes/recipe/v1"

/*
 * Write atomically, unless path already holds exactly these bytes: an
 * unchanged run neither rewrites nor fsyncs SHA256SUMS and provenance.
 */
int tf_attest_write_unless_same(const char *path, const void *data, size_t len)
{
	struct tf_buf old = TF_BUF_INIT;
	struct stat sb;
	int same = !lstat(path, &sb) && S_ISREG(sb.st_mode) &&
		   (sb.st_mode & 07777) == 0644 && (size_t)sb.st_size == len &&
		   !tf_read_file(path, &old) && old.len == len &&
		   !memcmp(old.buf, data, len);

	tf_buf_release(&old);
	return same ? 0 : tf_write_file_atomic(path, data, len, 0644);
}

int tf_sums_of_files(const struct tf_strvec *paths, struct tf_sums *out)
{
	unsigned char md[TF_SHA256_LEN];
	char hex[TF_SHA256_HEX_LEN + 1];
	size_t i;

	for (i = 0; i < paths->nr; i++) {
		/* A wheel digested for its stamp, in this run or the last,
		   is not read again (digestcache.h). */
		if (tf_digest_cache_file(paths->v[i], md))
			return -1;
		tf_sha256_hex(md, hex);
		tf_strvec_push(&out->names, tf_path_basename(paths->v[i]));
		tf_strvec_push(&out->digests, hex);
	}
	return 0;
}

int tf_sums_write(const char *path, const struct tf_sums *sums)
{
	struct tf_strvec lines = TF_STRVEC_INIT;
	struct tf_buf text = TF_BUF_INIT;
	size_t i;
	int ret;

	for (i = 0; i < sums->names.nr; i++)
		tf_strvec_pushf(&lines, "%s  %s\n", sums->digests.v[i],
				sums->names.v[i]);
	/* Sorted by name: each line starts with 66 bytes of digest and blanks. */
	for (i = 1; i < lines.nr; i++) {
		size_t j = i;

		while (j > 0 &&
		       strcmp(lines.v[j - 1] + 66, lines.v[j] + 66) > 0) {
			char *t = lines.v[j - 1];

			lines.v[j - 1] = lines.v[j];
			lines.v[j--] = t;
		}
	}
	for (i = 0; i < lines.nr; i++)
		tf_buf_addstr(&text, lines.v[i]);
	ret = tf_attest_write_unless_same(path, text.buf, text.len);
	tf_strvec_release(&lines);
	tf_buf_release(&text);
	return ret;
}

/*
 * Split a "HEX  NAME" or "HEX *NAME" line; -1 if it is not one. The
 * length comes first: a short line must not be read past its end.
 */
static int sums_line(const char *line, char hex[TF_SHA256_HEX_LEN + 1],
		     const char **name)
{
	if (strlen(line) < TF_SHA256_HEX_LEN + 3 ||
	    line[TF_SHA256_HEX_LEN] != ' ' ||
	    (line[TF_SHA256_HEX_LEN + 1] != ' ' &&
	     line[TF_SHA256_HEX_LEN + 1] != '*'))
		return -1;
	memcpy(hex, line, TF_SHA256_HEX_LEN);
	hex[TF_SHA256_HEX_LEN] = '\0';
	*name = line + TF_SHA256_HEX_LEN + 2;
	return tf_sha256_is_hex(hex) ? 0 : -1;
}

int tf_sums_read(const char *path, struct tf_sums *out)
{
	struct tf_buf text = TF_BUF_INIT;
	char *line, *save = NULL;
	int n = 0, ret = 0;

	text.cap = 16 << 20;
	if (tf_read_file(path, &text)) {
		tf_buf_release(&text);
		return -1;
	}
	for (line = strtok_r(text.buf, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save)) {
		char hex[TF_SHA256_HEX_LEN + 1];
		const char *name;

		n++;
		if (sums_line(line, hex, &name) < 0) {
			ret = error("%s:%d: not a 'SHA256  NAME' line", path,
				    n);
			break;
		}
		tf_strvec_push(&out->names, name);
		tf_strvec_push(&out->digests, hex);
	}
	tf_buf_release(&text);
	return ret;
}

const char *tf_sums_find(const struct tf_sums *sums, const char *name)
{
	size_t i;

	for (i = 0; i < sums->names.nr; i++)
		if (!strcmp(sums->names.v[i], name))
			return sums->digests.v[i];
	return NULL;
}

void tf_sums_release(struct tf_sums *sums)
{
	if (!sums)
		return;
	tf_strvec_release(&sums->names);
	tf_strvec_release(&sums->digests);
}

/* {"sha256": hex} or {ALG: hex} */
static json_t *digest(const char *alg, const char *hex)
{
	return json_pack("{s:s}", alg, hex);
}

/* A resolved dependency, added unless one with that name is there. */
static void add_dep(json_t *deps, const char *name, const char *uri,
		    json_t *dig, json_t *annotations)
{
	size_t i;
	json_t *d;

	json_array_foreach(
		deps, i,
		d) if (!strcmp(json_string_value(json_object_get(d, "name")),
			       name))
	{
		json_decref(dig);
		json_decref(annotations);
		return;
	}
	d = json_pack("{s:s, s:o}", "name", name, "digest", dig);
	if (uri)
		json_object_set_new(d, "uri", json_string(uri));
	if (annotations)
		json_object_set_new(d, "annotations", annotations);
	json_array_append_new(deps, d);
}

static void add_sources(json_t *deps, const struct tf_plan *p)
{
	struct tf_buf name = TF_BUF_INIT, uri = TF_BUF_INIT;
	unsigned char md[TF_SHA256_LEN];
	char hex[TF_SHA256_HEX_LEN + 1];
	size_t i, j;

	for (i = 0; i < p->recipe->nr_sources; i++) {
		const struct tf_plan_source *s = &p->sources[i];
		json_t *mirrors = json_array();

		tf_buf_setf(&name, "source:%s", s->def->name.s);
		for (j = 1; j < s->shown.nr; j++)
			json_array_append_new(mirrors,
					      json_string(s->shown.v[j]));
		if (s->shown.nr) {
			add_dep(deps, name.buf, s->shown.v[0],
				digest("sha256", s->def->sha256.s),
				json_pack("{s:o}", "mirrors", mirrors));
		} else {
			json_decref(mirrors);
			tf_buf_setf(&uri, "file:%s", s->def->path.s);
			/* A directory has no file digest: record the tree's. */
			add_dep(deps, name.buf, uri.buf,
				json_pack("{s:s}", "tfbuildTreeSha256", s->key),
				NULL);
		}
		for (j = 0; j < s->patches.nr; j++) {
			if (tf_sha256_file(s->patches.v[j], md, NULL))
				continue;
			tf_sha256_hex(md, hex);
			tf_buf_setf(&name, "patch:%s:%s", s->def->name.s,
				    s->def->patches[j].s);
			tf_buf_setf(&uri, "file:%s", s->def->patches[j].s);
			add_dep(deps, name.buf, uri.buf, digest("sha256", hex),
				NULL);
		}
	}
	tf_buf_release(&name);
	tf_buf_release(&uri);
}

/* The recipe's path as given, unless that is a path of this machine. */
static const char *recipe_shown(const struct tf_recipe *r)
{
	return r->path[0] == '/' ? tf_path_basename(r->path) : r->path;
}

/*
 * The target packages a plan built against, with their exact versions:
 * a purl each, and the .deb's digest when it was unpacked (cross).
 */
static void add_packages(json_t *deps, const struct tf_plan *p)
{
	struct tf_buf name = TF_BUF_INIT, uri = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < p->packages.nr; i++) {
		const char *pkg = p->packages.v[i], *colon = strchr(pkg, ':'),
			   *eq = strchr(pkg, '=');
		const char *sha = p->package_digests.v[i];

		if (!colon || !eq)
			continue;
		tf_buf_setf(&name, "target-package:%s:%s", p->target.name, pkg);
		tf_buf_setf(&uri, "pkg:deb/debian/%.*s@%s?arch=%.*s",
			    (int)(colon - pkg), pkg, eq + 1,
			    (int)(eq - colon - 1), colon + 1);
		add_dep(deps, name.buf, uri.buf,
			*sha ? digest("sha256", sha) : json_object(), NULL);
	}
	tf_buf_release(&name);
	tf_buf_release(&uri);
}

/* The target's wheels from the package index, as pinned: name, file, digest. */
static void add_wheels(json_t *deps, const struct tf_plan *p)
{
	struct tf_buf name = TF_BUF_INIT, uri = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < p->wheel_pins.nr; i++) {
		const struct tf_index_pin *w = &p->wheel_pins.v[i];

		tf_buf_setf(&name, "target-wheel:%s:%s", p->target.name,
			    w->requirement);
		tf_buf_setf(&uri, "file:%s", w->file);
		add_dep(deps, name.buf, uri.buf, digest("sha256", w->sha256),
			NULL);
	}
	tf_buf_release(&name);
	tf_buf_release(&uri);
}

/*
 * The build machine's wheels (`host-wheels`), once for the run however
 * many targets share them: host-wheel:REQUIREMENT, file, digest.
 */
static void add_host_wheels(json_t *deps, struct tf_plan **plans, size_t nr)
{
	struct tf_buf name = TF_BUF_INIT, uri = TF_BUF_INIT;
	size_t i;

	for (i = 0; nr && i < plans[0]->host_pins.nr; i++) {
		const struct tf_index_pin *w = &plans[0]->host_pins.v[i];

		tf_buf_setf(&name, "host-wheel:%s", w->requirement);
		tf_buf_setf(&uri, "file:%s", w->file);
		add_dep(deps, name.buf, uri.buf, digest("sha256", w->sha256),
			NULL);
	}
	tf_buf_release(&name);
	tf_buf_release(&uri);
}

static json_t *dependencies(struct tf_plan **plans, size_t nr)
{
	const struct tf_recipe *r = plans[0]->recipe;
	json_t *deps = json_array();
	struct tf_buf name = TF_BUF_INIT, uri = TF_BUF_INIT;
	char hex[TF_SHA256_HEX_LEN + 1];
	size_t i;

	tf_sha256_hex(r->sha256, hex);
	tf_buf_setf(&uri, "file:%s", recipe_shown(r));
	add_dep(deps, "recipe", uri.buf, digest("sha256", hex), NULL);
	for (i = 0; i < nr; i++)
		add_sources(deps, plans[i]);
	for (i = 0; i < nr; i++) {
		const struct tf_target *t = &plans[i]->target;
		struct tf_sha256 *h = tf_sha256_new();
		unsigned char md[TF_SHA256_LEN];

		tf_sha256_update(h, t->identity, strlen(t->identity));
		tf_sha256_final(h, md);
		tf_sha256_hex(md, hex);
		tf_buf_setf(&name, "toolchain:%s", t->name);
		add_dep(deps, name.buf, NULL, digest("sha256", hex),
			json_pack("{s:s}", "identity", t->identity));
		add_packages(deps, plans[i]);
		add_wheels(deps, plans[i]);
	}
	add_host_wheels(deps, plans, nr);
	tf_buf_release(&name);
	tf_buf_release(&uri);
	return deps;
}

static json_t *build_definition(struct tf_plan **plans, size_t nr,
				const struct tf_provenance_run *run)
{
	const struct tf_recipe *r = plans[0]->recipe;
	json_t *targets = json_array(), *vars = json_object();
	size_t i;

	for (i = 0; i < nr; i++)
		json_array_append_new(targets,
				      json_string(plans[i]->target.name));
	for (i = 0; run->sets && i < run->sets->nr; i++) {
		const char *s = run->sets->v[i], *eq = strchr(s, '=');
		char *k = tf_strndup(s, eq ? (size_t)(eq - s) : strlen(s));
		struct tf_buf v = TF_BUF_INIT;

		/* A value may be a URL with credentials or a local path. */
		tf_url_canonical(eq ? eq + 1 : "", r->dir, &v);
		json_object_set_new(vars, k, json_string(v.buf));
		tf_buf_release(&v);
		free(k);
	}
	return json_pack(
		"{s:s, s:{s:{s:s, s:s, s:s}, s:o, s:o}, s:{s:I, s:s}, s:o}",
		"buildType", BUILD_TYPE, "externalParameters", "recipe", "path",
		recipe_shown(r), "name", r->name.s, "version", r->version.s,
		"targets", targets, "variables", vars, "internalParameters",
		"sourceDateEpoch", (json_int_t)r->source_date_epoch, "sandbox",
		run->sandbox_off ? "off" : "bubblewrap", "resolvedDependencies",
		dependencies(plans, nr));
}

/* "built", "local-store", "remote-cache" or "up-to-date" (enum tf_cache_origin). */
static const char *origin_name(int origin)
{
	switch (origin) {
	case TF_CACHE_BUILT:
		return "built";
	case TF_CACHE_LOCAL:
		return "local-store";
	case TF_CACHE_REMOTE:
		return "remote-cache";
	default:
		return "up-to-date";
	}
}

/*
 * How a step that ran here was confined, into its annotations a: its
 * sandbox ("network" where it had the network) and, in the sandbox, the
 * capabilities its recipe gave it (`capabilities:`), in the recipe's
 * order. A step given neither gets only "sandbox", as before.
 */
static void confinement(json_t *a, const struct tf_plan_step *ps)
{
	json_t *caps;
	size_t i;

	if (!ps->sandbox)
		return;
	json_object_set_new(a, "sandbox",
			    json_string(ps->sandbox < 0    ? "off"
					: ps->sandbox == 2 ? "network"
							   : "bubblewrap"));
	if (ps->sandbox < 0 || !ps->def->nr_caps)
		return;
	caps = json_array();
	for (i = 0; i < ps->def->nr_caps; i++)
		json_array_append_new(caps, json_string(ps->def->caps[i].s));
	json_object_set_new(a, "capabilities", caps);
}

/*
 * Each step's output (its stage tree's digest), where it came from, and
 * under which cache key and signer (docs/cache.md).
 */
static json_t *step_outputs(struct tf_plan **plans, size_t nr)
{
	json_t *steps = json_array();
	struct tf_buf name = TF_BUF_INIT;
	size_t i, j;

	for (i = 0; i < nr; i++)
		for (j = 0; j < plans[i]->recipe->nr_steps; j++) {
			const struct tf_plan_step *ps = &plans[i]->steps[j];
			json_t *a;

			/* A step with no output (a test skipped): nothing. */
			if (!*ps->output)
				continue;
			a = json_pack("{s:s}", "origin",
				      origin_name(ps->origin));
			if (*ps->cache_key)
				json_object_set_new(a, "cacheKey",
						    json_string(ps->cache_key));
			if (*ps->signer)
				json_object_set_new(a, "signer",
						    json_string(ps->signer));
			confinement(a, ps);
			tf_buf_setf(&name, "step:%s:%s", plans[i]->target.name,
				    ps->def->name.s);
			json_array_append_new(
				steps, json_pack("{s:s, s:{s:s}, s:o}", "name",
						 name.buf, "digest",
						 "tfbuildTreeSha256",
						 ps->output, "annotations", a));
		}
	tf_buf_release(&name);
	return steps;
}

/*
 * The framework build each wheel records (plugin/abi.h), read from the
 * wheel itself so a run that kept it unchanged says the same: name
 * "framework:WHEEL", the framework as a purl, the record's digest, and
 * its "framework" object as annotations.
 */
static int add_frameworks(json_t *deps, const struct tf_recipe *recipe,
			  const struct tf_provenance_run *run)
{
	struct tf_buf text = TF_BUF_INIT, name = TF_BUF_INIT, uri = TF_BUF_INIT;
	unsigned char md[TF_SHA256_LEN];
	char hex[TF_SHA256_HEX_LEN + 1];
	size_t i;
	int r = 0;

	/* Only a wheel with `framework:` has a record: a recipe without one
	 * reads no wheel, so its no-op run loads no libarchive (t1006). */
	for (i = 0; i < recipe->nr_wheels; i++)
		if (recipe->wheels[i].framework.name.s)
			break;
	if (i == recipe->nr_wheels)
		return 0;
	for (i = 0; run->paths && i < run->paths->nr && r >= 0; i++) {
		json_t *root, *fwj;

		tf_buf_reset(&text);
		if ((r = tf_framework_record_read(run->paths->v[i], &text)) < 1)
			continue;
		root = json_loadb(text.buf, text.len, 0, NULL);
		fwj = json_object_get(root, "framework");
		tf_buf_setf(&name, "framework:%s",
			    tf_path_basename(run->paths->v[i]));
		tf_buf_setf(&uri, "pkg:pypi/");
		tf_pyname_normalize(
			json_string_value(json_object_get(fwj, "name")), &uri);
		tf_buf_addf(&uri, "@%s",
			    json_string_value(json_object_get(fwj, "version")));
		tf_sha256_buf(text.buf, text.len, md);
		tf_sha256_hex(md, hex);
		add_dep(deps, name.buf, uri.buf, digest("sha256", hex),
			json_incref(fwj));
		json_decref(root);
	}
	tf_buf_release(&text);
	tf_buf_release(&name);
	tf_buf_release(&uri);
	return r < 0 ? -1 : 0;
}

int tf_provenance_write(const char *path, struct tf_plan **plans, size_t nr,
			const struct tf_provenance_run *run)
{
	json_t *subjects = json_array(), *doc;
	char *text;
	size_t i;
	int ret;

	for (i = 0; i < run->wheels->names.nr; i++)
		json_array_append_new(
			subjects,
			json_pack("{s:s, s:o}", "name", run->wheels->names.v[i],
				  "digest",
				  digest("sha256", run->wheels->digests.v[i])));
	doc = json_pack("{s:s, s:o, s:s, s:{s:o, s:{s:{s:s}, s:{}}}}", "_type",
			STATEMENT_TYPE, "subject", subjects, "predicateType",
			PROVENANCE_TYPE, "predicate", "buildDefinition",
			build_definition(plans, nr, run), "runDetails",
			"builder", "id",
			"https://tfbuild.dev/tfbuild@" TF_VERSION, "metadata");
	if (!doc)
		BUG("provenance document could not be built");
	json_object_set_new(json_object_get(json_object_get(doc, "predicate"),
					    "runDetails"),
			    "byproducts", step_outputs(plans, nr));
	if (add_frameworks(
		    json_object_get(
			    json_object_get(json_object_get(doc, "predicate"),
					    "buildDefinition"),
			    "resolvedDependencies"),
		    plans[0]->recipe, run) < 0) {
		json_decref(doc);
		return -1;
	}
	text = json_dumps(doc,
			  JSON_INDENT(2) | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
	json_decref(doc);
	if (!text)
		return error("cannot render the provenance as JSON");
	{
		size_t n = strlen(text);

		text = tf_realloc(text, n + 2);
		text[n] = '\n';
		text[n + 1] = '\0';
		ret = tf_attest_write_unless_same(path, text, n + 1);
	}
	free(text);
	return ret;
}

int tf_provenance_read_subjects(const char *path, struct tf_sums *out)
{
	json_error_t err;
	json_t *doc = json_load_file(path, 0, &err), *subjects, *s;
	const char *type;
	size_t i;
	int ret = 0;

	if (!doc)
		return error("%s:%d:%d: not valid JSON: %s", path, err.line,
			     err.column, err.text);
	type = json_string_value(json_object_get(doc, "_type"));
	subjects = json_object_get(doc, "subject");
	if (!type || strcmp(type, STATEMENT_TYPE) || !json_is_array(subjects))
		ret = error("%s: not an in-toto Statement v1 with subjects",
			    path);
	json_array_foreach(subjects, i, s)
	{
		const char *name =
			json_string_value(json_object_get(s, "name"));
		const char *hex = json_string_value(json_object_get(
			json_object_get(s, "digest"), "sha256"));

		if (ret)
			break;
		if (!name || !hex || !tf_sha256_is_hex(hex)) {
			ret = error(
				"%s: subject %zu has no name or sha256 digest",
				path, i);
			break;
		}
		tf_strvec_push(&out->names, name);
		tf_strvec_push(&out->digests, hex);
	}
	json_decref(doc);
	return ret;
}

char *tf_provenance_predicate(struct tf_plan **plans, size_t nr,
			      const struct tf_provenance_run *run)
{
	json_t *pred, *bd = build_definition(plans, nr, run);
	char *text;

	if (add_frameworks(json_object_get(bd, "resolvedDependencies"),
			   plans[0]->recipe, run) < 0) {
		json_decref(bd);
		return NULL;
	}
	/* No byproducts: where each step's output came from (built, a
	   cache) changes between runs, and these bytes must not. */
	pred = json_pack("{s:o, s:{s:{s:s, s:{s:s}}}}", "buildDefinition", bd,
			 "runDetails", "builder", "id",
			 "https://tfbuild.dev/tfbuild@" TF_VERSION, "version",
			 "tfbuild", TF_VERSION);
	if (!pred)
		BUG("provenance predicate could not be built");
	text = json_dumps(pred,
			  JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
	json_decref(pred);
	if (!text)
		error("cannot render the provenance as JSON");
	return text;
}

/*
 * What tells one build from another in a build definition: the recipe
 * as shown and the target wheels' requirements, as "recipe 'r.yaml',
 * against 'tensorflow==2.20.0'". The recipe edited and rebuilt, or run
 * with another --set, is the same build (t1004); a copy of it, or the
 * same recipe against another framework release (--set tf=2.21.0 in
 * `tensorflow==${tf}`), is not: their wheels' Requires-Dist differ.
 */
static void build_identity(json_t *bd, struct tf_buf *out)
{
	json_t *ext = json_object_get(bd, "externalParameters"), *dep;
	const char *path = json_string_value(
		json_object_get(json_object_get(ext, "recipe"), "path"));
	struct tf_strvec reqs = TF_STRVEC_INIT;
	const char *name;
	size_t i;

	json_array_foreach(json_object_get(bd, "resolvedDependencies"), i, dep)
	{
		name = json_string_value(json_object_get(dep, "name"));
		if (name && !strncmp(name, "target-wheel:", 13) &&
		    (name = strchr(name + 13, ':')))
			tf_strvec_pushf(&reqs, "'%s'", name + 1);
	}
	if (reqs.nr > 1)
		qsort(reqs.v, reqs.nr, sizeof(*reqs.v), tf_strcmp_ptr);
	tf_buf_addf(out, "recipe '%s'", path ? path : "?");
	for (i = 0; i < reqs.nr; i++)
		if (!i || strcmp(reqs.v[i], reqs.v[i - 1]))
			tf_buf_addf(out, "%s%s", i ? ", " : ", against ",
				    reqs.v[i]);
	tf_strvec_release(&reqs);
}

/* 1 if the provenance doc has a subject name with digest hex. */
static int has_subject(json_t *doc, const char *name, const char *hex)
{
	json_t *s;
	size_t i;

	json_array_foreach(json_object_get(doc, "subject"), i, s)
	{
		const char *n = json_string_value(json_object_get(s, "name"));
		const char *h = json_string_value(json_object_get(
			json_object_get(s, "digest"), "sha256"));

		if (n && h && !strcmp(n, name) && !strcmp(h, hex))
			return 1;
	}
	return 0;
}

/*
 * The provenance file in out_dir naming the wheel name with digest hex
 * as its subject, its identity into who; 0 when none does.
 */
static int earlier_build(const char *out_dir, const char *name, const char *hex,
			 struct tf_buf *file, struct tf_buf *who)
{
	struct tf_strvec names = TF_STRVEC_INIT;
	struct tf_buf path = TF_BUF_INIT;
	size_t i, n, k = strlen(".intoto.json");
	int found = 0;

	if (tf_list_dir(out_dir, &names))
		return 0;
	if (names.nr > 1)
		qsort(names.v, names.nr, sizeof(*names.v), tf_strcmp_ptr);
	for (i = 0; !found && i < names.nr; i++) {
		json_t *doc;

		n = strlen(names.v[i]);
		if (n <= k || strcmp(names.v[i] + n - k, ".intoto.json"))
			continue;
		tf_buf_reset(&path);
		tf_path_join(&path, out_dir, names.v[i]);
		if (!(doc = json_load_file(path.buf, 0, NULL)))
			continue;
		if (has_subject(doc, name, hex)) {
			found = 1;
			tf_buf_addstr(file, path.buf);
			build_identity(
				json_object_get(
					json_object_get(doc, "predicate"),
					"buildDefinition"),
				who);
		}
		json_decref(doc);
	}
	tf_strvec_release(&names);
	tf_buf_release(&path);
	return found;
}

int tf_provenance_check_replace(const char *dst, struct tf_plan **plans,
				size_t nr, const struct tf_strvec *sets)
{
	struct tf_provenance_run run = { sets, NULL, NULL, 0 };
	struct tf_buf dir = TF_BUF_INIT, file = TF_BUF_INIT,
		      earlier = TF_BUF_INIT, mine = TF_BUF_INIT;
	unsigned char md[TF_SHA256_LEN];
	char hex[TF_SHA256_HEX_LEN + 1];
	json_t *bd;
	int ret = 0;

	if (!tf_path_exists(dst) || tf_sha256_file(dst, md, NULL))
		return 0;
	tf_sha256_hex(md, hex);
	tf_path_dirname(&dir, dst);
	if (earlier_build(dir.buf, tf_path_basename(dst), hex, &file,
			  &earlier)) {
		bd = build_definition(plans, nr, &run);
		build_identity(bd, &mine);
		json_decref(bd);
		if (strcmp(earlier.buf, mine.buf))
			ret = error("%s: made by another build (%s: %s), not "
				    "this one (%s); not replaced: remove it, "
				    "or use another --out",
				    dst, file.buf, earlier.buf, mine.buf);
	}
	tf_buf_release(&dir);
	tf_buf_release(&file);
	tf_buf_release(&earlier);
	tf_buf_release(&mine);
	return ret;
}
