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
 *  - no capability, root's included, and (where the kernel allows it) a
 *    user namespace of its own in which it is nobody and can make none;
 *  - a minimal root (sandbox_root.c): /usr and the parts of /etc a
 *    toolchain reads, the run's places read-only, a private /tmp, /run
 *    and $HOME of the user (tmpfs of bounded size); the download
 *    cache's files, the step store and every source tree the step does
 *    not name hidden; its source tree (when it builds in one), its work
 *    and stage directories writable; HOME and TMPDIR fresh and empty;
 *    the keys and credentials files hidden wherever they are;
 *  - only the step's environment: bwrap is started with it alone, so
 *    neither bwrap (the step's parent) nor the step holds tfbuild's.
 */
#include "sandbox.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recipe/recipe.h"
#include "sandbox_root.h"
#include "ui/ui.h"
#include "base/base.h"
#include "plan/plan.h"

/* 0: not asked yet; 1: a sandbox can be made; -1: it cannot (said). */
static int probed;
static char *bwrap;
/* A prepared /etc of the run (tf_sandbox_etc), for the steps with the
 * same network and the same `sandbox.read` paths in /etc, and the
 * system's part of their root around it (tf_sandbox_system): both made
 * once a run, not once a step (docs/performance.md). */
struct made_etc {
	char *key;               /* network, then each mount point */
	char *dir;               /* the copy */
	struct tf_strvec binds;  /* what is bound over it */
	struct tf_strvec system; /* bwrap's options for /usr ... /run */
};
static struct made_etc *made;
static size_t nr_made;
static char *etc_cache; /* the cache they are in */

static void forget_etc(void)
{
	size_t i;

	for (i = 0; i < nr_made; i++) {
		free(made[i].key);
		free(made[i].dir);
		tf_strvec_release(&made[i].binds);
		tf_strvec_release(&made[i].system);
	}
	free(made);
	made = NULL;
	nr_made = 0;
}

void tf_sandbox_forget(void)
{
	probed = 0;
	free(bwrap);
	bwrap = NULL;
	free(etc_cache);
	etc_cache = NULL;
	forget_etc();
}

/* The names below /etc that ps's `sandbox.read` binds, into out. */
static void etc_mounts(const struct tf_plan_step *ps, struct tf_strvec *out)
{
	size_t i;

	for (i = 0; i < ps->nr_extra_reads; i++) {
		char *real = realpath(ps->extra_reads[i].path, NULL);

		if (real && !strncmp(real, "/etc/", 5))
			tf_strvec_push(out, real + 5);
		free(real);
	}
}

/*
 * tf_sandbox_etc, its copy then held for this run (tf_lock_use, which
 * also moves its clock), so that `tfbuild cache gc` leaves it alone
 * while steps may bind it; made again should a gc remove it in between,
 * three times at most. 0, or -1 (said).
 */
static int held_etc(const struct tf_sandbox_etc_in *in, struct tf_buf *dir,
		    struct tf_strvec *binds)
{
	int tries, held = 0;

	for (tries = 0; !held && tries < 3; tries++) {
		tf_strvec_release(binds);
		if (tf_sandbox_etc(in, dir, binds) ||
		    (held = tf_lock_use(dir->buf, NULL)) < 0)
			return -1;
	}
	if (!held)
		return error("cannot prepare the steps' /etc: '%s' was "
			     "removed each time it was made (by tfbuild "
			     "cache gc?)",
			     dir->buf);
	return 0;
}

/* The /etc for step ps, with or without the network, made once a run
 * for its key; NULL (said) when it cannot be made. */
static const struct made_etc *step_etc(const char *cache_dir,
				       const char *const *keys, size_t nr_keys,
				       const struct tf_plan_step *ps,
				       int network)
{
	struct tf_strvec secrets = TF_STRVEC_INIT, mounts = TF_STRVEC_INIT;
	struct tf_buf key = TF_BUF_INIT, dir = TF_BUF_INIT;
	struct made_etc *m = NULL;
	size_t i;

	if (!etc_cache || strcmp(etc_cache, cache_dir)) {
		forget_etc();
		free(etc_cache);
		etc_cache = tf_strdup(cache_dir);
	}
	etc_mounts(ps, &mounts);
	tf_buf_addf(&key, "%d", network);
	for (i = 0; i < mounts.nr; i++)
		tf_buf_addf(&key, "\n%s", mounts.v[i]);
	for (i = 0; i < nr_made && !m; i++)
		if (!strcmp(made[i].key, key.buf))
			m = &made[i];
	if (!m) {
		struct made_etc new = { .binds = TF_STRVEC_INIT,
					.system = TF_STRVEC_INIT };
		struct tf_sandbox_etc_in in = { .root = "/etc",
						.dir = cache_dir,
						.network = network,
						.secrets = &secrets,
						.mounts = &mounts };

		tf_sandbox_secrets(keys, nr_keys, &secrets);
		if (!held_etc(&in, &dir, &new.binds)) {
			new.key = tf_buf_detach(&key);
			new.dir = tf_buf_detach(&dir);
			tf_sandbox_system(&new.system, new.dir, &new.binds,
					  network);
			made = tf_realloc(made, (nr_made + 1) * sizeof(*made));
			made[nr_made] = new;
			m = &made[nr_made++];
		} else {
			tf_strvec_release(&new.binds);
		}
	}
	tf_strvec_release(&secrets);
	tf_strvec_release(&mounts);
	tf_buf_release(&key);
	tf_buf_release(&dir);
	return m;
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

/* The options every step's bwrap gets, the probe's too: its own
 * namespaces, no capability (root's included), and, with userns, a
 * user namespace of its own in which it is nobody and can make none. */
static void isolation(struct tf_strvec *a, int with_userns)
{
	tf_strvec_pushv(a,
			(const char *const[]){ "--die-with-parent",
					       "--new-session", "--unshare-all",
					       "--cap-drop", "ALL", NULL });
	if (with_userns)
		tf_strvec_pushv(
			a, (const char *const[]){ "--unshare-user", "--uid",
						  "65534", "--gid", "65534",
						  "--disable-userns", NULL });
}

/* Run bwrap once as a step would run; 0, or the status with why and
 * the command filled in. */
static int probe(int with_userns, struct tf_buf *why, struct tf_buf *cmd)
{
	struct tf_run r = TF_RUN_INIT;
	struct tf_buf out = TF_BUF_INIT;
	int status;

	tf_strvec_push(&r.argv, bwrap);
	isolation(&r.argv, with_userns);
	tf_strvec_pushv(&r.argv,
			(const char *const[]){ "--ro-bind", "/", "/", NULL });
	tf_sandbox_dev(&r.argv); /* as a step's: its binds are tried too */
	tf_strvec_pushv(&r.argv, (const char *const[]){
					 "--proc", "/proc", "--size", "1048576",
					 "--tmpfs", "/tmp", "--remount-ro", "/",
					 "true", NULL });
	tf_strvec_pushf(&r.env, "PATH=%s", tf_run_path);
	r.clean_env = 1;
	status = tf_run_capture(&r, &out, 4096);
	if (status) {
		tf_buf_reset(why);
		tf_buf_reset(cmd);
		tf_run_describe_status(status, why);
		if (out.len)
			explain_failure(&out, why);
		tf_run_quote_argv(&r.argv, cmd);
	}
	tf_run_release(&r);
	tf_buf_release(&out);
	return status;
}

/* 1 when steps get a user namespace of their own (the kernel lets
 * bwrap make one), 0 when they run without (root in a container that
 * forbids them: capabilities are still dropped). */
static int userns;

/*
 * Whether a sandbox can be made here: bwrap ($TFBUILD_BWRAP, or bwrap in
 * the fixed PATH) run once with every namespace a step gets. Asked once
 * per run (the answer is kept until tf_sandbox_forget); 0, or -1 after
 * saying, once, why not and what to do.
 */
static int tf_sandbox_ready(void)
{
	const char *env = getenv("TFBUILD_BWRAP");
	struct tf_buf why = TF_BUF_INIT, cmd = TF_BUF_INIT;

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
	if (!probe(1, &why, &cmd)) {
		probed = userns = 1;
	} else if (!probe(0, &why, &cmd)) {
		probed = 1;
		userns = 0;
		verbose("steps run without a user namespace of their own "
			"(bwrap could not make one); they still hold no "
			"capability");
	} else {
		error("cannot run steps in a sandbox: `%s` failed with %s; %s",
		      cmd.buf, why.buf, fix);
	}
	if (probed > 0)
		verbose("steps run in a sandbox (%s)", bwrap);
	tf_buf_release(&why);
	tf_buf_release(&cmd);
	return probed > 0 ? 0 : -1;
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

/* 1 if ps's sandbox keeps the network: `network: true`, or a launcher
 * that reaches other machines (distcc, ccache's or sccache's remote
 * storage: tf_launcher.network). */
static int tf_sandbox_network(const struct tf_plan *p,
			      const struct tf_plan_step *ps)
{
	return ps->def->network || (p->launcher && p->launcher->network);
}

/*
 * The step's own places, after the root's: the source trees it names
 * read-only, its own (to build in), its work and stage writable, an
 * empty HOME and TMPDIR; the cache's trusted parts and the other
 * source trees hidden.
 */
static void step_places(const struct tf_plan *p, const struct tf_plan_step *ps,
			const char *cache_dir, const struct tf_strvec *env,
			struct tf_strvec *a)
{
	const char *build = env_get(env, "BUILDDIR");
	struct tf_buf b = TF_BUF_INIT;
	size_t i;

	/* The downloads and step outputs other runs trust, the key that
	 * signs them: no step reads them, none may change them. The
	 * cache's own entries leave them out; a place above the cache (a
	 * recipe's directory holding it) would show them. */
	for (i = 0; cache_dir && i < 3; i++) {
		tf_buf_setf(&b, "%s/%s", cache_dir,
			    (const char *[]){ "sha256", "store", "tmp" }[i]);
		tf_sandbox_hide(a, b.buf, TF_SANDBOX_MASK_SIZE);
	}
	tf_buf_setf(&b, "%s/src", p->dir);
	tf_sandbox_hide(a, b.buf, TF_SANDBOX_MASK_SIZE);
	for (i = 0; i < ps->nr_reads; i++)
		if ((int)ps->reads[i] != ps->def->source_index)
			tf_sandbox_bind(a, p->sources[ps->reads[i]].dir, 0);
	if (ps->def->source_index >= 0)
		tf_sandbox_bind(a, p->sources[ps->def->source_index].dir, 1);
	/* `baseline: COMMAND`: where its test ran (else bound below) */
	if (strcmp(ps->cwd, ps->work) &&
	    (ps->def->source_index < 0 ||
	     strcmp(ps->cwd, p->sources[ps->def->source_index].dir)))
		tf_sandbox_bind(a, ps->cwd, 1);
	if (build && strcmp(build, ps->work))
		tf_sandbox_bind(a, build, 1);
	tf_sandbox_bind(a, ps->work, 1);
	tf_sandbox_bind(a, ps->stage, 1);
	tf_buf_setf(&b, "%s/home", p->dir);
	tf_sandbox_tmpfs(a, b.buf, TF_SANDBOX_TMP_SIZE);
	tf_buf_setf(&b, "%s/tmp", p->dir);
	tf_sandbox_tmpfs(a, b.buf, TF_SANDBOX_TMP_SIZE);
	/* The launcher's cache: this recipe's and target's own, never a
	 * directory the step's environment names (plan/launcher.h). */
	if (p->launcher && p->launcher->cache &&
	    !tf_mkdir_p(p->launcher->cache))
		tf_sandbox_bind(a, p->launcher->cache, 1);
	/* zig's cache (macos-arm64): what it builds once, for every tree. */
	if (p->zig_cache && !tf_mkdir_p(p->zig_cache))
		tf_sandbox_bind(a, p->zig_cache, 1);
	tf_buf_release(&b);
}

/* The argv that runs cmd for step ps of p in its sandbox, into a; 0, or
 * -1 (said) when its /etc cannot be made. */
static int sandbox_argv(const struct tf_plan *p, const struct tf_plan_step *ps,
			const char *cache_dir, const char *const *keys,
			size_t nr_keys, const struct tf_strvec *env,
			const char *const *cmd, struct tf_strvec *a)
{
	struct tf_strvec places = TF_STRVEC_INIT;
	int network = tf_sandbox_network(p, ps);
	/* in the cache, reused by every run; else in the build tree */
	const struct made_etc *etc = step_etc(cache_dir ? cache_dir : p->dir,
					      keys, nr_keys, ps, network);
	size_t i;

	if (!etc)
		return -1;
	tf_strvec_push(a, bwrap);
	isolation(a, userns);
	/* after --cap-drop ALL; in its own user namespace (say_caps) */
	for (i = 0; i < ps->def->nr_caps; i++)
		tf_strvec_pushv(a, (const char *const[]){ "--cap-add",
							  ps->def->caps[i].s,
							  NULL });
	if (network)
		tf_strvec_push(a, "--share-net");
	tf_strvec_pushv(a, (const char *const *)etc->system.v);
	tf_sandbox_places(p, cache_dir, &places);
	tf_sandbox_bind_places(a, &places, getenv("HOME"));
	/* `sandbox.read` (checked: tf_build_check_reads), before the
	 * store's masks and the secrets', which hide what they hold. */
	for (i = 0; i < ps->nr_extra_reads; i++) {
		char *real = realpath(ps->extra_reads[i].path, NULL);

		if (real)
			tf_strvec_pushv(a, (const char *const[]){ "--ro-bind",
								  real, real,
								  NULL });
		free(real);
	}
	step_places(p, ps, cache_dir, env, a);
	/* Last: a secret is hidden wherever the binds above show it. */
	tf_sandbox_mask_secrets(a, keys, nr_keys);
	tf_strvec_pushv(a,
			(const char *const[]){ "--remount-ro", "/", "--chdir",
					       ps->cwd, "--", NULL });
	tf_strvec_pushv(a, cmd);
	tf_strvec_release(&places);
	return 0;
}

/*
 * Each capability of ps, as `network: true` is said; -1 (said) where
 * steps run without a user namespace of their own: the capability
 * would be the machine's, not the step's namespace's.
 */
static int say_caps(const struct tf_plan *p, const struct tf_plan_step *ps)
{
	const char *what = ps->def->is_test ? "test" : "step";
	size_t i;

	for (i = 0; i < ps->def->nr_caps; i++) {
		const struct tf_str *c = &ps->def->caps[i];

		if (!userns)
			return tf_error_at(
				&c->pos,
				"%s '%s' for %s asks for %s, but steps here "
				"run without a user namespace of their own "
				"(bwrap could not make one), where it would be "
				"the machine's own power; allow user "
				"namespaces, or build with --sandbox=off",
				what, ps->def->name.s, p->target.name, c->s);
		info("%s '%s' for %s has %s in its own user namespace "
		     "(capabilities at %s:%d:%d)",
		     what, ps->def->name.s, p->target.name, c->s, c->pos.file,
		     c->pos.line, c->pos.col);
		if (tf_ui_json())
			tf_ui_event("step-capability", "{s:s, s:s, s:s}",
				    "target", p->target.name, "step",
				    ps->def->name.s, "capability", c->s);
	}
	return 0;
}

/* Each `sandbox.read` of ps, as `network: true` is said. */
static void say_reads(const struct tf_plan *p, const struct tf_plan_step *ps)
{
	size_t i;

	for (i = 0; i < ps->nr_extra_reads; i++) {
		const struct tf_plan_read *r = &ps->extra_reads[i];
		char *real = realpath(r->path, NULL);
		const char *path = real ? real : r->path;

		info("%s '%s' for %s reads '%s' (sandbox.read at %s:%d:%d)",
		     ps->def->is_test ? "test" : "step", ps->def->name.s,
		     p->target.name, path, r->pos->file, r->pos->line,
		     r->pos->col);
		if (tf_ui_json())
			tf_ui_event("step-read", "{s:s, s:s, s:s}", "target",
				    p->target.name, "step", ps->def->name.s,
				    "path", path);
		free(real);
	}
}

int tf_sandbox_command(const struct tf_plan *p, struct tf_plan_step *ps,
		       int off, const char *cache_dir, const char *const *keys,
		       size_t nr_keys, int *said, const struct tf_strvec *env,
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
	if (say_caps(p, ps))
		return -1;
	say_reads(p, ps);
	return sandbox_argv(p, ps, cache_dir, keys, nr_keys, env, cmd, argv);
}

/* Check r unless its position was checked already (said); 0 or -1. */
static int check_read(const struct tf_plan_read *r, const char *cache_dir,
		      const char *const *keys, size_t nr_keys,
		      struct tf_strvec *said)
{
	struct tf_buf why = TF_BUF_INIT, at = TF_BUF_INIT;
	char *real;
	int ret = 0;

	tf_buf_setf(&at, "%s:%d:%d", r->pos->file, r->pos->line, r->pos->col);
	if (tf_strvec_has(said, at.buf))
		goto out;
	tf_strvec_push(said, at.buf);
	if (!(real = realpath(r->path, NULL)))
		tf_buf_addstr(&why, strerror(errno));
	if (!real ||
	    tf_sandbox_read_refused(real, keys, nr_keys, cache_dir, &why))
		ret = tf_error_at(r->pos, "'sandbox.read' refuses '%s': %s",
				  r->path, why.buf);
	free(real);
out:
	tf_buf_release(&why);
	tf_buf_release(&at);
	return ret;
}

int tf_sandbox_check_reads(struct tf_plan *const *plans, size_t nr_plans,
			   const char *cache_dir, const char *const *keys,
			   size_t nr_keys)
{
	struct tf_strvec said = TF_STRVEC_INIT;
	size_t i, j, k;
	int ret = 0;

	for (i = 0; i < nr_plans; i++)
		for (j = 0; j < plans[i]->recipe->nr_steps; j++) {
			const struct tf_plan_step *ps = &plans[i]->steps[j];

			for (k = 0; k < ps->nr_extra_reads; k++)
				if (check_read(&ps->extra_reads[k], cache_dir,
					       keys, nr_keys, &said))
					ret = -1;
		}
	tf_strvec_release(&said);
	return ret;
}

void tf_sandbox_after(const struct tf_plan *p, const struct tf_plan_step *ps)
{
	const char *build = env_get(&ps->env, "BUILDDIR");

	if (ps->sandbox <= 0)
		return;
	tf_sandbox_scrub(ps->work);
	tf_sandbox_scrub(ps->stage);
	if (build && strcmp(build, ps->work))
		tf_sandbox_scrub(build);
	if (strcmp(ps->cwd, ps->work))
		tf_sandbox_scrub(ps->cwd);
	if (ps->def->source_index >= 0)
		tf_sandbox_scrub(p->sources[ps->def->source_index].dir);
}
