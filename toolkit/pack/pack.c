#include "pack.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <pthread.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attest/attest.h"
#include "audit/audit.h"
#include "index/index.h"
#include "isa/isa.h"
#include "plugin/plugin.h"
#include "stamp/stamp.h"
#include "base/base.h"
#include "collect.h"
#include "machotag.h"
#include "packstamp.h"
#include "vendorsrc.h"
#include "wheelvariant.h"
#include "source/source.h"
#include "verify/verify.h"
#include "wheel/wheel.h"
#include "plan/plan.h"
#include "recipe/recipe.h"

/* A declared x86-64 minimum also allows GNU property notes up to it. */
static void raise_isa_level(const struct tf_wheel_def *def, int *level)
{
	enum tf_isa_family fam;
	size_t i;
	int l;

	for (i = 0; i < def->nr_isa_minimum; i++)
		if (!tf_isa_level_parse(def->isa_minimum[i].s, &fam, &l) &&
		    fam == TF_ISA_X86_64 && l > *level)
			*level = l;
}

/*
 * A wheel's files once its libraries are resolved: vendored ones added
 * (vendor.c), the decisions and the Requires-Dist they imply.
 */
struct resolved {
	struct tf_vendor_result vendor;    /* owned */
	const struct tf_wheel_file *files; /* borrowed from vendor */
	size_t nr_files;
	struct tf_lib *libs; /* owned array: vendor's, then
					   allow-needed as system */
	size_t nr_libs;
	const char **requires; /* owned array, NULL-ended: the
					   recipe's, then what provided
					   libraries need */
	size_t nr_requires;
	struct tf_buf record;         /* the libraries record's path */
	struct tf_buf cuda;           /* the cuda-archs record's path */
	struct tf_wheel_file meta[4]; /* it, the framework record, the
					   cuda-archs record and the SBOM,
					   as .dist-info files */
	size_t nr_meta;
	const char *framework_req;       /* borrowed: "torch==1.13.0a0+..." */
	const char *framework_companion; /* borrowed: "jax==0.10.2", or "" */
	const struct tf_strvec *framework_libs; /* borrowed: the framework's
					   libraries the wheel needs */
	struct tf_lib *decl; /* owned array: the recipe's `libraries`,
					   then its external ones resolved */
	size_t nr_decl;
	struct tf_strvec decl_store; /* owned: external files and hashes */
};

static void resolved_release(struct resolved *r)
{
	tf_vendor_result_release(&r->vendor);
	free(r->libs);
	free(r->requires);
	tf_buf_release(&r->record);
	tf_buf_release(&r->cuda);
	free(r->decl);
	tf_strvec_release(&r->decl_store);
	memset(r, 0, sizeof(*r));
}

/* Decisions: the recipe's `libraries` (after vendoring) and allow-needed. */
static void resolve_decisions(const struct tf_plan_wheel *pw,
			      struct resolved *r)
{
	size_t i, n = pw->def->nr_allow_needed;
	size_t nr_fw = r->framework_libs ? r->framework_libs->nr : 0;

	r->libs =
		tf_calloc(r->vendor.nr_libs + n + nr_fw + 1, sizeof(*r->libs));
	memcpy(r->libs, r->vendor.libs, r->vendor.nr_libs * sizeof(*r->libs));
	r->nr_libs = r->vendor.nr_libs;
	for (i = 0; i < n; i++) {
		if (tf_libs_find(r->libs, r->nr_libs, pw->allow_needed[i]))
			continue;
		r->libs[r->nr_libs].soname = pw->allow_needed[i];
		r->libs[r->nr_libs++].kind = TF_LIB_SYSTEM;
	}
	/* The framework's libraries: the framework has loaded them. */
	for (i = 0; i < nr_fw; i++) {
		const char *so = r->framework_libs->v[i];

		if (tf_libs_find(r->libs, r->nr_libs, so))
			continue;
		r->libs[r->nr_libs].soname = so;
		r->libs[r->nr_libs].from = r->framework_req;
		r->libs[r->nr_libs++].kind = TF_LIB_FRAMEWORK;
	}
	for (n = 0; pw->requires && pw->requires[n]; n++)
		;
	r->requires = tf_calloc(n + r->nr_libs + 3, sizeof(*r->requires));
	memcpy(r->requires, pw->requires, n * sizeof(*r->requires));
	r->nr_requires = n;
	for (i = 0; i < r->nr_libs; i++)
		if ((r->libs[i].kind == TF_LIB_PROVIDED ||
		     r->libs[i].kind == TF_LIB_FRAMEWORK ||
		     r->libs[i].kind == TF_LIB_EXTERNAL) &&
		    !tf_libs_requirement_listed(r->libs[i].from, r->requires,
						r->nr_requires))
	r->requires[r->nr_requires++] = r->libs[i].from;
	/* A PJRT plugin needs no library of its framework: still its range,
	 * and jax beside jaxlib. */
	if (r->framework_req && *r->framework_req &&
	    !tf_libs_requirement_listed(r->framework_req, r->requires,
					r->nr_requires))
	r->requires[r->nr_requires++] = r->framework_req;
	if (r->framework_companion && *r->framework_companion &&
	    !tf_libs_requirement_listed(r->framework_companion, r->requires,
					r->nr_requires))
	r->requires[r->nr_requires++] = r->framework_companion;
}

