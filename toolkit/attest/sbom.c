/*
 * The wheel's CycloneDX SBOM (sbom.h). jansson builds it; keys are
 * emitted sorted and arrays are sorted by bom-ref, so the same inputs
 * give the same bytes on any machine and in any checkout.
 */
#include "sbom.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "base/base.h"
#include "fetch/fetch.h"
#include "metadata/metadata.h"
#include "provision/provision.h"
#include "audit/audit.h"
#include "index/index.h"
#include "plan/plan.h"
#include "recipe/recipe.h"
#include "wheel/wheel.h"

#define SCHEMA "http://cyclonedx.org/schema/bom-1.6.schema.json"

/* The document being built: its components and who depends on whom. */
struct sbom {
	json_t *components; /* every component but the primary */
	json_t *primary;    /* refs the primary component depends on */
	json_t *deps;       /* {"ref", "dependsOn"} of the others */
	int any;            /* 1: a wheel for every platform (no target's) */
};

/* purl's percent-encoding: all but letters, digits and ".-_~". */
static void purl_escape(struct tf_buf *out, const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (isalnum(c) || strchr(".-_~", c))
			tf_buf_addch(out, (char)c);
		else
			tf_buf_addf(out, "%%%02X", c);
	}
}

static json_t *sha256_hashes(const char *hex)
{
	return json_pack("[{s:s, s:s}]", "alg", "SHA-256", "content", hex);
}

static json_t *component(const char *type, const char *ref, const char *name,
			 const char *version)
{
	json_t *c = json_pack("{s:s, s:s, s:s}", "type", type, "bom-ref", ref,
			      "name", name);

	if (version && *version)
		json_object_set_new(c, "version", json_string(version));
	return c;
}

static void property(json_t *c, const char *name, const char *value)
{
	json_t *props = json_object_get(c, "properties");

	if (!props) {
		props = json_array();
		json_object_set_new(c, "properties", props);
	}
	json_array_append_new(
		props, json_pack("{s:s, s:s}", "name", name, "value", value));
}

/* 1 if arr (of components) has one with this bom-ref. */
static int has_ref(json_t *arr, const char *ref)
{
	size_t i;
	json_t *c;

	json_array_foreach(arr, i, c)
	{
		if (!strcmp(json_string_value(json_object_get(c, "bom-ref")),
			    ref))
			return 1;
	}
	return 0;
}

/* Add c (its bom-ref unique) and make the primary depend on it. */
static void add(struct sbom *s, json_t *c)
{
	const char *ref = json_string_value(json_object_get(c, "bom-ref"));

	if (has_ref(s->components, ref)) {
		json_decref(c);
		return;
	}
	json_array_append_new(s->primary, json_string(ref));
	json_array_append_new(s->components, c);
}

/* "name:arch=version": the Debian package's component (deb:NAME:ARCH). */
static json_t *deb_component(const char *pkg, struct tf_buf *ref)
{
	const char *colon = strchr(pkg, ':'), *eq = strchr(pkg, '=');
	struct tf_buf purl = TF_BUF_INIT;
	char *name, *arch;
	json_t *c;

	if (!colon || !eq || eq < colon)
		return NULL;
	name = tf_strndup(pkg, (size_t)(colon - pkg));
	arch = tf_strndup(colon + 1, (size_t)(eq - colon - 1));
	tf_buf_setf(ref, "deb:%s:%s", name, arch);
	tf_buf_addstr(&purl, "pkg:deb/debian/");
	purl_escape(&purl, name, strlen(name));
	tf_buf_addch(&purl, '@');
	purl_escape(&purl, eq + 1, strlen(eq + 1));
	tf_buf_addf(&purl, "?arch=%s", arch);
	c = component("library", ref->buf, name, eq + 1);
	json_object_set_new(c, "purl", json_string(purl.buf));
	free(name);
	free(arch);
	tf_buf_release(&purl);
	return c;
}

static void set_license(json_t *c, const char *expr)
{
	if (expr && *expr)
		json_object_set_new(c, "licenses",
				    json_pack("[{s:s}]", "expression", expr));
}

