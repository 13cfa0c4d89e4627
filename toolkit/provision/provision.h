#ifndef TF_PROVISION_H
#define TF_PROVISION_H

/*
 * provision/: the stage between planning and the sources, and the only
 * one that makes what a target's steps are given on disk: its target
 * packages resolved (apt-cache, dpkg-query), downloaded and unpacked
 * into its root (sysroot.h), its wheels from the package index fetched
 * and unpacked into its site (targetwheels.c), its emulator's root
 * (emuroot.c), and the files the plan listed: tool files, compiler
 * wrappers, host tools, the Python include directory (writeout.c,
 * hostdir.c); and which package ships a file of that root
 * (debfiles.c). The plan computes every path and digest of these
 * without making them; `tfbuild explain` never provisions.
 */

#include <stddef.h>

#include "base/base.h"
#include "plan/plan.h"

struct tf_compat_target;
struct tf_fetch_opts;

/* What provisioning made for one plan. */
struct tf_provision {
	struct tf_strvec wheel_paths; /* owned: the target wheels' cached
					 files, in p->wheel_pins' order */
	int fetched;                  /* 1 once they were fetched */
	struct tf_strvec host_paths;  /* owned: the host wheels' cached
					 files, in p->host_pins' order */
};

#define TF_PROVISION_INIT                         \
	{                                         \
		TF_STRVEC_INIT, 0, TF_STRVEC_INIT \
	}

void tf_provision_release(struct tf_provision *pv);

/*
 * Resolve what plan p could not know without asking apt or dpkg
 * (p->would_provision): the target packages and their versions, into
 * lines (as tf_plan_opts.packages takes them), saved for later plans.
 * TF_PLAN_OK when there was nothing to resolve (lines left empty);
 * TF_PLAN_RECIPE or TF_PLAN_TOOLCHAIN after reporting.
 */
enum tf_plan_result tf_provision_resolve(const struct tf_plan *p,
					 struct tf_strvec *lines);
/* tf_provision_make's failures: making something, or fetching a wheel. */
enum tf_provision_result {
	TF_PROVISION_OK = 0,
	TF_PROVISION_FAILED = -1,
	TF_PROVISION_FETCH = -2
};

/*
 * Make what p's steps are given, each only when it is not already as the
 * plan says: the target root, the emulator's root, the files the plan
 * listed, the host tools; then the target wheels fetched through fo
 * (into pv) and unpacked into p->site. Reported when it fails.
 */
enum tf_provision_result tf_provision_make(struct tf_plan *p,
					   const struct tf_fetch_opts *fo,
					   struct tf_provision *pv);

/*
 * Target wheels (targetwheels.c). Get every pinned target wheel into the
 * download cache (fo), pip only for a wheel not there yet; set
 * pv->wheel_paths; the host wheels likewise, pv->host_paths. 0, or -1
 * after reporting (a wheel whose bytes differ from the pin is refused).
 * For `tfbuild fetch` too.
 */
int tf_provision_wheels_fetch(struct tf_plan *p, const struct tf_fetch_opts *fo,
			      struct tf_provision *pv);
/*
 * What p's target accepts of a wheel: its architecture, glibc (its
 * features.h) and CPython version. 0, or -1 after reporting.
 */
int tf_provision_compat_target(const struct tf_plan *p,
			       struct tf_compat_target *t);
/*
 * What the build machine accepts of a wheel (`host-wheels`): its
 * architecture, glibc (/usr/include/features.h) and the build Python's
 * version (python3 in the fixed PATH). 0, or -1 after reporting.
 */
int tf_provision_compat_host(const struct tf_plan *p,
			     struct tf_compat_target *t);

/* The parts of tf_provision_make (hostdir.c, writeout.c). 0 or -1. */
int tf_provision_host_tools(const struct tf_plan *p);
int tf_provision_files(const struct tf_plan *p);

/* Whether a package ships a file (tf_provision_file_package, _root_ships). */
enum tf_provision_shipped {
	TF_PROVISION_SHIPPED,            /* found: pkg (and where) are set */
	TF_PROVISION_NOT_SHIPPED,        /* no package ships it */
	TF_PROVISION_SHIPPED_ERROR = -1, /* reported */
};

/*
 * The Debian package that ships the file at path, a library found for
 * the target (debfiles.c): in the target root p->sysroot, the target
 * package whose .deb lists it (dpkg-deb -c on the cached .deb); outside
 * it, the build machine's package that owns it (dpkg -S, dpkg-query).
 * Sets pkg to "name:arch=version" and returns TF_PROVISION_SHIPPED, or
 * TF_PROVISION_NOT_SHIPPED when no package ships it (a stage's own
 * build), or TF_PROVISION_SHIPPED_ERROR after reporting.
 */
enum tf_provision_shipped tf_provision_file_package(const struct tf_plan *p,
						    const char *path,
						    struct tf_buf *pkg);
/*
 * The target package (p->packages, unpacked into p->sysroot) whose .deb
 * ships a file named base in any directory: sets pkg to
 * "name:arch=version" and its path in the root to where and returns
 * TF_PROVISION_SHIPPED; TF_PROVISION_NOT_SHIPPED when none does (or
 * there is no root), TF_PROVISION_SHIPPED_ERROR after reporting.
 */
enum tf_provision_shipped tf_provision_root_ships(const struct tf_plan *p,
						  const char *base,
						  struct tf_buf *pkg,
						  struct tf_buf *where);

#endif
