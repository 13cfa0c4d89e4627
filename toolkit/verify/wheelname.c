/* A wheel's filename: split into its parts, and each part checked. */
#include "wheelname.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "metadata/metadata.h"
#include "wheel/wheel.h"

void tf_wheel_name_release(struct tf_wheel_name *wn)
{
	if (!wn)
		return;
	free(wn->name);
	free(wn->version);
	free(wn->build);
	free(wn->python);
	free(wn->abi);
	free(wn->platform);
	free(wn->label);
	memset(wn, 0, sizeof(*wn));
}

static int check_name_parts(const struct tf_wheel_name *wn, struct tf_buf *why)
{
	struct tf_buf v = TF_BUF_INIT;
	int bad;

	if (!tf_pyname_is_valid(wn->name))
		return tf_why(why, "'%s' is not a valid distribution name",
			      wn->name);
	bad = tf_pep440_normalize(wn->version, &v) < 0;
	tf_buf_release(&v);
	if (bad)
		return tf_why(why,
			      "version '%s' is not a valid PEP 440 version",
			      wn->version);
	/* A build tag starts with a digit (binary distribution format). */
	if (wn->build && (wn->build[0] < '0' || wn->build[0] > '9' ||
			  !tf_wheel_tag_is_valid(wn->build)))
		return tf_why(why, "build tag '%s' is not valid", wn->build);
	if (!tf_wheel_tag_is_valid(wn->python) ||
	    !tf_wheel_tag_is_valid(wn->abi) ||
	    !tf_wheel_tag_is_valid(wn->platform))
		return tf_why(why, "tags '%s-%s-%s' are not valid", wn->python,
			      wn->abi, wn->platform);
	return 0;
}

/* Split s in place at '-' into 5 to 7 non-empty parts; the count or -1. */
static int split_dashes(char *s, char *parts[7])
{
	int i, nr = 0;

	for (;;) {
		if (nr == 7)
			return -1;
		parts[nr++] = s;
		s = strchrnul(s, '-');
		if (!*s)
			break;
		*s++ = '\0';
	}
	for (i = 0; i < nr; i++)
		if (!*parts[i])
			return -1;
	return nr < 5 ? -1 : nr;
}

int tf_wheel_name_parse(const char *filename, struct tf_wheel_name *wn,
			struct tf_buf *why)
{
	const char *base = tf_path_basename(filename);
	size_t n = strlen(base);
	char *stem, *parts[7];
	int nr, build;

	tf_wheel_name_release(wn);
	if (n < 4 || strcmp(base + n - 4, ".whl"))
		return tf_why(why, "filename does not end in '.whl'");
	stem = tf_strndup(base, n - 4);
	nr = split_dashes(stem, parts);
	if (nr < 0) {
		free(stem);
		return tf_why(why, "filename is not NAME-VERSION[-BUILD]-"
				   "PYTHON-ABI-PLATFORM.whl");
	}
	/* PEP 825: a variant label may follow the platform; the python
	   tag never starts with a digit, a build tag always does. */
	build = nr == 7 ||
		(nr == 6 && parts[2][0] >= '0' && parts[2][0] <= '9');
	wn->name = tf_strdup(parts[0]);
	wn->version = tf_strdup(parts[1]);
	wn->build = build ? tf_strdup(parts[2]) : NULL;
	wn->python = tf_strdup(parts[2 + build]);
	wn->abi = tf_strdup(parts[3 + build]);
	wn->platform = tf_strdup(parts[4 + build]);
	wn->label = nr > 5 + build ? tf_strdup(parts[5 + build]) : NULL;
	free(stem);
	if (wn->label && !tf_wheel_label_is_valid(wn->label)) {
		tf_wheel_name_release(wn);
		return tf_why(why, "variant label is not 1-16 of 0-9, a-z, "
				   "'_', '.' (PEP 825)");
	}
	if (check_name_parts(wn, why) < 0) {
		tf_wheel_name_release(wn);
		return -1;
	}
	return 0;
}