/*
 * A source URL as the recipe pins it: its variables at the recipe's own
 * values, not --set's (a mirror, a local server: the wheel's bytes must
 * not depend on where the archive was fetched from), in its canonical
 * form (fetch/url.h). NULL if it cannot be expanded so.
 */
static char *recipe_url(const struct tf_plan *p, const struct tf_str *u)
{
	const struct tf_recipe *r = p->recipe;
	struct tf_vars v = TF_VARS_INIT;
	struct tf_buf url = TF_BUF_INIT, shown = TF_BUF_INIT;
	char *expanded;
	size_t i, j;

	for (i = 0; i < p->vars.nr; i++) {
		const struct tf_var *x = &p->vars.v[i];

		for (j = 0; j < r->nr_vars && strcmp(r->vars[j].key.s, x->name);
		     j++)
			;
		if (j < r->nr_vars || x->raw || !x->value)
			continue;
		if (x->is_path)
			tf_vars_set_path(&v, x->name, x->value);
		else
			tf_vars_set(&v, x->name, x->value);
	}
	for (j = 0; j < r->nr_vars; j++)
		tf_vars_set_raw(&v, r->vars[j].key.s, &r->vars[j].value);
	expanded = tf_expand_url_dup(&v, u);
	if (expanded) {
		tf_url_normalize(expanded, &url);
		tf_url_canonical(url.buf, r->dir, &shown);
	}
	free(expanded);
	tf_vars_release(&v);
	tf_buf_release(&url);
	return expanded ? tf_buf_detach(&shown) : NULL;
}

static json_t *distribution(const char *url, int mirror)
{
	json_t *ref =
		json_pack("{s:s, s:s}", "type", "distribution", "url", url);

	if (mirror)
		json_object_set_new(ref, "comment", json_string("mirror"));
	return ref;
}

/* Each source: URL, sha256, version and license; its patches. */
static void add_sources(struct sbom *s, const struct tf_plan *p)
{
	struct tf_buf ref = TF_BUF_INIT, pref = TF_BUF_INIT;
	unsigned char md[TF_SHA256_LEN];
	char hex[TF_SHA256_HEX_LEN + 1];
	size_t i, j;

	for (i = 0; i < p->recipe->nr_sources; i++) {
		const struct tf_plan_source *ps = &p->sources[i];
		const struct tf_source *d = ps->def;
		json_t *c, *refs = json_array(), *patches = json_array(),
			   *deps = json_array();

		tf_buf_setf(&ref, "source:%s", d->name.s);
		c = component("library", ref.buf, d->name.s, d->version.s);
		set_license(c, d->license.s);
		for (j = 0; d->url.s && j <= d->nr_mirrors; j++) {
			char *url =
				recipe_url(p, j ? &d->mirrors[j - 1] : &d->url);

			if (url)
				json_array_append_new(refs,
						      distribution(url, j > 0));
			free(url);
		}
		if (json_array_size(refs))
			json_object_set(c, "externalReferences", refs);
		if (d->sha256.s)
			json_object_set_new(c, "hashes",
					    sha256_hashes(d->sha256.s));
		/* A local tree: where it is, unless that is this machine's. */
		if (d->path.s && d->path.s[0] != '/')
			property(c, "tfbuild:path", d->path.s);
		for (j = 0; j < ps->patches.nr; j++) {
			json_t *pc;

			if (tf_sha256_file(ps->patches.v[j], md, NULL))
				continue;
			tf_sha256_hex(md, hex);
			tf_buf_setf(&pref, "patch:%s:%s", d->name.s,
				    d->patches[j].s);
			pc = component("file", pref.buf, d->patches[j].s, NULL);
			json_object_set_new(pc, "hashes", sha256_hashes(hex));
			json_object_set_new(
				pc, "description",
				json_string("a patch applied to the "
					    "source"));
			json_array_append_new(
				patches, json_pack("{s:s, s:{s:s}}", "type",
						   "unofficial", "diff", "url",
						   d->patches[j].s));
			json_array_append_new(deps, json_string(pref.buf));
			json_array_append_new(s->components, pc);
		}
		if (json_array_size(patches))
			json_object_set_new(
				c, "pedigree",
				json_pack("{s:O}", "patches", patches));
		if (json_array_size(deps))
			json_array_append_new(
				s->deps, json_pack("{s:s, s:O}", "ref", ref.buf,
						   "dependsOn", deps));
		json_decref(refs);
		json_decref(patches);
		json_decref(deps);
		add(s, c);
	}
	tf_buf_release(&ref);
	tf_buf_release(&pref);
}

