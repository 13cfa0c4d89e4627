#include "build.h"
#include "failure.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cache/cache.h"
#include "plan/plan.h"
#include "base/base.h"
#include "ui/ui.h"
#include "source/source.h"
#include "stamp/stamp.h"
#include "sandbox.h"
#include "recipe/recipe.h"

/* Lines of a failed step's log shown on the terminal. */

enum task_state {
	PENDING,
	RUNNING,
	DONE,
	FAILED,
	SKIPPED
};
/* Why a running task is being stopped. */
enum task_stop {
	GOING,
	TIMED_OUT,
	INTERRUPTED
};

int tf_build_signal;

struct task {
	struct tf_plan *plan; /* borrowed */
	size_t step;          /* index into plan->steps */
	enum task_state state;
	struct tf_run run; /* owned while RUNNING */
	struct timespec started;
	pid_t group;         /* its process group while RUNNING */
	long long limit;     /* time limit, seconds */
	enum task_stop stop; /* GOING unless it is being stopped */
	double kill_at;      /* when SIGKILL follows SIGTERM, if stopping */
	int killed;          /* 1 once SIGKILL was sent */
	int unrunnable;      /* 1: a test nothing here can run (macOS's):
				DONE for what needs it, skipped in the count */
};

/* The scheduler's state. */
struct sched {
	struct task *tasks; /* owned; all steps of all plans */
	size_t nr;
	struct tf_run **running; /* owned; slot i is tasks[i]'s run or NULL */
	size_t nr_running;
	int failed; /* a step failed */
	int signal; /* SIGINT/SIGTERM/SIGHUP received, or 0 */
	size_t ran; /* steps that ran (were not up to date) */
	int said;   /* 1 once the run's sandbox (or none) was reported */
	const struct tf_build_opts *opts; /* borrowed */
	uint64_t log_max; /* TF_LIMIT_STEP_LOG: what a step's log keeps */
};

static struct task *dep_task(struct sched *s, struct task *t, size_t j)
{
	size_t base = (size_t)(t - s->tasks) - t->step;

	return &s->tasks[base + t->plan->steps[t->step].def->need_index[j]];
}

/* 1 if ready to run, 0 if it must wait, -1 if a dependency failed. */
static int readiness(struct sched *s, struct task *t)
{
	const struct tf_step *def = t->plan->steps[t->step].def;
	size_t j;
	int ready = 1;

	for (j = 0; j < def->nr_needs; j++) {
		enum task_state d = dep_task(s, t, j)->state;

		if (d == FAILED || d == SKIPPED)
			return -1;
		if (d != DONE)
			ready = 0;
	}
	return ready;
}

/*
 * Where a step's inputs name this machine's places: for the cache key,
 * the build tree, the recipe's directory and the cache directory, each
 * in every spelling the plan writes it in (tf_plan_path_spellings), read
 * as placeholders, so two checkouts of a project share keys. NULL-ended.
 */
struct reloc {
	struct tf_strvec from;
	const char *to[3 * 8 + 1];
};

static void reloc_add(struct reloc *r, const char *dir, const char *to)
{
	size_t i = r->from.nr;

	tf_plan_path_spellings(dir, &r->from);
	if (r->from.nr >= sizeof(r->to) / sizeof(*r->to))
		BUG("more spellings of a path than struct reloc holds");
	for (; i < r->from.nr; i++)
		r->to[i] = to;
	r->to[i] = NULL;
}

static void reloc_init(struct sched *s, struct task *t, struct reloc *r)
{
	r->from = (struct tf_strvec)TF_STRVEC_INIT;
	reloc_add(r, t->plan->dir, "@BUILD@");
	reloc_add(r, t->plan->recipe->dir, "@RECIPE@");
	if (s->opts->cache_dir)
		reloc_add(r, s->opts->cache_dir, "@CACHE@");
}

/* tf_stamp_add, with the data relocated when r is not NULL. */
static void add_input(struct tf_stamp *st, const struct reloc *r,
		      const char *name, const void *data, size_t len)
{
	struct tf_buf b = TF_BUF_INIT;

	if (!r) {
		tf_stamp_add(st, name, data, len);
		return;
	}
	tf_cache_relocate(data, len, (const char *const *)r->from.v, r->to, &b);
	tf_stamp_add(st, name, b.buf, b.len);
	tf_buf_release(&b);
}

