/*
 * The step sandbox: each step runs under bubblewrap (bwrap), started
 * with execve through base/run.c like any tool, its options an argv.
 * What a step sees is written once, here, and in docs/security.md:
 *
 *  - its own network namespace with loopback only, unless the step says
 *    `network: true` or its compiler launcher reaches other machines
 *    (distcc's servers, a remote storage of ccache or sccache:
 *    plan/launcher.h);
 *  - its own PID namespace, and a session of its own; bwrap dies with
 *    tfbuild, and when the step's shell ends the namespace's init takes
 *    everything left with it;
 *  - the whole file system read-only, then: a private /tmp, /run and
 *    $HOME of the user (empty tmpfs, the places of the run found below
 *    them bound back read-only); the download cache's files, the step
 *    store, the signing key and every source tree the step does not
 *    name hidden; its source tree (when it builds in one), its work and
 *    stage directories writable; HOME and TMPDIR fresh and empty;
 *  - only the step's environment: bwrap is started with it alone, so
 *    neither bwrap (the step's parent) nor the step holds tfbuild's.
 */
#include "sandbox.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ui/ui.h"

/* 0: not asked yet; 1: a sandbox can be made; -1: it cannot (said). */
static int probed;
static char *bwrap;

void tf_sandbox_forget(void)
{
	probed = 0;
	free(bwrap);
	bwrap = NULL;
}

static const char fix[] =
	"to build without a sandbox, which lets every step write anywhere "
	"you can and reach the network, give --sandbox=off or "
	"TFBUILD_SANDBOX=off (docs/security.md#the-step-sandbox)";

/* The cause of a probe's failure in bwrap's words, and what to do. */
static void explain_failure(const struct tf_buf *out, struct tf_buf *why)
{
	const char *nl = strchr(out->buf, '\n');
	int len = nl ? (int)(nl - out->buf) : (int)out->len;

	tf_buf_addf(why, ": %.*s", len, out->buf);
	if (strstr(out->buf, "namespace") || strstr(out->buf, "ermission"))
		tf_buf_addstr(
			why,
			" (this machine or container does not allow user "
			"namespaces: allow them with sysctl "
			"kernel.unprivileged_userns_clone=1 or "
			"user.max_user_namespaces, or run the container with "
			"a seccomp profile that permits them)");
}

/*
 * Whether a sandbox can be made here: bwrap ($TFBUILD_BWRAP, or bwrap in
 * the fixed PATH) run once with every namespace a step gets. Asked once
 * per run (the answer is kept until tf_sandbox_forget); 0, or -1 after
 * saying, once, why not and what to do.
 */
static int tf_sandbox_ready(void)
{
	const char *env = getenv("TFBUILD_BWRAP");
	struct tf_run r = TF_RUN_INIT;
	struct tf_buf out = TF_BUF_INIT, why = TF_BUF_INIT, cmd = TF_BUF_INIT;
	int status;

	if (probed)
		return probed > 0 ? 0 : -1;
	probed = -1;
	if (env && *env) {
		if (access(env, X_OK))
			return error("cannot run steps in a sandbox: '%s' "
				     "(TFBUILD_BWRAP) cannot be run: %s; %s",
				     env, strerror(errno), fix);
		bwrap = tf_strdup(env);
	} else if (!(bwrap = tf_run_which("bwrap"))) {
		return error("cannot run steps in a sandbox: bwrap is not "
			     "installed (apt-get install bubblewrap); %s",
			     fix);
	}
	tf_strvec_pushv(&r.argv,
			(const char *const[]){
				bwrap, "--ro-bind", "/", "/", "--dev", "/dev",
				"--proc", "/proc", "--tmpfs", "/tmp",
				"--unshare-all", "--die-with-parent",
				"--new-session", "true", NULL });
	tf_strvec_pushf(&r.env, "PATH=%s", tf_run_path);
	r.clean_env = 1;
	status = tf_run_capture(&r, &out, 4096);
	if (status) {
		tf_run_describe_status(status, &why);
		if (out.len)
			explain_failure(&out, &why);
		tf_run_quote_argv(&r.argv, &cmd);
		error("cannot run steps in a sandbox: `%s` failed with %s; %s",
		      cmd.buf, why.buf, fix);
	} else {
		probed = 1;
		verbose("steps run in a sandbox (%s)", bwrap);
	}
	tf_run_release(&r);
	tf_buf_release(&out);
	tf_buf_release(&why);
	tf_buf_release(&cmd);
	return probed > 0 ? 0 : -1;
}

/* 1 if path is dir or below it. */
static int is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return path && !strncmp(path, dir, n) &&
	       (path[n] == '/' || path[n] == '\0');
}

static void opt2(struct tf_strvec *a, const char *opt, const char *src,
		 const char *dst)
{
	tf_strvec_push(a, opt);
	tf_strvec_push(a, src);
	if (dst)
		tf_strvec_push(a, dst);
}

