/*
 * hwm.so: an LD_PRELOAD helper for the benchmarks. When a process that
 * has BENCH_HWM_FILE in its environment exits normally, append one line
 * "NAME VMHWM_KIB" (from /proc/self/status) to that file.
 *
 * /usr/bin/time's %M is the largest RSS of the whole process tree, so
 * for `tfbuild recipe` it is often the compiler's; this gives tfbuild's
 * own peak. Steps never see it: tfbuild runs them with a clean
 * environment.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void report(void) __attribute__((destructor));

static void report(void)
{
	const char *out = getenv("BENCH_HWM_FILE");
	char line[256], name[64] = "?", hwm[64] = "";
	FILE *f;
	int fd, n;

	if (!out || !(f = fopen("/proc/self/status", "r")))
		return;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Name:", 5))
			sscanf(line + 5, "%63s", name);
		else if (!strncmp(line, "VmHWM:", 6))
			sscanf(line + 6, "%63s", hwm);
	}
	fclose(f);
	fd = open(out, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	/* One write with O_APPEND: lines from concurrent processes do not mix. */
	n = snprintf(line, sizeof(line), "%s %s\n", name, hwm);
	if (n > 0 && write(fd, line, (size_t)n) < 0)
		n = 0;
	close(fd);
}
