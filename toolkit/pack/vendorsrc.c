/*
 * Where a wheel's vendored libraries come from (vendorsrc.h).
 */
#include "vendorsrc.h"

#include <string.h>

#include "base/base.h"
#include "provision/provision.h"
#include "audit/audit.h"
#include "plan/plan.h"

void tf_pack_root_dirs(const struct tf_plan *p, struct tf_strvec *dirs)
{
	if (!p->sysroot)
		return;
	tf_strvec_pushf(dirs, "%s/usr/lib/%s", p->sysroot, p->target.triplet);
	tf_strvec_pushf(dirs, "%s/lib/%s", p->sysroot, p->target.triplet);
	tf_strvec_pushf(dirs, "%s/usr/lib", p->sysroot);
}

/* 1 if path is inside the directory dir. */
static int path_below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && path[n] == '/';
}

/*
 * Which Debian package each vendored library came from, for the record.
 * One found outside the target root while a target package ships a
 * library of that name is refused: the version the recipe pins must be
 * the one vendored.
 */
int tf_pack_vendored_packages(const struct tf_plan *p, const char *context,
			      struct tf_vendor_result *v)
{
	struct tf_buf pkg = TF_BUF_INIT, ship = TF_BUF_INIT,
		      where = TF_BUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < v->nr_libs; i++) {
		struct tf_lib *l = &v->libs[i];
		enum tf_provision_shipped found,
			shipped = TF_PROVISION_NOT_SHIPPED;

		if (l->kind != TF_LIB_VENDOR || !l->origin)
			continue;
		found = tf_provision_file_package(p, l->origin, &pkg);
		if (found == TF_PROVISION_SHIPPED_ERROR) {
			ret = -1;
			break;
		}
		if (found == TF_PROVISION_SHIPPED) {
			tf_strvec_push(&v->store, pkg.buf);
			l->package = v->store.v[v->store.nr - 1];
		}
		if (p->sysroot && !path_below(l->origin, p->sysroot))
			shipped = tf_provision_root_ships(p, l->soname, &ship,
							  &where);
		if (shipped == TF_PROVISION_SHIPPED_ERROR)
			ret = -1;
		else if (shipped == TF_PROVISION_SHIPPED)
			ret = error(
				"%s: vendored '%s' was found at '%s'%s%s%s, "
				"outside the target root, but target "
				"package %s ships it ('%s'): the wheel "
				"must vendor the target package's",
				context, l->soname, l->origin,
				found == TF_PROVISION_SHIPPED ? " (from " : "",
				found == TF_PROVISION_SHIPPED ? pkg.buf : "",
				found == TF_PROVISION_SHIPPED ? ")" : "",
				ship.buf, where.buf);
	}
	tf_buf_release(&pkg);
	tf_buf_release(&ship);
	tf_buf_release(&where);
	return ret;
}
