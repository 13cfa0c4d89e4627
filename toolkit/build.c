#include "build.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "path.h"
#include "run.h"

/* Lines of a failed step's log shown on the terminal. */
#define TAIL_LINES 20

enum task_state { PENDING, RUNNING, DONE, FAILED, SKIPPED };

struct task {
	struct tf_plan *plan;      /* borrowed */
	size_t step;               /* index into plan->steps */
	enum task_state state;
	struct tf_run run;         /* owned while RUNNING */
	struct timespec started;
};

/* The scheduler's state. */
struct sched {
	struct task *tasks;        /* owned; all steps of all plans */
	size_t nr;
	struct tf_run **running;   /* owned; slot i is tasks[i]'s run or NULL */
	size_t nr_running;
	int failed;                /* a step failed */
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
	if (!ret && unlink(ps->log) < 0 && errno != ENOENT)
		ret = error_errno("cannot remove old log '%s'", ps->log);
	tf_buf_release(&b);
	return ret ? -1 : 0;
}

static char prefix_buf[256];

static int start(struct sched *s, struct task *t)
{
	struct tf_plan_step *ps = &t->plan->steps[t->step];
	struct tf_run *r = &t->run;

	if (make_dirs(t->plan, ps))
		return -1;
	info("building %s for %s", ps->def->name.s, t->plan->target.name);
	*r = (struct tf_run)TF_RUN_INIT;
	tf_strvec_pushv(&r->argv, (const char *const[]){
		"sh", "-e", "-c", ps->script, ps->def->name.s, NULL });
	tf_strvec_pushv(&r->env, (const char *const *)ps->env.v);
	r->clean_env = 1;
	r->dir = ps->cwd;
	r->log_path = ps->log;
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
	t->state = RUNNING;
	s->running[t - s->tasks] = r;
	s->nr_running++;
	return 0;
}

/* Print the last TAIL_LINES lines of a log to stderr. */
static void show_tail(const char *log)
{
	struct tf_buf text = TF_BUF_INIT;
	size_t i, lines = 0;

	text.cap = 16 << 20;
	if (tf_read_file(log, &text)) {
		tf_buf_release(&text);
		return;
	}
	for (i = text.len; i > 0; i--)
		if (text.buf[i - 1] == '\n' && i != text.len && ++lines == TAIL_LINES)
			break;
	fprintf(stderr, "%s%s", text.buf + i,
		text.len && text.buf[text.len - 1] != '\n' ? "\n" : "");
	tf_buf_release(&text);
}

static void finish(struct sched *s, struct task *t, int status)
{
	struct tf_plan_step *ps = &t->plan->steps[t->step];
	struct timespec now;

	s->running[t - s->tasks] = NULL;
	s->nr_running--;
	tf_run_release(&t->run);
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (status == 0) {
		t->state = DONE;
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
		error("step '%s' for %s failed with %s; last lines of its log:",
		      ps->def->name.s, t->plan->target.name, why.buf);
		show_tail(ps->log);
		error("full log: %s", ps->log);
		tf_buf_release(&why);
	}
}

/* Start what can start; return how many tasks are still unfinished. */
static size_t schedule(struct sched *s, const struct tf_build_opts *o)
{
	size_t i, left = 0;

	for (i = 0; i < s->nr; i++) {
		struct task *t = &s->tasks[i];
		int ready;

		if (t->state != PENDING)
			continue;
		ready = readiness(s, t);
		if (ready < 0) {
			t->state = SKIPPED;
			info("skipping %s for %s: a step it needs failed",
			     t->plan->steps[t->step].def->name.s, t->plan->target.name);
			continue;
		}
		left++;
		if (!ready || (s->failed && !o->keep_going) ||
		    s->nr_running >= (size_t)o->jobs)
			continue;
		if (start(s, t)) {
			t->state = FAILED;
			s->failed = 1;
			left--;
		}
	}
	return left;
}

int tf_build_run(struct tf_plan **plans, size_t nr_plans,
		 const struct tf_build_opts *o)
{
	struct sched s = { NULL, 0, NULL, 0, 0 };
	size_t i, j, k = 0;

	for (i = 0; i < nr_plans; i++)
		s.nr += plans[i]->recipe->nr_steps;
	s.tasks = tf_calloc(s.nr + 1, sizeof(*s.tasks));
	s.running = tf_calloc(s.nr + 1, sizeof(*s.running));
	for (i = 0; i < nr_plans; i++)
		for (j = 0; j < plans[i]->recipe->nr_steps; j++, k++) {
			s.tasks[k].plan = plans[i];
			s.tasks[k].step = j;
		}
	for (;;) {
		size_t left = schedule(&s, o), which;
		int status;

		if (!s.nr_running) {
			if (left && !s.failed)
				BUG("%zu steps can never start", left);
			break;
		}
		status = tf_run_wait_any(s.running, s.nr, &which);
		if (status < 0)
			break;
		finish(&s, &s.tasks[which], status);
	}
	free(s.tasks);
	free(s.running);
	return s.failed ? -1 : 0;
}