/* Bind dir onto itself (read-only unless rw) if it is a directory. */
static void bind(struct tf_strvec *a, const char *dir, int rw)
{
	if (dir && *dir == '/' && tf_path_is_dir(dir))
		opt2(a, rw ? "--bind" : "--ro-bind", dir, dir);
}

/* The value of NAME in env, or NULL. */
static const char *env_get(const struct tf_strvec *env, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < env->nr; i++)
		if (!strncmp(env->v[i], name, n) && env->v[i][n] == '=')
			return env->v[i] + n + 1;
	return NULL;
}

/*
 * The places a step reads that may lie below a directory it gets empty
 * (/tmp, the user's HOME): the build tree, the recipe's directory and
 * the one above (`path:` sources, patches and tools beside it), the
 * cache (target roots), the toolchain's files. A place that is the
 * emptied directory itself, or holds it, is not given back
 * (empty_dir): a recipe in ~/proj does not bring back all of HOME.
 */
static void run_places(const struct tf_plan *p, const char *cache_dir,
		       struct tf_strvec *out)
{
	const struct tf_target *t = &p->target;
	const char *tools[] = { t->cc, t->cxx, t->python, t->python_include,
				t->emulator_prefix };
	struct tf_buf b = TF_BUF_INIT;
	size_t i;

	tf_strvec_push(out, p->dir);
	tf_strvec_push(out, p->recipe->dir);
	tf_path_dirname(&b, p->recipe->dir);
	tf_strvec_push(out, b.buf);
	if (cache_dir)
		tf_strvec_push(out, cache_dir);
	if (p->sysroot)
		tf_strvec_push(out, p->sysroot);
	for (i = 0; i < sizeof(tools) / sizeof(*tools); i++) {
		if (!tools[i] || *tools[i] != '/')
			continue;
		if (tf_path_is_dir(tools[i]))
			tf_strvec_push(out, tools[i]);
		else {
			tf_path_dirname(&b, tools[i]);
			tf_strvec_push(out, b.buf);
		}
	}
	tf_buf_release(&b);
}

/* 1 if place is strictly below dir: giving it back keeps dir empty. */
static int below(const char *place, const char *dir)
{
	return is_under(place, dir) && !is_under(dir, place);
}

/*
 * Give the step dir empty, then the run's places strictly below it
 * back, read-only; a place inside another one given back is not bound
 * twice.
 */
static void empty_dir(struct tf_strvec *a, const char *dir,
		      const struct tf_strvec *places)
{
	size_t i, j;

	if (!dir || *dir != '/' || !strcmp(dir, "/") || !tf_path_is_dir(dir))
		return;
	opt2(a, "--tmpfs", dir, NULL);
	for (i = 0; i < places->nr; i++) {
		if (!below(places->v[i], dir))
			continue;
		for (j = 0; j < places->nr; j++)
			if (below(places->v[j], dir) &&
			    is_under(places->v[i], places->v[j]) &&
			    (!is_under(places->v[j], places->v[i]) || j < i))
				break;
		if (j == places->nr)
			bind(a, places->v[i], 0);
	}
}

/* 1 if ps's sandbox keeps the network: `network: true`, or a launcher
 * that reaches other machines (distcc, ccache's or sccache's remote
 * storage: tf_launcher.network). */
static int tf_sandbox_network(const struct tf_plan *p,
			      const struct tf_plan_step *ps)
{
	return ps->def->network || (p->launcher && p->launcher->network);
}

/* The argv that runs cmd for step ps of p in its sandbox, into a. */
static void sandbox_argv(const struct tf_plan *p, const struct tf_plan_step *ps,
			 const char *cache_dir, const char *signing_key,
			 const struct tf_strvec *env, const char *const *cmd,
			 struct tf_strvec *a)
{
	static const char *const caches[] = { "CCACHE_DIR", "SCCACHE_DIR" };
	const char *home = getenv("HOME"), *build = env_get(env, "BUILDDIR");
	struct tf_strvec places = TF_STRVEC_INIT;
	struct tf_buf b = TF_BUF_INIT;
	int network = tf_sandbox_network(p, ps);
	char *key = NULL;
	size_t i;

