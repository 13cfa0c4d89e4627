/*
 * The terminal and CI side of the UI (ui.h): colours, the status line
 * redrawn in place, plain timed lines, GitHub Actions groups and
 * annotations. A thread redraws the status line every 100 ms while it
 * is shown, so elapsed times move while tfbuild waits for its steps; a
 * mutex keeps it and the messages from writing at once.
 */
#include "ui.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"

#define MAX_RUNNING 64

struct running {
	char *target, *step; /* owned */
	double since;        /* tf_ui_now() when it started */
};

static struct {
	int color;  /* ANSI colours on stderr */
	int json;   /* --json events on stdout */
	int gha;    /* GITHUB_ACTIONS=true */
	int status; /* the status line is on */
	int shown;  /* it is on the screen now */
	pthread_t thread;
	int thread_on;
	int stop;
	char *targets;   /* owned: "x86_64 aarch64" */
	char *fetching;  /* owned: label of the download, or NULL */
	long long bytes; /* of that download so far */
	double fetch_since;
	size_t steps_total, steps_done;
	struct running run[MAX_RUNNING];
	size_t nr_run;
} ui;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int tf_ui_json(void)
{
	return ui.json;
}

static int terminal_width(void)
{
	struct winsize w;

	if (ioctl(2, TIOCGWINSZ, &w) == 0 && w.ws_col > 20)
		return w.ws_col;
	return 80;
}

static void human_bytes(long long n, struct tf_buf *out)
{
	if (n < 1024)
		tf_buf_addf(out, "%lld B", n);
	else if (n < 1024 * 1024)
		tf_buf_addf(out, "%.1f KiB", n / 1024.0);
	else
		tf_buf_addf(out, "%.1f MiB", n / (1024.0 * 1024));
}

/* The status line's text, cut to the terminal's width. Under lock. */
static void status_text(struct tf_buf *b)
{
	double now = tf_ui_now();
	size_t i, width = (size_t)terminal_width() - 1;

	if (ui.targets)
		tf_buf_addf(b, "[%s] ", ui.targets);
	if (ui.fetching) {
		double secs = now - ui.fetch_since;

		tf_buf_addf(b, "fetching %s: ", ui.fetching);
		human_bytes(ui.bytes, b);
		if (secs > 0.2) {
			tf_buf_addstr(b, " at ");
			human_bytes((long long)(ui.bytes / secs), b);
			tf_buf_addstr(b, "/s");
		}
		tf_buf_addstr(b, "  ");
	}
	if (ui.steps_total)
		tf_buf_addf(b, "%zu/%zu steps", ui.steps_done, ui.steps_total);
	for (i = 0; i < ui.nr_run; i++)
		tf_buf_addf(b, "%s %s/%s %.1fs", i ? "," : ":",
			    ui.run[i].target, ui.run[i].step,
			    now - ui.run[i].since);
	if (b->len > width)
		tf_buf_setlen(b, width);
}

static void clear_status(void)
{
	if (ui.shown) {
		fputs("\r\033[K", stderr);
		ui.shown = 0;
	}
}

static void draw_status(void)
{
	struct tf_buf b = TF_BUF_INIT;

	if (!ui.status)
		return;
	status_text(&b);
	if (b.len) {
		fprintf(stderr, "\r\033[K%s%s%s", ui.color ? "\033[1m" : "",
			b.buf, ui.color ? "\033[0m" : "");
		ui.shown = 1;
	}
	fflush(stderr);
	tf_buf_release(&b);
}

static void *redraw(void *unused)
{
	struct timespec tick = { 0, 100 * 1000 * 1000 };

	tf_signals_worker(); /* fatal signals are the main thread's */
	for (;;) {
		nanosleep(&tick, NULL);
		pthread_mutex_lock(&lock);
		if (ui.stop) {
			pthread_mutex_unlock(&lock);
			return NULL;
		}
		if (ui.shown || ui.nr_run || ui.fetching)
			draw_status();
		pthread_mutex_unlock(&lock);
	}
}

static void tf_ui_report(enum tf_level level, const char *file, int line,
			 int col, const char *msg);

