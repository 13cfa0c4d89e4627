/*
 * Scratch space for the harnesses. Every input gets its own directory,
 * removed before the next input, so a crash or a bug that writes where
 * it should not is visible as a leftover (replay.c checks for those).
 */
#include "fuzz.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "path.h"

int fuzz_report_fd = 2;

/*
 * libFuzzer's -close_fd_mask=2 sends stderr (tfbuild's messages on bad
 * inputs) to /dev/null after this runs; broken invariants still show.
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd = fcntl(2, F_DUPFD_CLOEXEC, 3);

	if (fd >= 0)
		fuzz_report_fd = fd;
	return 0;
}

void fuzz_fail(const char *file, int line, const char *what)
{
	char msg[512];
	int n = snprintf(msg, sizeof(msg),
			 "fuzz: %s:%d: broken invariant: %s\n", file, line,
			 what);

	if (n > 0)
		tf_write_all(fuzz_report_fd, msg, strlen(msg));
	abort();
}

void fuzz_dir_make(struct tf_buf *dir)
{
	const char *tmp = getenv("TMPDIR");

	if (tf_mkdtemp_in(tmp && *tmp == '/' ? tmp : "/tmp", "fuzz", dir) < 0)
		fuzz_fail(__FILE__, __LINE__,
			  "cannot create a scratch directory");
}

void fuzz_write(const char *dir, const char *name, const uint8_t *data,
		size_t size, struct tf_buf *path)
{
	int fd;

	tf_path_join(path, dir, name);
	fd = open(path->buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || tf_write_all(fd, data, size) < 0 || close(fd) < 0)
		fuzz_fail(__FILE__, __LINE__, "cannot write an input file");
}

void fuzz_dir_remove(struct tf_buf *dir)
{
	if (tf_rm_rf(dir->buf) < 0)
		fuzz_fail(__FILE__, __LINE__,
			  "cannot remove a scratch directory");
	tf_buf_release(dir);
}

char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = tf_malloc(size + 1);

	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}
