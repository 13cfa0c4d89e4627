#ifndef TF_RECIPE_H
#define TF_RECIPE_H

/*
 * recipe/: a YAML recipe read with libyaml and checked against schema 1
 * into struct tf_recipe (below), every problem reported at its
 * FILE:LINE:COL, including the wheels' core metadata (recipe_meta.h).
 *
 * Only recipe/ includes libyaml, through recipe_internal.h; schema 1 is
 * docs/recipe.md. Every value keeps its position so later stages can
 * report errors as FILE:LINE:COLUMN. All memory lives in the recipe's
 * arena and goes at once with tf_recipe_release().
 */

#include "recipe_meta.h"

#include <stddef.h>

#include "base/base.h"

/* A position in the recipe file, 1-based. */
struct tf_pos {
	const char *file; /* borrowed from the recipe: the path as given */
	int line, col;
};

enum {
	TF_STR_PLAIN,
	TF_STR_QUOTED,
	TF_STR_BLOCK
};

/* A scalar with where it was written. s is NULL when the key is absent. */
struct tf_str {
	const char *s; /* arena */
	struct tf_pos pos;
	int style;  /* TF_STR_PLAIN, _QUOTED or _BLOCK: how s maps to columns */
	int indent; /* for _BLOCK: the column (1-based) its lines start at */
};

struct tf_kv {
	struct tf_str key, value;
};

struct tf_source {
	struct tf_str name;
	struct tf_str url;      /* .s NULL for a local source */
	struct tf_str *mirrors; /* arena, nr_mirrors entries */
	size_t nr_mirrors;
	struct tf_str sha256;
	long long size; /* exact bytes of the download, 0 if not given */
	int strip;
	struct tf_str path; /* .s NULL for a remote source */
	int has_patches;
	int patch_strip;
	struct tf_str *patches; /* arena, in series order */
	size_t nr_patches;
	struct tf_str version; /* optional: the upstream version (the SBOM) */
	struct tf_str license; /* optional: its SPDX license expression */
	struct tf_pos pos;     /* of the source's mapping */
};

/* `sandbox: {read: [PATH...]}`: what a step sees beyond its places
 * (docs/recipe.md#sandbox), as written: absolute or recipe-relative. */
struct tf_sandbox_def {
	struct tf_str *read; /* arena */
	size_t nr_read;
};

struct tf_step {
	struct tf_str name;
	struct tf_str source; /* .s NULL: runs in its scratch directory */
	int source_index;     /* index into sources, -1 if none */
	struct tf_str *needs; /* arena */
	size_t nr_needs;
	size_t *need_index; /* arena; resolved indices into steps */
	struct tf_kv *env;  /* arena, in recipe order */
	size_t nr_env;
	struct tf_str run;
	struct tf_pos pos;
	int is_test;       /* 1 for an entry of `tests`: runs target code,
				     produces nothing wheels can take;
				     TF_TEST_BASELINE for its NAME@baseline
				     copy that runs on the baseline CPU */
	long long timeout; /* `timeout` in seconds; 0: the default */
	struct tf_pos timeout_pos;
	struct tf_str baseline; /* a test's `baseline`: .s NULL, the whole
				   script reruns on the baseline CPU; else
				   the command that runs there instead */
	int baseline_off;       /* `baseline: false`: no baseline run */
	int baseline_cmd;       /* in a NAME@baseline copy: runs only
				   `baseline`, in NAME's work directory */
	struct tf_str shell;    /* `shell`, or the recipe's; .s NULL: sh */
	int shell_kind;         /* enum tf_shell, from shell */
	int per_variant;        /* `per-variant: true` (recipe_variants.c) */
	const struct tf_variant_def *variant; /* in a target's recipe
				   (tf_recipe_for_target): the build this
				   copy of a per-variant step is for; NULL:
				   shared by every variant */
	int network; /* `network: true`: the step's sandbox
				   shares the network (docs/security.md) */
	struct tf_pos network_pos;
	struct tf_str *caps; /* arena: `capabilities`, checked names
				   (CAP_SYS_CHROOT): the step keeps them in
				   its own user namespace (build/sandbox.c) */
	size_t nr_caps;
	struct tf_sandbox_def sandbox; /* the step's own `sandbox` */
};

