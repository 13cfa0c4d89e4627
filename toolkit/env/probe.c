#include "probe.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/base.h"

#define MAGIC "tfbuild-probes 1\n"
#define ARG_SEP '\x1f' /* between argv words in the file: never in a word */

/* One remembered answer. */
struct entry {
	char *argv;     /* owned: the words joined by ARG_SEP */
	char *exe;      /* owned: argv[0] resolved, symlinks followed */
	struct stat st; /* dev, ino, size, mtime, ctime of exe */
	char *out;      /* owned: the first line it printed */
};

static struct {
	char *path;      /* owned: the cache file, NULL when none is open */
	struct entry *v; /* owned array */
	size_t nr, alloc;
	int dirty; /* learnt something since it was loaded */
} cache;

static void add_entry(char *argv, char *exe, const struct stat *st, char *out)
{
	if (cache.nr == cache.alloc) {
		cache.alloc = cache.alloc ? cache.alloc * 2 : 8;
		cache.v = tf_realloc(cache.v, cache.alloc * sizeof(*cache.v));
	}
	cache.v[cache.nr].argv = argv;
	cache.v[cache.nr].exe = exe;
	cache.v[cache.nr].st = *st;
	cache.v[cache.nr++].out = out;
}

/* One line: exe dev ino size mtime ctime argv out, tab-separated. */
static void parse_line(char *line)
{
	char *f[8], *end;
	unsigned long long n[5];
	struct stat st;
	size_t i;

	for (i = 0; i < 8; i++) {
		f[i] = line;
		line = strchr(line, i < 7 ? '\t' : '\0');
		if (!line)
			return;
		if (i < 7)
			*line++ = '\0';
	}
	for (i = 0; i < 5; i++) {
		errno = 0;
		n[i] = strtoull(f[1 + i], &end, 10);
		if (errno || *end || end == f[1 + i])
			return;
	}
	memset(&st, 0, sizeof(st));
	st.st_dev = (dev_t)n[0];
	st.st_ino = (ino_t)n[1];
	st.st_size = (off_t)n[2];
	st.st_mtim.tv_sec = (time_t)(n[3] / 1000000000ULL);
	st.st_mtim.tv_nsec = (long)(n[3] % 1000000000ULL);
	st.st_ctim.tv_sec = (time_t)(n[4] / 1000000000ULL);
	st.st_ctim.tv_nsec = (long)(n[4] % 1000000000ULL);
	add_entry(tf_strdup(f[6]), tf_strdup(f[0]), &st, tf_strdup(f[7]));
}

void tf_probe_open(const char *path)
{
	struct tf_buf b = TF_BUF_INIT;
	char *p, *nl;

	tf_probe_close(0);
	cache.path = tf_strdup(path);
	if (!tf_path_exists(path) || tf_read_file(path, &b) ||
	    strncmp(b.buf, MAGIC, strlen(MAGIC))) {
		tf_buf_release(&b);
		return;
	}
	for (p = b.buf + strlen(MAGIC); (nl = strchr(p, '\n')); p = nl + 1) {
		*nl = '\0';
		parse_line(p);
	}
	tf_buf_release(&b);
}

static void format_entry(const struct entry *e, struct tf_buf *b)
{
	tf_buf_addf(b, "%s\t%llu\t%llu\t%llu\t%lld\t%lld\t%s\t%s\n", e->exe,
		    (unsigned long long)e->st.st_dev,
		    (unsigned long long)e->st.st_ino,
		    (unsigned long long)e->st.st_size,
		    tf_time_ns(&e->st.st_mtim), tf_time_ns(&e->st.st_ctim),
		    e->argv, e->out);
}

