#ifndef TF_LAUNCHER_H
#define TF_LAUNCHER_H

/*
 * Compiler launchers: ccache, sccache or distcc in front of the target's
 * C and C++ compilers (docs/distributed.md), chosen with --launcher or a
 * toolchain's `launcher` key.
 *
 * A launcher changes how fast objects are made, never what they are, so
 * it stays out of everything a step's stamp records: the plan's step
 * environment and the toolfiles' stamped text are the same with or
 * without one. It is applied when a step starts (tf_launcher_env) and
 * in the CMake toolchain and Meson machine files as written to disk:
 *
 *  - Make and plain scripts: a directory of wrappers named like the
 *    compilers ($CC, $CXX: gcc, aarch64-linux-gnu-gcc, ...) comes first
 *    in PATH; each runs `LAUNCHER /full/path/of/compiler "$@"`. $CC keeps
 *    its value, so scripts that quote it or write it into a file see
 *    what they see without a launcher.
 *  - CMake: CMAKE_C_COMPILER_LAUNCHER and CMAKE_CXX_COMPILER_LAUNCHER.
 *  - Meson: the list form, c = ['/usr/bin/ccache', '/usr/bin/gcc'].
 *
 * The caller's CCACHE_*, SCCACHE_* or DISTCC_* variables (the chosen
 * launcher's prefix only) reach steps; nothing else of the caller's
 * environment does. The cache directory is the recipe's and target's
 * own (tf_launcher.cache), below the caller's: a step writes it, so no
 * other recipe may read it (a ccache.conf one step writes would change
 * every later recipe's objects), and neither the caller's CCACHE_DIR
 * nor a recipe's `env:` can move it.
 */

struct tf_strvec;

struct tf_plan;
struct tf_recipe;

struct tf_launcher {
	const char *name;   /* static: "ccache", "sccache", "distcc" */
	char *path;         /* owned: its full path ("" unless checked) */
	char *dir;          /* owned: the directory of compiler wrappers */
	char *distcc_hosts; /* owned: --distcc-hosts, or NULL */
	char *base_dir;     /* owned: ccache's base_dir: the directory
				 holding the build tree and the recipe */
	char *cache;        /* owned: the cache directory ccache or sccache
				 writes, the only one a step may write:
				 CALLER'S/tfbuild/RECIPE-TARGET-HASH of
				 the recipe's directory; NULL for distcc */
	char *network;      /* owned: why steps keep the network (distcc's
				 servers, a remote storage of ccache or
				 sccache), said by the sandbox; or NULL */
};

/*
 * Choose p's launcher: cli (--launcher, may be NULL) over the last
 * `launcher` of the target's toolchains. With check set, the launcher
 * must be installed (named with what to install if not), and whether
 * it reaches a remote cache is found out (l->network): ccache is asked
 * for its remote_storage with the steps' settings, sccache's variables
 * are looked at. Sets p->launcher (NULL for none). Returns 0, or -1
 * after an error.
 */
int tf_launcher_plan(struct tf_plan *p, const char *cli,
		     const char *distcc_hosts, int check);
/* List the compiler wrappers (when p has a launcher) in p->writes. 0. */
int tf_launcher_list(struct tf_plan *p);
/*
 * Put p's launcher into a starting step's environment env (a copy of
 * the step's own): PATH, the launcher's settings, and the caller's
 * allow-listed variables.
 */
void tf_launcher_env(const struct tf_plan *p, struct tf_strvec *env);
void tf_launcher_free(struct tf_launcher *l);
/*
 * ccache's base_dir for a build tree a and a recipe directory b
 * (absolute, normalized): the deepest directory holding both, or NULL
 * when that is "/" (which would make system headers relative). Caller
 * frees.
 */
char *tf_launcher_base_dir(const char *a, const char *b);

#endif