/*
 * The recipe's `libraries`, then each external library found in its
 * distribution's RECORD in the target's site (docs/libraries.md#external).
 */
static int declarations(const struct tf_plan *p, const struct tf_plan_wheel *pw,
			const char *context, struct resolved *r)
{
	struct tf_buf path = TF_BUF_INIT, hash = TF_BUF_INIT;
	size_t i, n = pw->def->nr_libraries;
	int ret = 0;

	r->decl = tf_calloc(n + pw->nr_externals + 1, sizeof(*r->decl));
	memcpy(r->decl, pw->libs, n * sizeof(*r->decl));
	r->nr_decl = n;
	for (i = 0; !ret && i < pw->nr_externals; i++) {
		const struct tf_plan_external *e = &pw->externals[i];
		struct tf_lib *l = &r->decl[r->nr_decl++];

		tf_buf_reset(&path);
		tf_buf_reset(&hash);
		ret = tf_index_site_find_lib(p->site, e->dist, e->version,
					     e->soname, context, &path, &hash);
		l->soname = e->soname;
		l->kind = TF_LIB_EXTERNAL;
		l->from = e->requirement;
		l->dist = e->dist;
		l->version = e->version;
		tf_strvec_push(&r->decl_store, path.buf);
		l->file = r->decl_store.v[r->decl_store.nr - 1];
		tf_strvec_push(&r->decl_store, hash.buf);
		l->hash = r->decl_store.v[r->decl_store.nr - 1];
	}
	tf_buf_release(&path);
	tf_buf_release(&hash);
	return ret;
}

/*
 * Resolve the wheel's libraries: vendor what the recipe says into
 * dir/vendor, and write the record of every decision there.
 */
static int resolve_libraries(const struct tf_plan *p,
			     const struct tf_plan_wheel *pw,
			     const struct tf_file_list *fl, const char *dir,
			     struct resolved *r)
{
	struct tf_vendor_opts o;
	struct tf_strvec dirs = TF_STRVEC_INIT;
	struct tf_buf context = TF_BUF_INIT, work = TF_BUF_INIT,
		      json = TF_BUF_INIT;
	int ret;

	tf_buf_addf(&context, "wheel '%s'", pw->spec.name);
	tf_path_join(&work, dir, "vendor");
	tf_pack_root_dirs(p, &dirs);
	tf_strvec_pushv(&dirs, pw->library_dirs);
	tf_vendor_default_dirs(p->target.triplet, p->target.sysroot,
			       p->target.native, &dirs);
	o.context = context.buf;
	o.wheel_name = pw->spec.name;
	o.arch = tf_arch_from_name(p->target.name);
	ret = declarations(p, pw, context.buf, r);
	o.libs = r->decl;
	o.nr_libs = r->nr_decl;
	o.dirs = (const char *const *)dirs.v;
	o.work = work.buf;
	ret = ret || tf_mkdir_p(work.buf) ||
	      tf_vendor_wheel(&o, fl->v, fl->nr, &r->vendor);
	if (!ret)
		ret = tf_pack_vendored_packages(p, context.buf, &r->vendor);
	if (!ret) {
		r->files = r->vendor.files;
		r->nr_files = r->vendor.nr_files;
		resolve_decisions(pw, r);
	}
	if (!ret && r->nr_libs) {
		tf_libs_record_write(r->libs, r->nr_libs, &json);
		tf_path_join(&r->record, work.buf, "libraries.json");
		ret = tf_write_file_atomic(r->record.buf, json.buf, json.len,
					   0);
		r->meta[r->nr_meta].src = r->record.buf;
		r->meta[r->nr_meta++].dst = TF_LIBS_RECORD;
	}
	tf_strvec_release(&dirs);
	tf_buf_release(&context);
	tf_buf_release(&work);
	tf_buf_release(&json);
	return ret ? -1 : 0;
}

/*
 * Check every ELF file against the wheel's platform and the recipe's
 * declarations before it is packed. Without a platform in the recipe,
 * one is derived into `platform`: "any" with no native code, else the
 * lowest manylinux policy the binaries allow.
 */
static int check_elf(const struct tf_plan *p, const struct tf_plan_wheel *pw,
		     const struct tf_file_list *fl, const struct resolved *res,
		     struct tf_buf *platform)
{
	struct tf_elf_rules rules = TF_ELF_RULES_INIT;
	struct tf_buf context = TF_BUF_INIT, why = TF_BUF_INIT;
	const struct tf_wheel_def *def = pw->def;
	unsigned char *not_elf = tf_calloc(res->nr_files + 1, 1);
	size_t i;
	int ret = 0;

