/* What a failed step's user is shown: see failure.h. */
#include "failure.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "isa/isa.h"
#include "base/base.h"
#include "recipe/recipe.h"
#include "plan/plan.h"

#define TAIL_LINES 20

/* The last TF_RUN_LOG_TAIL bytes of log into text: whatever the log's
   size, they are its end. */
static int read_tail(const char *log, struct tf_buf *text)
{
	int fd = open(log, O_RDONLY | O_CLOEXEC);
	off_t end = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);
	ssize_t n;

	if (end < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	tf_buf_grow(text, TF_RUN_LOG_TAIL);
	n = pread(fd, text->buf, TF_RUN_LOG_TAIL,
		  end > TF_RUN_LOG_TAIL ? end - TF_RUN_LOG_TAIL : 0);
	close(fd);
	tf_buf_setlen(text, n > 0 ? (size_t)n : 0);
	return 0;
}

/* Print the last TAIL_LINES lines of a log to stderr. */
void tf_build_show_tail(const char *log)
{
	struct tf_buf text = TF_BUF_INIT;
	size_t i, lines = 0;

	if (read_tail(log, &text)) {
		error_errno("cannot read '%s'", log);
		return;
	}
	for (i = text.len; i > 0; i--)
		if (text.buf[i - 1] == '\n' && i != text.len &&
		    ++lines == TAIL_LINES)
			break;
	fprintf(stderr, "%s%s", text.buf + i,
		text.len && text.buf[text.len - 1] != '\n' ? "\n" : "");
	tf_buf_release(&text);
}

/* 1 if a run died of SIGILL: directly, through sh (128+4), or in qemu. */
static int illegal_instruction(const char *log, int status)
{
	struct tf_buf text = TF_BUF_INIT;
	int ill = status == 128 + SIGILL;

	text.cap = 16 << 20;
	if (!ill && !tf_read_file(log, &text))
		ill = strstr(text.buf, "uncaught target signal 4 ") != NULL ||
		      strstr(text.buf, "Illegal instruction") != NULL;
	tf_buf_release(&text);
	return ill;
}

/*
 * A test failed on the baseline CPU. On an illegal instruction, name
 * the files it could have run (its build and stage directories and the
 * stages it needs) whose code is above the baseline: qemu-user does
 * not tell which instruction faulted, so these are suspects.
 */
void tf_build_baseline_failure(const struct tf_plan *p,
			       const struct tf_plan_step *ps, int status)
{
	const char **dirs = tf_calloc(ps->def->nr_needs + 4, sizeof(*dirs));
	const char *model = strrchr(p->baseline_emulator, ' ') + 1;
	enum tf_isa_family fam = !strcmp(p->target.name, "aarch64")
					 ? TF_ISA_AARCH64
					 : TF_ISA_X86_64;
	size_t i, n = 0;
	int level = tf_isa_baseline(fam);

	if (!illegal_instruction(ps->log, status)) {
		free(dirs);
		return;
	}
	/* The model was chosen for a level: find which. */
	for (i = 1; i <= 4; i++)
		if (!strcmp(tf_isa_cpu_model(fam, (int)i), model))
			level = (int)i;
	error("test '%s' for %s hit an illegal instruction on the baseline "
	      "CPU (%s): code above %s ran without a working run-time check",
	      ps->def->name.s, p->target.name, p->baseline_emulator,
	      tf_isa_level_name(fam, level));
	dirs[n++] = ps->work;
	dirs[n++] = ps->stage;
	if (ps->def->baseline_cmd) /* it ran its test's programs */
		dirs[n++] = p->steps[ps->def->need_index[ps->def->nr_needs - 1]]
				    .work;
	for (i = 0; i < ps->def->nr_needs; i++)
		if (!p->steps[ps->def->need_index[i]].def->is_test)
			dirs[n++] = p->steps[ps->def->need_index[i]].stage;
	if (!tf_isa_blame(dirs, n, p->target.name, level))
		error("  no ELF file in its directories or the stages it needs "
		      "has code above %s",
		      tf_isa_level_name(fam, level));
	free(dirs);
}

