/*
 * Replay a fuzz harness without libFuzzer, as a unit test: linked with
 * one tests/fuzz/NAME_fuzz.c, it runs LLVMFuzzerTestOneInput on every
 * seed file and on deterministic mutations of each (a fixed PRNG seeded
 * from the file's name), printing "ok N - NAME: SEED and M mutations"
 * lines and the "# passed N failed N" summary tests/run.sh counts.
 *
 *   fuzz_NAME_test [-v] [-n MUTATIONS] [PATH...]
 *
 * PATHs are files or directories of seeds; without them the corpus
 * directories the Makefile compiled in (FUZZ_DIRS, ':'-separated) are
 * used with FUZZ_MUTATIONS (environment, default 200) mutations per
 * seed. With PATHs there are no mutations unless -n says so, which is
 * how a saved crash is replayed. -v keeps tfbuild's messages on stderr.
 *
 * Each input runs with TMPDIR pointing at a private directory that must
 * be empty again afterwards; a crash, sanitizer report, broken invariant
 * or an input that runs over 10 seconds saves the input as
 * FUZZ_SAVE_DIR/fuzz-crash-NAME and says how to run it again.
 */
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "path.h"

#ifndef FUZZ_NAME
#define FUZZ_NAME "fuzz"
#endif
#ifndef FUZZ_DIRS
#define FUZZ_DIRS ""
#endif
/* Where a failing input is saved ("": the current directory). */
#ifndef FUZZ_SAVE_DIR
#define FUZZ_SAVE_DIR ""
#endif

#define DEFAULT_MUTATIONS 200
/* Seeds larger than this are skipped; mutations never grow past it. */
#define SEED_MAX (1 << 20)
#define TIMEOUT_SECONDS 10

/* The sanitizer runtimes define these when linked in; else they are NULL. */
void __sanitizer_set_report_fd(void *fd) __attribute__((weak));
void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));
int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

/* What runs now, for the crash handlers (which may only call write(2)). */
static struct {
	const char *seed; /* borrowed; the seed file */
	long mutation;    /* 0 for the seed itself */
	const char *data; /* borrowed; the bytes being run */
	size_t size;
	char saved[512]; /* where a crashing input is written */
} now;

static int test_nr, test_failed;

static void say(const char *s)
{
	tf_write_all(fuzz_report_fd, s, strlen(s));
}

static void say_number(long n)
{
	char digits[24], *p = digits + sizeof(digits);

	*--p = '\0';
	do
		*--p = (char)('0' + n % 10);
	while ((n /= 10) > 0);
	say(p);
}

/* Save the current input and say how to run it again; async-signal-safe. */
static void dump_input(const char *why)
{
	int fd, ok;

	say("# " FUZZ_NAME ": ");
	say(why);
	say(" on ");
	say(now.seed ? now.seed : "(no input)");
	say(" mutation ");
	say_number(now.mutation);
	say("\n");
	if (!now.data)
		return;
	fd = open(now.saved, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ok = fd >= 0 && !tf_write_all(fd, now.data, now.size);
	if (fd >= 0)
		close(fd);
	if (!ok)
		return;
	say("# input saved; run it again with: fuzz_" FUZZ_NAME "_test -v ");
	say(now.saved);
	say("\n");
}

/* A sanitizer's report ends in abort(): tell about the input once. */
static volatile sig_atomic_t dumped;

static void on_death(void)
{
	if (!dumped++)
		dump_input("sanitizer report");
}

static void on_signal(int sig)
{
	if (!dumped++)
		dump_input(sig == SIGALRM ? "timeout" : "crash");
	signal(sig == SIGALRM ? SIGABRT : sig, SIG_DFL);
	raise(sig == SIGALRM ? SIGABRT : sig);
}

/*
 * tfbuild reports every bad input on stderr: send that to /dev/null and
 * keep the real stderr for sanitizer reports and ours, as libFuzzer's
 * -close_fd_mask=2 does. Sanitizers handle memory faults themselves.
 */
static void setup_reports(int verbose)
{
	static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL };
	int null, i;

	fuzz_report_fd = fcntl(2, F_DUPFD_CLOEXEC, 3);
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fuzz_report_fd < 0 || null < 0)
		fuzz_fail(__FILE__, __LINE__, "cannot set up stderr");
	if (!verbose)
		dup2(null, 2);
	close(null);
	if (__sanitizer_set_report_fd)
		__sanitizer_set_report_fd((void *)(intptr_t)fuzz_report_fd);
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(on_death);
	else
		for (i = 0; i < (int)(sizeof(faults) / sizeof(*faults)); i++)
			signal(faults[i], on_signal);
	signal(SIGABRT, on_signal);
	signal(SIGALRM, on_signal);
}

