/*
 * The cache's settings outside any recipe: a small config file of
 * "name = value" lines ('#' comments), then the environment over it.
 * Recipes never name a cache: where outputs are shared, and whom to
 * trust, is the machine's business, not the project's.
 */
#include "cache.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

static int parse_bool(const char *v, int *out)
{
	if (!strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes") ||
	    !strcmp(v, "on"))
		*out = 1;
	else if (!strcmp(v, "0") || !strcmp(v, "false") || !strcmp(v, "no") ||
		 !strcmp(v, "off"))
		*out = 0;
	else
		return -1;
	return 0;
}

static int parse_timeout(const char *v, long *out)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (end == v || *end || n < 1 || n > 3600)
		return -1;
	*out = n;
	return 0;
}

/* Apply one setting; where says where it came from, for messages. */
static int set(struct tf_cache_opts *o, struct tf_strvec *keep,
	       const char *name, const char *v, const char *where)
{
	if (!strcmp(name, "remote-cache")) {
		tf_strvec_push(keep, v);
		o->remote = *v ? keep->v[keep->nr - 1] : NULL;
	} else if (!strcmp(name, "trust")) {
		tf_strvec_push(keep, v);
		o->trust = keep->v[keep->nr - 1];
	} else if (!strcmp(name, "signing-key")) {
		tf_strvec_push(keep, v);
		o->signing_key = keep->v[keep->nr - 1];
	} else if (!strcmp(name, "remote-cache-upload")) {
		if (parse_bool(v, &o->upload))
			return error(
				"%s: remote-cache-upload wants true or false, not '%s'",
				where, v);
	} else if (!strcmp(name, "store")) {
		if (parse_bool(v, &o->store))
			return error("%s: store wants true or false, not '%s'",
				     where, v);
	} else if (!strcmp(name, "remote-cache-timeout")) {
		if (parse_timeout(v, &o->timeout))
			return error(
				"%s: remote-cache-timeout wants seconds from 1 to 3600, not '%s'",
				where, v);
	} else {
		return error(
			"%s: unknown setting '%s' (valid: remote-cache, "
			"remote-cache-upload, remote-cache-timeout, trust, "
			"signing-key, store)",
			where, name);
	}
	return 0;
}

static int read_file(struct tf_cache_opts *o, struct tf_strvec *keep,
		     const char *path)
{
	struct tf_buf text = TF_BUF_INIT, where = TF_BUF_INIT;
	char *line, *next;
	int lineno = 0, ret = 0;

	text.cap = 1 << 20;
	if (!tf_path_exists(path))
		return 0;
	if (tf_read_file(path, &text))
		return -1;
	for (line = text.buf; line && !ret; line = next) {
		char *eq, *name;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		line = tf_str_trim(line);
		if (!*line || *line == '#')
			continue;
		tf_buf_reset(&where);
		tf_buf_addf(&where, "%s:%d", path, lineno);
		eq = strchr(line, '=');
		if (!eq) {
			ret = error("%s: expected 'name = value'", where.buf);
			break;
		}
		*eq = '\0';
		name = tf_str_trim(line);
		ret = set(o, keep, name, tf_str_trim(eq + 1), where.buf);
	}
	tf_buf_release(&text);
	tf_buf_release(&where);
	return ret;
}

int tf_cache_config(struct tf_cache_opts *o, struct tf_strvec *keep)
{
	static const char *const env[][2] = {
		{ "TFBUILD_REMOTE_CACHE", "remote-cache" },
		{ "TFBUILD_REMOTE_CACHE_UPLOAD", "remote-cache-upload" },
		{ "TFBUILD_REMOTE_CACHE_TIMEOUT", "remote-cache-timeout" },
		{ "TFBUILD_TRUST", "trust" },
		{ "TFBUILD_SIGNING_KEY", "signing-key" },
		{ "TFBUILD_STORE", "store" },
	};
	const char *file = getenv("TFBUILD_CONFIG"),
		   *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char *path;
	size_t i;
	int ret;

	if (file && *file)
		path = tf_strdup(file);
	else if (xdg && *xdg == '/')
		path = tf_xstrfmt("%s/tfbuild/config", xdg);
	else
		path = tf_xstrfmt("%s/.config/tfbuild/config",
				  home && *home ? home : "/");
	ret = read_file(o, keep, path);
	free(path);
	for (i = 0; !ret && i < sizeof(env) / sizeof(env[0]); i++) {
		const char *v = getenv(env[i][0]);

		if (v)
			ret = set(o, keep, env[i][1], v, env[i][0]);
	}
	return ret;
}