/*
 * Everything that can change what a step produces. With r, the data is
 * relocated (struct reloc): the cache key's inputs.
 */
static void step_inputs_rel(struct sched *s, struct task *t,
			    struct tf_stamp *st, const struct reloc *r)
{
	struct tf_plan *p = t->plan;
	struct tf_plan_step *ps = &p->steps[t->step];
	struct tf_buf b = TF_BUF_INIT;
	size_t j;

	if (r)
		tf_stamp_add(st, "cache-key", "1", 1);
	tf_stamp_add(st, "tfbuild", TF_VERSION, strlen(TF_VERSION));
	tf_stamp_add(st, "target", p->target.name, strlen(p->target.name));
	add_input(st, r, "toolchain", p->target.identity,
		  strlen(p->target.identity));
	add_input(st, r, "script", ps->script, strlen(ps->script));
	/* Only when not sh: the keys of recipes without it stay as they were. */
	if (ps->def->shell_kind == TF_SHELL_BASH)
		tf_stamp_add(st, "shell", "bash", 4);
	/* The CMake/Meson/pkg-config files: a change there reruns steps. */
	add_input(st, r, "toolfiles", p->toolfiles.buf, p->toolfiles.len);
	for (j = 0; j < p->packages.nr; j++)
		tf_buf_addf(&b, "%s %s\n", p->packages.v[j],
			    p->package_digests.v[j]);
	tf_stamp_add(st, "target-packages", b.buf, b.len);
	tf_buf_reset(&b);
	/* The wheels from the package index: a changed pin rebuilds. Only
	 * when there are some, so no other recipe's keys change. */
	for (j = 0; j < p->wheel_pins.nr; j++)
		tf_buf_addf(&b, "%s %s\n", p->wheel_pins.v[j].file,
			    p->wheel_pins.v[j].sha256);
	if (p->wheel_pins.nr)
		tf_stamp_add(st, "target-wheels", b.buf, b.len);
	tf_buf_reset(&b);
	/* The build machine's (`host-wheels`) likewise. */
	for (j = 0; j < p->host_pins.nr; j++)
		tf_buf_addf(&b, "%s %s\n", p->host_pins.v[j].file,
			    p->host_pins.v[j].sha256);
	if (p->host_pins.nr)
		tf_stamp_add(st, "host-wheels", b.buf, b.len);
	tf_buf_reset(&b);
	/* $JOBS changes how fast, not what: it does not count. */
	for (j = 0; j < ps->env.nr; j++)
		if (strncmp(ps->env.v[j], "JOBS=", 5))
			tf_buf_addf(&b, "%s\n", ps->env.v[j]);
	add_input(st, r, "environment", b.buf, b.len);
	for (j = 0; j < ps->nr_reads; j++) {
		const struct tf_plan_source *src = &p->sources[ps->reads[j]];

		tf_buf_setf(&b, "source:%s", src->def->name.s);
		tf_stamp_add_hex(st, b.buf, src->key);
	}
	for (j = 0; j < ps->def->nr_needs; j++) {
		struct task *d = dep_task(s, t, j);

		tf_buf_setf(&b, "step:%s", d->plan->steps[d->step].def->name.s);
		tf_stamp_add_hex(st, b.buf, d->plan->steps[d->step].output);
	}
	tf_buf_release(&b);
}

static void step_inputs(struct sched *s, struct task *t, struct tf_stamp *st)
{
	step_inputs_rel(s, t, st, NULL);
}

/* The step's cache key: its inputs, wherever the build happens. */
static void cache_key(struct sched *s, struct task *t,
		      char key[TF_SHA256_HEX_LEN + 1])
{
	struct tf_stamp st = TF_STAMP_INIT;
	struct reloc r;

	reloc_init(s, t, &r);
	step_inputs_rel(s, t, &st, &r);
	tf_stamp_key(&st, key);
	tf_stamp_release(&st);
	tf_strvec_release(&r.from);
}

/*
 * Decide whether t must run: 1 with the reason in why, or 0 when its
 * stamp matches and its stage still holds what it produced (then its
 * output digest is set from the stamp).
 */
