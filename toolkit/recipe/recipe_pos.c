/* Positions in a recipe, and the messages reported at them. */
#include "recipe_internal.h"

#include <stdarg.h>
#include <stdio.h>

#include "base/base.h"
#include "recipe.h"

int tf_error_at(const struct tf_pos *pos, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return error_at(pos->file, pos->line, pos->col, "%s", msg);
}

int tf_error_twice(const struct tf_pos *pos, const struct tf_pos *first,
		   const char *dst, const char *hint)
{
	return tf_error_at(
		pos, "'%s' is in the wheel twice: also from %s:%d:%d%s%s%s",
		dst, first->file, first->line, first->col, hint ? " (" : "",
		hint ? hint : "", hint ? ")" : "");
}

int tf_load_bad(struct loader *l, const yaml_node_t *n, const char *fmt, ...)
{
	struct tf_pos p = pos_of(l, n);
	char msg[2048];
	va_list ap;

	if (++l->errors > MAX_ERRORS)
		return -1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tf_error_at(&p, "%s", msg);
}

struct tf_pos tf_str_pos_at(const struct tf_str *s, size_t off)
{
	struct tf_pos p = s->pos;
	const char *nl = NULL, *c;

	for (c = s->s; c < s->s + off && *c; c++)
		if (*c == '\n') {
			p.line++;
			nl = c;
		}
	if (s->style == TF_STR_BLOCK) {
		p.line++;
		p.col = s->indent +
			(int)(nl ? off - (size_t)(nl + 1 - s->s) : off);
	} else if (!nl) {
		p.col += (int)off + (s->style == TF_STR_QUOTED);
	}
	return p;
}
