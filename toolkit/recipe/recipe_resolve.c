/* Names resolved across a recipe, tests as steps, and the step graph. */
#include "recipe_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "recipe.h"

static int dup_name(struct loader *l, const struct tf_str *a,
		    const struct tf_str *b, const char *what)
{
	l->errors++;
	return tf_error_at(&b->pos,
			   "%s '%s' is defined twice (first at line %d)", what,
			   b->s, a->pos.line);
}

/* Depth-first search for a cycle through step i; state 1 = on the path. */
static int find_cycle(struct loader *l, size_t i, char *state, size_t *path,
		      size_t depth)
{
	struct tf_recipe *r = l->r;
	size_t j;

	if (state[i] == 2)
		return 0;
	path[depth] = i;
	if (state[i] == 1) {
		struct tf_buf b = TF_BUF_INIT;
		size_t k = 0;

		while (path[k] != i)
			k++;
		for (; k <= depth; k++)
			tf_buf_addf(&b, "%s%s", b.len ? " -> " : "",
				    r->steps[path[k]].name.s);
		l->errors++;
		tf_error_at(&r->steps[i].pos,
			    "steps depend on each other in a cycle: %s", b.buf);
		tf_buf_release(&b);
		return -1;
	}
	state[i] = 1;
	for (j = 0; j < r->steps[i].nr_needs; j++)
		if (find_cycle(l, r->steps[i].need_index[j], state, path,
			       depth + 1))
			return -1;
	state[i] = 2;
	return 0;
}

/* Find by name; -1 if absent. */
static int tf_recipe_find_source(const struct tf_recipe *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nr_sources; i++)
		if (!strcmp(r->sources[i].name.s, name))
			return (int)i;
	return -1;
}

static int resolve_step(struct loader *l, struct tf_step *s)
{
	struct tf_recipe *r = l->r;
	size_t j;
	int ret = 0;

	if (s->source.s) {
		s->source_index = tf_recipe_find_source(r, s->source.s);
		if (s->source_index < 0) {
			l->errors++;
			ret = tf_error_at(&s->source.pos,
					  "step '%s' uses unknown source '%s'",
					  s->name.s, s->source.s);
		}
	}
	s->need_index = tf_arena_alloc(r, (s->nr_needs + 1) * sizeof(size_t));
	for (j = 0; j < s->nr_needs; j++) {
		int k = tf_recipe_find_step(r, s->needs[j].s);

		if (k < 0 || !strcmp(s->needs[j].s, s->name.s)) {
			l->errors++;
			ret = tf_error_at(
				&s->needs[j].pos,
				k < 0 ? "step '%s' needs unknown step '%s'"
				      : "step '%s' needs itself ('%s')",
				s->name.s, s->needs[j].s);
			continue;
		}
		s->need_index[j] = (size_t)k;
	}
	return ret;
}

/*
 * Each test runs again as NAME@baseline under emulation of the oldest
 * CPU the wheels allow (docs/isa.md), once NAME has passed.
 */
static void baseline_copy(struct tf_recipe *r, const struct tf_step *t,
			  struct tf_step *copy)
{
	size_t n = strlen(t->name.s) + sizeof("@baseline");
	char *name = tf_arena_alloc(r, n);

	*copy = *t;
	snprintf(name, n, "%s@baseline", t->name.s);
	copy->name.s = name;
	copy->is_test = TF_TEST_BASELINE;
	/* `baseline: COMMAND`: only COMMAND reruns, where NAME built. */
	if (t->baseline.s) {
		copy->run = t->baseline;
		copy->baseline_cmd = 1;
	}
	copy->needs =
		tf_arena_alloc(r, (t->nr_needs + 1) * sizeof(*copy->needs));
	if (t->nr_needs)
		memcpy(copy->needs, t->needs,
		       t->nr_needs * sizeof(*copy->needs));
	copy->needs[copy->nr_needs++] = t->name;
}

/*
 * Tests are steps that run target code; they follow the build steps,
 * then their baseline copies (none for a test with `baseline: false`).
 * Only tests have a baseline run: `baseline` on a step is refused.
 */
