/*
 * Provisioning a target's wheels from the package index (plan/wheelpins.c
 * reads their pins): each wheel got into the download cache (pip only on
 * a miss), then unpacked into ${target_site}.
 */
#include "sysroot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "env/env.h"
#include "index/index.h"
#include "provision.h"
#include "audit/audit.h"
#include "fetch/fetch.h"
#include "metadata/metadata.h"
#include "plan/plan.h"
#include "recipe/recipe.h"

/* glibc's minor version in the target's features.h; 0 if unknown. */
static unsigned target_glibc(const struct tf_plan *p)
{
	struct tf_buf path = TF_BUF_INIT, text = TF_BUF_INIT;
	const char *s;
	unsigned minor = 0;

	if (p->target.native)
		tf_buf_setf(&path, "/usr/include/features.h");
	else
		tf_buf_setf(&path, "/usr/%s/include/features.h",
			    p->target.triplet);
	if (!tf_read_file(path.buf, &text) &&
	    (s = strstr(text.buf, "#define\t__GLIBC_MINOR__")))
		minor = (unsigned)strtoul(s + 23, NULL, 10);
	tf_buf_release(&path);
	tf_buf_release(&text);
	return minor;
}

int tf_provision_compat_target(const struct tf_plan *p,
			       struct tf_compat_target *t)
{
	int major = p->py_major, minor = p->py_minor;

	t->arch = p->target.name;
	/* An older glibc's target (zig's) takes only wheels that fit it. */
	t->glibc_minor = p->target.macos         ? 0
			 : p->target.glibc_minor ? p->target.glibc_minor
						 : target_glibc(p);
	t->macos_major = p->target.macos ? p->recipe->macos_version >> 16 : 0;
	if (major < 0 && p->target.python_include && *p->target.python_include)
		tf_pytag_header_version(p->target.python_include, &major,
					&minor);
	if (major < 0) {
		/* Unchecked plans (fetch): the build Python, the target's
		 * version on Debian for every architecture. */
		char *v = tf_probe_first_line((const char *const[]){
			p->target.python, "-c",
			"import sys; print('%d %d' % sys.version_info[:2])",
			NULL });

		if (!v || sscanf(v, "%d %d", &major, &minor) != 2)
			major = -1;
		free(v);
	}
	if (major < 0 || (!t->glibc_minor && !t->macos_major))
		return error("target %s: cannot tell its %s, for its wheels "
			     "from the package index",
			     p->target.name,
			     major < 0 ? "Python version" : "glibc version");
	t->py_major = major;
	t->py_minor = minor;
	return 0;
}

int tf_provision_wheels_fetch(struct tf_plan *p, const struct tf_fetch_opts *fo,
			      struct tf_provision *pv)
{
	struct tf_index_opts io = { .fetch = fo };
	struct tf_compat_target t;
	struct tf_buf path = TF_BUF_INIT, shown = TF_BUF_INIT;
	size_t i, j;
	int ret = 0;

	if (!p->wheel_pins.nr || pv->fetched)
		return 0;
	if (tf_provision_compat_target(p, &t))
		return -1;
	tf_plan_lock_shown(p->recipe, &shown);
	io.lock = shown.buf;
	tf_strvec_release(&pv->wheel_paths);
	for (i = 0; !ret && i < p->wheel_pins.nr; i++) {
		struct tf_index_pin *pin = &p->wheel_pins.v[i];

		for (j = 0; j < p->recipe->nr_target_wheels &&
			    strcmp(p->target_wheels[j].req.s, pin->requirement);
		     j++)
			;
		tf_buf_reset(&path);
		ret = tf_index_get(&io, &t, p->target_wheels[j].name,
				   p->target_wheels[j].version, pin, &path);
		if (!ret)
			tf_strvec_push(&pv->wheel_paths, path.buf);
	}
	pv->fetched = !ret;
	tf_buf_release(&path);
	tf_buf_release(&shown);
	return ret;
}

int tf_provision_site(const struct tf_plan *p, const struct tf_provision *pv)
{
	struct tf_index_wheel *w;
	size_t i;
	int ret;

	if (!p->site)
		return 0;
	if (pv->wheel_paths.nr != p->wheel_pins.nr)
		BUG("target wheels unpacked before they were fetched");
	w = tf_calloc(p->wheel_pins.nr + 1, sizeof(*w));
	for (i = 0; i < p->wheel_pins.nr; i++) {
		w[i].path = pv->wheel_paths.v[i];
		w[i].file = p->wheel_pins.v[i].file;
		w[i].sha256 = p->wheel_pins.v[i].sha256;
	}
	ret = tf_index_site_make(p->site, w, p->wheel_pins.nr);
	free(w);
	return ret;
}
