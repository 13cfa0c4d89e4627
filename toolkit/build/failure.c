/* What a failed step's user is shown: see failure.h. */
#include "failure.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit/audit.h"
#include "base/base.h"
#include "recipe/recipe.h"

#define TAIL_LINES 20

/*
 * Print the last TAIL_LINES lines of a log to stderr, from its last
 * TF_RUN_LOG_TAIL bytes: whatever the log's size, they are its end.
 */
void tf_build_show_tail(const char *log)
{
	struct tf_buf text = TF_BUF_INIT;
	size_t i, lines = 0;
	int fd = open(log, O_RDONLY | O_CLOEXEC);
	off_t end = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);
	ssize_t n;

	if (end < 0) {
		error_errno("cannot read '%s'", log);
		if (fd >= 0)
			close(fd);
		return;
	}
	tf_buf_grow(&text, TF_RUN_LOG_TAIL);
	n = pread(fd, text.buf, TF_RUN_LOG_TAIL,
		  end > TF_RUN_LOG_TAIL ? end - TF_RUN_LOG_TAIL : 0);
	close(fd);
	tf_buf_setlen(&text, n > 0 ? (size_t)n : 0);
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