/* A variant property `namespace :: feature :: value` (PEP 825). */
struct tf_variant_prop {
	const char *ns, *feature, *value; /* arena */
	struct tf_pos pos;
};

/* One build of `variants` for a target (docs/variants.md). */
struct tf_variant_def {
	const char *target;            /* arena: "x86_64" */
	struct tf_str label;           /* PEP 825 label: "x86_64_v3", "null" */
	struct tf_variant_prop *props; /* arena, sorted */
	size_t nr_props;
	struct tf_str cflags; /* flags the build adds; .s NULL: none */
	struct tf_pos pos;
};

/* A `variant-providers` entry: written to variant.json's `providers`. */
struct tf_variant_provider {
	struct tf_str ns;
	struct tf_str *requires; /* arena */
	size_t nr_requires;
	struct tf_str plugin_api; /* .s NULL: none */
};

/* The shell a step's script runs in (`shell`, docs/recipe.md#pipes). */
enum tf_shell {
	TF_SHELL_SH,  /* sh -e -c SCRIPT: dash, no pipefail (the default) */
	TF_SHELL_BASH /* bash --noprofile --norc -e -o pipefail -c SCRIPT */
};

enum {
	TF_TEST_BASELINE = 2
};

struct tf_file_rule {
	struct tf_str from, src, dst;
	int step_index;   /* resolved index of `from` */
	int source_index; /* the source `from` names when no step
				     has that name, else -1 */
	int follow_links; /* 1: a symlink may lead anywhere in the
			     target's build tree, not only its own tree */
	struct tf_pos pos;
};

struct tf_entry_point {
	struct tf_str group, name, value;
};

/* A symbol a file in the wheel must export (a plugin's entry point). */
struct tf_export_def {
	struct tf_str file, symbol;
};

/* The framework a wheel's binaries load into (docs/frameworks.md). */
struct tf_framework_def {
	struct tf_str name;          /* distribution: "torch" */
	struct tf_str site_packages; /* where it is installed for the target */
	struct tf_str version; /* optional: the version the recipe expects */
	struct tf_str
		pjrt_header; /* optional, JAX: the pjrt_c_api.h built with */
	struct tf_pos pos;
};

/* How one library outside the allow-list is resolved (`libraries`). */
struct tf_library_def {
	struct tf_str soname;  /* the DT_NEEDED name, the mapping's key */
	int kind;              /* enum tf_lib_kind (libs.h) */
	struct tf_str from;    /* provided: the PEP 508 requirement */
	struct tf_str runpath; /* provided: where it is at run time */
};

/* A library another distribution provides (`external-libraries`). */
struct tf_external_def {
	struct tf_str soname; /* the DT_NEEDED name, the mapping's key */
	struct tf_str dist;   /* the distribution: a target wheel's name */
};

/* An author or maintainer: a name, an email address, or both. */
struct tf_person {
	struct tf_str name, email;
};

