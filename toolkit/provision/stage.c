/*
 * The provisioning stage (provision.h): what the plan of a target says
 * its steps are given, made, in the order each needs the one before.
 */
#include "provision.h"

#include "base/base.h"
#include "sysroot.h"
#include "fetch/fetch.h"
#include "plan/plan.h"

void tf_provision_release(struct tf_provision *pv)
{
	tf_strvec_release(&pv->wheel_paths);
	tf_strvec_release(&pv->host_paths);
	pv->fetched = 0;
}

enum tf_plan_result tf_provision_resolve(const struct tf_plan *p,
					 struct tf_strvec *lines)
{
	if (!p->would_provision)
		return TF_PLAN_OK;
	return tf_sysroot_resolve(p, lines);
}

enum tf_provision_result tf_provision_make(struct tf_plan *p,
					   const struct tf_fetch_opts *fo,
					   struct tf_provision *pv)
{
	if (p->would_provision)
		BUG("target %s provisioned before its packages were resolved",
		    p->target.name);
	/* The root first: the emulator's root and the tool files name it. */
	if (tf_sysroot_make(p) || tf_emuroot_make(p) || tf_provision_files(p) ||
	    tf_provision_host_tools(p))
		return TF_PROVISION_FAILED;
	if (tf_provision_wheels_fetch(p, fo, pv))
		return TF_PROVISION_FETCH;
	return tf_provision_site(p, pv) ? TF_PROVISION_FAILED : TF_PROVISION_OK;
}
