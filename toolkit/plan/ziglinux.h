#ifndef TF_PLAN_ZIGLINUX_H
#define TF_PLAN_ZIGLINUX_H

/*
 * A Linux target linked against an older glibc (toolchains.T.glibc,
 * docs/cross.md#older-glibc): zig compiles and links with -target
 * ARCH-linux-gnu.2.X, whose libc stubs hold only glibc 2.X's symbols,
 * so that a threaded library gets manylinux_2_X rather than the build
 * machine's manylinux_2_34 or later. Launchers in <dir>/toolchain/zig,
 * as macos-arm64's (zigtools.h): zig by its full path, its cache
 * named, a failed compile or link leaves no output.
 */

struct tf_plan;
struct tf_plan_opts;

/*
 * For a target with a glibc, once p->dir is set: point cc, cxx, ar and
 * ranlib at the launchers (strip, nm, readelf stay the target's
 * binutils) and pick zig's cache. Refuses, at their place, what cannot
 * mix with zig's glibc: target packages (Debian's libraries link
 * against Debian's glibc) and a toolchain entry's cc, ar or sysroot.
 * 0, or -1 (reported).
 */
int tf_ziglinux_plan(struct tf_plan *p, const struct tf_plan_opts *o);

/*
 * Append the launchers to p->toolfiles (the cache directory left out)
 * and, with write set, to p->writes for provisioning.
 */
void tf_ziglinux_list(struct tf_plan *p, int write);

#endif