	/* What add_file read as not ELF is not opened again; vendoring
	 * only appends, or replaces a file by another path. */
	for (i = 0; i < res->nr_files && i < fl->nr; i++)
		not_elf[i] = res->files[i].src == fl->v[i].src && !fl->elf[i];
	rules.not_elf = not_elf;
	rules.nr_not_elf = res->nr_files;

	tf_buf_addf(&context, "wheel '%s'", pw->spec.name);
	rules.context = context.buf;
	rules.allow_needed = pw->allow_needed;
	rules.nr_allow_needed = def->nr_allow_needed;
	rules.isa_level = def->isa_level;
	raise_isa_level(def, &rules.isa_level);
	rules.exports = pw->exports;
	rules.nr_exports = def->nr_exports;
	rules.libs = res->libs;
	rules.nr_libs = res->nr_libs;
	rules.requires = res->requires;
	rules.nr_requires = res->nr_requires;
	rules.abi3_minor = tf_abi3_minor(pw->spec.python_tag, pw->spec.abi_tag);
	if (p->target.macos) {
		/* Its Mach-O files are verified with the packed wheel. */
		ret = tf_pack_macos_platform(context.buf, pw->spec.platform_tag,
					     res->files, res->nr_files,
					     pw->exports, def->nr_exports,
					     res->libs, res->nr_libs, platform);
		goto out;
	} else if (pw->spec.platform_tag) {
		if (tf_platform_parse(pw->spec.platform_tag, &rules.platform,
				      &why))
			ret = tf_error_at(&def->platform.pos,
					  "platform '%s': %s",
					  pw->spec.platform_tag, why.buf);
	} else if (!fl->has_elf && !def->nr_exports) {
		tf_buf_addstr(platform, "any");
		rules.platform.kind = TF_PLATFORM_ANY;
	} else {
		tf_platform_compute(&rules.platform,
				    tf_arch_from_name(p->target.name));
		rules.glibc_pin = p->target.glibc_minor;
	}
	if (!ret)
		ret = tf_elf_verify_wheel(res->files, res->nr_files, &rules,
					  platform);
out:
	free(not_elf);
	tf_buf_release(&context);
	tf_buf_release(&why);
	return ret;
}

/*
 * The wheel's ISA declarations (recipe key `isa`) for this target's
 * family: dispatch globs, and the minimum of that family if any. The
 * arrays point into the recipe; free *globs.
 */
static void isa_policy(const struct tf_plan *p, const struct tf_wheel_def *def,
		       struct tf_isa_policy *pol, const char ***globs)
{
	enum tf_isa_family want = !strcmp(p->target.name, "aarch64")
					  ? TF_ISA_AARCH64
					  : TF_ISA_X86_64,
			   fam;
	size_t i;
	int level;

	*globs = tf_calloc(def->nr_isa_dispatch + 1, sizeof(**globs));
	pol->nr_dispatch = 0;
	/* Only the globs declared for every target or for this one. */
	for (i = 0; i < def->nr_isa_dispatch; i++)
		if (!def->isa_dispatch_for[i] ||
		    !strcmp(def->isa_dispatch_for[i], p->target.name))
			(*globs)[pol->nr_dispatch++] = def->isa_dispatch[i].s;
	pol->dispatch = *globs;
	pol->minimum = NULL;
	for (i = 0; i < def->nr_isa_minimum; i++)
		if (!tf_isa_level_parse(def->isa_minimum[i].s, &fam, &level) &&
		    fam == want && level > tf_isa_baseline(fam))
			pol->minimum = def->isa_minimum[i].s;
}

/*
 * Disassemble every ELF file: code above the platform's baseline (or
 * the declared minimum) must be declared as dispatching. The
 * declarations go into the wheel for `tfbuild verify`.
 */
static int check_isa(const struct tf_plan *p, const struct tf_plan_wheel *pw,
		     const struct tf_file_list *fl, struct tf_buf *record)
{
	struct tf_isa_policy pol = TF_ISA_POLICY_INIT;
	struct tf_isa_usage usage = { 0, 0 };
	struct tf_buf context = TF_BUF_INIT;
	const char **globs;
	size_t i;
	int ret = 0;

	isa_policy(p, pw->def, &pol, &globs);
	tf_pack_variant_policy(p, pw, &pol, &usage);
	tf_buf_addf(&context, "wheel '%s'", pw->spec.name);
	for (i = 0; !ret && i < fl->nr; i++)
		if (tf_isa_audit_file(fl->v[i].src, fl->v[i].dst, context.buf,
				      &pol) == TF_ISA_AUDIT_FAILED)
			ret = -1;
	if (!ret)
		tf_pack_variant_warn(p, pw, &usage);
	if (pol.minimum || pol.nr_dispatch)
		tf_isa_policy_format(&pol, record);
	tf_buf_release(&context);
	free(globs);
	return ret;
}