struct tf_wheel_def {
	struct tf_str name, version, python, abi, platform;
	struct tf_str summary, license, requires_python;
	struct tf_str *requires_dist;
	size_t nr_requires_dist;
	struct tf_entry_point *entry_points;
	size_t nr_entry_points;
	struct tf_file_rule *files;
	size_t nr_files;
	struct tf_str *allow_needed; /* DT_NEEDED libraries allowed beyond the
					 manylinux allow-list */
	size_t nr_allow_needed;
	int isa_level; /* highest x86-64 ISA level allowed, 1-4 */
	struct tf_export_def *exports;
	size_t nr_exports;
	struct tf_framework_def framework; /* name.s NULL: none */
	struct tf_library_def *libraries;  /* `libraries`, in recipe order */
	size_t nr_libraries;
	struct tf_str *library_dirs; /* where vendored libraries are found
					 first (`library-dirs`) */
	size_t nr_library_dirs;
	struct tf_str readme;         /* `readme`: a file (Description) */
	struct tf_str readme_type;    /* its content type; .s NULL: from the
					 file's extension */
	struct tf_str *license_files; /* `license-files` */
	size_t nr_license_files;
	struct tf_kv *urls; /* `urls`: label -> URL (Project-URL) */
	size_t nr_urls;
	struct tf_person *authors, *maintainers;
	size_t nr_authors, nr_maintainers;
	struct tf_str *keywords, *classifiers;
	size_t nr_keywords, nr_classifiers;
	struct tf_pos pos;
	struct tf_str *isa_dispatch; /* isa.dispatch: globs of wheel paths
					 that pick their kernels at run time */
	size_t nr_isa_dispatch;
	const char **isa_dispatch_for; /* arena, one per glob: the target
					  it is declared for (`dispatch:
					  {TARGET: [GLOB...]}`); NULL: every
					  target (a plain list) */
	struct tf_str *isa_minimum;    /* isa.minimum: levels above the
					 baseline, at most one per family */
	size_t nr_isa_minimum;
	const struct tf_variant_def *variant; /* in a target's recipe: the
					 build this copy is for; NULL: an
					 unlabelled wheel */
	struct tf_str max_size; /* `max-size`: "100MiB"; .s NULL: the default */
	unsigned long long max_bytes;    /* max-size in bytes, or 0: default */
	struct tf_str *static_libraries; /* `static-libraries`: target
					 packages linked in statically */
	size_t nr_static_libraries;
	struct tf_str *cuda_archs; /* `cuda-archs`: the GPU architectures
					 its CUDA code carries (sm_80,
					 compute_90), in recipe order, each
					 once; NULL: none declared */
	size_t nr_cuda_archs;
	struct tf_external_def *externals; /* `external-libraries`, in
					      recipe order */
	size_t nr_externals;
};

/* Overrides of a target's default toolchain; absent fields keep defaults. */
struct tf_toolchain_def {
	struct tf_str target; /* "x86_64" or "aarch64" */
	struct tf_str cc, ar, strip, cflags, ldflags;
	struct tf_str sysroot; /* passed as --sysroot; the emulator's -L */
	struct tf_str python_include;
	struct tf_str emulator; /* command that runs target programs */
	struct tf_str launcher; /* compiler launcher (launcher.h), checked */
	struct tf_str glibc;    /* "2.17": link against that glibc's symbols
				   through zig (docs/cross.md#older-glibc),
				   checked; NULL: the build machine's */
	unsigned glibc_minor;   /* 17 for glibc "2.17"; 0 when unset */
	struct tf_pos pos;
};

struct tf_arena_block;

struct tf_recipe {
	struct tf_arena_block *arena; /* owned: every pointer below lives here */
	const char *path;             /* the recipe path as given */
	const char *dir;          /* absolute directory holding the recipe */
	unsigned char sha256[32]; /* of the recipe file's bytes */
	int schema;
	struct tf_str name, version;
	struct tf_str *targets;
	size_t nr_targets;
	long long source_date_epoch;
	struct tf_str macos_minimum;   /* `macos-minimum`: "12.0" when unset */
	unsigned macos_version;        /* it as 16.8.8 bits (0x0c0000) */
	struct tf_sandbox_def sandbox; /* `sandbox`: every step's and test's */
	struct tf_kv *vars;
	size_t nr_vars;
	struct tf_source *sources;
	size_t nr_sources;
	struct tf_step *steps;
	size_t nr_steps;
	struct tf_wheel_def *wheels;
	size_t nr_wheels;
	struct tf_toolchain_def
		*toolchains; /* recipe's, then --toolchain file's */
	size_t nr_toolchains;
	struct tf_step *tests; /* parsed `tests`; tf_load_resolve() appends
				     them to steps */
	size_t nr_tests;
	struct tf_str
		*target_packages; /* Debian packages the target build needs */
	size_t nr_target_packages;
	struct tf_target_wheel *target_wheels; /* arena: `target-wheels` */
	size_t nr_target_wheels;
	struct tf_target_wheel *host_wheels; /* arena: `host-wheels` (target
						always NULL) */
	size_t nr_host_wheels;
	struct tf_str *host_tools; /* host programs a cross step may run, beyond
				     the default allow-list */
	size_t nr_host_tools;
	struct tf_str shell; /* top-level `shell`: every step's default */
	int shell_kind;      /* enum tf_shell */
	struct tf_variant_def *variants; /* `variants`, by target */
	size_t nr_variants;
	struct tf_str *variant_priorities; /* `variant-priorities`, or the
					      namespaces in order of use */
	size_t nr_variant_priorities;
	struct tf_variant_provider *variant_providers;
	size_t nr_variant_providers;
};

