/*
 * Provisioning a target's wheels from the package index (plan/wheelpins.c
 * reads their pins): each wheel got into the download cache (pip only on
 * a miss), then unpacked into ${target_site}; the build machine's
 * (`host-wheels`) likewise into ${host_site}.
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

/*
 * glibc's minor version in the target's features.h (p NULL: the build
 * machine's); 0 if unknown.
 */
static unsigned target_glibc(const struct tf_plan *p)
{
	struct tf_buf path = TF_BUF_INIT, text = TF_BUF_INIT;
	const char *s;
	unsigned minor = 0;

	if (!p || p->target.native)
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

int tf_provision_compat_host(const struct tf_plan *p,
			     struct tf_compat_target *t)
{
	char *v = tf_probe_first_line((const char *const[]){
		"python3", "-c",
		"import sys; print('%d %d' % sys.version_info[:2])", NULL });

	t->arch = tf_target_host();
	t->glibc_minor = target_glibc(NULL);
	t->macos_major = 0;
	if (!v || sscanf(v, "%d %d", &t->py_major, &t->py_minor) != 2)
		t->py_major = -1;
	free(v);
	if (!t->arch || t->py_major < 0 || !t->glibc_minor)
		return error("%s: the build machine: cannot tell its %s, for "
			     "its wheels from the package index (host-wheels)",
			     p->recipe->path,
			     !t->arch          ? "architecture"
			     : t->py_major < 0 ? "Python version"
					       : "glibc version");
	return 0;
}

/* Get the wheels of pins (requirements of list) for t, into paths. */
static int fetch_pins(const struct tf_index_opts *io,
		      const struct tf_compat_target *t,
		      const struct tf_index_pins *pins,
		      const struct tf_target_wheel *list, size_t nr,
		      struct tf_strvec *paths)
{
	struct tf_buf path = TF_BUF_INIT;
	size_t i, j;
	int ret = 0;

	tf_strvec_release(paths);
	for (i = 0; !ret && i < pins->nr; i++) {
		struct tf_index_pin *pin = &pins->v[i];

		for (j = 0; j < nr && strcmp(list[j].req.s, pin->requirement);
		     j++)
			;
		if (j == nr)
			BUG("pin '%s' of no wheel", pin->requirement);
		tf_buf_reset(&path);
		ret = tf_index_get(io, t, list[j].name, list[j].version, pin,
				   &path);
		if (!ret)
			tf_strvec_push(paths, path.buf);
	}
	tf_buf_release(&path);
	return ret;
}

int tf_provision_wheels_fetch(struct tf_plan *p, const struct tf_fetch_opts *fo,
			      struct tf_provision *pv)
{
	struct tf_index_opts io = { .fetch = fo };
	struct tf_compat_target t;
	struct tf_buf shown = TF_BUF_INIT;
	int ret = 0;

	if ((!p->wheel_pins.nr && !p->host_pins.nr) || pv->fetched)
		return 0;
	tf_plan_lock_shown(p->recipe, &shown);
	io.lock = shown.buf;
	if (p->wheel_pins.nr)
		ret = tf_provision_compat_target(p, &t) ||
		      fetch_pins(&io, &t, &p->wheel_pins, p->target_wheels,
				 p->recipe->nr_target_wheels, &pv->wheel_paths);
	if (!ret && p->host_pins.nr)
		ret = tf_provision_compat_host(p, &t) ||
		      fetch_pins(&io, &t, &p->host_pins, p->host_wheels,
				 p->recipe->nr_host_wheels, &pv->host_paths);
	pv->fetched = !ret;
	tf_buf_release(&shown);
	return ret ? -1 : 0;
}

/* Unpack the wheels of pins (their cached files paths) into site. */
static int make_site(const char *site, const struct tf_index_pins *pins,
		     const struct tf_strvec *paths)
{
	struct tf_index_wheel *w;
	size_t i;
	int ret;

	if (paths->nr != pins->nr)
		BUG("wheels unpacked before they were fetched");
	w = tf_calloc(pins->nr + 1, sizeof(*w));
	for (i = 0; i < pins->nr; i++) {
		w[i].path = paths->v[i];
		w[i].file = pins->v[i].file;
		w[i].sha256 = pins->v[i].sha256;
	}
	ret = tf_index_site_make(site, w, pins->nr);
	free(w);
	return ret;
}

int tf_provision_site(const struct tf_plan *p, const struct tf_provision *pv)
{
	if (p->site && make_site(p->site, &p->wheel_pins, &pv->wheel_paths))
		return -1;
	if (p->host_site &&
	    make_site(p->host_site, &p->host_pins, &pv->host_paths))
		return -1;
	return 0;
}