/*
 * The framework the wheel loads into (framework.h): found, its version
 * checked against the recipe's and the headers', the wheel's binaries
 * resolved against it. Its record is written to dir/framework.json.
 */
static int check_framework(const struct tf_plan_wheel *pw,
			   const struct tf_file_list *fl, const char *dir,
			   struct tf_framework *fw, struct tf_strvec *used,
			   struct tf_buf *requirement, struct tf_buf *companion,
			   struct tf_buf *path)
{
	struct tf_buf context = TF_BUF_INIT, record = TF_BUF_INIT,
		      why = TF_BUF_INIT;
	size_t i;
	int ret;

	tf_buf_addf(&context, "wheel '%s'", pw->spec.name);
	if (pw->framework_pjrt_header)
		fw->pjrt_header = tf_strdup(pw->framework_pjrt_header);
	ret = tf_framework_load(fw, pw->framework, pw->framework_site,
				context.buf) ||
	      tf_framework_check_version(fw, pw->framework_version,
					 context.buf) ||
	      tf_framework_audit(fw, fl->v, fl->nr, context.buf, &record, used);
	/* A requires-dist naming the framework: within its ABI's window. */
	for (i = 0; !ret && i < pw->def->nr_requires_dist; i++)
		if (tf_framework_requirement_check(fw, pw->requires[i], &why))
			ret = tf_error_at(&pw->def->requires_dist[i].pos,
					  "requires-dist: %s", why.buf);
	if (!ret) {
		tf_framework_requirement(fw, requirement);
		/* The recipe's tensorflow-cpu takes tensorflow's place. */
		for (i = 0; i < pw->def->nr_requires_dist; i++)
			if (tf_framework_alternative(fw, pw->requires[i]))
				tf_buf_setf(requirement, "%s", pw->requires[i]);
		tf_framework_companion(fw, companion);
		tf_path_join(path, dir, "framework.json");
		ret = tf_write_file_atomic(path->buf, record.buf, record.len,
					   0);
	}
	tf_buf_release(&context);
	tf_buf_release(&record);
	tf_buf_release(&why);
	return ret ? -1 : 0;
}

/*
 * The readme's text (METADATA's body) and the files for .dist-info: the
 * license files under licenses/, the libraries record. *meta is owned
 * by the caller; its dst strings live in the plan's store or are static.
 */
static int add_metadata_files(const struct tf_plan_wheel *pw,
			      struct resolved *res, struct tf_wheel_spec *spec,
			      struct tf_buf *readme,
			      struct tf_wheel_file **meta)
{
	size_t i, n = pw->def->nr_license_files;

	if (pw->readme_path) {
		if (tf_read_file(pw->readme_path, readme))
			return error("wheel '%s': cannot read its readme",
				     pw->spec.name);
		if (memchr(readme->buf, '\0', readme->len))
			return error(
				"wheel '%s': readme '%s' contains a NUL byte",
				pw->spec.name, pw->readme_path);
		spec->description = readme->buf;
	} else {
		/* PyPI's upload (twine check --strict) wants a description:
		   without a readme, the summary (or the name) as plain text. */
		spec->description = spec->summary && *spec->summary
					    ? spec->summary
					    : spec->name;
		spec->description_content_type = "text/plain";
	}
	*meta = tf_calloc(n + res->nr_meta + 1, sizeof(**meta));
	for (i = 0; i < n; i++) {
		struct tf_wheel_file *f = &(*meta)[spec->nr_meta_files++];

		if (!tf_path_exists(pw->license_srcs[i]))
			return error("wheel '%s': license file '%s' does not "
				     "exist",
				     pw->spec.name, pw->license_srcs[i]);
		f->src = pw->license_srcs[i];
		tf_strvec_pushf(&res->vendor.store, "licenses/%s",
				pw->license_names[i]);
		f->dst = res->vendor.store.v[res->vendor.store.nr - 1];
	}
	for (i = 0; i < res->nr_meta; i++) /* libraries.json, framework.json */
		(*meta)[spec->nr_meta_files++] = res->meta[i];
	spec->meta_files = *meta;
	return 0;
}

/*
 * The writer read f: from a tree read in place, what it read is what the
 * tree's digest needs (digestcache.c), so that is not read a second time.
 */
static void remember_digest(void *arg, const struct tf_wheel_file *f,
			    const struct stat *st,
			    const unsigned char md[TF_SHA256_LEN])
{
	const struct tf_plan *p = arg;
	size_t i, n;

	for (i = 0; i < p->recipe->nr_sources; i++) {
		const struct tf_plan_source *s = &p->sources[i];

		n = s->in_place ? strlen(s->dir) : 0;
		if (n && !strncmp(f->src, s->dir, n) && f->src[n] == '/') {
			tf_digest_cache_store(f->src, st, md);
			return;
		}
	}
}

