/*
 * Source archives: libarchive's readers (tar, zip, cpio, 7z, ...) and
 * the checks tf_extract makes on each member. Whatever the archive,
 * nothing may appear outside the destination: the scratch directory
 * must hold only the archive (not linked to) and the destination
 * afterwards, and the tree must hold only directories, files and links
 * that stay inside it, none writable by others or set-id. Odd sizes
 * strip one leading component, even sizes none. It runs with umask 0,
 * and files are capped at 64 MiB (RLIMIT_FSIZE) so that a small archive
 * cannot fill the disk.
 */
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "extract.h"
#include "fuzz.h"
#include "path.h"

#define FILE_LIMIT (64 << 20)

static void setup(void)
{
	static int done;
	struct rlimit rl = { FILE_LIMIT, FILE_LIMIT };

	if (done++)
		return;
	/* Past the limit write(2) fails with EFBIG instead of a signal. */
	signal(SIGXFSZ, SIG_IGN);
	if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
		FUZZ_ASSERT(!"RLIMIT_FSIZE can be set");
	/* The most permissive umask, so no mode is right by luck. */
	umask(0);
}

/* Check one extracted entry (dst is its path relative to dest), then below. */
static int check_entry(const char *src, const char *dst, void *arg)
{
	char target[PATH_MAX];
	struct stat st;
	ssize_t n;

	FUZZ_ASSERT(!lstat(src, &st));
	if (S_ISLNK(st.st_mode)) {
		n = readlink(src, target, sizeof(target) - 1);
		FUZZ_ASSERT(n >= 0);
		target[n] = '\0';
		FUZZ_ASSERT(tf_extract_check_symlink(dst, target) ==
			    TF_LINK_INSIDE);
		return 0;
	}
	FUZZ_ASSERT(!(st.st_mode &
		      (S_ISUID | S_ISGID | S_ISVTX | S_IWGRP | S_IWOTH)));
	if (S_ISDIR(st.st_mode))
		return tf_dir_each(src, dst, check_entry, arg);
	FUZZ_ASSERT(S_ISREG(st.st_mode));
	return 0;
}

static void check_scratch(const char *dir, const char *archive,
			  const char *dest)
{
	struct tf_strvec names = TF_STRVEC_INIT;
	struct stat st;

	FUZZ_ASSERT(!tf_list_dir(dir, &names));
	FUZZ_ASSERT(names.nr == 2 && !strcmp(names.v[0], "archive") &&
		    !strcmp(names.v[1], "dest"));
	FUZZ_ASSERT(!lstat(archive, &st) && S_ISREG(st.st_mode) &&
		    st.st_nlink == 1);
	FUZZ_ASSERT(!tf_dir_each(dest, "", check_entry, NULL));
	tf_strvec_release(&names);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tf_buf dir = TF_BUF_INIT, path = TF_BUF_INIT, dest = TF_BUF_INIT;

	setup();
	fuzz_dir_make(&dir);
	fuzz_write(dir.buf, "archive", data, size, &path);
	tf_path_join(&dest, dir.buf, "dest");
	FUZZ_ASSERT(!tf_mkdir_p(dest.buf));
	tf_extract(path.buf, "archive", dest.buf, (int)(size & 1));
	check_scratch(dir.buf, path.buf, dest.buf);
	tf_buf_release(&path);
	tf_buf_release(&dest);
	fuzz_dir_remove(&dir);
	return 0;
}