static int must_run(struct sched *s, struct task *t, struct tf_buf *why)
{
	struct tf_plan_step *ps = &t->plan->steps[t->step];
	struct tf_stamp old = TF_STAMP_INIT, now = TF_STAMP_INIT;
	char digest[TF_SHA256_HEX_LEN + 1];
	int run = 1;

	step_inputs(s, t, &now);
	tf_stamp_read(ps->stamp, &old);
	if (s->opts->force)
		tf_buf_addstr(why, "--force");
	else if (!tf_stamp_same(&old, &now) || !*old.output)
		tf_stamp_explain(&old, &now, why);
	else if (tf_tree_digest(ps->stage, digest) ||
		 strcmp(digest, old.output))
		tf_buf_addstr(why, "its stage was changed or removed");
	else {
		memcpy(ps->output, old.output, sizeof(ps->output));
		run = 0;
	}
	tf_stamp_release(&old);
	tf_stamp_release(&now);
	return run;
}

/* Record what a step that just succeeded was built from and produced. */
static int write_stamp(struct sched *s, struct task *t)
{
	struct tf_plan_step *ps = &t->plan->steps[t->step];
	struct tf_stamp st = TF_STAMP_INIT;
	int ret;

	step_inputs(s, t, &st);
	ret = tf_tree_digest(ps->stage, st.output);
	memcpy(ps->output, st.output, sizeof(ps->output));
	if (!ret)
		ret = tf_stamp_write(ps->stamp, &st);
	tf_stamp_release(&st);
	return ret;
}

static int make_dirs(const struct tf_plan *p, const struct tf_plan_step *ps)
{
	struct tf_buf b = TF_BUF_INIT;
	int ret;

	ret = tf_rm_rf(ps->work) || tf_rm_rf(ps->stage) ||
	      tf_mkdir_p(ps->work) || tf_mkdir_p(ps->stage);
	tf_buf_setf(&b, "%s/logs", p->dir);
	ret = ret || tf_mkdir_p(b.buf);
	tf_buf_setf(&b, "%s/home", p->dir);
	ret = ret || tf_mkdir_p(b.buf);
	tf_buf_setf(&b, "%s/tmp", p->dir);
	ret = ret || tf_mkdir_p(b.buf);
	ret = ret || tf_mkdir_p(p->stamps);
	if (!ret && unlink(ps->log) < 0 && errno != ENOENT)
		ret = error_errno("cannot remove old log '%s'", ps->log);
	/* No stamp while it runs: an interrupted step is never trusted. */
	if (!ret && unlink(ps->stamp) < 0 && errno != ENOENT)
		ret = error_errno("cannot remove old stamp '%s'", ps->stamp);
	tf_buf_release(&b);
	return ret ? -1 : 0;
}

static char prefix_buf[256];