/* 1 if some source of p is read in place (its digests come from packing). */
static int reads_in_place(const struct tf_plan *p)
{
	size_t i;

	for (i = 0; i < p->recipe->nr_sources; i++)
		if (p->sources[i].in_place)
			return 1;
	return 0;
}

/*
 * pw's files listed into fl, none given twice, its ELF files probed:
 * 0, or -1 after error().
 */
static int collect_files(const struct tf_plan *p, struct tf_plan_wheel *pw,
			 struct tf_file_list *fl)
{
	size_t i, *end = tf_calloc(pw->def->nr_files + 1, sizeof(*end));
	int ret = 0;

	for (i = 0; !ret && i < pw->def->nr_files; i++) {
		ret = tf_files_collect(p, pw, &pw->files[i], fl);
		end[i] = fl->nr;
	}
	if (!ret)
		ret = tf_files_check_twice(p, pw, fl, end);
	if (!ret)
		tf_files_probe_elf(fl, p->jobs);
	free(end);
	return ret;
}

/*
 * The cuda-archs record: the declared architectures one a line, in
 * the plan's order, written in dir when the recipe declares some.
 */
static int add_cuda_record(const struct tf_plan_wheel *pw, const char *dir,
			   struct resolved *res)
{
	struct tf_buf text = TF_BUF_INIT;
	size_t i;
	int ret;

	if (!pw->cuda_archs)
		return 0;
	for (i = 0; pw->cuda_archs[i]; i++)
		tf_buf_addf(&text, "%s\n", pw->cuda_archs[i]);
	tf_path_join(&res->cuda, dir, "cuda-archs");
	ret = tf_write_file_atomic(res->cuda.buf, text.buf, text.len, 0);
	res->meta[res->nr_meta].src = res->cuda.buf;
	res->meta[res->nr_meta++].dst = TF_CUDA_RECORD;
	tf_buf_release(&text);
	return ret ? -1 : 0;
}

/*
 * The framework's record (a framework's wheel), the cuda-archs record
 * and the SBOM, written to sbom in dir, added to res's metadata files:
 * 0, or -1 after error().
 */
static int add_records(const struct tf_plan *p, struct tf_plan_wheel *pw,
		       const char *dir, const struct tf_wheel_spec *spec,
		       struct resolved *res, const char *fw_record,
		       struct tf_buf *sbom)
{
	if (pw->framework) {
		res->meta[res->nr_meta].src = fw_record;
		res->meta[res->nr_meta++].dst = TF_FRAMEWORK_RECORD;
	}
	if (add_cuda_record(pw, dir, res))
		return -1;
	tf_path_join(sbom, dir, "sbom.cdx.json");
	res->meta[res->nr_meta].src = sbom->buf;
	res->meta[res->nr_meta++].dst = TF_SBOM_RECORD;
	return tf_sbom_write(
		&(struct tf_sbom_in){ p, pw, spec->platform_tag, res->libs,
				      res->nr_libs, res->files, res->nr_files,
				      pw->framework ? fw_record : NULL },
		sbom->buf);
}

/*
 * The wheel of spec packed into dir, its path to path_out; fl and res,
 * which it no longer needs, freed first: 0, or -1 after error().
 */
static int write_wheel(const struct tf_plan *p, struct tf_wheel_spec *spec,
		       const char *dir, struct tf_buf *path_out,
		       struct tf_file_list *fl, struct resolved *res)
{
	int ret;

	spec->jobs = p->jobs; /* --jobs deflates entries too; same bytes */
	spec->on_file = remember_digest;
	spec->on_file_arg = (void *)p;
	if (reads_in_place(p))
		tf_digest_cache_reserve(spec->nr_files);
	ret = tf_wheel_pack(spec, dir, path_out);
	/*
	 * The lists of files are not needed to verify the wheel: free them
	 * first (some 12 MB at 63,000 files, under verify's own listings
	 * this was the peak RSS of a run).
	 */
	tf_files_release(fl);
	resolved_release(res);
#ifdef __GLIBC__
	/*
	 * The digests stored while packing sit in the heap between what the
	 * writer freed (minizip's central directory, 7 MB at 63,000 files):
	 * glibc returns only the heap's top by itself, so give the rest back
	 * before verifying (3 MB of peak RSS).
	 */
	malloc_trim(0);
#endif
	return ret;
}

/*
 * Pack one wheel into dir (check_packed verifies it); its path goes to
 * path_out.
 */
