/*
 * A target wheel's own word on what it is (index.h): the Name and
 * Version of its NAME-VERSION.dist-info/METADATA, read through the one
 * wheel reader. The file name and the digest are the lock's; only the
 * bytes say which project they are, so a pin whose digest is another
 * wheel's is caught here, on a download-cache hit too.
 */
#include "index.h"

#include <string.h>
#include <strings.h>

#include "wheel/wheel.h"
#include "base/base.h"
#include "metadata/metadata.h"

/* METADATA's headers end at the first empty line; more is the body. */
#define METADATA_MAX (1 << 20)

/* 1 if name is "X.dist-info/METADATA", at the top of the wheel. */
static int is_metadata(const char *name)
{
	const char *slash = strchr(name, '/');
	size_t n = slash ? (size_t)(slash - name) : 0;

	return n > 10 && !memcmp(slash - 10, ".dist-info", 10) &&
	       !strcmp(slash + 1, "METADATA");
}

/* The value of header key in text (its headers only), or "". */
static void header(const char *text, const char *key, struct tf_buf *out)
{
	size_t n = strlen(key);
	const char *s = text, *nl;

	for (; *s && *s != '\n'; s = *nl ? nl + 1 : nl) {
		nl = s + strcspn(s, "\n");
		if (!strncasecmp(s, key, n) && s[n] == ':') {
			s += n + 1;
			s += strspn(s, " \t");
			while (nl > s && (nl[-1] == '\r' || nl[-1] == ' '))
				nl--;
			tf_buf_add(out, s, (size_t)(nl - s));
			return;
		}
	}
}

/* Read the current member, METADATA, into text (at most METADATA_MAX). */
static int read_metadata(struct tf_wheel_reader *r, const char *label,
			 const char *member, struct tf_buf *text)
{
	char block[1 << 14];
	ssize_t n;

	while ((n = tf_wheel_read(r, block, sizeof(block))) > 0) {
		if (text->len + (size_t)n > METADATA_MAX)
			return error("%s: '%s' is larger than %d bytes", label,
				     member, METADATA_MAX);
		tf_buf_add(text, block, (size_t)n);
	}
	if (n < 0)
		return error("%s: '%s': %s", label, member, tf_wheel_error(r));
	return 0;
}

/* The wheel's one METADATA into text; 0, or -1 after reporting. */
static int find_metadata(const char *path, const char *label,
			 struct tf_buf *text)
{
	struct tf_buf why = TF_BUF_INIT;
	struct tf_wheel_reader *r = tf_wheel_open(
		path, TF_WHEEL_SEEKABLE | TF_WHEEL_UTF8, 1 << 16, &why);
	const struct tf_wheel_member *m;
	enum tf_wheel_step step;
	int found = 0, ret = 0;

	if (!r) {
		ret = error("%s: cannot read the zip archive: %s", label,
			    why.buf);
		goto out;
	}
	while (!ret && ((step = tf_wheel_next(r, &m)) == TF_WHEEL_MEMBER ||
			step == TF_WHEEL_WARNED)) {
		if (!m->name || m->type != TF_WHEEL_FILE ||
		    !is_metadata(m->name))
			continue;
		if (found++)
			ret = error("%s: more than one *.dist-info/METADATA "
				    "('%s' is the second); refused",
				    label, m->name);
		else
			ret = read_metadata(r, label, m->name, text);
	}
	if (!ret && step == TF_WHEEL_ERROR)
		ret = error("%s: cannot read the zip archive: %s", label,
			    tf_wheel_error(r));
	if (!ret && !found)
		ret = error("%s: no *.dist-info/METADATA; refused", label);
out:
	tf_wheel_close(r);
	tf_buf_release(&why);
	return ret;
}

/* 1 if a and b are the same name (PEP 503) or version (PEP 440). */
static int same(const char *a, const char *b, int version)
{
	struct tf_buf x = TF_BUF_INIT, y = TF_BUF_INIT;
	int ret;

	if (version)
		ret = !tf_pep440_normalize(a, &x) &&
		      !tf_pep440_normalize(b, &y) && !strcmp(x.buf, y.buf);
	else {
		tf_pyname_normalize(a, &x);
		tf_pyname_normalize(b, &y);
		ret = !strcmp(x.buf, y.buf);
	}
	tf_buf_release(&x);
	tf_buf_release(&y);
	return ret;
}

int tf_index_wheel_is(const char *path, const char *label, const char *name,
		      const char *version)
{
	struct tf_buf text = TF_BUF_INIT, n = TF_BUF_INIT, v = TF_BUF_INIT;
	int ret = find_metadata(path, label, &text);

	if (ret)
		goto out;
	header(text.buf, "Name", &n);
	header(text.buf, "Version", &v);
	if (!same(n.buf, name, 0) || !same(v.buf, version, 1))
		ret = error("%s: its METADATA says it is '%s' %s, not '%s' %s; "
			    "refused",
			    label, n.buf, v.buf, name, version);
out:
	tf_buf_release(&text);
	tf_buf_release(&n);
	tf_buf_release(&v);
	return ret;
}
