/*
 * A target's wheel from the package index, through pip (index.h): the
 * ordinary client, so every way the user configures it applies
 * (PIP_INDEX_URL, PIP_EXTRA_INDEX_URL, PIP_FIND_LINKS, pip.conf,
 * keyring and netrc, proxies, certificates). pip gets the caller's
 * environment as it is; tfbuild only says which platform, Python and
 * ABI the target has, and, once pinned, the hash pip must require.
 */
#include "index.h"
#include "base/base.h"
#include "fetch/fetch.h"
#include "metadata/metadata.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The Python that runs pip: the option, $TFBUILD_PIP_PYTHON, python3. */
static const char *pip_python(const struct tf_index_opts *o)
{
	const char *env = getenv("TFBUILD_PIP_PYTHON");

	if (o->python && *o->python)
		return o->python;
	return env && *env ? env : "python3";
}

/*
 * How long one pip run may take, in seconds: $TFBUILD_PIP_MAX_TIME, else
 * an hour, as one download (fetch.h's TF_FETCH_MAX_TIME). pip's own
 * --timeout bounds each socket read only, so an index that drips a byte
 * a second would keep it going for ever. 0, or -1 after naming a value
 * that is not a positive number of seconds.
 */
static int pip_max_time(long *out)
{
	const char *v = getenv("TFBUILD_PIP_MAX_TIME");
	char *end;

	*out = TF_FETCH_MAX_TIME;
	if (!v || !*v)
		return 0;
	errno = 0;
	*out = strtol(v, &end, 10);
	if (errno || *end || *out <= 0)
		return error("TFBUILD_PIP_MAX_TIME: invalid time '%s' (a "
			     "positive number of seconds)",
			     v);
	return 0;
}

/* The last lines of pip's output, where it says what went wrong, on
 * one line: "; " between them, their indentation dropped. */
static void tail(const char *text, int lines, struct tf_buf *out)
{
	const char *end = text + strlen(text), *s = end, *nl;

	while (s > text && (s[-1] == '\n' || s[-1] == ' '))
		s--, end--;
	while (s > text && lines > 0)
		if (*--s == '\n')
			lines--;
	for (; s < end; s = nl + 1) {
		s += strspn(s, " \n");
		nl = memchr(s, '\n', (size_t)(end - s));
		if (!nl)
			nl = end;
		if (nl > s)
			tf_buf_addf(out, "%s%.*s", out->len ? "; " : "",
				    (int)(nl - s), s);
	}
}

/*
 * pip refused the file for its hash ("Expected sha256 X / Got Y"): the
 * digest it got, into got; 0, or -1 if pip said something else.
 */
static int hash_refused(const char *text, char got[TF_SHA256_HEX_LEN + 1])
{
	const char *s = strstr(text, "DO NOT MATCH THE HASHES");

	if (!s || !(s = strstr(s, "Got")))
		return -1;
	s += 3 + strspn(s + 3, " \t");
	if (strspn(s, "0123456789abcdef") < TF_SHA256_HEX_LEN)
		return -1;
	memcpy(got, s, TF_SHA256_HEX_LEN);
	got[TF_SHA256_HEX_LEN] = 0;
	return 0;
}

static void pip_argv(const struct tf_index_opts *o,
		     const struct tf_compat_target *t, const char *dir,
		     struct tf_strvec *argv)
{
	struct tf_strvec plats = TF_STRVEC_INIT, abis = TF_STRVEC_INIT;
	size_t i;

	tf_strvec_pushv(
		argv, (const char *const[]){
			      pip_python(o), "-m", "pip", "download",
			      "--no-deps", "--only-binary=:all:", "--no-input",
			      "--disable-pip-version-check", "--progress-bar",
			      "off", "--implementation", "cp", NULL });
	tf_strvec_push(argv, "--python-version");
	tf_strvec_pushf(argv, "%d.%d", t->py_major, t->py_minor);
	tf_compat_abis(t, &abis);
	for (i = 0; i < abis.nr; i++) {
		tf_strvec_push(argv, "--abi");
		tf_strvec_push(argv, abis.v[i]);
	}
	tf_compat_platforms(t, &plats);
	for (i = 0; i < plats.nr; i++) {
		tf_strvec_push(argv, "--platform");
		tf_strvec_push(argv, plats.v[i]);
	}
	tf_strvec_push(argv, "-d");
	tf_strvec_push(argv, dir);
	if (o->index_url) {
		tf_strvec_push(argv, "--index-url");
		tf_strvec_push(argv, o->index_url);
	}
	tf_strvec_release(&plats);
	tf_strvec_release(&abis);
}