static int start(struct sched *s, struct task *t, const char *why)
{
	struct tf_plan_step *ps = &t->plan->steps[t->step];
	struct tf_run *r = &t->run;
	const char *keys[] = { s->opts->signing_key, s->opts->attestation_key };

	/* `baseline: COMMAND` runs where its test built, as it left it. */
	int in_place = ps->def->baseline_cmd;

	if (!in_place && ps->def->source_index >= 0 &&
	    tf_source_refresh(t->plan, (size_t)ps->def->source_index))
		return -1;
	/* The step builds in that tree: the next step to run in it gets it
	 * prepared afresh, not with this one's leftovers. */
	if (ps->def->source_index >= 0)
		t->plan->sources[ps->def->source_index].fresh = 0;
	if (in_place && !tf_path_is_dir(ps->cwd))
		return error(
			"test '%s' for %s: '%s', where its test built, is gone: "
			"`baseline: COMMAND` runs there (rebuild with --force)",
			ps->def->name.s, t->plan->target.name, ps->cwd);
	if (make_dirs(t->plan, ps))
		return -1;
	info("building %s for %s (%s)", ps->def->name.s, t->plan->target.name,
	     why);
	*r = (struct tf_run)TF_RUN_INIT;
	tf_strvec_pushv(&r->env, (const char *const *)ps->env.v);
	/* After the stamp: a launcher never changes what a step makes. */
	tf_launcher_env(t->plan, &r->env);
	if (tf_sandbox_command(t->plan, ps, s->opts->no_sandbox,
			       s->opts->cache_dir, keys, 2, &s->said, &r->env,
			       &r->argv)) {
		tf_run_release(r); /* the environment built for it */
		return -1;
	}
	r->clean_env = 1;
	r->own_group = 1;
	r->dir = ps->cwd;
	r->log_path = ps->log;
	r->log_max = s->log_max;
	if (tf_verbosity >= 2) {
		snprintf(prefix_buf, sizeof(prefix_buf), "[%s/%s] ",
			 t->plan->target.name, ps->def->name.s);
		/* The child copies the prefix before we overwrite it. */
		r->tee_prefix = prefix_buf;
	}
	clock_gettime(CLOCK_MONOTONIC, &t->started);
	if (tf_run_start(r)) {
		tf_run_release(r);
		return -1;
	}
	tf_ui_step_started(t->plan->target.name, ps->def->name.s, why);
	t->state = RUNNING;
	t->group = r->pid;
	t->stop = GOING;
	t->killed = 0;
	t->limit = s->opts->timeout   ? s->opts->timeout
		   : ps->def->timeout ? ps->def->timeout
				      : TF_BUILD_DEFAULT_TIMEOUT;
	s->running[t - s->tasks] = r;
	s->nr_running++;
	return 0;
}

/* "2s", "30m", "1h" and where it was set. */
static void describe_limit(const struct task *t, struct tf_buf *out)
{
	const struct tf_step *def = t->plan->steps[t->step].def;
	long long n = t->limit;

	if (n % 3600 == 0)
		tf_buf_addf(out, "%lldh", n / 3600);
	else if (n % 60 == 0)
		tf_buf_addf(out, "%lldm", n / 60);
	else
		tf_buf_addf(out, "%llds", n);
	if (n == def->timeout && def->timeout_pos.file)
		tf_buf_addf(out, " (timeout at %s:%d:%d)",
			    def->timeout_pos.file, def->timeout_pos.line,
			    def->timeout_pos.col);
	else if (n == TF_BUILD_DEFAULT_TIMEOUT && !def->timeout)
		tf_buf_addstr(out, " (the default)");
	else
		tf_buf_addstr(out, " (--timeout)");
}

/* Keep what a step just built in the cache, for other trees and machines. */
static void save_output(struct sched *s, struct task *t)
{
	struct tf_plan_step *ps = &t->plan->steps[t->step];
	struct reloc r;

	ps->origin = TF_CACHE_BUILT;
	cache_key(s, t, ps->cache_key);
	if (!s->opts->cache)
		return;
	reloc_init(s, t, &r);
	/* A stage naming this build's places would not work elsewhere. */
	tf_cache_save(s->opts->cache, ps->cache_key, ps->stage, ps->output,
		      (const char *const *)r.from.v);
	tf_strvec_release(&r.from);
}

/*
 * Restore t's stage from the cache instead of running it: 1 if it was
 * (its stamp is then written as if it had run), 0 if it must run.
 */
static int restore_output(struct sched *s, struct task *t)
{
	struct tf_plan_step *ps = &t->plan->steps[t->step];
	struct tf_stamp st = TF_STAMP_INIT;
	enum tf_cache_origin origin = TF_CACHE_NONE;
	char signer[TF_CACHE_SIGNER_LEN + 1] = "";
	int ret;

	if (!s->opts->cache || s->opts->force)
		return 0;
	cache_key(s, t, ps->cache_key);
	if (!tf_cache_restore(s->opts->cache, ps->cache_key, ps->stage, &origin,
			      signer, ps->output))
		return 0;
	step_inputs(s, t, &st);
	memcpy(st.output, ps->output, sizeof(st.output));
	/* No step may have run in this tree yet (a removed build tree, a
	 * recipe without sources): the stamps' folder may not exist. */
	ret = tf_mkdir_p(t->plan->stamps) || tf_stamp_write(ps->stamp, &st);
	tf_stamp_release(&st);
	if (ret)
		return 0;
	ps->origin = (int)origin;
	memcpy(ps->signer, signer, sizeof(ps->signer));
	info("restored %s for %s from the %s (key %.12s%s%s)", ps->def->name.s,
	     t->plan->target.name,
	     origin == TF_CACHE_REMOTE ? "remote cache" : "local store",
	     ps->cache_key, *signer ? ", signed by " : "", signer);
	return 1;
}

