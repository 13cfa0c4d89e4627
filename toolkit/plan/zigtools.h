#ifndef TF_PLAN_ZIGTOOLS_H
#define TF_PLAN_ZIGTOOLS_H

/*
 * The macos-arm64 target's tools (docs/cross.md#macos): zig cross-
 * compiles and links for Apple silicon, through small launchers in
 * <dir>/toolchain/zig that own zig's traps, so that no step meets
 * them: the minimum macOS goes in the -target suffix (the one way zig
 * takes it: it ignores MACOSX_DEPLOYMENT_TARGET and
 * -mmacosx-version-min), a dylib gets an @rpath/NAME install name (not
 * its -o path), a link keeps no debug map (STABS name the build's
 * objects), and a failed compile or link leaves no output (zig leaves
 * a 0-byte file).
 */

struct tf_buf;
struct tf_plan;
struct tf_plan_opts;

/*
 * For a macOS target, once p->dir is set: point the target's cc, cxx,
 * ar, ranlib and strip at the launchers, nm and objdump at LLVM's, and
 * pick zig's cache. Refuses, at their place, what the target cannot
 * take: target packages (Debian has none for macOS) and a toolchain
 * entry's cc, ar, strip, sysroot or emulator. 0, or -1 (reported).
 */
int tf_macos_plan(struct tf_plan *p, const struct tf_plan_opts *o);

/*
 * Append the launchers to p->toolfiles (what step stamps record; the
 * cache directory left out, which changes nothing zig makes) and, with
 * write set, to p->writes for provisioning.
 */
void tf_macos_list(struct tf_plan *p, int write);

/*
 * What the zig launchers of every target share (ziglinux.c's too):
 * p->zig_cache, the caller's $ZIG_GLOBAL_CACHE_DIR when absolute, else
 * <cache>/zig, else <dir>/zig-cache; and one launcher added to
 * p->toolfiles as stamped (the cache left out) and, with write, to
 * p->writes as real. Both buffers are reset.
 */
void tf_zig_cache_pick(struct tf_plan *p, const struct tf_plan_opts *o);
void tf_zig_add_tool(struct tf_plan *p, const char *path,
		     struct tf_buf *stamped, struct tf_buf *real, int write);

#endif