/* The wheel file at dst (its source path), or NULL. */
static const char *wheel_src(const struct tf_sbom_in *in, const char *dst)
{
	size_t i;

	for (i = 0; i < in->nr_files; i++)
		if (!strcmp(in->files[i].dst, dst))
			return in->files[i].src;
	return NULL;
}

/* Each vendored library: its file in the wheel and its Debian package. */
static void add_vendored(struct sbom *s, const struct tf_sbom_in *in)
{
	struct tf_buf ref = TF_BUF_INIT, dref = TF_BUF_INIT;
	unsigned char md[TF_SHA256_LEN];
	char hex[TF_SHA256_HEX_LEN + 1];
	size_t i;

	for (i = 0; i < in->nr_libs; i++) {
		const struct tf_lib *l = &in->libs[i];
		const char *src;
		json_t *c, *deb = NULL;

		if (l->kind != TF_LIB_VENDOR || !l->file)
			continue;
		tf_buf_setf(&ref, "vendored:%s", l->file);
		c = component("library", ref.buf, l->soname, NULL);
		src = wheel_src(in, l->file);
		if (src && !tf_sha256_file(src, md, NULL)) {
			tf_sha256_hex(md, hex);
			json_object_set_new(c, "hashes", sha256_hashes(hex));
		}
		property(c, "tfbuild:wheel-path", l->file);
		if (l->package)
			deb = deb_component(l->package, &dref);
		if (deb) {
			json_object_set(c, "version",
					json_object_get(deb, "version"));
			property(c, "tfbuild:debian-package", l->package);
			json_array_append_new(s->deps,
					      json_pack("{s:s, s:[s]}", "ref",
							ref.buf, "dependsOn",
							dref.buf));
			if (!has_ref(s->components, dref.buf))
				json_array_append_new(s->components, deb);
			else
				json_decref(deb);
		} else {
			property(c, "tfbuild:built-by", "the recipe's steps");
		}
		add(s, c);
	}
	tf_buf_release(&ref);
	tf_buf_release(&dref);
}

/* The target packages the recipe says are linked in statically. */
static int add_static(struct sbom *s, const struct tf_sbom_in *in)
{
	const struct tf_plan *p = in->plan;
	const struct tf_wheel_def *def = in->pw->def;
	struct tf_buf ref = TF_BUF_INIT;
	size_t i, j, n;
	int ret = 0;

	for (i = 0; i < def->nr_static_libraries; i++) {
		const struct tf_str *name = &def->static_libraries[i];
		json_t *c = NULL;

		n = strlen(name->s);
		for (j = 0; !c && j < p->packages.nr; j++)
			if (!strncmp(p->packages.v[j], name->s, n) &&
			    p->packages.v[j][n] == ':')
				c = deb_component(p->packages.v[j], &ref);
		if (!c) {
			ret = tf_error_at(&name->pos,
					  "static-libraries: '%s' is not one "
					  "of target %s's packages "
					  "(target-packages)",
					  name->s, p->target.name);
			continue;
		}
		property(c, "tfbuild:linkage", "static");
		add(s, c);
	}
	tf_buf_release(&ref);
	return ret;
}

/*
 * The framework release the wheel was checked against (its
 * framework.json): Debian's package when one ships it, else its
 * release on the package index.
 */
