#ifndef TF_TOOLFILES_H
#define TF_TOOLFILES_H

/*
 * Build-system integration, per target: the CMake toolchain file, the
 * Meson machine file (cross file for a cross target, native file for the
 * native one), a pkg-config wrapper that sees only the target's
 * libraries, and the $TARGET_PYTHON wrapper. Provisioning writes them
 * into the plan's tools directory (p->writes), only when their content
 * changes, so their mtimes stay put and builds that watch them (CMake
 * re-configures) do not rerun for nothing. docs/cross.md describes what
 * each file holds.
 */

struct tf_buf;

struct tf_plan;

/* Set the plan's paths of these files (no file is written). */
void tf_toolfiles_plan(struct tf_plan *p);
/*
 * Append the files' contents to p->toolfiles (what step stamps record)
 * and, with write set, each file to p->writes, for provisioning to
 * write. Writes nothing itself; returns 0.
 */
int tf_toolfiles_list(struct tf_plan *p, int write);

/*
 * Append s escaped for a shell word: a backslash before each byte the
 * shell reads specially, a newline in quotes. Escaping is byte by byte,
 * so a path under a directory starts with the directory's escaped form
 * (what tf_plan_path_spellings relies on). For the paths in $CFLAGS,
 * $LDFLAGS and ${meson_args}.
 */
void tf_toolfiles_sh_escape(const char *s, struct tf_buf *out);

#endif
