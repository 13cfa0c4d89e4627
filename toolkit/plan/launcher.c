/*
 * Compiler launchers (launcher.h). The wrappers are rewritten only when
 * their text changes; their text, like the launcher itself, is not part
 * of any step's stamp.
 */
#include "launcher.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "plan.h"
#include "recipe/recipe.h"
#include "env/env.h"
#include "internal.h"

extern char **environ;

/* The last `launcher` the target's toolchains (recipe, then file) name. */
static const char *toolchain_launcher(const struct tf_recipe *r,
				      const char *target)
{
	const char *name = NULL;
	size_t i;

	for (i = 0; i < r->nr_toolchains; i++)
		if (!strcmp(r->toolchains[i].target.s, target) &&
		    r->toolchains[i].launcher.s)
			name = r->toolchains[i].launcher.s;
	return name;
}

char *tf_launcher_base_dir(const char *a, const char *b)
{
	size_t i, last = 0;

	for (i = 0; a[i] && a[i] == b[i]; i++)
		if (a[i] == '/')
			last = i;
	if ((!a[i] || a[i] == '/') && (!b[i] || b[i] == '/'))
		last = i;
	return last > 1 ? tf_strndup(a, last) : NULL;
}

/*
 * sccache's variables that keep its cache on this machine's disk or set
 * up its local server; any other (SCCACHE_REDIS_ENDPOINT, SCCACHE_BUCKET,
 * SCCACHE_WEBDAV_ENDPOINT, SCCACHE_CONF, ...) may name a remote one.
 */
static const char *const sccache_local[] = {
	"SCCACHE_DIR",          "SCCACHE_CACHE_SIZE",
	"SCCACHE_IDLE_TIMEOUT", "SCCACHE_LOG",
	"SCCACHE_ERROR_LOG",    "SCCACHE_NO_DAEMON",
	"SCCACHE_SERVER_PORT",  "SCCACHE_DIRECT",
	"SCCACHE_RECACHE",      NULL
};

static char *sccache_network(void)
{
	size_t i, j, n;

	for (i = 0; environ[i]; i++) {
		if (strncmp(environ[i], "SCCACHE_", 8) ||
		    !strchr(environ[i], '='))
			continue;
		n = strcspn(environ[i], "=");
		for (j = 0; sccache_local[j]; j++)
			if (strlen(sccache_local[j]) == n &&
			    !strncmp(environ[i], sccache_local[j], n))
				break;
		if (!sccache_local[j])
			return tf_xstrfmt(
				"sccache's remote storage: %.*s is set", (int)n,
				environ[i]);
	}
	return NULL;
}

/*
 * ccache's remote_storage as the steps' ccache sees it (the caller's
 * CCACHE_* variables, $CCACHE_DIR/ccache.conf, the system's file): its
 * own answer, not a reading of its configuration. An old ccache that
 * does not know the question is judged by CCACHE_REMOTE_STORAGE and
 * CCACHE_SECONDARY_STORAGE.
 */
static char *ccache_network(const struct tf_plan *p)
{
	static const char *const vars[] = { "CCACHE_REMOTE_STORAGE",
					    "CCACHE_SECONDARY_STORAGE" };
	struct tf_run r = TF_RUN_INIT;
	struct tf_buf out = TF_BUF_INIT;
	char *why = NULL;
	size_t i;

	tf_strvec_pushv(&r.argv, (const char *const[]){
					 p->launcher->path, "--get-config",
					 "remote_storage", NULL });
	tf_strvec_pushf(&r.env, "PATH=%s", tf_run_path);
	tf_launcher_env(p, &r.env);
	r.clean_env = 1;
	if (!tf_run_capture(&r, &out, 4096)) {
		if (out.buf[strspn(out.buf, " \t\n")])
			why = tf_strdup(
				"ccache's remote storage: remote_storage is set");
	} else {
		for (i = 0; !why && i < sizeof(vars) / sizeof(*vars); i++)
			if (getenv(vars[i]) && *getenv(vars[i]))
				why = tf_xstrfmt(
					"ccache's remote storage: %s is set",
					vars[i]);
	}
	tf_run_release(&r);
	tf_buf_release(&out);
	return why;
}