	tf_strvec_pushv(a, (const char *const[]){ bwrap, "--die-with-parent",
						  "--new-session",
						  "--unshare-all", NULL });
	if (network)
		tf_strvec_push(a, "--share-net");
	tf_strvec_pushv(a, (const char *const[]){ "--ro-bind", "/", "/",
						  "--dev", "/dev", "--proc",
						  "/proc", NULL });
	run_places(p, cache_dir, &places);
	empty_dir(a, "/tmp", &places);
	empty_dir(a, "/run", &places);
	if (network) /* where /etc/resolv.conf may point */
		bind(a, "/run/systemd/resolve", 0);
	empty_dir(a, home, &places);
	/* The downloads and step outputs other runs trust, the key that
	 * signs them: no step reads them, none may change them. */
	for (i = 0; cache_dir && i < 3; i++) {
		tf_buf_setf(&b, "%s/%s", cache_dir,
			    (const char *[]){ "sha256", "store", "tmp" }[i]);
		if (tf_path_is_dir(b.buf))
			opt2(a, "--tmpfs", b.buf, NULL);
	}
	/* Where it really is: bwrap resolves a relative name against the
	 * sandbox's root, not against tfbuild's directory. */
	if (signing_key && (key = realpath(signing_key, NULL)))
		opt2(a, "--ro-bind", "/dev/null", key);
	/* Source trees: the ones the step names, read-only; its own, to
	 * build in; the others are not there. */
	tf_buf_setf(&b, "%s/src", p->dir);
	if (tf_path_is_dir(b.buf))
		opt2(a, "--tmpfs", b.buf, NULL);
	for (i = 0; i < ps->nr_reads; i++)
		if ((int)ps->reads[i] != ps->def->source_index)
			bind(a, p->sources[ps->reads[i]].dir, 0);
	if (ps->def->source_index >= 0)
		bind(a, p->sources[ps->def->source_index].dir, 1);
	/* `baseline: COMMAND`: where its test ran (else bound below) */
	if (strcmp(ps->cwd, ps->work) &&
	    (ps->def->source_index < 0 ||
	     strcmp(ps->cwd, p->sources[ps->def->source_index].dir)))
		bind(a, ps->cwd, 1);
	if (build && strcmp(build, ps->work))
		bind(a, build, 1);
	bind(a, ps->work, 1);
	bind(a, ps->stage, 1);
	/* HOME and TMPDIR: empty, the step's own. */
	tf_buf_setf(&b, "%s/home", p->dir);
	opt2(a, "--tmpfs", b.buf, NULL);
	tf_buf_setf(&b, "%s/tmp", p->dir);
	opt2(a, "--tmpfs", b.buf, NULL);
	/* A compiler launcher's cache is shared by every step. */
	for (i = 0; i < sizeof(caches) / sizeof(*caches); i++) {
		const char *dir = env_get(env, caches[i]);

		if (dir && *dir == '/' && !tf_mkdir_p(dir))
			bind(a, dir, 1);
	}
	opt2(a, "--chdir", ps->cwd, NULL);
	tf_strvec_push(a, "--");
	tf_strvec_pushv(a, cmd);
	tf_strvec_release(&places);
	tf_buf_release(&b);
	free(key);
}

int tf_sandbox_command(const struct tf_plan *p, struct tf_plan_step *ps,
		       int off, const char *cache_dir, const char *signing_key,
		       int *said, const struct tf_strvec *env,
		       struct tf_strvec *argv)
{
	/* In the sandbox, the step's PATH (host-tools) need not hold sh. */
	const char *const sh[] = {
		off ? "sh" : "/bin/sh", "-e", "-c", ps->script,
		ps->def->name.s,        NULL
	};
	/* As GitHub Actions' `shell: bash`: a pipe fails as its first
	 * failing command does (docs/recipe.md#pipes); host-tools has bash. */
	const char *const bash[] = { "bash", "--noprofile", "--norc",
				     "-e",   "-o",          "pipefail",
				     "-c",   ps->script,    ps->def->name.s,
				     NULL };
	const char *const *cmd =
		ps->def->shell_kind == TF_SHELL_BASH ? bash : sh;

	if (!off && tf_sandbox_ready())
		return -1;
	if (!*said) {
		*said = 1;
		if (off)
			warning("steps run without a sandbox (--sandbox=off): "
				"each can write wherever you can, read "
				"tfbuild's environment and reach the network");
		if (tf_ui_json())
			tf_ui_event("sandbox", "{s:s}", "sandbox",
				    off ? "off" : "bubblewrap");
	}
	ps->sandbox = off ? -1 : 1;
	if (off) {
		tf_strvec_pushv(argv, cmd);
		return 0;
	}
	if (tf_sandbox_network(p, ps)) {
		ps->sandbox = 2;
		if (ps->def->network)
			info("%s '%s' for %s has the network (network: true at %s:%d:%d)",
			     ps->def->is_test ? "test" : "step",
			     ps->def->name.s, p->target.name,
			     ps->def->network_pos.file,
			     ps->def->network_pos.line,
			     ps->def->network_pos.col);
		else
			info("%s '%s' for %s has the network (%s)",
			     ps->def->is_test ? "test" : "step",
			     ps->def->name.s, p->target.name,
			     p->launcher->network);
		if (tf_ui_json())
			tf_ui_event("step-network", "{s:s, s:s}", "target",
				    p->target.name, "step", ps->def->name.s);
	}
	sandbox_argv(p, ps, cache_dir, signing_key, env, cmd, argv);
	return 0;
}
