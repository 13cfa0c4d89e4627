#include "unit.h"

#include <stdlib.h>

#include "vars.h"
#include "recipe.h"

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

/*
 * In a URL, a path value is percent-encoded, directly or through a
 * recipe variable, and the recipe's own text is not; outside one,
 * nothing is.
 */
static void test_expand_url(void)
{
	static const char dir[] = "/co/b dir 'q\"%41#?\xc3\xa9/recipes";
	static const struct {
		const char *in, *url, *plain;
	} cases[] = {
		{ "file://${recipe_dir}/x.tar.gz",
		  "file:///co/b%20dir%20%27q%22%2541%23%3F%C3%A9/recipes/x.tar.gz",
		  "file:///co/b dir 'q\"%41#?\xc3\xa9/recipes/x.tar.gz" },
		{ "${mirror}/x%20y.tar.gz",
		  "file:///co/b%20dir%20%27q%22%2541%23%3F%C3%A9/recipes/../m/x%20y.tar.gz",
		  "file:///co/b dir 'q\"%41#?\xc3\xa9/recipes/../m/x%20y.tar.gz" },
		{ "${top}/a",
		  "file:///co/b%20dir%20%27q%22%2541%23%3F%C3%A9/recipes/../a",
		  "file:///co/b dir 'q\"%41#?\xc3\xa9/recipes/../a" },
		{ "https://h/${name}+${version}?a=b#c",
		  "https://h/demo+1.0 x?a=b#c", "https://h/demo+1.0 x?a=b#c" },
		{ "${set}/z", "file:///s e t/z", "file:///s e t/z" },
	};
	struct tf_vars v = TF_VARS_INIT;
	struct tf_str mirror =
		str("file://${recipe_dir}/../m", TF_STR_PLAIN, 0);
	struct tf_str top = str("file://${recipe_dir}/..", TF_STR_PLAIN, 0);
	struct tf_str set = str("unused", TF_STR_PLAIN, 0);
	size_t i;

	tf_vars_set(&v, "name", "demo");
	tf_vars_set(&v, "version", "1.0 x");
	tf_vars_set_path(&v, "recipe_dir", dir);
	tf_vars_set_raw(&v, "mirror", &mirror);
	tf_vars_set_raw(&v, "top", &top);
	tf_vars_set_raw(&v, "set", &set);
	/* --set replaces a recipe variable with the text as typed. */
	tf_vars_set(&v, "set", "file:///s e t");
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct tf_str in = str(cases[i].in, TF_STR_PLAIN, 0);
		char *url = tf_expand_url_dup(&v, &in);
		char *plain = tf_expand_dup(&v, &in);

		CHECK_STR(url, cases[i].url);
		CHECK_STR(plain, cases[i].plain);
		free(url);
		free(plain);
		/* Again: the cached values give the same. */
		url = tf_expand_url_dup(&v, &in);
		CHECK_STR(url, cases[i].url);
		free(url);
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
	test_expand_url();
	test_pos_at();
	return unit_done();
}