/*
 * The cache directory of p's ccache or sccache: the caller's ($CCACHE_DIR
 * or $SCCACHE_DIR, else the tool's default below XDG_CACHE_HOME or
 * HOME, which steps do not see), then tfbuild/RECIPE-TARGET-HASH, HASH
 * of the recipe's directory: another recipe of the same name elsewhere
 * gets its own.
 */
static char *launcher_cache(const struct tf_plan *p, const char *tool,
			    const char *var)
{
	const char *dir = getenv(var), *xdg = getenv("XDG_CACHE_HOME"),
		   *home = getenv("HOME");
	unsigned char md[TF_SHA256_LEN];
	char hex[2 * TF_SHA256_LEN + 1];
	char *base, *out;

	if (dir && *dir == '/')
		base = tf_strdup(dir);
	else if (xdg && *xdg == '/')
		base = tf_xstrfmt("%s/%s", xdg, tool);
	else
		base = tf_xstrfmt("%s/.cache/%s",
				  home && *home == '/' ? home : "/tmp", tool);
	tf_sha256_buf(p->recipe->dir, strlen(p->recipe->dir), md);
	tf_sha256_hex(md, hex);
	out = tf_xstrfmt("%s/tfbuild/%s-%s-%.16s", base, p->recipe->name.s,
			 p->target.name, hex);
	free(base);
	return out;
}

int tf_launcher_plan(struct tf_plan *p, const char *cli,
		     const char *distcc_hosts, int check)
{
	const char *name =
		cli ? cli : toolchain_launcher(p->recipe, p->target.name);
	struct tf_launcher *l;
	const struct tf_launcher_kind *k;

	p->launcher = NULL;
	if (!name || !strcmp(name, "none"))
		return 0;
	k = tf_launcher_kind(name);
	if (!k)
		BUG("launcher '%s' was not checked", name);
	l = tf_calloc(1, sizeof(*l));
	l->name = k->name;
	l->path = check ? tf_run_which(name) : tf_strdup("");
	l->dir = tf_xstrfmt("%s/launcher", p->tools_dir);
	l->distcc_hosts = distcc_hosts ? tf_strdup(distcc_hosts) : NULL;
	l->base_dir = tf_launcher_base_dir(p->dir, p->recipe->dir);
	if (!strcmp(l->name, "ccache"))
		l->cache = launcher_cache(p, "ccache", "CCACHE_DIR");
	else if (!strcmp(l->name, "sccache"))
		l->cache = launcher_cache(p, "sccache", "SCCACHE_DIR");
	p->launcher = l;
	if (!l->path)
		return error("target '%s': launcher '%s' not found in %s; %s",
			     p->target.name, name, tf_run_path, k->install);
	if (!strcmp(l->name, "distcc"))
		l->network =
			tf_strdup("the distcc launcher reaches its servers");
	else if (check && !strcmp(l->name, "ccache"))
		l->network = ccache_network(p);
	else if (check && !strcmp(l->name, "sccache"))
		l->network = sccache_network();
	return 0;
}

static int write_wrapper(struct tf_plan *p, const struct tf_launcher *l,
			 const char *compiler)
{
	char *real = tf_run_which(compiler);
	struct tf_buf path = TF_BUF_INIT, text = TF_BUF_INIT;
	int ret;

	if (!real) /* tf_target_setup has named what to install */
		return 0;
	tf_buf_addf(&text,
		    "#!/bin/sh\n# %s through %s, written by tfbuild.\nexec ",
		    tf_path_basename(compiler), l->name);
	tf_run_quote_word(&text, l->path);
	tf_buf_addch(&text, ' ');
	tf_run_quote_word(&text, real);
	tf_buf_addstr(&text, " \"$@\"\n");
	tf_path_join(&path, l->dir, tf_path_basename(compiler));
	tf_plan_write_later(p, path.buf, text.buf, text.len, 0755);
	ret = 0;
	free(real);
	tf_buf_release(&path);
	tf_buf_release(&text);
	return ret;
}

