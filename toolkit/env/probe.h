#ifndef TF_PROBE_H
#define TF_PROBE_H

/*
 * Tool probes: the one-line answers tfbuild asks a toolchain for
 * (`gcc --version`, `gcc -dumpmachine`, `python3 -c ...`) and puts into
 * step keys. Answers are remembered in a small file of the build tree,
 * keyed by the whole argv and by the executable itself: the path it
 * resolves to in the steps' fixed PATH, after symlinks, and that file's
 * device, inode, size, mtime and ctime (nanoseconds). An unchanged
 * toolchain is therefore asked nothing, and a no-op rebuild spawns no
 * process; replacing, upgrading or re-pointing the tool changes the key.
 *
 * What the key cannot see: files a wrapper script reads (a compiler that
 * is a shell script calling another compiler), or data files the tool
 * consults (Python's sysconfig data lives in its stdlib, which its
 * package upgrades together with the binary). `--no-probe-cache` is not
 * needed: delete the file, or the build tree.
 *
 * One cache per process, opened by the session before targets are set
 * up. Without an open cache every probe runs.
 */

/* Load the cache at path (missing or unreadable: start empty). */
void tf_probe_open(const char *path);
/*
 * The first line of what argv prints (stdout and stderr), run with a
 * clean environment (PATH = the steps' PATH, LC_ALL=C); argv[0] is
 * looked up in that PATH. NULL if it cannot be run, fails, or prints
 * nothing. The caller owns the string.
 */
char *tf_probe_first_line(const char *const *argv);
/*
 * Forget the cache; with save, first write it back (atomically) if it
 * learnt something. A run that found its recipe wrong passes 0, so it
 * leaves no build tree behind.
 */
void tf_probe_close(int save);

#endif
