#ifndef TF_HOSTTOOLS_H
#define TF_HOSTTOOLS_H

/*
 * The PATH of a cross step: one directory of symlinks to an allow-list
 * of build-machine programs (shells, coreutils, make, cmake, meson,
 * ninja, python3, ...; extended per recipe with `host-tools`), the
 * target's own triplet-prefixed tools, the target pkg-config wrapper as
 * `pkg-config`, and, for the build machine's compiler and binutils
 * names (gcc, cc, g++, gfortran, ld, as, ar, ranlib, strip, nm, ...), a
 * script that fails naming the variables to use instead: the target's
 * ($CC) for code that runs on the target, and where there is one the
 * build machine's ($HOSTCC) for a tool the build runs here. Like Yocto's
 * HOSTTOOLS: a build that looks for `ranlib` by bare name cannot pick
 * up the x86-64 one.
 */

struct tf_plan;

/* Set p->host_tools for a cross target (NULL natively). */
void tf_hosttools_plan(struct tf_plan *p);
/*
 * What the directory holds, for provisioning to make it (only when its
 * listing changes): p->host_links, p->host_guards, p->host_manifest.
 * Returns 0, or -1 naming a `host-tools` entry that is not installed.
 */
int tf_hosttools_list(struct tf_plan *p);

#endif
