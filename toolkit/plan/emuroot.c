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
 * So the prefix is a directory of tfbuild's beside the target roots,
 * as target roots are made: an empty etc/ld.so.cache, and
 * lib/<triplet> and usr/lib/<triplet> (the loader's own search
 * directories) and the loader itself linked to the cross toolchain's
 * lib/. Every other path still falls through to the build machine, so a
 * library only the build machine has for the target is still found,
 * with the cross libc.
 */
#include "sysroot.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "internal.h"

/* The loaders in PREFIX/lib and PREFIX/lib64, as "lib/ld-...\n" lines. */
static void loaders(const char *prefix, struct tf_strvec *out)
{
	static const char *const dirs[] = { "lib", "lib64" };
	struct tf_buf b = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < 2; i++) {
		struct dirent *d;
		DIR *dir;

		tf_buf_setf(&b, "%s/%s", prefix, dirs[i]);
		if (!(dir = opendir(b.buf)))
			continue;
		while ((d = readdir(dir)))
			if (!strncmp(d->d_name, "ld-", 3))
				tf_strvec_pushf(out, "%s/%s", dirs[i],
						d->d_name);
		closedir(dir);
	}
	qsort(out->v, out->nr, sizeof(*out->v), tf_strcmp_ptr);
	tf_buf_release(&b);
}

void tf_emuroot_plan(struct tf_plan *p, const struct tf_plan_opts *o)
{
	struct tf_target *t = &p->target;
	struct tf_strvec lds = TF_STRVEC_INIT;
	struct tf_buf key = TF_BUF_INIT;
	unsigned char md[TF_SHA256_LEN];
	char hex[TF_SHA256_HEX_LEN + 1], *cache, *dflt;
	size_t i;

	dflt = tf_xstrfmt("/usr/%s", t->triplet);
	/* Only the cross toolchain's own prefix: a root of the user's
	 * (toolchains: sysroot) or of target packages is left as it is. */
	if (t->native || p->sysroot || t->sysroot || !*t->emulator ||
	    strcmp(t->emulator_prefix, dflt))
		goto out;
	loaders(dflt, &lds);
	if (!lds.nr)
		goto out;
	tf_buf_addf(&key, "emulator root 1\nprefix %s\n", dflt);
	for (i = 0; i < lds.nr; i++)
		tf_buf_addf(&key, "loader %s\n", lds.v[i]);
	tf_sha256_buf(key.buf, key.len, md);
	tf_sha256_hex(md, hex);
	cache = tf_sysroot_cache(o);
	p->emulator_root = tf_plan_keepf(p, "%s/emulator-%s-%.16s", cache,
					 t->triplet, hex);
	p->emulator_loaders = lds;
	lds = (struct tf_strvec)TF_STRVEC_INIT;
	free(t->emulator_prefix);
	t->emulator_prefix = tf_strdup(p->emulator_root);
	free(cache);
out:
	tf_strvec_release(&lds);
	tf_buf_release(&key);
	free(dflt);
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

/* The root's files, in tmp; the stamp (what it stands for) last. */
static int fill(const char *root, void *arg)
{
	const struct tf_plan *p = arg;
	const char *tr = p->target.triplet;
	struct tf_buf a = TF_BUF_INIT, b = TF_BUF_INIT;
	size_t i;
	int ret = 0;

	tf_buf_setf(&a, "%s/usr/lib", root);
	ret = tf_mkdir_p(a.buf);
	tf_buf_setf(&a, "%s/lib", root);
	if (!ret)
		ret = tf_mkdir_p(a.buf);
	tf_buf_setf(&a, "%s/lib64", root);
	if (!ret)
		ret = tf_mkdir_p(a.buf);
	tf_buf_setf(&a, "%s/etc", root);
	if (!ret)
		ret = tf_mkdir_p(a.buf);
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
	tf_buf_setf(&a, "%s/" TF_EMUROOT_STAMP, root);
	tf_buf_setf(&b, "the emulator's root for /usr/%s\n", tr);
	if (!ret)
		ret = tf_write_file_atomic(a.buf, b.buf, b.len, 0644);
	tf_buf_release(&a);
	tf_buf_release(&b);
	return ret;
}

int tf_emuroot_make(struct tf_plan *p)
{
	struct tf_buf what = TF_BUF_INIT;
	int ret;

	if (!p->emulator_root)
		return 0;
	tf_buf_setf(&what, "target %s: the emulator's root", p->target.name);
	ret = tf_lock_use_made(p->emulator_root, TF_EMUROOT_STAMP, "emulator",
			       what.buf, fill, p);
	tf_buf_release(&what);
	return ret;
}
