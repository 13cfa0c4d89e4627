#include "pytag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

int tf_pytag_header_version(const char *include, int *major, int *minor)
{
	struct tf_buf path = TF_BUF_INIT, text = TF_BUF_INIT;
	const char *s;
	int ret = -1;

	tf_buf_setf(&path, "%s/patchlevel.h", include);
	text.cap = 1 << 20;
	if (!tf_path_exists(path.buf) || tf_read_file(path.buf, &text))
		goto out;
	*major = *minor = -1;
	for (s = text.buf; s && *s; s = strchr(s, '\n'), s = s ? s + 1 : NULL) {
		int n;

		if (sscanf(s, "#define PY_MAJOR_VERSION %d", &n) == 1)
			*major = n;
		else if (sscanf(s, "#define PY_MINOR_VERSION %d", &n) == 1)
			*minor = n;
	}
	ret = *major >= 0 && *minor >= 0 ? 0 : -1;
out:
	tf_buf_release(&path);
	tf_buf_release(&text);
	return ret;
}

/* Every tag of a compressed set "a.b" is want. */
static int all_tags_are(const char *set, const char *want)
{
	size_t n = strlen(want);

	while (*set) {
		size_t len = strcspn(set, ".");

		if (len != n || strncmp(set, want, n))
			return 0;
		set += len + (set[len] == '.');
	}
	return 1;
}

/* The machine a platform tag is for: its text after the last "_" of the
 * known machine names, or NULL. */
static const char *platform_machine(const char *platform)
{
	size_t n = strlen(platform);

	if (n >= 7 && !strcmp(platform + n - 7, "aarch64"))
		return "aarch64";
	if (n >= 6 && !strcmp(platform + n - 6, "x86_64"))
		return "x86_64";
	return NULL;
}

static int version_specific(const char *base, const char *ext,
			    const char *python, const char *abi,
			    const char *platform, struct tf_buf *why)
{
	char tag[32], triplet[64];
	const char *machine = platform_machine(platform);
	int major, minor, end = 0;

	/* ".cpython-311-aarch64-linux-gnu.so" (a "d" after the digits is a
	 * debug build's) */
	if (sscanf(ext, ".cpython-%1d%d%*[d]-%63[^.].so%n", &major, &minor,
		   triplet, &end) < 3 &&
	    sscanf(ext, ".cpython-%1d%d-%63[^.].so%n", &major, &minor, triplet,
		   &end) < 3)
		return 0;
	if (!end || ext[end])
		return 0;
	snprintf(tag, sizeof(tag), "cp%d%d", major, minor);
	if (!all_tags_are(python, tag) || strcmp(abi, tag)) {
		tf_buf_addf(
			why,
			"an extension module for CPython %d.%d (%s) in a wheel tagged %s-%s; its tags must be %s-%s",
			major, minor, base, python, abi, tag, tag);
		return -1;
	}
	if (machine && strncmp(triplet, machine, strlen(machine))) {
		tf_buf_addf(why,
			    "an extension module for %s (%s) in a wheel for %s",
			    triplet, base, machine);
		return -1;
	}
	return 0;
}

int tf_pytag_check_entry(const char *path, const char *python, const char *abi,
			 const char *platform, struct tf_buf *why)
{
	const char *base = tf_path_basename(path), *ext = strchr(base, '.');
	size_t n = strlen(base);

	if (!ext || n < 3 || strcmp(base + n - 3, ".so"))
		return 0;
	if (!strcmp(ext, ".abi3.so")) {
		if (strncmp(python, "cp3", 3) ||
		    (strcmp(abi, "abi3") && strcmp(abi, python))) {
			tf_buf_addf(
				why,
				"a stable-ABI extension module (%s) in a wheel tagged %s-%s; its tags must be cp3X-abi3",
				base, python, abi);
			return -1;
		}
		return 0;
	}
	return version_specific(base, ext, python, abi, platform, why);
}