static void finish(struct sched *s, struct task *t, int status)
{
	struct tf_plan_step *ps = &t->plan->steps[t->step];
	struct timespec now;

	s->running[t - s->tasks] = NULL;
	s->nr_running--;
	tf_run_release(&t->run);
	/* A step's processes end with it: nothing it left in the background
	 * outlives it. */
	kill(-t->group, SIGKILL);
	/* Before anything reads what it wrote: no setuid file stays. */
	tf_sandbox_after(t->plan, ps);
	if (t->stop != GOING)
		status = status ? status : 128 + SIGTERM;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (status == 0 && write_stamp(s, t))
		status = 1;
	if (status == 0)
		save_output(s, t);
	tf_ui_step_finished(t->plan->target.name, ps->def->name.s,
			    status ? TF_UI_STEP_FAILED : TF_UI_STEP_OK,
			    (double)(now.tv_sec - t->started.tv_sec) +
				    (now.tv_nsec - t->started.tv_nsec) / 1e9,
			    ps->log);
	if (status == 0) {
		t->state = DONE;
		ps->ran = 1;
		s->ran++;
		verbose("%s for %s done in %.1fs", ps->def->name.s,
			t->plan->target.name,
			(double)(now.tv_sec - t->started.tv_sec) +
				(now.tv_nsec - t->started.tv_nsec) / 1e9);
		return;
	}
	{
		struct tf_buf why = TF_BUF_INIT;

		tf_run_describe_status(status, &why);
		t->state = FAILED;
		s->failed = 1;
		if (t->stop == TIMED_OUT) {
			tf_buf_reset(&why);
			describe_limit(t, &why);
			error("%s '%s' for %s exceeded its time limit of %s and was stopped with every process it started; last lines of its log:",
			      ps->def->is_test ? "test" : "step",
			      ps->def->name.s, t->plan->target.name, why.buf);
		} else if (t->stop == INTERRUPTED) {
			error("step '%s' for %s was stopped (tfbuild got SIG%s); last lines of its log:",
			      ps->def->name.s, t->plan->target.name,
			      sigabbrev_np(s->signal) ? sigabbrev_np(s->signal)
						      : "?");
		} else {
			error("step '%s' for %s failed with %s; last lines of its log:",
			      ps->def->name.s, t->plan->target.name, why.buf);
		}
		tf_build_show_tail(ps->log);
		error("full log: %s", ps->log);
		tf_build_host_tool_failure(t->plan, ps, status);
		tf_build_terminal_failure(t->plan, ps);
		if (ps->def->is_test == TF_TEST_BASELINE)
			tf_build_baseline_failure(t->plan, ps, status);
		tf_buf_release(&why);
	}
}

/* Start t if it must run, or mark it done if it is up to date. */
static int start_or_skip(struct sched *s, struct task *t)
{
	struct tf_plan_step *ps = &t->plan->steps[t->step];
	struct tf_buf why = TF_BUF_INIT;
	int ret = 0;

	if (ps->def->is_test && t->plan->target.macos) {
		/* Nothing here runs macOS code (docs/cross.md#macos). */
		t->state = DONE;
		t->unrunnable = 1;
		tf_ui_step_finished(t->plan->target.name, ps->def->name.s,
				    TF_UI_STEP_SKIPPED, 0, NULL);
		info("test '%s' for %s skipped: no emulator runs macOS code on this machine",
		     ps->def->name.s, t->plan->target.name);
	} else if (!must_run(s, t, &why) || restore_output(s, t)) {
		t->state = DONE;
		tf_ui_step_finished(t->plan->target.name, ps->def->name.s,
				    TF_UI_STEP_UP_TO_DATE, 0, NULL);
		verbose("%s for %s is up to date", ps->def->name.s,
			t->plan->target.name);
	} else {
		ret = start(s, t, why.buf);
	}
	tf_buf_release(&why);
	return ret;
}