/* The one wheel pip wrote to dir, named in file; 0 or -1. */
static int one_wheel(const char *label, const char *dir, struct tf_buf *file)
{
	struct tf_strvec names = TF_STRVEC_INIT;
	size_t i, wheels = 0;

	if (tf_list_dir(dir, &names))
		return -1;
	for (i = 0; i < names.nr; i++) {
		size_t n = strlen(names.v[i]);

		if (n > 4 && !strcmp(names.v[i] + n - 4, ".whl")) {
			wheels++;
			tf_buf_setf(file, "%s", names.v[i]);
		}
	}
	tf_strvec_release(&names);
	if (wheels != 1)
		return error("%s: pip download gave %zu wheels, not one", label,
			     wheels);
	return 0;
}

/* Run pip; the one wheel it wrote to dir is named in file. */
static int run_pip(const struct tf_index_opts *o,
		   const struct tf_compat_target *t, const char *label,
		   const char *req, const char *sha256, const char *pin_file,
		   const char *dir, struct tf_buf *file)
{
	char got[TF_SHA256_HEX_LEN + 1];
	struct tf_run r = TF_RUN_INIT;
	struct tf_buf out = TF_BUF_INIT, reqs = TF_BUF_INIT, text = TF_BUF_INIT,
		      msg = TF_BUF_INIT;
	long max_time;
	int status, late = 0, ret = -1;

	pip_argv(o, t, dir, &r.argv);
	if (sha256) {
		/* pip checks the bytes too, before tfbuild does. */
		tf_buf_setf(&reqs, "%s/requirements.txt", dir);
		tf_buf_setf(&text, "%s --hash=sha256:%s\n", req, sha256);
		if (tf_write_file_atomic(reqs.buf, text.buf, text.len, 0644))
			goto out;
		tf_strvec_pushv(&r.argv,
				(const char *const[]){ "--require-hashes", "-r",
						       reqs.buf, NULL });
	} else {
		tf_strvec_push(&r.argv, req);
	}
	if (pip_max_time(&max_time))
		goto out;
	info("%s: downloading with pip", label);
	verbose("%s: pip may take %ld s (TFBUILD_PIP_MAX_TIME)", label,
		max_time);
	status = tf_run_capture_within(&r, &out, 1 << 20, max_time, &late);
	if (late) {
		tf_buf_reset(&text);
		tail(out.buf, 4, &text);
		error("%s: pip download did not finish within %ld seconds and "
		      "was stopped (TFBUILD_PIP_MAX_TIME)%s%s",
		      label, max_time, text.len ? ": " : "", text.buf);
		goto out;
	}
	if (status && sha256 && !hash_refused(out.buf, got)) {
		error("%s: the index's '%s' has sha256 %s, but %s is pinned; "
		      "refused",
		      label, pin_file, got, sha256);
		goto out;
	}
	if (status) {
		tf_run_describe_status(status, &msg);
		tf_buf_reset(&text);
		tail(out.buf, 8, &text);
		error("%s: pip download failed (%s): %s", label, msg.buf,
		      text.buf);
		goto out;
	}
	ret = one_wheel(label, dir, file);
out:
	tf_run_release(&r);
	tf_buf_release(&out);
	tf_buf_release(&reqs);
	tf_buf_release(&text);
	tf_buf_release(&msg);
	return ret;
}

/*
 * The wheel's file name (what pip gave, or what the pin names: `what`
 * says which) must be the release asked for, fit for t.
 */
static int check_file(const struct tf_compat_target *t, const char *label,
		      const char *what, const char *file, const char *name,
		      const char *version)
{
	struct tf_buf n = TF_BUF_INIT, v = TF_BUF_INIT, a = TF_BUF_INIT,
		      b = TF_BUF_INIT, why = TF_BUF_INIT;
	struct tf_strvec tags = TF_STRVEC_INIT;
	int ret = -1;

	if (tf_compat_split(file, &n, &v, &tags, &why) ||
	    tf_compat_rank(t, file, &why) < 0) {
		error("%s: %s '%s': %s", label, what, file, why.buf);
		goto out;
	}
	tf_pyname_normalize(n.buf, &a);
	tf_pyname_normalize(name, &b);
	if (strcmp(a.buf, b.buf)) {
		error("%s: %s '%s', a wheel of '%s', not '%s'", label, what,
		      file, n.buf, name);
		goto out;
	}
	tf_buf_reset(&a);
	tf_buf_reset(&b);
	if (tf_pep440_normalize(v.buf, &a) ||
	    tf_pep440_normalize(version, &b) || strcmp(a.buf, b.buf)) {
		error("%s: %s '%s', version %s, not %s", label, what, file,
		      v.buf, version);
		goto out;
	}
	ret = 0;
out:
	tf_buf_release(&n);
	tf_buf_release(&v);
	tf_buf_release(&a);
	tf_buf_release(&b);
	tf_buf_release(&why);
	tf_strvec_release(&tags);
	return ret;
}

