#ifndef TF_PLAN_H
#define TF_PLAN_H

/*
 * plan/: a recipe expanded for one target (below), computed without
 * running a tool or writing a file, so every recipe error surfaces
 * before anything is fetched, provisioned or run: variables (vars.h),
 * paths, scripts, environments and wheel specs, and what a target's
 * steps will be given on disk, as paths, contents and digests that
 * provision/ then makes: CMake and Meson tool files (toolfiles.h), the
 * allow-listed host tools (hosttools.h), compiler launchers
 * (launcher.h), the target root of its Debian packages and the
 * emulator's root (roots.c), its wheels' pins and site (wheelpins.c);
 * paths kept inside a tree (confine.h). Stages take a plan, never the
 * raw recipe strings.
 */

#include "launcher.h"

#include <stddef.h>

#include "base/base.h"
#include "stamp/stamp.h"
#include "env/env.h"
#include "vars.h"
#include "wheel/wheel.h"
#include "index/index.h"

struct tf_elf_export;
struct tf_file_rule;
struct tf_isa_claim;
struct tf_lib;
struct tf_pos;
struct tf_recipe;
struct tf_source;
struct tf_step;
struct tf_target_wheel;
struct tf_variant_def;
struct tf_wheel_def;

struct tf_launcher;

struct tf_fetch_opts; /* fetch/fetch.h */

struct tf_plan_source {
	const struct tf_source *def; /* borrowed from the recipe */
	struct tf_strvec urls;       /* owned: url, then mirrors, expanded,
					percent-encoded (plan_url) */
	struct tf_strvec shown;      /* owned: urls as shown and recorded
					(url.h): no credentials, no local path */
	const char *local; /* store: absolute directory of a path source */
	struct tf_strvec patches; /* owned: absolute patch paths, in order */
	const char *dir;          /* store: where the prepared tree goes */
	const char *archive;      /* store: cached archive, set by fetching */
	const struct tf_fetch_opts *fetched; /* borrowed: how archive was
						fetched, to fetch it again
						if it changed since */
	struct tf_stamp inputs; /* owned: what the prepared tree is made of,
					set by tf_sources_stamp */
	char key[65];           /* the key of inputs */
	int fresh;              /* 1 once prepared during this run */
	int in_place;           /* 1: a path source no step uses, read
					where it is: dir is local, never
					copied (docs/recipe.md) */
};

/* A path a step sees read-only beyond its places (`sandbox: {read}`). */
struct tf_plan_read {
	const char *path;         /* store: absolute, as resolved against
				      the recipe's directory */
	const struct tf_pos *pos; /* borrowed: where the recipe names it */
};

struct tf_plan_step {
	const struct tf_step *def; /* borrowed */
	const char *script;        /* store: the expanded `run` */
	struct tf_strvec env;      /* owned: the step's whole environment */
	const char *cwd;           /* store: source tree or work dir */
	const char *work, *stage;  /* store: scratch and stage directories */
	const char *log;           /* store: its log file */
	const char *stamp;         /* store: what it was last built from */
	size_t *reads;             /* owned: indices of the sources it reads:
					its own and every ${src.NAME} it names */
	size_t nr_reads;
	struct tf_plan_read *extra_reads; /* owned: the recipe's
					`sandbox.read`, then the step's */
	size_t nr_extra_reads;
	char output[65];    /* digest of its stage once done */
	int ran;            /* 1 if it ran in this run (not cached) */
	int origin;         /* enum tf_cache_origin: built, restored
					from the local store or the remote
					cache, or not looked up (0) */
	char cache_key[65]; /* its cache key once looked up, or "" */
	char signer[17];    /* key id that signed a restored entry */
	int sandbox;        /* once it ran: 1 in the sandbox, 2 in it with
					the network, -1 without one
					(--sandbox=off); 0 if it did not run */
};

struct tf_plan_file {
	const struct tf_file_rule *def; /* borrowed */
	size_t step;           /* index of the step whose stage it reads */
	int source;            /* or, when not -1, of the source whose
					prepared tree it reads */
	const char *src, *dst; /* store: expanded pattern and wheel dir */
};

/* A library a pinned target wheel provides (`external-libraries`). */
struct tf_plan_external {
	const char *soname;       /* borrowed from the recipe */
	const char *dist;         /* borrowed: the distribution, as named */
	const char *version;      /* borrowed: its target wheel's version */
	const char *requirement;  /* store: what Requires-Dist gets, the
				     pinned major ("nvidia-cuda-runtime<14,
				     >=13.5.37"), or the recipe's own
				     requires-dist entry on it */
	const struct tf_pos *pos; /* borrowed: the entry's place */
};