static int reads_source(const struct tf_plan_step *ps, int src)
{
	size_t j;

	for (j = 0; src >= 0 && j < ps->nr_reads; j++)
		if (ps->reads[j] == (size_t)src)
			return 1;
	return 0;
}

/*
 * 1 if t would share a source tree with a running step: one of them runs
 * in a tree (which starting refreshes) that the other reads. Such steps
 * run one after the other, so each has its tree to itself.
 */
static int shares_tree(struct sched *s, struct task *t)
{
	const struct tf_plan_step *a = &t->plan->steps[t->step];
	size_t i;

	for (i = 0; i < s->nr; i++) {
		const struct task *u = &s->tasks[i];
		const struct tf_plan_step *b;

		if (u->state != RUNNING || u->plan != t->plan)
			continue;
		b = &u->plan->steps[u->step];
		if (reads_source(b, a->def->source_index) ||
		    reads_source(a, b->def->source_index))
			return 1;
	}
	return 0;
}

/*
 * Start what can start; return how many tasks are still unfinished.
 * Passes repeat while some step leaves PENDING: a step found up to date
 * may make an earlier one in the list ready.
 */
static size_t schedule(struct sched *s, const struct tf_build_opts *o)
{
	size_t i, left;
	int changed;

again:
	left = 0;
	changed = 0;
	for (i = 0; i < s->nr; i++) {
		struct task *t = &s->tasks[i];
		int ready;

		if (t->state != PENDING)
			continue;
		ready = readiness(s, t);
		if (ready < 0) {
			t->state = SKIPPED;
			tf_ui_step_finished(t->plan->target.name,
					    t->plan->steps[t->step].def->name.s,
					    TF_UI_STEP_SKIPPED, 0, NULL);
			changed = 1;
			info("skipping %s for %s: a step it needs failed",
			     t->plan->steps[t->step].def->name.s,
			     t->plan->target.name);
			continue;
		}
		left++;
		if (!ready || (s->failed && !o->keep_going) || s->signal ||
		    s->nr_running >= (size_t)o->jobs || shares_tree(s, t))
			continue;
		if (start_or_skip(s, t)) {
			t->state = FAILED;
			s->failed = 1;
		}
		changed = 1;
		if (t->state != RUNNING)
			left--;
	}
	if (changed && !s->nr_running)
		goto again;
	return left;
}