/*
 * Where a pin stands, for the checks of what it names: its place in
 * the lock file when it was read from one, then the usual label.
 */
static void pin_where(const struct tf_index_opts *o,
		      const struct tf_index_pin *pin, const char *label,
		      struct tf_buf *out)
{
	if (o->lock && pin->nth)
		tf_buf_addf(out, "%s: pin %zu: ", o->lock, pin->nth);
	tf_buf_addstr(out, label);
}

int tf_index_get(const struct tf_index_opts *o,
		 const struct tf_compat_target *t, const char *name,
		 const char *version, struct tf_index_pin *pin,
		 struct tf_buf *path)
{
	struct tf_buf label = TF_BUF_INIT, tmpdir = TF_BUF_INIT,
		      dir = TF_BUF_INIT, file = TF_BUF_INIT, got = TF_BUF_INIT,
		      where = TF_BUF_INIT, what = TF_BUF_INIT;
	char hex[TF_SHA256_HEX_LEN + 1];
	size_t start = path->len;
	int ret = -1, hit = 0;

	/* A host wheel's pin names the build machine: "host-x86_64". */
	tf_buf_setf(&label, "target %s: wheel '%s'",
		    pin->target && !strncmp(pin->target, "host-", 5)
			    ? pin->target
			    : t->arch,
		    pin->requirement);
	pin_where(o, pin, label.buf, &where);
	/* The pin's own name first: the bytes are checked once got. */
	if (pin->file &&
	    check_file(t, where.buf, "the pin names", pin->file, name, version))
		goto out;
	if (pin->sha256)
		hit = tf_fetch_cached(o->fetch, label.buf, pin->sha256, path);
	if (hit) {
		tf_buf_setf(&what, "%s: the cached '%s' (sha256 %s)", where.buf,
			    pin->file, pin->sha256);
		if (hit > 0 && !tf_index_wheel_is(path->buf + start, what.buf,
						  name, version))
			ret = 0;
		goto out;
	}
	if (o->fetch->offline) {
		error("%s: '%s' is not in the cache and --offline given "
		      "(sha256 %s)",
		      label.buf, pin->file, pin->sha256);
		goto out;
	}
	tf_path_join(&tmpdir, o->fetch->cache_dir, "tmp");
	if (tf_mkdir_p(tmpdir.buf) || tf_mkdtemp_temp(tmpdir.buf, "pip", &dir))
		goto out;
	if (run_pip(o, t, label.buf, pin->requirement, pin->sha256, pin->file,
		    dir.buf, &file) ||
	    check_file(t, label.buf, "the index gave", file.buf, name, version))
		goto out;
	if (pin->file && strcmp(file.buf, pin->file)) {
		error("%s: the index gave '%s', but '%s' is pinned (tfbuild "
		      "lock --upgrade picks again)",
		      label.buf, file.buf, pin->file);
		goto out;
	}
	tf_path_join(&got, dir.buf, file.buf);
	tf_buf_setf(&what, "%s: the index's '%s'", where.buf, file.buf);
	if (tf_index_wheel_is(got.buf, what.buf, name, version) ||
	    tf_fetch_adopt(o->fetch, label.buf, got.buf, file.buf, pin->sha256,
			   hex, path))
		goto out;
	if (!pin->sha256) {
		free(pin->file);
		pin->file = tf_strdup(file.buf);
		pin->sha256 = tf_strdup(hex);
	}
	ret = 0;
out:
	if (dir.len) {
		tf_rm_rf(dir.buf);
		tf_signals_temp_forget(dir.buf);
	}
	tf_buf_release(&label);
	tf_buf_release(&tmpdir);
	tf_buf_release(&dir);
	tf_buf_release(&file);
	tf_buf_release(&got);
	tf_buf_release(&where);
	tf_buf_release(&what);
	return ret;
}