int tf_ui_setup(const char *color, int json)
{
	const char *no_color = getenv("NO_COLOR"), *term = getenv("TERM");
	const char *gha = getenv("GITHUB_ACTIONS");
	int tty = isatty(2) && !(term && !strcmp(term, "dumb"));

	tf_log_set_sink(tf_ui_report);
	tf_ui_event_open();
	ui.json = json;
	ui.gha = gha && !strcmp(gha, "true");
	if (color && !strcmp(color, "always"))
		ui.color = 1;
	else if (color && !strcmp(color, "never"))
		ui.color = 0;
	else
		ui.color = tty && !(no_color && *no_color);
	ui.status = tty && !json && !ui.gha && tf_verbosity == 1;
	if (ui.status && !pthread_create(&ui.thread, NULL, redraw, NULL))
		ui.thread_on = 1;
	return 0;
}

void tf_ui_finish(int exit_code)
{
	size_t i;

	pthread_mutex_lock(&lock);
	ui.stop = 1;
	clear_status();
	ui.status = 0;
	fflush(stderr);
	pthread_mutex_unlock(&lock);
	if (ui.thread_on)
		pthread_join(ui.thread, NULL);
	ui.thread_on = 0;
	if (ui.json)
		tf_ui_event("done", "{s:i, s:f}", "exit", exit_code, "seconds",
			    tf_ui_now());
	for (i = 0; i < ui.nr_run; i++) {
		free(ui.run[i].target);
		free(ui.run[i].step);
	}
	ui.nr_run = 0;
	free(ui.targets);
	free(ui.fetching);
	ui.targets = ui.fetching = NULL;
}

/* A workflow command's data: %, CR and LF escaped; in properties also : and ,. */
static void gha_escape(const char *s, int property, struct tf_buf *out)
{
	for (; *s; s++) {
		if (*s == '%')
			tf_buf_addstr(out, "%25");
		else if (*s == '\r')
			tf_buf_addstr(out, "%0D");
		else if (*s == '\n')
			tf_buf_addstr(out, "%0A");
		else if (property && *s == ':')
			tf_buf_addstr(out, "%3A");
		else if (property && *s == ',')
			tf_buf_addstr(out, "%2C");
		else
			tf_buf_addch(out, *s);
	}
}

static void gha_annotate(enum tf_level level, const char *file, int line,
			 int col, const char *msg)
{
	struct tf_buf b = TF_BUF_INIT;

	tf_buf_addstr(&b, level == TF_LEVEL_ERROR ? "::error" : "::warning");
	if (file) {
		tf_buf_addstr(&b, " file=");
		gha_escape(file, 1, &b);
		tf_buf_addf(&b, ",line=%d,col=%d", line, col);
	}
	tf_buf_addstr(&b, "::");
	gha_escape(msg, 0, &b);
	fflush(stderr);
	printf("%s\n", b.buf);
	fflush(stdout);
	tf_buf_release(&b);
}

/* One message; file is NULL unless it is at a recipe position. */
static void tf_ui_report(enum tf_level level, const char *file, int line,
			 int col, const char *msg)
{
	static const char *const colors[] = { "\033[1;31m", "\033[1;33m",
					      "\033[1m", "\033[2m" };
	char where[1024] = "";

	if (file)
		snprintf(where, sizeof(where), "%s:%d:%d: ", file, line, col);
	pthread_mutex_lock(&lock);
	clear_status();
	/* After an error the status line stays away: nothing may hide it,
	   nor the log lines printed after it. */
	if (level == TF_LEVEL_ERROR)
		ui.status = 0;
	/* One write per line so parallel children's output never splits it. */
	fprintf(stderr, "%stfbuild:%s %s%s%s\n", ui.color ? colors[level] : "",
		ui.color ? "\033[0m" : "",
		level == TF_LEVEL_WARNING ? "warning: " : "", where, msg);
	fflush(stderr);
	if (ui.gha && level <= TF_LEVEL_WARNING)
		gha_annotate(level, file, line, col, msg);
	if (ui.json && level <= TF_LEVEL_WARNING) {
		if (file)
			tf_ui_event(level == TF_LEVEL_ERROR ? "error"
							    : "warning",
				    "{s:s, s:s, s:i, s:i}", "message", msg,
				    "file", file, "line", line, "col", col);
		else
			tf_ui_event(level == TF_LEVEL_ERROR ? "error"
							    : "warning",
				    "{s:s}", "message", msg);
	}
	draw_status();
	pthread_mutex_unlock(&lock);
}

void tf_ui_targets(const char *const *names, size_t nr)
{
	struct tf_buf b = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < nr; i++)
		tf_buf_addf(&b, "%s%s", i ? " " : "", names[i]);
	pthread_mutex_lock(&lock);
	free(ui.targets);
	ui.targets = tf_buf_detach(&b);
	pthread_mutex_unlock(&lock);
}