static int add_framework(struct sbom *s, const struct tf_sbom_in *in)
{
	struct tf_buf path = TF_BUF_INIT, pkg = TF_BUF_INIT, ref = TF_BUF_INIT,
		      purl = TF_BUF_INIT, what = TF_BUF_INIT;
	json_error_t err;
	json_t *root = json_load_file(in->framework_record, 0, &err), *fw, *c;
	const char *name, *version;
	enum tf_provision_shipped shipped = TF_PROVISION_NOT_SHIPPED;

	fw = json_object_get(root, "framework");
	name = json_string_value(json_object_get(fw, "name"));
	version = json_string_value(json_object_get(fw, "version"));
	if (!name || !version) {
		json_decref(root);
		return error("%s: no framework name and version",
			     in->framework_record);
	}
	tf_buf_addf(&what, "%s %s", name, version);
	tf_buf_addf(&path, "%s/%s/__init__.py", in->pw->framework_site, name);
	if (tf_path_exists(path.buf))
		shipped = tf_provision_file_package(in->plan, path.buf, &pkg);
	if (shipped == TF_PROVISION_SHIPPED_ERROR) {
		json_decref(root);
		return -1;
	}
	if (shipped == TF_PROVISION_SHIPPED) {
		c = deb_component(pkg.buf, &ref);
	} else {
		tf_buf_addstr(&purl, "pkg:pypi/");
		tf_pyname_normalize(name, &purl);
		tf_buf_addch(&purl, '@');
		purl_escape(&purl, version, strlen(version));
		tf_buf_setf(&ref, "framework:%s", name);
		c = component("framework", ref.buf, name, version);
		json_object_set_new(c, "purl", json_string(purl.buf));
	}
	if (c) {
		property(c, "tfbuild:framework", what.buf);
		add(s, c);
	}
	json_decref(root);
	tf_buf_release(&path);
	tf_buf_release(&pkg);
	tf_buf_release(&ref);
	tf_buf_release(&purl);
	tf_buf_release(&what);
	return 0;
}

/*
 * The sonames of in's external libraries from distribution name, " "
 * separated, into out (empty for none).
 */
static void externals_of(const struct tf_sbom_in *in, const char *name,
			 struct tf_buf *out)
{
	struct tf_buf want = TF_BUF_INIT, have = TF_BUF_INIT;
	size_t i;

	tf_pyname_normalize(name, &want);
	for (i = 0; i < in->nr_libs; i++) {
		if (in->libs[i].kind != TF_LIB_EXTERNAL)
			continue;
		tf_buf_reset(&have);
		tf_pyname_normalize(in->libs[i].dist, &have);
		if (!strcmp(want.buf, have.buf))
			tf_buf_addf(out, "%s%s", out->len ? " " : "",
				    in->libs[i].soname);
	}
	tf_buf_release(&want);
	tf_buf_release(&have);
}

/*
 * A pinned wheel from the index as a component: "KIND:FILE" its
 * bom-ref, its purl and sha256; *name (owned by the caller) the
 * requirement's name. NULL for a requirement without "==".
 */
static json_t *pin_component(const struct tf_index_pin *w, const char *kind,
			     const char *type, char **name)
{
	const char *eq = strstr(w->requirement, "==");
	struct tf_buf ref = TF_BUF_INIT, purl = TF_BUF_INIT;
	json_t *c;

	if (!eq)
		return NULL;
	*name = tf_strndup(w->requirement, (size_t)(eq - w->requirement));
	tf_buf_setf(&ref, "%s:%s", kind, w->file);
	tf_buf_setf(&purl, "pkg:pypi/");
	tf_pyname_normalize(*name, &purl);
	tf_buf_addch(&purl, '@');
	purl_escape(&purl, eq + 2, strlen(eq + 2));
	c = component(type, ref.buf, *name, eq + 2);
	json_object_set_new(c, "purl", json_string(purl.buf));
	json_object_set_new(c, "hashes", sha256_hashes(w->sha256));
	tf_buf_release(&ref);
	tf_buf_release(&purl);
	return c;
}

/*
 * The target's wheels from the package index, used to build it; one that
 * provides external libraries is required at run time too.
 */
static void add_target_wheels(struct sbom *s, const struct tf_plan *p,
			      const struct tf_sbom_in *in)
{
	struct tf_buf ext = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < p->wheel_pins.nr; i++) {
		const struct tf_index_pin *w = &p->wheel_pins.v[i];
		char *name;
		json_t *c = pin_component(w, "target-wheel", "library", &name);

		if (!c)
			continue;
		tf_buf_reset(&ext);
		externals_of(in, name, &ext);
		json_object_set_new(
			c, "scope",
			json_string(ext.len ? "required" : "excluded"));
		property(c, "tfbuild:file", w->file);
		property(c, "tfbuild:use", ext.len ? "build run" : "build");
		if (ext.len)
			property(c, "tfbuild:external-libraries", ext.buf);
		add(s, c);
		free(name);
	}
	tf_buf_release(&ext);
}