/*
 * The program a shell's "X: command not found" (bash) or "X: not
 * found" (dash, "sh: 1: X: not found") names on the line at line, of
 * len bytes; NULL if it names none. Caller frees.
 */
static char *not_found_name(const char *line, size_t len)
{
	static const char *const tails[] = { ": command not found",
					     ": not found" };
	size_t i, n, start;

	for (i = 0; i < 2; i++) {
		n = strlen(tails[i]);
		if (len <= n || memcmp(line + len - n, tails[i], n))
			continue;
		len -= n;
		for (start = len; start > 0 && line[start - 1] != ' ' &&
				  line[start - 1] != '\t';
		     start--)
			;
		/* A path or a name with a colon is not a PATH lookup. */
		if (start == len || memchr(line + start, '/', len - start) ||
		    memchr(line + start, ':', len - start))
			return NULL;
		return tf_strndup(line + start, len - start);
	}
	return NULL;
}

/* The first program the log's last lines say is not found that the
   build machine has on the fixed PATH, with its path in *path. */
static char *missing_host_tool(const struct tf_plan *p, const char *log,
			       char **path)
{
	struct tf_buf text = TF_BUF_INIT, link = TF_BUF_INIT;
	char *name = NULL, *line, *nl;

	if (read_tail(log, &text))
		goto out;
	for (line = text.buf; !name && *line; line = nl + !!*nl) {
		nl = strchrnul(line, '\n');
		name = not_found_name(line, (size_t)(nl - line));
		if (!name)
			continue;
		tf_buf_setf(&link, "%s/%s", p->host_tools, name);
		*path = tf_path_exists(link.buf) ? NULL : tf_run_which(name);
		if (!*path) {
			free(name);
			name = NULL;
		}
	}
out:
	tf_buf_release(&text);
	tf_buf_release(&link);
	return name;
}

void tf_build_host_tool_failure(const struct tf_plan *p,
				const struct tf_plan_step *ps, int status)
{
	char *path = NULL, *name;

	if (!p->host_tools || status != 127 ||
	    !(name = missing_host_tool(p, ps->log, &path)))
		return;
	tf_error_at(&ps->def->pos,
		    "%s '%s' for %s ran '%s', a build-machine program (%s) "
		    "that is not on a cross step's allow-list: add it to the "
		    "recipe's 'host-tools' (docs/cross.md#host-tools)",
		    ps->def->is_test ? "test" : "step", ps->def->name.s,
		    p->target.name, name, path);
	free(name);
	free(path);
}

/* 1 if the last lines of log speak of a pseudo terminal: Python's pty,
 * glibc's openpty and posix_openpt, script(1), expect. */
static int wanted_terminal(const char *log)
{
	static const char *const says[] = { "/dev/ptmx", "/dev/pts",
					    "out of pty devices", "openpty",
					    "posix_openpt" };
	struct tf_buf text = TF_BUF_INIT;
	size_t i;
	int found = 0;

	if (!read_tail(log, &text))
		for (i = 0; !found && i < sizeof(says) / sizeof(*says); i++)
			found = strstr(text.buf, says[i]) != NULL;
	tf_buf_release(&text);
	return found;
}

void tf_build_terminal_failure(const struct tf_plan *p,
			       const struct tf_plan_step *ps)
{
	if (ps->sandbox <= 0 || !wanted_terminal(ps->log))
		return;
	tf_error_at(&ps->def->pos,
		    "%s '%s' for %s asked for a pseudo terminal, which a step "
		    "in the sandbox does not get (its /dev has no /dev/pts "
		    "and no /dev/ptmx: docs/security.md#the-step-sandbox); "
		    "run the program without a terminal, or build with "
		    "--sandbox=off",
		    ps->def->is_test ? "test" : "step", ps->def->name.s,
		    p->target.name);
}
