/*
 * A target's wheel tags, in pip's order (compat.h). The order is
 * packaging.tags': cpython_tags (own ABI, abi3 of this and older
 * versions, none) over every platform, then compatible_tags (py3X and
 * py3 over the platforms, then "any").
 */
#include "compat.h"

#include <string.h>

#include "pyname.h"
#include "base/base.h"

/* manylinux_2_X with X <= 16, and the legacy names, exist for x86_64 only. */
static int old_glibc(const char *arch)
{
	return !strcmp(arch, "x86_64") || !strcmp(arch, "i686");
}

void tf_compat_platforms(const struct tf_compat_target *t,
			 struct tf_strvec *out)
{
	unsigned x, low = old_glibc(t->arch) ? 5 : 17;

	if (t->macos_major) {
		for (x = t->macos_major; x >= 11; x--) {
			tf_strvec_pushf(out, "macosx_%u_0_arm64", x);
			tf_strvec_pushf(out, "macosx_%u_0_universal2", x);
		}
		for (x = 16; x >= 4; x--)
			tf_strvec_pushf(out, "macosx_10_%u_universal2", x);
		return;
	}
	for (x = t->glibc_minor; x >= low && x >= 5; x--) {
		tf_strvec_pushf(out, "manylinux_2_%u_%s", x, t->arch);
		if (x == 17)
			tf_strvec_pushf(out, "manylinux2014_%s", t->arch);
		else if (x == 12)
			tf_strvec_pushf(out, "manylinux2010_%s", t->arch);
		else if (x == 5)
			tf_strvec_pushf(out, "manylinux1_%s", t->arch);
	}
}

void tf_compat_abis(const struct tf_compat_target *t, struct tf_strvec *out)
{
	tf_strvec_pushf(out, "cp%d%d", t->py_major, t->py_minor);
	tf_strvec_push(out, "abi3");
	tf_strvec_push(out, "none");
}

static void over(struct tf_strvec *out, const char *py, const char *abi,
		 const struct tf_strvec *plats)
{
	size_t i;

	for (i = 0; i < plats->nr; i++)
		tf_strvec_pushf(out, "%s-%s-%s", py, abi, plats->v[i]);
}

/*
 * Every "PY-ABI-PLATFORM" tag the target accepts, best first: the
 * interpreter's own ABI, abi3 of this and older 3.X, then none; each
 * over the platforms, then the pure tags (py3X, py3, "any"). Pushed
 * onto out.
 */
static void tf_compat_tags(const struct tf_compat_target *t,
			   struct tf_strvec *out)
{
	struct tf_strvec plats = TF_STRVEC_INIT;
	struct tf_buf cp = TF_BUF_INIT, py = TF_BUF_INIT;
	int m;

	tf_compat_platforms(t, &plats);
	tf_buf_setf(&cp, "cp%d%d", t->py_major, t->py_minor);
	over(out, cp.buf, cp.buf, &plats);
	over(out, cp.buf, "abi3", &plats);
	over(out, cp.buf, "none", &plats);
	/* abi3 wheels built for an older 3.X load here too (PEP 384). */
	for (m = t->py_minor - 1; t->py_major == 3 && m >= 2; m--) {
		tf_buf_setf(&py, "cp3%d", m);
		over(out, py.buf, "abi3", &plats);
	}
	tf_buf_setf(&py, "py%d%d", t->py_major, t->py_minor);
	over(out, py.buf, "none", &plats);
	tf_buf_setf(&py, "py%d", t->py_major);
	over(out, py.buf, "none", &plats);
	for (m = t->py_minor - 1; m >= 0; m--) {
		tf_buf_setf(&py, "py%d%d", t->py_major, m);
		over(out, py.buf, "none", &plats);
	}
	tf_strvec_pushf(out, "%s-none-any", cp.buf);
	tf_strvec_pushf(out, "py%d%d-none-any", t->py_major, t->py_minor);
	tf_strvec_pushf(out, "py%d-none-any", t->py_major);
	for (m = t->py_minor - 1; m >= 0; m--)
		tf_strvec_pushf(out, "py%d%d-none-any", t->py_major, m);
	tf_strvec_release(&plats);
	tf_buf_release(&cp);
	tf_buf_release(&py);
}

int tf_compat_split(const char *filename, struct tf_buf *name,
		    struct tf_buf *version, struct tf_strvec *tags,
		    struct tf_buf *why)
{
	struct tf_strvec parts = TF_STRVEC_INIT;
	size_t n = strlen(filename), i;
	const char *s, *dash;
	int ret = -1;

	if (n < 5 || strcmp(filename + n - 4, ".whl") ||
	    strchr(filename, '/')) {
		tf_buf_addf(why, "'%s' is not a wheel's file name", filename);
		return -1;
	}
	for (s = filename;
	     (dash = memchr(s, '-', (size_t)(filename + n - 4 - s)));
	     s = dash + 1)
		tf_strvec_push_take(&parts, tf_strndup(s, (size_t)(dash - s)));
	tf_strvec_push_take(&parts,
			    tf_strndup(s, (size_t)(filename + n - 4 - s)));
	for (i = 0; i < parts.nr && *parts.v[i]; i++)
		;
	if ((parts.nr != 5 && parts.nr != 6) || i < parts.nr) {
		tf_buf_addf(
			why,
			"'%s' is not NAME-VERSION[-BUILD]-PY-ABI-PLATFORM.whl",
			filename);
		goto out;
	}
	if (tf_wheel_tags_expand(parts.v[parts.nr - 3], parts.v[parts.nr - 2],
				 parts.v[parts.nr - 1], tags)) {
		tf_buf_addf(why, "'%s' has invalid tags", filename);
		goto out;
	}
	tf_buf_addstr(name, parts.v[0]);
	tf_buf_addstr(version, parts.v[1]);
	ret = 0;
out:
	tf_strvec_release(&parts);
	return ret;
}

long tf_compat_rank(const struct tf_compat_target *t, const char *filename,
		    struct tf_buf *why)
{
	struct tf_strvec want = TF_STRVEC_INIT, have = TF_STRVEC_INIT;
	struct tf_buf name = TF_BUF_INIT, version = TF_BUF_INIT;
	long best = -1;
	size_t i, j;

	if (tf_compat_split(filename, &name, &version, &have, why))
		goto out;
	tf_compat_tags(t, &want);
	for (i = 0; i < want.nr && best < 0; i++)
		for (j = 0; j < have.nr; j++)
			if (!strcmp(want.v[i], have.v[j]))
				best = (long)i;
	if (best < 0 && t->macos_major)
		tf_buf_addf(
			why,
			"'%s' fits no tag of target %s (CPython %d.%d, macOS %u)",
			filename, t->arch, t->py_major, t->py_minor,
			t->macos_major);
	else if (best < 0)
		tf_buf_addf(
			why,
			"'%s' fits no tag of target %s (CPython %d.%d, glibc 2.%u)",
			filename, t->arch, t->py_major, t->py_minor,
			t->glibc_minor);
out:
	tf_strvec_release(&want);
	tf_strvec_release(&have);
	tf_buf_release(&name);
	tf_buf_release(&version);
	return best;
}

long tf_compat_best(const struct tf_compat_target *t, const char *const *files,
		    size_t n)
{
	struct tf_buf why = TF_BUF_INIT;
	long best = -1, best_rank = -1, r;
	size_t i;

	for (i = 0; i < n; i++) {
		r = tf_compat_rank(t, files[i], &why);
		if (r >= 0 && (best < 0 || r < best_rank)) {
			best = (long)i;
			best_rank = r;
		}
	}
	tf_buf_release(&why);
	return best;
}