struct tf_plan_wheel {
	const struct tf_wheel_def *def; /* borrowed */
	struct tf_wheel_spec spec; /* strings in store; files filled by pack */
	const char **requires; /* owned array (strings in store), NULL-ended */
	struct tf_wheel_entry_point *entry_points; /* owned array */
	struct tf_plan_file *files;    /* owned array, def->nr_files long */
	const char **allow_needed;     /* owned array (strings in store) */
	struct tf_elf_export *exports; /* owned array (strings in store) */
	const char *framework;      /* store; the framework's name, or NULL */
	const char *framework_site; /* store; its site-packages directory */
	const char *framework_version;     /* store; the version the recipe
					  expects, or NULL */
	const char *framework_pjrt_header; /* store; JAX's header, or NULL */
	struct tf_lib *libs;               /* owned array (strings in store),
					def->nr_libraries long: `libraries` */
	const char **library_dirs;         /* owned array (strings in store),
					NULL-ended: `library-dirs` */
	const char *readme_path;    /* store: absolute path of `readme`, or
					NULL; pack reads it into the spec */
	const char **license_srcs;  /* owned array (strings in store),
					NULL-ended: absolute `license-files` */
	const char **license_names; /* owned array, NULL-ended: their
					License-File names (basenames) */
	const char **classifiers;   /* owned array, NULL-ended */
	const char **project_urls;  /* owned array, NULL-ended */
	const char **cuda_archs;    /* owned array (strings borrowed from
					def), NULL-ended: `cuda-archs` in
					tf_cuda_arch_cmp()'s order; NULL:
					the key is absent */
	struct tf_plan_external *externals; /* owned array, nr_externals
					       long (extlibs.c) */
	size_t nr_externals;
};

struct tf_plan_opts {
	const char *build_dir; /* absolute; the target's tree goes below */
	int jobs;              /* for ${jobs} and $JOBS */
	const struct tf_strvec
		*sets;         /* NAME=VALUE overrides (--set), may be NULL */
	int check_tools;       /* 1: the toolchain must exist */
	const char *cache_dir; /* tfbuild's cache (target sysroots), or NULL */
	const char *launcher;  /* --launcher: a name, "none", or NULL for
					the toolchain's (launcher.h) */
	const char *distcc_hosts; /* --distcc-hosts, or NULL */
	int unpinned;             /* 1: a target wheel without a pin is no error
			 (`tfbuild lock`, which pins them) */
	const struct tf_strvec *packages; /* the target packages as this
					     run's provisioning resolved them
					     (provision.h), or NULL: the
					     saved resolution, if any */
};

struct tf_plan {
	const struct tf_recipe *recipe; /* borrowed, or own_recipe */
	struct tf_recipe *own_recipe;   /* owned: the recipe as this target
					   builds it, when it has variants
					   (tf_recipe_for_target) */
	struct tf_target target;        /* owned */
	const char *dir;        /* store: <build_dir>/<recipe>/<target> */
	const char *stamps;     /* store: <dir>/stamps */
	int jobs;               /* parallel jobs, as --jobs */
	const char *cflags;     /* store: the target's CFLAGS plus prefix
					maps that keep build paths out of binaries */
	struct tf_vars vars;    /* owned */
	struct tf_strvec store; /* owned: every expanded string */
	struct tf_plan_source *sources; /* owned array, recipe->nr_sources */
	struct tf_plan_step *steps;     /* owned array, recipe->nr_steps */
	struct tf_plan_wheel *wheels;   /* owned array, recipe->nr_wheels */
	const char *baseline_emulator;  /* store: "qemu-x86_64 -cpu qemu64", the
					  $EMULATOR of NAME@baseline tests */
	/* The target's build environment (toolfiles.c, sysroot.c, hosttools.c). */
	const char *ldflags;         /* store: the target's LDFLAGS plus the
					target packages' -L */
	const char *tools_dir;       /* store: <dir>/toolchain */
	const char *cmake_toolchain; /* store: CMake toolchain file */
	const char *meson_file;      /* store: Meson cross (or native) file */
	const char *meson_args; /* store: "--cross-file F" / "--native-file F" */
	const char *pkg_config;         /* store: pkg-config wrapper script */
	const char *pkg_config_libdir;  /* store: its PKG_CONFIG_LIBDIR */
	const char *pkg_config_sysroot; /* store: its PKG_CONFIG_SYSROOT_DIR
					   ("" natively) */
	const char *target_python;      /* store: $TARGET_PYTHON */
	const char *baseline_python;    /* store: $TARGET_PYTHON of
					  NAME@baseline tests: the same
					  wrapper for a cross target (QEMU_CPU
					  picks the CPU), one running
					  /usr/bin/python3 under the baseline
					  emulator natively */
	const char *baseline_cmake;     /* store: $CMAKE_TOOLCHAIN_FILE of
					  NAME@baseline tests: natively, one
					  that adds the baseline emulator */
	const char *target_python_exe;  /* store: the cross target's CPython in
					  the sysroot, NULL when not unpacked */
	const char *zig_cache;          /* store: zig's cache for macos-arm64
				  (plan/zigtools.h), NULL for other targets */
	const char *host_tools;         /* store: a cross step's PATH directory
					(allow-listed host tools), NULL natively */
	const char *sysroot;            /* store: root of the target packages,
					NULL when there are none (cross only) */
	const char *emulator_root;      /* store: the emulator's root of a
					cross target without a sysroot
					(emuroot.c), or NULL */
	struct tf_strvec emulator_loaders; /* owned: its loaders, as
					"lib/ld-..." */
	struct tf_buf toolfiles;   /* owned: the files' contents, for stamps */
	struct tf_strvec packages; /* owned: target packages as
					"name:arch=version", sorted */
	struct tf_strvec package_digests; /* owned: SHA256 of each one's .deb
					(cross) or "" (native, installed) */
	struct tf_strvec package_files;   /* owned: each one's .deb file name */
	struct tf_strvec package_roots;   /* owned: the packages asked for,
					     "name[=pin]", in order (roots.c) */
	const struct tf_pos **package_root_pos; /* owned array: each one's
						   place in the recipe, or
						   NULL (implicit) */
	const char *package_cache;      /* store: the roots' cache directory */
	const char *package_saved;      /* store: where their resolution is
				      saved for this state of apt (dpkg) */
	int would_provision;            /* 1: the packages are not resolved yet:
				      only provisioning asks apt, so the
				      plan lacks their versions, digests
				      and root (`explain` says so) */
	const char *python_include_src; /* store: the headers the cross
					  target's Python include directory
					  links (target.python_include is
					  that directory), or NULL */
	struct tf_strvec writes;        /* owned: files for provisioning to
				      write, three entries each: path, mode
				      in octal, content (toolfiles.h) */
	struct tf_strvec host_links;    /* owned: "NAME=TARGET" symlinks of
					 host_tools (hosttools.h) */
	struct tf_strvec host_guards;   /* owned: NAME, script pairs there */
	struct tf_buf host_manifest;    /* owned: its listing */
	int py_major, py_minor;       /* CPython version of the target's Python
					headers (patchlevel.h); -1 if unknown */
	struct tf_launcher *launcher; /* owned: the compiler launcher, or NULL;
					 never part of a stamp (launcher.h) */
	struct tf_target_wheel *target_wheels; /* owned: the recipe's
						  `target-wheels`, ${...}
						  expanded, in its order */
	struct tf_index_pins wheel_pins; /* owned: the pins of the target's
					    `target-wheels`, in recipe order */
	const char *site; /* store: ${target_site}, where they are unpacked;
			     NULL without target wheels */
	struct tf_target_wheel *host_wheels; /* owned: the recipe's
						`host-wheels`, expanded */
	struct tf_index_pins host_pins;      /* owned: their pins, in recipe
					   order */
	const char *host_target; /* store: "host-x86_64", their pins'
				    target in the lock; NULL without them */
	const char *host_site;   /* store: ${host_site}, where they are
				    unpacked; NULL without host wheels */
};

