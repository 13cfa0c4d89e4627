#include "unit.h"

#include <stdlib.h>

#include "vars.h"

static struct tf_str str(const char *s, int style, int indent)
{
	struct tf_str v = { s, { "r.yaml", 10, 7 }, style, indent };

	return v;
}

static void test_expand(void)
{
	static const struct {
		const char *in, *out;
	} ok[] = {
		{ "plain", "plain" },
		{ "${name}-${version}", "demo-1.0" },
		{ "$$HOME and $PATH", "$HOME and $PATH" },
		{ "$${shell}", "${shell}" },
		{ "${src.tfmini}/include", "/b/src/tfmini/include" },
		{ "${mirror}/x.tar.gz", "file:///m/demo/x.tar.gz" },
		{ "cost: 5$", "cost: 5$" },
		{ "", "" },
	};
	struct tf_vars v = TF_VARS_INIT;
	struct tf_str mirror = str("file:///m/${name}", TF_STR_PLAIN, 0);
	size_t i;

	tf_vars_set(&v, "name", "demo");
	tf_vars_set(&v, "version", "1.0");
	tf_vars_set(&v, "src.tfmini", "/b/src/tfmini");
	tf_vars_set_raw(&v, "mirror", &mirror);
	for (i = 0; i < sizeof(ok) / sizeof(*ok); i++) {
		struct tf_str in = str(ok[i].in, TF_STR_PLAIN, 0);
		char *got = tf_expand_dup(&v, &in);

		CHECK_STR(got, ok[i].out);
		free(got);
	}
	tf_vars_release(&v);
}

static void test_expand_errors(void)
{
	static const char *const bad[] = {
		"${nope}", "${unterminated", "${}", "${a b}", "${loop}",
	};
	struct tf_vars v = TF_VARS_INIT;
	struct tf_str loop = str("x${loop}", TF_STR_PLAIN, 0);
	size_t i;

	tf_vars_set_raw(&v, "loop", &loop);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct tf_str in = str(bad[i], TF_STR_PLAIN, 0);
		char *got = tf_expand_dup(&v, &in);

		CHECK(got == NULL);
		free(got);
	}
	tf_vars_release(&v);
}

static void test_pos_at(void)
{
	static const struct {
		const char *s;
		int style, indent;
		size_t off;
		int line, col;
	} cases[] = {
		/* plain one-line scalar at 10:7 */
		{ "abc ${x}", TF_STR_PLAIN, 0, 4, 10, 11 },
		/* quoted: the value starts one column after the quote */
		{ "abc ${x}", TF_STR_QUOTED, 0, 4, 10, 12 },
		/* literal block: lines start at the indent, below the '|' */
		{ "make\necho ${x}\n", TF_STR_BLOCK, 7, 10, 12, 12 },
		{ "${x}\n", TF_STR_BLOCK, 5, 0, 11, 5 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct tf_str s =
			str(cases[i].s, cases[i].style, cases[i].indent);
		struct tf_pos p = tf_str_pos_at(&s, cases[i].off);

		CHECK_INT(p.line, cases[i].line);
		CHECK_INT(p.col, cases[i].col);
	}
}

int main(void)
{
	test_expand();
	test_expand_errors();
	test_pos_at();
	return unit_done();
}