static int pack_one(const struct tf_plan *p, struct tf_plan_wheel *pw,
		    const char *dir, struct tf_buf *path_out)
{
	struct tf_file_list fl = { NULL, 0, 0, TF_STRPOOL_INIT, 0, NULL, 0 };
	struct tf_wheel_spec spec = pw->spec;
	struct tf_buf platform = TF_BUF_INIT, isa = TF_BUF_INIT,
		      readme = TF_BUF_INIT, vjson = TF_BUF_INIT;
	struct tf_wheel_file *meta = NULL;
	struct resolved res;
	struct tf_framework fw = TF_FRAMEWORK_INIT;
	struct tf_strvec fw_libs = TF_STRVEC_INIT;
	struct tf_buf fw_req = TF_BUF_INIT, fw_record = TF_BUF_INIT,
		      sbom = TF_BUF_INIT, fw_with = TF_BUF_INIT;
	int ret;

	memset(&res, 0, sizeof(res));
	res.vendor = (struct tf_vendor_result)TF_VENDOR_RESULT_INIT;
	res.decl_store = (struct tf_strvec)TF_STRVEC_INIT;
	ret = collect_files(p, pw, &fl);
	if (!ret && pw->framework) {
		ret = check_framework(pw, &fl, dir, &fw, &fw_libs, &fw_req,
				      &fw_with, &fw_record);
		res.framework_req = fw_req.buf;
		res.framework_companion = fw_with.buf;
		res.framework_libs = &fw_libs;
	}
	if (ret)
		goto out;
	ret = resolve_libraries(p, pw, &fl, dir, &res) ||
	      check_elf(p, pw, &fl, &res, &platform);
	if (!ret && fl.has_elf)
		ret = check_isa(p, pw, &fl, &isa);
	if (ret)
		goto out;
	if (isa.len)
		spec.isa_record = isa.buf;
	tf_pack_variant_spec(p, pw, &spec, &vjson);
	if (!spec.platform_tag)
		spec.platform_tag = platform.buf;
	spec.files = res.files;
	spec.nr_files = res.nr_files;
	spec.requires_dist = res.requires;
	ret = add_records(p, pw, dir, &spec, &res, fw_record.buf, &sbom) ||
	      add_metadata_files(pw, &res, &spec, &readme, &meta);
	if (!ret)
		ret = write_wheel(p, &spec, dir, path_out, &fl, &res);
out:
	tf_files_release(&fl);
	resolved_release(&res);
	tf_buf_release(&platform);
	tf_buf_release(&isa);
	tf_buf_release(&vjson);
	tf_framework_release(&fw);
	tf_strvec_release(&fw_libs);
	tf_buf_release(&fw_req);
	tf_buf_release(&fw_with);
	tf_buf_release(&fw_record);
	tf_buf_release(&sbom);
	tf_buf_release(&readme);
	free(meta);
	return ret;
}

/*
 * One wheel of one plan: its pack stamp's key and path, and either the
 * wheel kept in the output folder (fresh) or the one packed in tmp.
 */
struct packed {
	struct tf_plan *plan;
	struct tf_plan_wheel *pw;
	char key[TF_SHA256_HEX_LEN + 1];
	struct tf_buf stamp, path;
	int fresh; /* 1: path is the wheel in out_dir, unchanged since packed */
	int key_later; /* 1: first packing; the key once sources are digested */
	int dup;  /* 1: same name as an earlier one, already checked equal */
	int same; /* 1: the wheel in out_dir has these bytes already */
	struct stat hashed; /* packed in this run: its stat when hashed,
			       st_mode 0 if not (check_packed) */
	unsigned char md[TF_SHA256_LEN]; /* and its sha256 */
};

struct checks {
	struct packed *w;
	size_t nr;
	int ret;
};

/* The wheel's size within its `max-size`, PyPI's 100 MiB by default. */
static int over_budget(const struct packed *w)
{
	const struct tf_wheel_def *def = w->pw->def;
	struct tf_buf what = TF_BUF_INIT;
	int ret;

	if (def->max_bytes)
		tf_buf_addf(&what, "max-size '%s' at %s:%d:%d", def->max_size.s,
			    def->max_size.pos.file, def->max_size.pos.line,
			    def->max_size.pos.col);
	else
		tf_buf_addstr(&what, "PyPI's default; raise it with max-size");
	ret = tf_verify_max_size(
		w->path.buf, tf_path_basename(w->path.buf),
		def->max_bytes ? def->max_bytes : TF_WHEEL_MAX_SIZE, what.buf);
	tf_buf_release(&what);
	return ret;
}

/*
 * Every wheel packed in this run, verified (tf_verify_wheel_packed) and
 * hashed: the pack stamp and SHA256SUMS need its digest once it is
 * moved (tf_digest_cache_renamed). On a second thread, while the first
 * digests the trees read in place: neither touches what the other does
 * (the digest cache is the first's).
 */
static void check_packed(struct checks *c)
{
	size_t k;

	for (k = 0; k < c->nr; k++) {
		struct packed *p = &c->w[k];
		struct stat after;

		if (p->fresh)
			continue;
		if (tf_verify_wheel_packed(p->path.buf)) {
			c->ret = error(
				"wheel '%s' failed verification right after packing",
				tf_path_basename(p->path.buf));
			return;
		}
		if (over_budget(p)) {
			c->ret = -1;
			return;
		}
		if (lstat(p->path.buf, &p->hashed) < 0 ||
		    tf_sha256_file(p->path.buf, p->md, NULL) < 0 ||
		    lstat(p->path.buf, &after) < 0 ||
		    !tf_stat_same(&p->hashed, &after))
			p->hashed.st_mode = 0; /* hashed again once moved */
	}
}