void tf_ui_fetch_progress(const char *label, long long bytes)
{
	pthread_mutex_lock(&lock);
	if (!ui.fetching || strcmp(ui.fetching, label)) {
		free(ui.fetching);
		ui.fetching = tf_strdup(label);
		ui.fetch_since = tf_ui_now();
	}
	ui.bytes = bytes;
	pthread_mutex_unlock(&lock);
}

void tf_ui_source_fetched(const char *name, const char *url, const char *sha256,
			  const char *path)
{
	struct stat st;
	long long size = stat(path, &st) == 0 ? (long long)st.st_size : -1;
	int downloaded;
	double secs;

	pthread_mutex_lock(&lock);
	downloaded = ui.fetching != NULL;
	secs = downloaded ? tf_ui_now() - ui.fetch_since : 0;
	free(ui.fetching);
	ui.fetching = NULL;
	draw_status();
	pthread_mutex_unlock(&lock);
	if (downloaded && !ui.status)
		info("source '%s': %lld bytes in %.1fs", name, size, secs);
	if (ui.json)
		tf_ui_event("source", "{s:s, s:s, s:s, s:I, s:b, s:f}", "name",
			    name, "url", url, "sha256", sha256, "bytes", size,
			    "cached", !downloaded, "seconds", secs);
}

void tf_ui_steps_total(size_t nr)
{
	pthread_mutex_lock(&lock);
	ui.steps_total = nr;
	ui.steps_done = 0;
	pthread_mutex_unlock(&lock);
}

void tf_ui_step_started(const char *target, const char *step,
			const char *reason)
{
	pthread_mutex_lock(&lock);
	if (ui.nr_run < MAX_RUNNING) {
		ui.run[ui.nr_run].target = tf_strdup(target);
		ui.run[ui.nr_run].step = tf_strdup(step);
		ui.run[ui.nr_run].since = tf_ui_now();
		ui.nr_run++;
	}
	draw_status();
	pthread_mutex_unlock(&lock);
	if (ui.json)
		tf_ui_event("step-started", "{s:s, s:s, s:s}", "target", target,
			    "step", step, "reason", reason);
}

static void forget_running(const char *target, const char *step)
{
	size_t i;

	for (i = 0; i < ui.nr_run; i++)
		if (!strcmp(ui.run[i].target, target) &&
		    !strcmp(ui.run[i].step, step))
			break;
	if (i == ui.nr_run)
		return;
	free(ui.run[i].target);
	free(ui.run[i].step);
	memmove(&ui.run[i], &ui.run[i + 1],
		(ui.nr_run - i - 1) * sizeof(*ui.run));
	ui.nr_run--;
}

/* GitHub Actions: the step's log, folded. */
static void gha_group(const char *target, const char *step, enum tf_ui_step how,
		      double seconds, const char *log)
{
	struct tf_buf text = TF_BUF_INIT;

	text.cap = 64 << 20;
	fflush(stderr);
	printf("::group::%s for %s (%s in %.1fs)\n", step, target,
	       how == TF_UI_STEP_OK ? "done" : "failed", seconds);
	if (log && !tf_read_file(log, &text))
		fwrite(text.buf, 1, text.len, stdout);
	if (text.len && text.buf[text.len - 1] != '\n')
		putchar('\n');
	printf("::endgroup::\n");
	fflush(stdout);
	tf_buf_release(&text);
}

void tf_ui_step_finished(const char *target, const char *step,
			 enum tf_ui_step how, double seconds, const char *log)
{
	static const char *const names[] = { "ok", "failed", "up-to-date",
					     "skipped" };
	int ran = how == TF_UI_STEP_OK || how == TF_UI_STEP_FAILED;

	pthread_mutex_lock(&lock);
	forget_running(target, step);
	ui.steps_done++;
	draw_status();
	pthread_mutex_unlock(&lock);
	if (how == TF_UI_STEP_OK && !ui.status)
		info("%s for %s done in %.1fs", step, target, seconds);
	if (ui.gha && ran && !ui.json)
		gha_group(target, step, how, seconds, log);
	if (ui.json)
		tf_ui_event("step-finished", "{s:s, s:s, s:s, s:s, s:f}",
			    "target", target, "step", step, "status",
			    names[how], "cache",
			    ran                         ? "miss"
			    : how == TF_UI_STEP_SKIPPED ? "none"
							: "hit",
			    "seconds", seconds);
}

void tf_ui_wheel_written(const char *path, const char *sha256)
{
	if (ui.json)
		tf_ui_event("wheel", "{s:s, s:s}", "path", path, "sha256",
			    sha256);
}