void tf_probe_close(int save)
{
	struct tf_buf b = TF_BUF_INIT, dir = TF_BUF_INIT;
	size_t i;

	if (save && cache.path && cache.dirty) {
		tf_buf_addstr(&b, MAGIC);
		for (i = 0; i < cache.nr; i++)
			format_entry(&cache.v[i], &b);
		tf_buf_addstr(&dir, cache.path);
		tf_buf_setlen(&dir,
			      (size_t)(tf_path_basename(dir.buf) - dir.buf));
		/* A cache that cannot be written only costs time. */
		if ((dir.len && tf_mkdir_p(dir.buf)) ||
		    tf_write_file_atomic(cache.path, b.buf, b.len, 0))
			warning("cannot remember tool identities in '%s'",
				cache.path);
	}
	tf_buf_release(&b);
	tf_buf_release(&dir);
	for (i = 0; i < cache.nr; i++) {
		free(cache.v[i].argv);
		free(cache.v[i].exe);
		free(cache.v[i].out);
	}
	free(cache.v);
	free(cache.path);
	cache.path = NULL;
	cache.v = NULL;
	cache.nr = cache.alloc = 0;
	cache.dirty = 0;
}

/* Run argv in a minimal environment; its first line of output, or NULL. */
static char *run_first_line(const char *const *argv)
{
	struct tf_buf out = TF_BUF_INIT;
	int status = tf_run_tool(argv, NULL, &out, 4096);

	tf_buf_setlen(&out, strcspn(out.buf, "\n"));
	if (status != 0 || !out.len) {
		tf_buf_release(&out);
		return NULL;
	}
	return tf_buf_detach(&out);
}

/* Storable: no tab, newline or ARG_SEP inside. */
static int plain(const char *s)
{
	return !strpbrk(s, "\t\n\r\x1f");
}

/*
 * A file changed within the last seconds may change again without its
 * mtime moving on a coarse clock (git's "racy" files): not remembered.
 */
static int settled(const struct stat *st)
{
	struct timespec now;

	if (clock_gettime(CLOCK_REALTIME, &now) < 0)
		return 0;
	return tf_time_ns(&st->st_mtim) < tf_time_ns(&now) - 2000000000LL &&
	       tf_time_ns(&st->st_ctim) < tf_time_ns(&now) - 2000000000LL;
}

static char *lookup(const char *key, const char *exe, const struct stat *st)
{
	size_t i;

	for (i = 0; i < cache.nr; i++)
		if (!strcmp(cache.v[i].argv, key) &&
		    !strcmp(cache.v[i].exe, exe) &&
		    tf_stat_same(&cache.v[i].st, st))
			return tf_strdup(cache.v[i].out);
	return NULL;
}

/* Drop what is remembered for key: its tool changed. */
static void forget(const char *key)
{
	size_t i, j;

	for (i = j = 0; i < cache.nr; i++) {
		if (!strcmp(cache.v[i].argv, key)) {
			free(cache.v[i].argv);
			free(cache.v[i].exe);
			free(cache.v[i].out);
			cache.dirty = 1;
			continue;
		}
		cache.v[j++] = cache.v[i];
	}
	cache.nr = j;
}

char *tf_probe_first_line(const char *const *argv)
{
	struct tf_strvec words = TF_STRVEC_INIT;
	struct tf_buf key = TF_BUF_INIT;
	char *found = tf_run_which(argv[0]), *exe = NULL, *out = NULL;
	struct stat st;
	size_t i;
	int storable = 1;

	/* Run it by the path it resolves to in the steps' PATH. */
	tf_strvec_push(&words, found ? found : argv[0]);
	tf_strvec_pushv(&words, argv + 1);
	if (!found || !cache.path || !(exe = realpath(found, NULL)) ||
	    stat(exe, &st) < 0) {
		out = run_first_line((const char *const *)words.v);
		goto out;
	}
	for (i = 0; i < words.nr; i++) {
		storable &= plain(words.v[i]);
		tf_buf_addf(&key, "%s%s", i ? "\x1f" : "", words.v[i]);
	}
	out = lookup(key.buf, exe, &st);
	if (out)
		goto out;
	forget(key.buf);
	out = run_first_line((const char *const *)words.v);
	if (out && storable && plain(exe) && plain(out) && settled(&st)) {
		add_entry(tf_buf_detach(&key), tf_strdup(exe), &st,
			  tf_strdup(out));
		cache.dirty = 1;
	}
out:
	free(found);
	free(exe);
	tf_strvec_release(&words);
	tf_buf_release(&key);
	return out;
}