int tf_launcher_list(struct tf_plan *p)
{
	const struct tf_launcher *l = p->launcher;

	if (!l)
		return 0;
	if (write_wrapper(p, l, p->target.cc) ||
	    write_wrapper(p, l, p->target.cxx))
		return -1;
	return 0;
}

/* Set NAME=VALUE in env, replacing an earlier NAME. Takes entry. */
static void env_set(struct tf_strvec *env, char *entry)
{
	size_t i, n = strcspn(entry, "=") + 1;

	for (i = 0; i < env->nr; i++)
		if (!strncmp(env->v[i], entry, n)) {
			free(env->v[i]);
			env->v[i] = entry;
			return;
		}
	tf_strvec_push_take(env, entry);
}

static const char *env_get(const struct tf_strvec *env, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < env->nr; i++)
		if (!strncmp(env->v[i], name, n) && env->v[i][n] == '=')
			return env->v[i] + n + 1;
	return NULL;
}

/* Settings that keep ccache's results shareable across checkouts. */
static void ccache_env(const struct tf_launcher *l, struct tf_strvec *env)
{
	if (l->base_dir)
		env_set(env, tf_xstrfmt("CCACHE_BASEDIR=%s", l->base_dir));
	/* Prefix maps keep the directory out of the objects (make.c). */
	env_set(env, tf_strdup("CCACHE_NOHASHDIR=1"));
	env_set(env, tf_strdup("CCACHE_COMPILERCHECK=content"));
	/* Sources are extracted and patched just before they build. */
	env_set(env,
		tf_strdup(
			"CCACHE_SLOPPINESS=include_file_mtime,include_file_ctime"));
}

void tf_launcher_env(const struct tf_plan *p, struct tf_strvec *env)
{
	const struct tf_launcher *l = p->launcher;
	const char *path, *prefix;
	size_t i, n;

	if (!l)
		return;
	path = env_get(env, "PATH");
	env_set(env, tf_xstrfmt("PATH=%s%s%s", l->dir, path ? ":" : "",
				path ? path : ""));
	if (!strcmp(l->name, "ccache"))
		ccache_env(l, env);
	prefix = tf_launcher_kind(l->name)->prefix;
	n = strlen(prefix);
	for (i = 0; environ[i]; i++)
		if (!strncmp(environ[i], prefix, n) && strchr(environ[i], '='))
			env_set(env, tf_strdup(environ[i]));
	/* After the caller's: its CCACHE_DIR is where this one lies. */
	if (l->cache)
		env_set(env,
			tf_xstrfmt("%s=%s",
				   strcmp(l->name, "ccache") ? "SCCACHE_DIR"
							     : "CCACHE_DIR",
				   l->cache));
	if (l->distcc_hosts)
		env_set(env, tf_xstrfmt("DISTCC_HOSTS=%s", l->distcc_hosts));
	/* A compiler named by path is not found through PATH. */
	if (strchr(p->target.cc, '/'))
		env_set(env, tf_xstrfmt("CC=%s/%s", l->dir,
					tf_path_basename(p->target.cc)));
	if (strchr(p->target.cxx, '/'))
		env_set(env, tf_xstrfmt("CXX=%s/%s", l->dir,
					tf_path_basename(p->target.cxx)));
}

void tf_launcher_free(struct tf_launcher *l)
{
	if (!l)
		return;
	free(l->path);
	free(l->dir);
	free(l->distcc_hosts);
	free(l->base_dir);
	free(l->cache);
	free(l->network);
	free(l);
}