/* One `target-wheels` entry: an exact requirement, for a target or all. */
struct tf_target_wheel {
	struct tf_str req;   /* "NAME==VERSION" as written */
	const char *target;  /* arena: the target it is for; NULL: every one */
	const char *name;    /* arena: NAME as written; NULL while req has
				${...} (the plan's copy has it expanded) */
	const char *version; /* arena: VERSION as written; NULL likewise */
};

/*
 * Split req into an exact "NAME==VERSION": a PEP 508 name and a PEP 440
 * version without wildcard, nothing else. 0, or -1 with why filled.
 */
int tf_target_wheel_split(const char *req, struct tf_buf *name,
			  struct tf_buf *version, struct tf_buf *why);

#define TF_RECIPE_INIT \
	{              \
		0      \
	}

/*
 * Read and check the recipe at path. Every problem is printed as
 * "tfbuild: FILE:LINE:COL: ..." (all of them, not only the first); then
 * -1 is returned. On success the recipe is complete: names are unique,
 * references (step sources, needs, file rule steps) resolve, the step
 * graph has no cycle, values have their types and ranges, and no wheel
 * has a file rule or a license file name twice (as written; the plan
 * checks them expanded). Variable references are checked later, per
 * target, by the plan.
 */
int tf_recipe_load(const char *path, struct tf_recipe *r);
void tf_recipe_release(struct tf_recipe *r);

/*
 * Read a toolchain file (YAML with one key, `toolchains`, as in a
 * recipe) and add its entries to r; they take precedence over the
 * recipe's own. Errors are reported as FILE:LINE:COL.
 */
int tf_recipe_load_toolchains(struct tf_recipe *r, const char *path);
/*
 * The recipe as target builds it (recipe_variants.c): each step that
 * depends on the variant (uses ${variant...}, says `per-variant: true`,
 * or needs such a step) copied once per variant the target declares, as
 * NAME@LABEL, and each wheel taking files from one copied likewise, with
 * its variant. Returns 1 when target has no variants (out untouched:
 * use r), 0 with out filled (its own arena; tf_recipe_release(out)).
 */
int tf_recipe_for_target(const struct tf_recipe *r, const char *target,
			 struct tf_recipe *out);

/* The toolchain overrides for target, last one wins; NULL if none. */
const struct tf_toolchain_def *tf_recipe_toolchain(const struct tf_recipe *r,
						   const char *target);

/*
 * Parse a duration: "90" or "90s", "30m", "2h" (whole numbers). Returns
 * seconds, or -1 if s is not one.
 */
long long tf_parse_duration(const char *s);

/* Find by name; -1 if absent. */
int tf_recipe_find_step(const struct tf_recipe *r, const char *name);

/*
 * The position of byte offset `off` inside s's value: exact for plain and
 * quoted one-line scalars and for literal blocks, close for the rest.
 */
struct tf_pos tf_str_pos_at(const struct tf_str *s, size_t off);

/* Print "tfbuild: FILE:LINE:COL: MSG" and return -1. */
int tf_error_at(const struct tf_pos *pos, const char *fmt, ...) TF_PRINTF(2, 3);
/*
 * Print "tfbuild: FILE:LINE:COL: 'DST' is in the wheel twice: also from
 * FILE:LINE:COL" at pos, naming first, with " (HINT)" after it when hint
 * is not NULL; return -1. The load and the plan say a wheel path given
 * twice alike (the packer says it of files it finds, pack.c).
 */
int tf_error_twice(const struct tf_pos *pos, const struct tf_pos *first,
		   const char *dst, const char *hint);

/*
 * Where file rule (src, dst) puts what src names: "dst/BASENAME", or
 * "BASENAME" for dst "." (a glob's BASENAME is its last part), into out.
 */
void tf_file_rule_dst(const char *src, const char *dst, struct tf_buf *out);

#endif
