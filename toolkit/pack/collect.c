/* The files a wheel's rules name: see collect.h. */
#include "collect.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recipe/recipe.h"
#include "contain.h"
#include "base/base.h"
#include "plan/plan.h"
#include "wheel/wheel.h"

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

/* Add src as dst (the strings are copied into fl's pool). */
static void tf_files_add(struct tf_file_list *fl, const char *src,
			 const char *dst)
{
	size_t n = strlen(src), k = strlen(dst);

	if (fl->nr == fl->alloc) {
		fl->alloc = fl->alloc ? fl->alloc * 2 : 16;
		fl->v = tf_realloc(fl->v, fl->alloc * sizeof(*fl->v));
		fl->elf = tf_realloc(fl->elf, fl->alloc);
	}
	/* At 63,000 files every byte per file counts (peak RSS). */
	fl->v[fl->nr].src = tf_strpool_addn(&fl->store, src, n);
	fl->v[fl->nr].dst =
		k < n && src[n - k - 1] == '/' && !strcmp(src + n - k, dst)
			? fl->v[fl->nr].src + n - k
			: tf_strpool_addn(&fl->store, dst, k);
	fl->nr++;
}

struct probe {
	struct tf_file_list *fl;
	size_t first, step;
};

static void probe_some(const struct probe *pr)
{
	size_t i;

	for (i = pr->first; i < pr->fl->nr; i += pr->step)
		pr->fl->elf[i] = (unsigned char)is_elf(pr->fl->v[i].src);
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
 * not one thread's). Each writes only its own bytes of fl->elf.
 */
void tf_files_probe_elf(struct tf_file_list *fl, int jobs)
{
	struct probe pr[8];
	pthread_t threads[8];
	size_t i, n = jobs < 1 ? 1 : jobs > 8 ? 8 : (size_t)jobs, started;

	if (fl->nr < 1024)
		n = 1; /* not worth a thread */
	for (i = 0; i < n; i++)
		pr[i] = (struct probe){ fl, i, n };
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
	for (i = 0; i < fl->nr; i++)
		fl->has_elf |= fl->elf[i];
}

/* One rule's walk: where its files go and what they may reach. */
struct walk {
	struct tf_file_list *fl;
	const struct tf_contain *c;
	const struct tf_plan_file *f;
	const char *wheel;
};

/* Add src (a file, or a directory and all below it) as dst. */
static int add_tree(const char *src, const char *dst, void *arg)
{
	struct walk *w = arg;
	struct tf_buf why = TF_BUF_INIT;
	struct stat st;

	if (lstat(src, &st) < 0)
		return error_errno("cannot read '%s'", src);
	if (S_ISLNK(st.st_mode) &&
	    (tf_contain_link_check(w->c, src, &why) || stat(src, &st) < 0)) {
		tf_error_at(&w->f->def->pos, "wheel '%s': %s", w->wheel,
			    why.len ? why.buf : strerror(errno));
		tf_buf_release(&why);
		return -1;
	}
	if (S_ISREG(st.st_mode)) {
		tf_files_add(w->fl, src, dst);
		return 0;
	}
	if (!S_ISDIR(st.st_mode))
		return error("'%s' is neither a file nor a directory", src);
	return tf_dir_each(src, dst, add_tree, w);
}

int tf_files_collect(const struct tf_plan *p, const struct tf_plan_wheel *pw,
		     const struct tf_plan_file *f, struct tf_file_list *fl)
{
	const struct tf_plan_source *s =
		f->source >= 0 ? &p->sources[f->source] : NULL;
	const char *root = s ? s->dir : p->steps[f->step].stage;
	struct tf_buf pattern = TF_BUF_INIT, dst = TF_BUF_INIT;
	struct tf_buf why = TF_BUF_INIT;
	struct tf_contain c = TF_CONTAIN_INIT;
	struct walk w = { fl, &c, f, pw->spec.name };
	glob_t g;
	size_t i;
	int ret = 0, rc;

	if (tf_contain_init(&c, root, f->def->follow_links ? p->dir : NULL)) {
		tf_contain_release(&c);
		return -1;
	}
	tf_path_join(&pattern, root, f->src);
	rc = tf_contain_glob(pattern.buf, &g);
	if (rc == GLOB_NOMATCH)
		ret = tf_error_at(
			&f->def->src.pos,
			"wheel '%s': '%s' matches nothing in the %s of %s '%s' (%s)",
			pw->spec.name, f->src, s ? "tree" : "stage",
			s ? "source" : "step", f->def->from.s, root);
	else if (rc)
		ret = error("wheel '%s': cannot search '%s'", pw->spec.name,
			    pattern.buf);
	if (!ret)
		fl->roots += g.gl_pathc;
	for (i = 0; !ret && i < g.gl_pathc; i++) {
		tf_buf_reset(&dst);
		if (strcmp(f->dst, "."))
			tf_path_join(&dst, f->dst,
				     tf_path_basename(g.gl_pathv[i]));
		else
			tf_buf_addstr(&dst, tf_path_basename(g.gl_pathv[i]));
		if (tf_contain_match_is_dots(g.gl_pathv[i]))
			continue;
		if (tf_contain_match_check(&c, g.gl_pathv[i], &why))
			ret = tf_error_at(&f->def->src.pos, "wheel '%s': %s",
					  pw->spec.name, why.buf);
		else
			ret = add_tree(g.gl_pathv[i], dst.buf, &w);
	}
	if (rc != GLOB_NOMATCH && rc != GLOB_NOSPACE)
		globfree(&g);
	tf_contain_release(&c);
	tf_buf_release(&pattern);
	tf_buf_release(&dst);
	tf_buf_release(&why);
	return ret;
}

static int cmp_dst(const void *a, const void *b)
{
	const struct tf_wheel_file *x = *(const struct tf_wheel_file *const *)a;
	const struct tf_wheel_file *y = *(const struct tf_wheel_file *const *)b;
	int c = strcmp(x->dst, y->dst);

	return c ? c : x < y ? -1 : x > y;
}

/* A file's path in its rule's stage or source tree, for messages. */
static const char *rule_path(const struct tf_plan *p,
			     const struct tf_plan_file *f, const char *src)
{
	const char *root = f->source >= 0 ? p->sources[f->source].dir
					  : p->steps[f->step].stage;
	size_t n = strlen(root);

	return !strncmp(src, root, n) && src[n] == '/' ? src + n + 1 : src;
}

/*
 * No two files at one path in the wheel. The load and the plan refused
 * rules given twice; what is left shows only now: two rules' matches
 * that meet (a glob and a file, two files of one name), or a glob that
 * matches two files of one name. end[i] is where rule i's files end in
 * fl. The one reported is the later, with the earlier's rule and path.
 */
int tf_files_check_twice(const struct tf_plan *p,
			 const struct tf_plan_wheel *pw,
			 const struct tf_file_list *fl, const size_t *end)
{
	const struct tf_wheel_file **v;
	size_t i, k, a, b;
	int ret = 0;

	if (fl->roots < 2) /* one file, or one tree: every path once */
		return 0;
	v = tf_calloc(fl->nr + 1, sizeof(*v));
	for (i = 0; i < fl->nr; i++)
		v[i] = &fl->v[i];
	qsort(v, fl->nr, sizeof(*v), cmp_dst);
	for (i = 1; i < fl->nr && !ret; i++) {
		const struct tf_plan_file *fa, *fb;

		if (strcmp(v[i - 1]->dst, v[i]->dst))
			continue;
		for (a = 0, k = (size_t)(v[i - 1] - fl->v); end[a] <= k; a++)
			;
		for (b = a, k = (size_t)(v[i] - fl->v); end[b] <= k; b++)
			;
		fa = &pw->files[a];
		fb = &pw->files[b];
		ret = tf_error_at(
			&fb->def->pos,
			"wheel '%s': '%s' is in the wheel twice (a duplicate): "
			"'%s' of %s '%s' here, also '%s' of %s '%s' from "
			"%s:%d:%d",
			pw->spec.name, v[i]->dst, rule_path(p, fb, v[i]->src),
			fb->source >= 0 ? "source" : "step", fb->def->from.s,
			rule_path(p, fa, v[i - 1]->src),
			fa->source >= 0 ? "source" : "step", fa->def->from.s,
			fa->def->pos.file, fa->def->pos.line, fa->def->pos.col);
	}
	free(v);
	return ret;
}

void tf_files_release(struct tf_file_list *fl)
{
	free(fl->v);
	free(fl->elf);
	tf_strpool_release(&fl->store);
	memset(fl, 0, sizeof(*fl));
}
