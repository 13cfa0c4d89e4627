/*
 * Which files of a wheel are ELF files (elfprobe.h).
 */
#include "elfprobe.h"

#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"

static int is_elf(const char *path)
{
	unsigned char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, magic, sizeof(magic));
	close(fd);
	return n == 4 && !memcmp(magic, "\177ELF", 4);
}

struct probe {
	const struct tf_wheel_file *v;
	unsigned char *elf;
	size_t nr;
	size_t first, step;
};

static void probe_some(const struct probe *pr)
{
	size_t i;

	for (i = pr->first; i < pr->nr; i += pr->step)
		pr->elf[i] = (unsigned char)is_elf(pr->v[i].src);
}

static void *probe_thread(void *arg)
{
	tf_signals_worker(); /* fatal signals are the main thread's */
	probe_some(arg);
	return NULL;
}

/*
 * Which files start with the ELF magic: an open, a read and a close per
 * file (63,000 files in bench/pack.sh's real-source tree), shared by up
 * to --jobs threads (every jobs-th file each: neighbours, in one
 * directory, go to different threads, so a directory of large files is
 * not one thread's). Each writes only its own bytes of elf.
 */
int tf_pack_probe_elf(const struct tf_wheel_file *v, size_t nr,
		      unsigned char *elf, int jobs)
{
	struct probe pr[8];
	pthread_t threads[8];
	int has = 0;
	size_t i, n = jobs < 1 ? 1 : jobs > 8 ? 8 : (size_t)jobs, started;

	if (nr < 1024)
		n = 1; /* not worth a thread */
	for (i = 0; i < n; i++)
		pr[i] = (struct probe){ v, elf, nr, i, n };
	for (i = 1; i < n; i++)
		if (pthread_create(&threads[i], NULL, probe_thread, &pr[i]))
			break;
	started = i;
	/* A thread that could not start: its share is probed here. */
	for (i = started; i < n; i++)
		probe_some(&pr[i]);
	probe_some(&pr[0]);
	for (i = 1; i < started; i++)
		pthread_join(threads[i], NULL);
	for (i = 0; i < nr; i++)
		has |= elf[i];
	return has;
}