static void *check_thread(void *arg)
{
	tf_signals_worker(); /* fatal signals are the main thread's */
	check_packed(arg);
	return NULL;
}

/* The sha256 of the wheel at path, or of w's (as check_packed took it). */
static int wheel_digest(const struct packed *w, const char *path,
			unsigned char md[TF_SHA256_LEN])
{
	if (w && w->hashed.st_mode) {
		memcpy(md, w->md, TF_SHA256_LEN);
		return 0;
	}
	return tf_sha256_file(w ? w->path.buf : path, md, NULL);
}

/*
 * 1 if a's wheel and b's (or the file at path) have the same bytes: an
 * unchanged wheel is not rewritten.
 */
static int same_file(const struct packed *a, const struct packed *b,
		     const char *path)
{
	unsigned char ma[TF_SHA256_LEN], mb[TF_SHA256_LEN];

	if (!b && !tf_path_exists(path))
		return 0;
	return !wheel_digest(a, NULL, ma) && !wheel_digest(b, path, mb) &&
	       !memcmp(ma, mb, sizeof(ma));
}

/* The earlier wheel of the same name, or NULL. */
static struct packed *same_name(struct packed *w, size_t n, const char *path)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!w[i].dup && !strcmp(tf_path_basename(w[i].path.buf),
					 tf_path_basename(path)))
			return &w[i];
	return NULL;
}

/*
 * Pack w into its own directory below tmp (targets may collide); tmp is
 * made in out_dir on first use, so a run that packs nothing writes
 * nothing there.
 */
static int pack_into(struct packed *w, struct tf_buf *tmp, const char *out_dir,
		     size_t k)
{
	struct tf_buf sub = TF_BUF_INIT;
	int ret;

	if (!tmp->len && tf_mkdtemp_temp(out_dir, "tfbuild-wheels", tmp))
		return -1;
	tf_buf_addf(&sub, "%s/%zu", tmp->buf, k);
	tf_buf_reset(&w->path);
	w->fresh = 0;
	ret = tf_packstamp_remove(w->stamp.buf) || tf_mkdir_p(sub.buf) ||
	      pack_one(w->plan, w->pw, sub.buf, &w->path);
	tf_buf_release(&sub);
	return ret;
}

/* 1 if a wheel packed in this run has the name of the one at path. */
static int name_repacked(const struct packed *w, size_t nr, const char *path)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!w[i].fresh && w[i].path.len &&
		    !strcmp(tf_path_basename(w[i].path.buf),
			    tf_path_basename(path)))
			return 1;
	return 0;
}

static int pack_all(struct packed *w, size_t nr, struct tf_buf *tmp,
		    const char *out_dir)
{
	char hex[TF_SHA256_HEX_LEN + 1];
	struct checks c = { w, nr, 0 };
	pthread_t thread;
	size_t k;
	int ret = 0, threaded, jobs = nr ? w[0].plan->jobs : 1;

	for (k = 0; !ret && k < nr; k++) {
		tf_packstamp_path(w[k].plan, w[k].pw, &w[k].stamp);
		/*
		 * Never packed (no stamp): the trees read in place are
		 * digested after packing, from what the writer read.
		 */
		if (tf_sources_stamp_pending(w[k].plan) &&
		    !tf_path_exists(w[k].stamp.buf)) {
			w[k].key_later = 1;
			continue;
		}
		ret = tf_sources_stamp_in_place(w[k].plan, 0) ||
		      tf_packstamp_key(w[k].plan, w[k].pw, w[k].key);
		if (!ret)
			w[k].fresh =
				tf_packstamp_fresh(w[k].stamp.buf, w[k].key,
						   out_dir, &w[k].path, hex);
	}
	for (k = 0; !ret && k < nr; k++)
		if (!w[k].fresh)
			ret = pack_into(&w[k], tmp, out_dir, k);
	/*
	 * A kept wheel whose name another target just packed (pure Python,
	 * one file for every target) must be packed again to compare them.
	 */
	for (k = 0; !ret && k < nr; k++)
		if (w[k].fresh && name_repacked(w, nr, w[k].path.buf))
			ret = pack_into(&w[k], tmp, out_dir, k);
	if (ret)
		return -1;
	/* Packed, so the rest is cheap: a second thread is one more core. */
	threaded = jobs > 1 && !pthread_create(&thread, NULL, check_thread, &c);
	if (!threaded)
		check_packed(&c);
	for (k = 0; !ret && k < nr; k++)
		if (w[k].key_later)
			ret = tf_sources_stamp_in_place(w[k].plan, 1) ||
			      tf_packstamp_key(w[k].plan, w[k].pw, w[k].key);
	if (threaded)
		pthread_join(thread, NULL);
	ret = ret || c.ret;
	for (k = 0; !ret && k < nr; k++) {
		struct packed *first = same_name(w, k, w[k].path.buf);

		if (!first)
			continue;
		w[k].dup = 1;
		if (!(first->fresh && w[k].fresh) &&
		    !same_file(first, &w[k], NULL))
			ret = error(
				"wheel '%s' differs between targets but has the same name",
				tf_path_basename(w[k].path.buf));
	}
	return ret ? -1 : 0;
}