/*
 * The build machine's wheels from the package index (`host-wheels`):
 * tools that ran to build it (nvcc), never part of it, so scope
 * `excluded` and tfbuild:use `build-tool`.
 */
static void add_host_wheels(struct sbom *s, const struct tf_plan *p)
{
	size_t i;

	for (i = 0; i < p->host_pins.nr; i++) {
		const struct tf_index_pin *w = &p->host_pins.v[i];
		char *name;
		json_t *c =
			pin_component(w, "host-wheel", "application", &name);

		if (!c)
			continue;
		json_object_set_new(c, "scope", json_string("excluded"));
		property(c, "tfbuild:file", w->file);
		property(c, "tfbuild:use", "build-tool");
		add(s, c);
		free(name);
	}
}

/*
 * The target's C compiler, from its identity: "PATH MACHINE VERSION
 * LINE", e.g. "/usr/bin/gcc x86_64-linux-gnu gcc (Debian 12.2.0-14)
 * 12.2.0". The version is the line's last word.
 */
static void add_toolchain(struct sbom *s, const struct tf_plan *p)
{
	const char *id = p->target.identity, *sp1, *sp2, *last;
	struct tf_buf ref = TF_BUF_INIT;
	char *cc, *machine;
	json_t *c;

	if (!id || !(sp1 = strchr(id, ' ')) || !(sp2 = strchr(sp1 + 1, ' ')))
		return;
	cc = tf_strndup(id, (size_t)(sp1 - id));
	machine = tf_strndup(sp1 + 1, (size_t)(sp2 - sp1 - 1));
	last = strrchr(sp2 + 1, ' ');
	last = last ? last + 1 : sp2 + 1;
	tf_buf_setf(&ref, "toolchain:%s", p->target.name);
	c = component("application", ref.buf, tf_path_basename(cc),
		      isdigit((unsigned char)*last) ? last : NULL);
	json_object_set_new(c, "description", json_string(sp2 + 1));
	json_object_set_new(c, "scope", json_string("excluded"));
	property(c, "tfbuild:target", machine);
	property(c, "tfbuild:use", "build");
	add(s, c);
	free(cc);
	free(machine);
	tf_buf_release(&ref);
}

static int cmp_ref(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	const char *kx = json_is_string(x) ? json_string_value(x)
					   : json_string_value(json_object_get(
						     x, "bom-ref")),
		   *ky = json_is_string(y) ? json_string_value(y)
					   : json_string_value(json_object_get(
						     y, "bom-ref"));

	if (!kx)
		kx = json_string_value(json_object_get(x, "ref"));
	if (!ky)
		ky = json_string_value(json_object_get(y, "ref"));
	return strcmp(kx, ky);
}

/* Sort arr in place: strings by value, objects by bom-ref or ref. */
static void sort_array(json_t *arr)
{
	size_t i, n = json_array_size(arr);
	json_t **v = tf_calloc(n + 1, sizeof(*v));

	for (i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(arr, i));
	qsort(v, n, sizeof(*v), cmp_ref);
	json_array_clear(arr);
	for (i = 0; i < n; i++)
		json_array_append_new(arr, v[i]);
	free(v);
}

/* urn:uuid: from a digest of the document, as a version 5 UUID's bits. */
static void serial_number(const char *text, struct tf_buf *out)
{
	unsigned char md[TF_SHA256_LEN];
	size_t i;

	tf_sha256_buf(text, strlen(text), md);
	md[6] = (unsigned char)((md[6] & 0x0f) | 0x50);
	md[8] = (unsigned char)((md[8] & 0x3f) | 0x80);
	tf_buf_addstr(out, "urn:uuid:");
	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			tf_buf_addch(out, '-');
		tf_buf_addf(out, "%02x", md[i]);
	}
}

/* The recipe's cuda-archs, one property: "sm_80 sm_90 compute_90". */
static void add_cuda_archs(json_t *c, const struct tf_plan_wheel *pw)
{
	struct tf_buf list = TF_BUF_INIT;
	size_t i;

	if (!pw->cuda_archs)
		return;
	for (i = 0; pw->cuda_archs[i]; i++)
		tf_buf_addf(&list, "%s%s", i ? " " : "", pw->cuda_archs[i]);
	property(c, "tfbuild:cuda-archs", list.buf);
	tf_buf_release(&list);
}