static void sched_init(struct sched *s, struct tf_plan **plans, size_t nr_plans,
		       const struct tf_build_opts *o)
{
	size_t i, j, k = 0;

	memset(s, 0, sizeof(*s));
	s->opts = o;
	for (i = 0; i < nr_plans; i++)
		s->nr += plans[i]->recipe->nr_steps;
	s->tasks = tf_calloc(s->nr + 1, sizeof(*s->tasks));
	s->running = tf_calloc(s->nr + 1, sizeof(*s->running));
	for (i = 0; i < nr_plans; i++)
		for (j = 0; j < plans[i]->recipe->nr_steps; j++, k++) {
			s->tasks[k].plan = plans[i];
			s->tasks[k].step = j;
		}
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void stop_task(struct task *t, enum task_stop why, double now)
{
	if (t->stop != GOING)
		return;
	t->stop = why;
	t->kill_at = now + TF_BUILD_KILL_GRACE;
	kill(-t->group, SIGTERM);
}

/*
 * Enforce time limits and the grace period before SIGKILL; return how
 * long to wait at most before looking again.
 */
static double check_limits(struct sched *s)
{
	double now = now_seconds(), next = 1.0;
	size_t i;

	for (i = 0; i < s->nr; i++) {
		struct task *t = &s->tasks[i];
		double started, left;

		if (t->state != RUNNING)
			continue;
		started = (double)t->started.tv_sec + t->started.tv_nsec / 1e9;
		if (t->stop == GOING && now >= started + (double)t->limit)
			stop_task(t, TIMED_OUT, now);
		if (t->stop != GOING && !t->killed && now >= t->kill_at) {
			kill(-t->group, SIGKILL);
			t->killed = 1;
		}
		left = t->stop == GOING ? started + (double)t->limit - now
		       : t->killed      ? 1.0
					: t->kill_at - now;
		if (left < next)
			next = left;
	}
	return next > 0.01 ? next : 0.01;
}

static void on_signal(struct sched *s, int sig)
{
	size_t i;

	if (sig != SIGINT && sig != SIGTERM && sig != SIGHUP)
		return;
	if (!s->signal)
		error("got SIG%s: stopping every running step",
		      sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
	s->signal = sig;
	s->failed = 1;
	for (i = 0; i < s->nr; i++)
		if (s->tasks[i].state == RUNNING)
			stop_task(&s->tasks[i], INTERRUPTED, now_seconds());
}

/*
 * Wait until a running task's process ends (set *which and *status),
 * enforcing time limits and handling SIGINT/SIGTERM/SIGHUP meanwhile
 * (they are blocked, and taken here with sigtimedwait). -1 if waiting
 * fails.
 */
static int wait_next(struct sched *s, const sigset_t *set, size_t *which,
		     int *status)
{
	for (;;) {
		struct timespec ts;
		double wait;
		int st, sig;
		pid_t pid = waitpid(-1, &st, WNOHANG);
		size_t i;

		if (pid < 0 && errno != EINTR)
			return error_errno("cannot wait for child processes");
		if (pid > 0) /* signals are blocked here: it ended, untracked */
			tf_signals_child_forget(pid);
		for (i = 0; pid > 0 && i < s->nr; i++)
			if (s->running[i] && s->running[i]->pid == pid)
				break;
		if (pid > 0 && i < s->nr) {
			s->running[i]->pid = 0;
			*which = i;
			*status = WIFSIGNALED(st) ? 128 + WTERMSIG(st)
						  : WEXITSTATUS(st);
			return 0;
		}
		if (pid > 0)
			continue; /* a re-parented stray, reaped */
		wait = check_limits(s);
		ts.tv_sec = (time_t)wait;
		ts.tv_nsec = (long)((wait - (double)ts.tv_sec) * 1e9);
		sig = sigtimedwait(set, NULL, &ts);
		if (sig > 0)
			on_signal(s, sig);
	}
}

/* Stop what steps left behind in sessions of their own. */
static void stop_strays(void)
{
	int i;

	if (!tf_run_kill_strays(NULL, 0, SIGTERM))
		return;
	for (i = 0; i < TF_BUILD_KILL_GRACE * 10; i++) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		if (!tf_run_kill_strays(NULL, 0, 0))
			return;
		usleep(100000);
	}
	tf_run_kill_strays(NULL, 0, SIGKILL);
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/*
 * Steps never started (the run stopped at a failure without -k, or on a
 * signal) are skipped: each gets its step-finished, as docs/events.md
 * promises one per step.
 */
static void skip_unstarted(struct sched *s)
{
	size_t i;

	for (i = 0; i < s->nr; i++) {
		struct task *t = &s->tasks[i];

		if (t->state != PENDING)
			continue;
		t->state = SKIPPED;
		tf_ui_step_finished(t->plan->target.name,
				    t->plan->steps[t->step].def->name.s,
				    TF_UI_STEP_SKIPPED, 0, NULL);
	}
}

/*
 * The run's last line: "N of M steps ran", then how many were restored
 * from the build cache, up to date, skipped (never started), failed and
 * stopped (running when a signal came), each only when there are some.
 */
static void summary(const struct sched *s)
{
	size_t restored = 0, fresh = 0, skipped = 0, failed = 0, stopped = 0;
	size_t i;
	struct tf_buf b = TF_BUF_INIT;

	for (i = 0; i < s->nr; i++) {
		const struct task *t = &s->tasks[i];
		const struct tf_plan_step *ps = &t->plan->steps[t->step];

		if (t->state == FAILED && t->stop == INTERRUPTED)
			stopped++;
		else if (t->state == FAILED)
			failed++;
		else if (t->state != DONE || t->unrunnable)
			skipped++;
		else if (!ps->ran && (ps->origin == TF_CACHE_LOCAL ||
				      ps->origin == TF_CACHE_REMOTE))
			restored++;
		else if (!ps->ran)
			fresh++;
	}
	tf_buf_addf(&b, "%zu of %zu steps ran", s->ran, s->nr);
	if (restored)
		tf_buf_addf(&b, ", %zu restored", restored);
	if (fresh)
		tf_buf_addf(&b, ", %zu up to date", fresh);
	if (skipped)
		tf_buf_addf(&b, ", %zu skipped", skipped);
	if (failed)
		tf_buf_addf(&b, ", %zu failed", failed);
	if (stopped)
		tf_buf_addf(&b, ", %zu stopped", stopped);
	info("%s", b.buf);
	tf_buf_release(&b);
}

/* Tests whose recipe says `baseline: false` have no NAME@baseline. */
static void say_no_baseline(struct tf_plan **plans, size_t nr_plans)
{
	size_t i, j;

	for (i = 0; i < nr_plans; i++)
		for (j = 0; j < plans[i]->recipe->nr_tests; j++)
			if (plans[i]->recipe->tests[j].baseline_off)
				info("test '%s' for %s: baseline run skipped by the recipe (baseline: false)",
				     plans[i]->recipe->tests[j].name.s,
				     plans[i]->target.name);
}

int tf_build_run(struct tf_plan **plans, size_t nr_plans,
		 const struct tf_build_opts *o, size_t *ran)
{
	struct sched s;
	sigset_t set, old;
	uint64_t log_max;

	if (tf_limit_get(&TF_LIMIT_STEP_LOG, &log_max) < 0)
		return -1;
	say_no_baseline(plans, nr_plans);
	tf_sandbox_forget(); /* asked again, once, in each run */

	tf_build_signal = 0;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, &old);
	/* Descendants that leave their step's session come back to us. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	sched_init(&s, plans, nr_plans, o);
	s.log_max = log_max;
	tf_ui_steps_total(s.nr);
	for (;;) {
		size_t left = schedule(&s, o), which = 0;
		int status = 0;

		if (!s.nr_running) {
			if (left && !s.failed)
				BUG("%zu steps can never start", left);
			break;
		}
		if (wait_next(&s, &set, &which, &status))
			break;
		finish(&s, &s.tasks[which], status);
	}
	stop_strays();
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	sigprocmask(SIG_SETMASK, &old, NULL);
	tf_build_signal = s.signal;
	skip_unstarted(&s);
	summary(&s);
	free(s.tasks);
	free(s.running);
	if (ran)
		*ran = s.ran;
	return s.failed ? -1 : 0;
}

static int deps_visited(struct sched *s, struct task *t)
{
	size_t j;

	for (j = 0; j < t->plan->steps[t->step].def->nr_needs; j++)
		if (dep_task(s, t, j)->state == PENDING)
			return 0;
	return 1;
}

int tf_build_check_reads(struct tf_plan **plans, size_t nr_plans,
			 const struct tf_build_opts *o)
{
	const char *keys[] = { o->signing_key, o->attestation_key };

	return tf_sandbox_check_reads(plans, nr_plans, o->cache_dir, keys, 2);
}

int tf_build_explain(struct tf_plan **plans, size_t nr_plans,
		     const struct tf_build_opts *o)
{
	struct tf_buf why = TF_BUF_INIT;
	struct sched s;
	size_t i, j, done = 0;

	sched_init(&s, plans, nr_plans, o);
	/* Visit steps in dependency order; a step after one that will run
	 * must run too, since that one's output is not known yet. */
	while (done < s.nr) {
		for (i = 0; i < s.nr; i++) {
			struct task *t = &s.tasks[i];
			const struct tf_step *def = t->plan->steps[t->step].def;
			int after = 0;

			if (t->state != PENDING || !deps_visited(&s, t))
				continue;
			tf_buf_reset(&why);
			for (j = 0; j < def->nr_needs && !after; j++)
				if (dep_task(&s, t, j)->state == RUNNING) {
					tf_buf_addf(
						&why,
						"needs '%s', which will run",
						def->needs[j].s);
					after = 1;
				}
			t->state =
				after || must_run(&s, t, &why) ? RUNNING : DONE;
			printf("%s %s: %s (%s)\n", t->plan->target.name,
			       def->name.s,
			       t->state == RUNNING ? "will run" : "up to date",
			       t->state == RUNNING ? why.buf
						   : "nothing changed");
			done++;
		}
	}
	tf_buf_release(&why);
	free(s.tasks);
	free(s.running);
	return 0;
}