int tf_pack_wheels(struct tf_plan **plans, size_t nr_plans, const char *out_dir,
		   struct tf_pack_run *run)
{
	struct tf_buf dst = TF_BUF_INIT;
	struct packed *w;
	size_t i, j, nr = 0;
	int ret;

	for (i = 0; i < nr_plans; i++)
		nr += plans[i]->recipe->nr_wheels;
	w = tf_calloc(nr ? nr : 1, sizeof(*w));
	nr = 0;
	for (i = 0; i < nr_plans; i++)
		for (j = 0; j < plans[i]->recipe->nr_wheels; j++, nr++) {
			w[nr].plan = plans[i];
			w[nr].pw = &plans[i]->wheels[j];
			w[nr].stamp = (struct tf_buf)TF_BUF_INIT;
			w[nr].path = (struct tf_buf)TF_BUF_INIT;
		}
	*run = (struct tf_pack_run){ .w = w, .nr = nr, .tmp = TF_BUF_INIT };
	run->plans = plans;
	run->nr_plans = nr_plans;
	run->out_dir = out_dir;
	ret = tf_mkdir_p(out_dir) || pack_all(w, nr, &run->tmp, out_dir);
	/* What moving them in would change in out_dir. */
	for (i = 0; !ret && i < nr; i++) {
		if (w[i].fresh || w[i].dup)
			continue;
		tf_buf_reset(&dst);
		tf_path_join(&dst, out_dir, tf_path_basename(w[i].path.buf));
		w[i].same = same_file(&w[i], NULL, dst.buf);
		run->changes |= !w[i].same;
	}
	tf_buf_release(&dst);
	return ret ? -1 : 0;
}

void tf_pack_replacing(const struct tf_pack_run *run, struct tf_strvec *out)
{
	struct tf_buf dst = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < run->nr; i++) {
		if (run->w[i].fresh || run->w[i].dup)
			continue;
		tf_buf_reset(&dst);
		tf_path_join(&dst, run->out_dir,
			     tf_path_basename(run->w[i].path.buf));
		if (tf_path_exists(dst.buf))
			tf_strvec_push(out, dst.buf);
	}
	tf_buf_release(&dst);
}

/* Move w (packed, verified) into out_dir as dst and stamp it. */
static int move_in(struct packed *w, const char *dst)
{
	if (w->dup)
		; /* moved (or kept) with the first of its name */
	else if (w->same)
		info("%s is unchanged", dst);
	else if (rename(w->path.buf, dst) < 0)
		return error_errno("cannot move wheel to '%s'", dst);
	if (w->hashed.st_mode && !w->dup)
		tf_digest_cache_renamed(dst, &w->hashed, w->md);
	/* Only a wheel now in out_dir, verified, gets a stamp. */
	return tf_packstamp_write(w->stamp.buf, w->key, dst);
}

int tf_pack_commit(struct tf_pack_run *run, struct tf_strvec *written,
		   struct tf_strvec *indexes)
{
	struct tf_buf dst = TF_BUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < run->nr; i++) {
		struct packed *w = &run->w[i];

		if (w->fresh) {
			if (!w->dup) {
				info("%s is up to date", w->path.buf);
				tf_strvec_push(written, w->path.buf);
			}
			continue;
		}
		tf_buf_reset(&dst);
		tf_path_join(&dst, run->out_dir, tf_path_basename(w->path.buf));
		ret = move_in(w, dst.buf);
		if (!ret && !w->dup)
			tf_strvec_push(written, dst.buf);
	}
	tf_buf_release(&dst);
	if (!ret)
		ret = tf_pack_variants_index(run->plans, run->nr_plans,
					     run->out_dir, indexes);
	return ret;
}

void tf_pack_run_release(struct tf_pack_run *run)
{
	size_t i;

	if (run->tmp.len) {
		tf_rm_rf(run->tmp.buf);
		tf_signals_temp_forget(run->tmp.buf);
	}
	for (i = 0; i < run->nr; i++) {
		tf_buf_release(&run->w[i].stamp);
		tf_buf_release(&run->w[i].path);
	}
	free(run->w);
	tf_buf_release(&run->tmp);
	*run = (struct tf_pack_run)TF_PACK_RUN_INIT;
}