static json_t *primary_component(const struct tf_sbom_in *in)
{
	const struct tf_wheel_spec *w = &in->pw->spec;
	struct tf_buf purl = TF_BUF_INIT, ver = TF_BUF_INIT;
	json_t *c;

	if (tf_pep440_normalize(w->version, &ver))
		tf_buf_setf(&ver, "%s", w->version);
	tf_buf_addstr(&purl, "pkg:pypi/");
	tf_pyname_normalize(w->name, &purl);
	tf_buf_addch(&purl, '@');
	purl_escape(&purl, ver.buf, ver.len);
	c = component("library", purl.buf, w->name, ver.buf);
	json_object_set_new(c, "purl", json_string(purl.buf));
	if (w->summary && *w->summary)
		json_object_set_new(c, "description", json_string(w->summary));
	set_license(c, w->license);
	add_cuda_archs(c, in->pw);
	tf_buf_release(&purl);
	tf_buf_release(&ver);
	return c;
}

/* The document, components and dependencies sorted; no serial number. */
static json_t *document(struct sbom *s, const struct tf_sbom_in *in)
{
	json_t *primary = primary_component(in), *doc;
	char when[32];
	time_t t = (time_t)in->pw->spec.source_date_epoch;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	sort_array(s->components);
	sort_array(s->primary);
	json_array_append_new(s->deps,
			      json_pack("{s:O, s:O}", "ref",
					json_object_get(primary, "bom-ref"),
					"dependsOn", s->primary));
	sort_array(s->deps);
	doc = json_pack("{s:s, s:s, s:s, s:i, s:{s:s, s:{s:[{s:s, s:s, "
			"s:s}]}, s:o}, s:O, s:O}",
			"$schema", SCHEMA, "bomFormat", "CycloneDX",
			"specVersion", "1.6", "version", 1, "metadata",
			"timestamp", when, "tools", "components", "type",
			"application", "name", "tfbuild", "version", TF_VERSION,
			"component", primary, "components", s->components,
			"dependencies", s->deps);
	if (!doc)
		BUG("the SBOM could not be built");
	if (!s->any)
		json_object_set_new(
			json_object_get(doc, "metadata"), "properties",
			json_pack("[{s:s, s:s}]", "name", "tfbuild:target",
				  "value", in->plan->target.name));
	return doc;
}

static char *render(json_t *doc)
{
	return json_dumps(doc,
			  JSON_INDENT(2) | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
}

int tf_sbom_write(const struct tf_sbom_in *in, const char *path)
{
	struct sbom s = { json_array(), json_array(), json_array(), 0 };
	struct tf_buf serial = TF_BUF_INIT, text = TF_BUF_INIT;
	json_t *doc = NULL;
	char *body = NULL;
	int ret = 0;

	/* A wheel for every platform is one file for every target. */
	s.any = in->platform && !strcmp(in->platform, "any");
	add_sources(&s, in->plan);
	add_vendored(&s, in);
	if (!s.any) {
		ret = add_static(&s, in);
		if (!ret && in->framework_record)
			ret = add_framework(&s, in);
		add_target_wheels(&s, in->plan, in);
		add_host_wheels(&s, in->plan);
		add_toolchain(&s, in->plan);
	}
	if (!ret) {
		doc = document(&s, in);
		body = render(doc);
		if (!body)
			ret = error("cannot render the SBOM as JSON");
	}
	if (!ret) {
		serial_number(body, &serial);
		json_object_set_new(doc, "serialNumber",
				    json_string(serial.buf));
		free(body);
		body = render(doc);
		tf_buf_addstr(&text, body);
		tf_buf_addch(&text, '\n');
		ret = tf_write_file_atomic(path, text.buf, text.len, 0);
	}
	free(body);
	json_decref(doc);
	json_decref(s.components);
	json_decref(s.primary);
	json_decref(s.deps);
	tf_buf_release(&serial);
	tf_buf_release(&text);
	return ret ? -1 : 0;
}