/* --- mutations --- */

static uint64_t rnd(uint64_t *s)
{
	/* xorshift64: small, fast and the same everywhere. */
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static size_t pick(uint64_t *s, size_t n)
{
	return n ? (size_t)(rnd(s) % n) : 0;
}

/* Insert n bytes at `at`; p may point into b. */
static void insert(struct tf_buf *b, size_t at, const char *p, size_t n)
{
	char *copy;

	if (b->len + n > SEED_MAX)
		return;
	copy = tf_malloc(n);
	memcpy(copy, p, n);
	tf_buf_grow(b, n);
	memmove(b->buf + at + n, b->buf + at, b->len - at);
	memcpy(b->buf + at, copy, n);
	tf_buf_setlen(b, b->len + n);
	free(copy);
}

static void erase(struct tf_buf *b, size_t at, size_t n)
{
	memmove(b->buf + at, b->buf + at + n, b->len - at - n);
	tf_buf_setlen(b, b->len - n);
}

/* Bytes that mean something to the formats the harnesses read. */
static const char special[] = "\0\377\177\200\n\r\t ,\"'\\/.-_:$!{}[]#&*|%+=@0";
static const char *const tokens[] = {
	"..",
	"../",
	"/",
	"\"",
	"${",
	"}",
	": ",
	"- ",
	"\n- ",
	"&a ",
	"*a",
	"[",
	"]",
	"{",
	"\t",
	"\r\n",
	"sha256=",
	"$ORIGIN",
	".dist-info/",
	"-1",
	"0",
	"4294967296",
	"99999999999999999999",
	"manylinux_2_17_",
	"x86_64",
	"aarch64",
	"GLIBC_2.",
	"@@ -1,3 +1,3 @@",
	"--- a/",
	"+++ b/",
	"\"\\303\\251\"",
};

/* Overwrite up to 8 bytes at a random place with a boundary integer. */
static void set_integer(uint64_t *s, struct tf_buf *b)
{
	static const uint64_t values[] = { 0,          1,          0x7f,
					   0x80,       0xff,       0x7fff,
					   0xffff,     0x7fffffff, 0x80000000,
					   0xffffffff, UINT64_MAX, 0x1000 };
	uint64_t v = values[pick(s, sizeof(values) / sizeof(*values))];
	size_t n = (size_t)1 << pick(s, 4), at;

	if (b->len < n)
		return;
	at = pick(s, b->len - n + 1);
	if (rnd(s) & 1)
		v = __builtin_bswap64(v) >> (64 - 8 * n);
	memcpy(b->buf + at, &v, n);
}

/* The line around offset at: its start and length with its newline. */
static void line_at(const struct tf_buf *b, size_t at, size_t *start,
		    size_t *len)
{
	size_t end = at;

	*start = at;
	while (*start && b->buf[*start - 1] != '\n')
		--*start;
	while (end < b->len && b->buf[end++] != '\n')
		;
	*len = end - *start;
}

static void mutate_once(uint64_t *s, struct tf_buf *b,
			const struct tf_buf *other)
{
	size_t at = pick(s, b->len + 1), n, start;
	const char *t;

	switch (pick(s, 11)) {
	case 0:
		if (b->len)
			b->buf[pick(s, b->len)] ^= (char)(1u << pick(s, 8));
		break;
	case 1:
		if (b->len)
			b->buf[pick(s, b->len)] =
				special[pick(s, sizeof(special) - 1)];
		break;
	case 2:
		insert(b, at, &special[pick(s, sizeof(special) - 1)], 1);
		break;
	case 3:
		t = tokens[pick(s, sizeof(tokens) / sizeof(*tokens))];
		insert(b, at, t, strlen(t));
		break;
	case 4:
		if (at < b->len)
			erase(b, at,
			      1 + pick(s, b->len - at < 64 ? b->len - at : 64));
		break;
	case 5:
		set_integer(s, b);
		break;
	case 6: /* copy a piece of this input or of another seed */
		if (rnd(s) & 1)
			other = b;
		start = pick(s, other->len);
		n = 1 + pick(s, other->len - start < 256 ? other->len - start
							 : 256);
		if (other->len)
			insert(b, at, other->buf + start, n);
		break;
	case 7:
		if (b->len)
			b->buf[pick(s, b->len)] += (char)(pick(s, 9) - 4);
		break;
	case 8:
		tf_buf_setlen(b, at);
		break;
	case 9: /* repeat a line somewhere */
		if (b->len) {
			line_at(b, pick(s, b->len), &start, &n);
			insert(b, at, b->buf + start, n);
		}
		break;
	default: /* drop a line */
		if (b->len) {
			line_at(b, pick(s, b->len), &start, &n);
			erase(b, start, n);
		}
		break;
	}
}

/* FNV-1a, to give each seed file its own stream of mutations. */
static uint64_t hash_name(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h;
}

static void mutate(const char *name, long k, const struct tf_buf *seed,
		   const struct tf_buf *other, struct tf_buf *out)
{
	uint64_t s = hash_name(name) ^ ((uint64_t)k * 0x9e3779b97f4a7c15ull);
	int i, nr;

	s = s ? s : 1;
	tf_buf_reset(out);
	tf_buf_add(out, seed->buf, seed->len);
	nr = 1 + (int)pick(&s, 4);
	for (i = 0; i < nr; i++)
		mutate_once(&s, out, other);
}

/* --- running --- */

/* Empty the private TMPDIR; 0 if it was empty. */
static int scratch_clean(const char *dir)
{
	struct tf_strvec names = TF_STRVEC_INIT;
	struct tf_buf path = TF_BUF_INIT;
	size_t i;
	int left;

	if (tf_list_dir(dir, &names) < 0)
		fuzz_fail(__FILE__, __LINE__,
			  "cannot list the scratch directory");
	left = names.nr > 0;
	for (i = 0; i < names.nr; i++) {
		tf_buf_reset(&path);
		tf_path_join(&path, dir, names.v[i]);
		tf_rm_rf(path.buf);
	}
	tf_strvec_release(&names);
	tf_buf_release(&path);
	return left;
}

/* Run one input; 0, or -1 if it left files in the scratch directory. */
static int run_one(const char *scratch, const struct tf_buf *in, long k)
{
	now.mutation = k;
	now.data = in->buf;
	now.size = in->len;
	alarm(TIMEOUT_SECONDS);
	LLVMFuzzerTestOneInput((const uint8_t *)in->buf, in->len);
	alarm(0);
	now.data = NULL;
	if (!scratch_clean(scratch))
		return 0;
	dump_input("files left behind");
	return -1;
}

/* Print one test line: "ok N - NAME: WHAT" or "not ok N - NAME: WHAT: WHY". */
static void report(const char *what, const char *why)
{
	test_nr++;
	test_failed += why != NULL;
	printf("%sok %d - %s: %s%s%s\n", why ? "not " : "", test_nr, FUZZ_NAME,
	       what, why ? ": " : "", why ? why : "");
	fflush(stdout);
}

/* "corpus/x.yaml": enough of a seed's path to tell the seed dirs apart. */
static const char *short_name(const char *path)
{
	const char *p = path + strlen(path);
	int slashes = 0;

	while (p > path && (p[-1] != '/' || ++slashes < 2))
		p--;
	return p;
}

/* Run seed i as it is, then its mutations; one test line for all. */
static void run_seed(const char *scratch, const struct tf_strvec *paths,
		     const struct tf_buf *seeds, size_t i, long mutations)
{
	static int leaked;
	const char *name = tf_path_basename(paths->v[i]), *why = NULL;
	struct tf_buf in = TF_BUF_INIT, what = TF_BUF_INIT;
	long k;

	now.seed = paths->v[i];
	if (run_one(scratch, &seeds[i], 0) < 0)
		why = "files left behind";
	for (k = 1; k <= mutations; k++) {
		mutate(name, k, &seeds[i], &seeds[(i + (size_t)k) % paths->nr],
		       &in);
		if (run_one(scratch, &in, k) < 0)
			why = "files left behind";
	}
	/* Later checks would report the same leaks again: name the first. */
	if (!leaked && __lsan_do_recoverable_leak_check &&
	    __lsan_do_recoverable_leak_check()) {
		why = "memory leaked";
		leaked = 1;
	}
	tf_buf_addf(&what, "%s and %ld mutations", short_name(paths->v[i]),
		    mutations);
	report(what.buf, why);
	tf_buf_release(&in);
	tf_buf_release(&what);
}

/* Add the seed file at path, or the files in the directory at path. */
static int collect(const char *path, struct tf_strvec *paths)
{
	struct tf_strvec names = TF_STRVEC_INIT;
	size_t i;

	if (!tf_path_is_dir(path)) {
		if (!tf_path_exists(path))
			return -1;
		tf_strvec_push(paths, path);
		return 0;
	}
	if (tf_list_dir(path, &names) < 0)
		return -1;
	for (i = 0; i < names.nr; i++)
		if (names.v[i][0] != '.')
			tf_strvec_pushf(paths, "%s/%s", path, names.v[i]);
	tf_strvec_release(&names);
	return 0;
}

/* The default seed directories, FUZZ_DIRS split at ':'. */
static void default_dirs(struct tf_strvec *dirs)
{
	const char *p = FUZZ_DIRS;

	while (*p) {
		size_t n = strcspn(p, ":");

		if (n)
			tf_strvec_push_take(dirs, tf_strndup(p, n));
		p += n;
		p += *p == ':';
	}
}

/* A private TMPDIR; short, as verify.c only uses a short one. */
static void make_scratch(struct tf_buf *dir)
{
	const char *tmp = getenv("TMPDIR");

	if (!tmp || *tmp != '/' || strlen(tmp) > 16)
		tmp = "/tmp";
	if (tf_mkdtemp_in(tmp, "tfbuild-fuzz", dir) < 0)
		fuzz_fail(__FILE__, __LINE__,
			  "cannot create a scratch directory");
	setenv("TMPDIR", dir->buf, 1);
	if (*FUZZ_SAVE_DIR && tf_mkdir_p(FUZZ_SAVE_DIR) < 0)
		fuzz_fail(__FILE__, __LINE__, "cannot create " FUZZ_SAVE_DIR);
	snprintf(now.saved, sizeof(now.saved), "%s%sfuzz-crash-%s",
		 FUZZ_SAVE_DIR, *FUZZ_SAVE_DIR ? "/" : "", FUZZ_NAME);
}

static int usage(void)
{
	fprintf(stderr, "usage: fuzz_%s_test [-v] [-n MUTATIONS] [PATH...]\n",
		FUZZ_NAME);
	return 2;
}

/* Read the seeds into bufs; an unreadable or huge one is a failure line. */
static struct tf_buf *load(struct tf_strvec *paths)
{
	struct tf_buf *seeds = tf_calloc(paths->nr + 1, sizeof(*seeds));
	size_t i;

	for (i = 0; i < paths->nr; i++) {
		tf_buf_init(&seeds[i]);
		seeds[i].cap = SEED_MAX;
		if (tf_read_file(paths->v[i], &seeds[i]) < 0)
			report(short_name(paths->v[i]), "cannot read the seed");
		seeds[i].cap = 0;
	}
	return seeds;
}

int main(int argc, char **argv)
{
	struct tf_strvec dirs = TF_STRVEC_INIT, paths = TF_STRVEC_INIT;
	struct tf_buf scratch = TF_BUF_INIT, *seeds;
	const char *env = getenv("FUZZ_MUTATIONS");
	long mutations = -1;
	size_t i;
	int opt, verbose = 0;

	while ((opt = getopt(argc, argv, "vn:")) != -1) {
		if (opt == 'v')
			verbose = 1;
		else if (opt == 'n')
			mutations = atol(optarg);
		else
			return usage();
	}
	for (i = (size_t)optind; i < (size_t)argc; i++)
		tf_strvec_push(&dirs, argv[i]);
	if (!dirs.nr)
		default_dirs(&dirs);
	if (mutations < 0)
		mutations = optind < argc ? 0
			    : env         ? atol(env)
					  : DEFAULT_MUTATIONS;
	setup_reports(verbose);
	/* A harness may have no committed seeds, only generated ones. */
	for (i = 0; i < dirs.nr; i++)
		if (collect(dirs.v[i], &paths) < 0 && optind < argc)
			report(dirs.v[i], "no such seed file or directory");
	if (!paths.nr)
		report("seeds", "none found");
	seeds = load(&paths);
	make_scratch(&scratch);
	for (i = 0; i < paths.nr; i++)
		run_seed(scratch.buf, &paths, seeds, i, mutations);
	if (rmdir(scratch.buf) < 0)
		report("scratch directory", "cannot remove it");
	for (i = 0; i < paths.nr; i++)
		tf_buf_release(&seeds[i]);
	free(seeds);
	tf_strvec_release(&dirs);
	tf_strvec_release(&paths);
	tf_buf_release(&scratch);
	printf("# passed %d failed %d\n", test_nr - test_failed, test_failed);
	return test_failed ? 1 : 0;
}