static int append_tests(struct loader *l)
{
	struct tf_recipe *r = l->r;
	struct tf_step *all;
	size_t i, n = 0;
	int ret = 0;

	for (i = 0; i < r->nr_steps; i++)
		if (r->steps[i].baseline.s) {
			l->errors++;
			ret = tf_error_at(
				&r->steps[i].baseline.pos,
				"step '%s' has 'baseline', which only tests have (steps do not run on the baseline CPU)",
				r->steps[i].name.s);
		}
	if (!r->nr_tests)
		return ret;
	all = tf_arena_alloc(r, (r->nr_steps + 2 * r->nr_tests) * sizeof(*all));
	if (r->nr_steps)
		memcpy(all, r->steps, r->nr_steps * sizeof(*all));
	for (i = 0; i < r->nr_tests; i++) {
		all[r->nr_steps + i] = r->tests[i];
		all[r->nr_steps + i].is_test = 1;
	}
	for (i = 0; i < r->nr_tests; i++)
		if (!r->tests[i].baseline_off)
			baseline_copy(r, &r->tests[i],
				      &all[r->nr_steps + r->nr_tests + n++]);
	r->steps = all;
	r->nr_steps += r->nr_tests + n;
	return ret;
}

static int check_test_refs(struct loader *l)
{
	struct tf_recipe *r = l->r;
	size_t i, j;
	int ret = 0;

	for (i = 0; i < r->nr_steps; i++)
		for (j = 0; !r->steps[i].is_test && j < r->steps[i].nr_needs;
		     j++)
			if (r->steps[r->steps[i].need_index[j]].is_test) {
				l->errors++;
				ret = tf_error_at(
					&r->steps[i].needs[j].pos,
					"step '%s' needs '%s', which is a test; steps cannot need tests",
					r->steps[i].name.s,
					r->steps[i].needs[j].s);
			}
	for (i = 0; i < r->nr_wheels; i++)
		for (j = 0; j < r->wheels[i].nr_files; j++) {
			const struct tf_file_rule *f = &r->wheels[i].files[j];

			if (f->step_index >= 0 &&
			    r->steps[f->step_index].is_test) {
				l->errors++;
				ret = tf_error_at(
					&f->from.pos,
					"wheel '%s' takes files from test '%s'; only steps make files",
					r->wheels[i].name.s, f->from.s);
			}
		}
	return ret;
}

int tf_load_resolve(struct loader *l)
{
	struct tf_recipe *r = l->r;
	size_t i, j;
	int ret = 0;

	ret = append_tests(l);
	for (i = 0; i < r->nr_sources; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(r->sources[i].name.s, r->sources[j].name.s))
				ret |= dup_name(l, &r->sources[j].name,
						&r->sources[i].name, "source");
	for (i = 0; i < r->nr_steps; i++)
		for (j = 0; j < i; j++)
			if (!strcmp(r->steps[i].name.s, r->steps[j].name.s))
				ret |= dup_name(
					l, &r->steps[j].name, &r->steps[i].name,
					r->steps[i].is_test ? "test or step"
							    : "step");
	for (i = 0; i < r->nr_steps; i++)
		ret |= resolve_step(l, &r->steps[i]);
	for (i = 0; i < r->nr_wheels; i++) {
		struct tf_wheel_def *w = &r->wheels[i];

		for (j = 0; j < w->nr_files; j++) {
			struct tf_file_rule *f = &w->files[j];

			f->step_index = tf_recipe_find_step(r, f->from.s);
			/* A source's tree, read where it was prepared (no step
			 * to copy it): only when no step has that name. */
			f->source_index =
				f->step_index < 0
					? tf_recipe_find_source(r, f->from.s)
					: -1;
			if (f->step_index < 0 && f->source_index < 0) {
				l->errors++;
				ret = tf_error_at(
					&f->from.pos,
					"wheel '%s' takes files from unknown step or source '%s'",
					w->name.s, f->from.s);
			}
		}
	}
	if (ret)
		return -1;
	{
		char *state = tf_calloc(r->nr_steps + 1, 1);
		size_t *path = tf_calloc(r->nr_steps + 1, sizeof(size_t));

		for (i = 0; !ret && i < r->nr_steps; i++)
			ret = find_cycle(l, i, state, path, 0);
		free(state);
		free(path);
	}
	return ret ? ret : check_test_refs(l);
}

int tf_recipe_find_step(const struct tf_recipe *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nr_steps; i++)
		if (!strcmp(r->steps[i].name.s, name))
			return (int)i;
	return -1;
}
