/*
 * The emulator's root for a cross target that has no target root
 * (docs/cross.md "The emulator's root").
 *
 * qemu-user's -L (QEMU_LD_PREFIX) makes the guest open PREFIX/PATH when
 * that exists and the build machine's PATH when it does not. With the
 * cross toolchain's /usr/<triplet> as PREFIX the guest's loader is the
 * cross libc's, but the loader then reads the build machine's
 * /etc/ld.so.cache and searches /lib/<triplet>, neither of which the
 * prefix has: where the build machine has its own libc6 for the target
 * (Debian's libpython3-dev:arm64 brings libc6:arm64), the program gets
 * that libc, another build than its loader (2.36-8cross1 against
 * 2.36-9+deb12u14), and hangs in its first pthread_create.
 *
 * So the prefix is a directory of tfbuild's in the target's build tree,
 * beside the toolchain files, fixed up as target roots are: an empty
 * etc/ld.so.cache, and lib/<triplet> and usr/lib/<triplet> (the
 * loader's own search directories) and the loader itself linked to the
 * cross toolchain's lib/. Every other path still falls through to the
 * build machine, so a library only the build machine has for the target
 * is still found, with the cross libc. In the build tree (locked for
 * the run) rather than the cache, its path is the same whatever cache a
 * run is given, as the toolchain files' are. plan/roots.c plans it and
 * finds its loaders; it is made here.
 */
#include "sysroot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "plan/plan.h"

/* The file that says what the root stands for; written last. */
#define STAMP ".tfbuild-emulator"

/* What the stamp says: the prefix and the loaders the root links. */
static void describe(const struct tf_plan *p, struct tf_buf *out)
{
	size_t i;

	tf_buf_addf(out, "the emulator's root for /usr/%s\n",
		    p->target.triplet);
	for (i = 0; i < p->emulator_loaders.nr; i++)
		tf_buf_addf(out, "loader %s\n", p->emulator_loaders.v[i]);
}

static int link_to(const char *target, const char *root, const char *name)
{
	struct tf_buf b = TF_BUF_INIT;
	int ret = 0;

	tf_buf_setf(&b, "%s/%s", root, name);
	if (symlink(target, b.buf) < 0)
		ret = error_errno("cannot create '%s'", b.buf);
	tf_buf_release(&b);
	return ret;
}

/* The root's files in root; the stamp last. */
static int fill(const struct tf_plan *p, const char *root,
		const struct tf_buf *stamp)
{
	static const char *const dirs[] = { "lib", "lib64", "usr/lib", "etc" };
	const char *tr = p->target.triplet;
	struct tf_buf a = TF_BUF_INIT, b = TF_BUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < sizeof(dirs) / sizeof(*dirs); i++) {
		tf_buf_setf(&a, "%s/%s", root, dirs[i]);
		ret = tf_mkdir_p(a.buf);
	}
	tf_buf_setf(&a, "%s/etc/ld.so.cache", root);
	if (!ret)
		ret = tf_write_file_atomic(a.buf, "", 0, 0644);
	tf_buf_setf(&a, "/usr/%s/lib", tr);
	tf_buf_setf(&b, "lib/%s", tr);
	if (!ret)
		ret = link_to(a.buf, root, b.buf);
	tf_buf_setf(&b, "usr/lib/%s", tr);
	if (!ret)
		ret = link_to(a.buf, root, b.buf);
	for (i = 0; !ret && i < p->emulator_loaders.nr; i++) {
		tf_buf_setf(&a, "/usr/%s/%s", tr, p->emulator_loaders.v[i]);
		ret = link_to(a.buf, root, p->emulator_loaders.v[i]);
	}
	tf_buf_setf(&a, "%s/" STAMP, root);
	if (!ret)
		ret = tf_write_file_atomic(a.buf, stamp->buf, stamp->len, 0644);
	tf_buf_release(&a);
	tf_buf_release(&b);
	return ret;
}

int tf_emuroot_make(const struct tf_plan *p)
{
	struct tf_buf want = TF_BUF_INIT, have = TF_BUF_INIT, tmp = TF_BUF_INIT,
		      path = TF_BUF_INIT;
	int ret = 0;

	if (!p->emulator_root)
		return 0;
	describe(p, &want);
	tf_buf_setf(&path, "%s/" STAMP, p->emulator_root);
	/* As it should be: nothing to write (a no-op run writes nothing). */
	if (tf_path_exists(path.buf) && tf_read_file(path.buf, &have) == 0 &&
	    have.len == want.len && !memcmp(have.buf, want.buf, want.len))
		goto out;
	/* Missing, half made or for another toolchain: made anew beside,
	   then renamed in (the build tree is this run's alone). */
	tf_buf_reset(&path);
	tf_path_dirname(&path, p->emulator_root);
	ret = tf_mkdir_p(path.buf);
	if (!ret)
		ret = tf_mkdtemp_temp(path.buf, "emulator-root", &tmp);
	if (!ret) {
		chmod(tmp.buf, 0755);
		ret = fill(p, tmp.buf, &want);
	}
	if (!ret && tf_path_exists(p->emulator_root) &&
	    tf_rm_rf(p->emulator_root) < 0)
		ret = error_errno("cannot remove '%s'", p->emulator_root);
	if (!ret && rename(tmp.buf, p->emulator_root) < 0)
		ret = error_errno("cannot rename '%s' to '%s'", tmp.buf,
				  p->emulator_root);
	if (tmp.len && tf_path_exists(tmp.buf))
		tf_rm_rf(tmp.buf);
	if (tmp.len)
		tf_signals_temp_forget(tmp.buf);
out:
	tf_buf_release(&want);
	tf_buf_release(&have);
	tf_buf_release(&tmp);
	tf_buf_release(&path);
	return ret;
}
