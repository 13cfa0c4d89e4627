#include "unit.h"

#include <stdlib.h>

#include "cache.h"
#include "plan.h"
#include "toolfiles.h"

/* A path escaped for a shell word; plain paths stay as they are. */
static void test_sh_escape(void)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "/w/co/recipes", "/w/co/recipes" },
		{ "/w/a-b_c.d=e%41,\xc3\xa9+@:",
		  "/w/a-b_c.d=e%41,\xc3\xa9+@:" },
		{ "/w/b dir", "/w/b\\ dir" },
		{ "/w/'q\"", "/w/\\'q\\\"" },
		{ "/w/#?*[]~{}$`\\", "/w/\\#\\?\\*\\[\\]\\~\\{\\}\\$\\`\\\\" },
		{ "/w/a\nb", "/w/a'\n'b" },
	};
	struct tf_buf b = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		tf_buf_reset(&b);
		tf_toolfiles_sh_escape(cases[i].in, &b);
		CHECK_STR(b.buf, cases[i].want);
	}
	tf_buf_release(&b);
}

/*
 * Every spelling of an odd directory that the plan writes is relocated,
 * so the text of an odd checkout and of a plain one read the same.
 */
static void test_spellings(void)
{
	static const char odd[] = "/w/b dir 'q\" #?\xc3\xa9", plain[] = "/w/co";
	static const char *const texts[][2] = {
		{ "CFLAGS=-ffile-prefix-map=/w/b\\ dir\\ \\'q\\\"\\ \\#\\?\xc3\xa9/b=/t",
		  "CFLAGS=-ffile-prefix-map=/w/co/b=/t" },
		{ "set(F \"-ffile-prefix-map=/w/b\\\\ dir\\\\ \\\\'q\\\\\\\"\\\\ "
		  "\\\\#\\\\?\xc3\xa9/b=/t\")",
		  "set(F \"-ffile-prefix-map=/w/co/b=/t\")" },
		{ "set(P \"/w/b dir 'q\\\" #?\xc3\xa9/pc\")",
		  "set(P \"/w/co/pc\")" },
		{ "pkgconfig = '/w/b dir \\'q\" #?\xc3\xa9/pc'",
		  "pkgconfig = '/w/co/pc'" },
		{ "exec '/w/b dir '\\''q\" #?\xc3\xa9/pc' \"$@\"",
		  "exec '/w/co/pc' \"$@\"" },
	};
	struct tf_strvec o = TF_STRVEC_INIT, p = TF_STRVEC_INIT;
	const char *to[16];
	size_t i;

	tf_plan_path_spellings(odd, &o);
	tf_plan_path_spellings(plain, &p);
	CHECK(o.nr < 16 && o.nr == p.nr);
	for (i = 0; i < p.nr; i++)
		CHECK_STR(p.v[i], plain);
	for (i = 0; i < o.nr && i < 15; i++)
		to[i] = "@D@";
	to[i] = NULL;
	for (i = 0; i < sizeof(texts) / sizeof(*texts); i++) {
		struct tf_buf a = TF_BUF_INIT, b = TF_BUF_INIT;

		tf_cache_relocate(texts[i][0], strlen(texts[i][0]),
				  (const char *const *)o.v, to, &a);
		tf_cache_relocate(texts[i][1], strlen(texts[i][1]),
				  (const char *const *)p.v, to, &b);
		CHECK_STR(a.buf, b.buf);
		tf_buf_release(&a);
		tf_buf_release(&b);
	}
	tf_strvec_release(&o);
	tf_strvec_release(&p);
}

int main(void)
{
	test_sh_escape();
	test_spellings();
	return unit_done();
}
