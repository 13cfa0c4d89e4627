#ifndef TF_SYSROOT_H
#define TF_SYSROOT_H

/*
 * Target packages (`target-packages` in a recipe): the Debian packages a
 * target build needs, with their Depends closure; private to provision/.
 *
 * For a cross target they are unpacked into a sysroot in the cache,
 * <cache>/target-roots/<debarch>-<key>, where the key is a digest of
 * every package's name, architecture and version: the same closure is
 * unpacked once and shared; a new version gives a new root. Each .deb
 * is downloaded with `apt-get download` (through run.c) into
 * <cache>/target-roots/debs, checked against the archive's SHA256 and
 * unpacked with `dpkg -x` into a temporary directory that is fixed up
 * (usr-merge, an empty etc/ld.so.cache, the libblas.so.3/liblapack.so.3
 * alternatives symlinks) and renamed into place, so two
 * runs racing each other never see half a root. Packages the cross
 * toolchain already provides (libc6-dev, linux-libc-dev, ...) and
 * dependencies satisfied by any architecture (Architecture: all,
 * Multi-Arch: foreign) are left out.
 *
 * For the native target the packages must be installed on the build
 * machine (dpkg-query says so); nothing is unpacked.
 *
 * The plan (plan/roots.c) names the roots asked for, the root's path and
 * the file a resolution is saved in; resolving (apt-cache, dpkg-query)
 * and making the root are here.
 *
 * TF_SYSROOT_CACHE in the environment moves the cache of roots and .debs
 * (tests keep it outside their scratch directories).
 */

#include "plan/plan.h"

struct tf_provision;

/*
 * Work out the packages and their versions (apt-cache, dpkg-query; no
 * download) into out, as plan/roots.c reads them, and save them in
 * p->package_saved. Returns 0, TF_PLAN_RECIPE after naming (at its
 * position in the recipe) a package the archive does not have, or
 * TF_PLAN_TOOLCHAIN when a native package is not installed or apt fails.
 */
enum tf_plan_result tf_sysroot_resolve(const struct tf_plan *p,
				       struct tf_strvec *out);
/*
 * Download and unpack p->sysroot if it is not there yet, then hold it
 * with a shared lock until the process ends and mark it used
 * (.tfbuild-packages' mtime; tf_lock_use), so `tfbuild cache gc`
 * leaves it. 0 or -1.
 */
int tf_sysroot_make(const struct tf_plan *p);
/*
 * emuroot.c: make p->emulator_root (plan/roots.c planned it) if it is
 * not as it should be: its loader, libc and ld.so.cache the cross
 * toolchain's only. 0 or -1.
 */
int tf_emuroot_make(const struct tf_plan *p);
/*
 * targetwheels.c: unpack the fetched wheels (pv) into p->site, and the
 * host wheels into p->host_site, each unless it is there. 0 or -1.
 */
int tf_provision_site(const struct tf_plan *p, const struct tf_provision *pv);

#endif