/*
 * variants.c: what a variant's properties claim of the CPU (audit.h), and
 * the qemu -cpu model of the oldest CPU that has it: the baseline run of
 * a per-variant test. 0, or -1 when a property cannot be checked.
 */
int tf_plan_variant_claim(const struct tf_variant_def *v,
			  struct tf_isa_claim *c);
const char *tf_plan_variant_cpu(const struct tf_variant_def *v);

/* tf_plan_make's failures: the recipe is wrong, or the machine lacks tools. */
enum tf_plan_result {
	TF_PLAN_OK = 0,
	TF_PLAN_RECIPE = -1,
	TF_PLAN_TOOLCHAIN = -2
};

/*
 * Expand recipe r for target, writing nothing and running no download,
 * unpack or package manager (only the toolchain's identity probes,
 * env/probe.h). Returns 0, or TF_PLAN_RECIPE after reporting every
 * problem in the recipe, or TF_PLAN_TOOLCHAIN when the target's
 * toolchain is missing (reported, naming what to install).
 */
enum tf_plan_result tf_plan_make(const struct tf_recipe *r, const char *target,
				 const struct tf_plan_opts *o,
				 struct tf_plan *p);
void tf_plan_release(struct tf_plan *p);

/*
 * Every spelling in which a plan writes path (a directory) into a step's
 * inputs: as it is, shell-escaped (in $CFLAGS), and inside the quotes of
 * the CMake, Meson and shell files (toolfiles.h). They differ only when
 * path holds a space, a quote or another special byte; the cache key
 * replaces each of them (docs/cache.md). Appended to out.
 */
void tf_plan_path_spellings(const char *path, struct tf_strvec *out);

/*
 * Target wheels (wheelpins.c). The lock file of recipe r:
 * <recipe dir>/<recipe file minus .yaml>.lock.json, into out.
 */
void tf_plan_lock_path(const struct tf_recipe *r, struct tf_buf *out);
/* The lock file as the user would type it (beside the recipe as given),
 * for messages: into out. */
void tf_plan_lock_shown(const struct tf_recipe *r, struct tf_buf *out);
/* 1 if r->target_wheels[i] (p->target_wheels[i]) is for p's target. */
int tf_plan_wants_wheel(const struct tf_plan *p, size_t i);

#endif
