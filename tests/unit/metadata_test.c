#include "unit.h"

#include <stddef.h>
#include <stdlib.h>

#include "metadata.h"
#include "buf.h"

struct check_case {
	const char *value;
	const char *why; /* NULL: valid */
};

static void run(int (*check)(const char *, struct tf_buf *),
		const struct check_case *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct tf_buf why = TF_BUF_INIT;
		int ret = check(c[i].value, &why);

		if (!c[i].why) {
			CHECK_INT(ret, 0);
			CHECK_STR(why.buf, "");
		} else {
			CHECK_INT(ret, -1);
			CHECK_STR(why.buf, c[i].why);
		}
		tf_buf_release(&why);
	}
}

#define RUN(check, table) run(check, table, sizeof(table) / sizeof(*table))

static void test_spdx(void)
{
	static const struct check_case cases[] = {
		{ "MIT", NULL },
		{ "mit", NULL },
		{ "Apache-2.0 OR MIT", NULL },
		{ "(Apache-2.0 OR MIT) AND BSD-3-Clause", NULL },
		{ "GPL-2.0-or-later WITH Classpath-exception-2.0", NULL },
		{ "Apache-2.0 WITH LLVM-exception", NULL },
		{ "Zlib+", NULL },
		{ "LGPL-2.1+",
		  "'LGPL-2.1+' is not an SPDX license id" }, /* deprecated */
		{ "LicenseRef-Proprietary", NULL },
		{ "DocumentRef-spdx-tool-1.2:LicenseRef-MIT-Style-2", NULL },
		{ "MIT License", "expected AND, OR or WITH, not 'License'" },
		{ "MIT or Apache-2.0", "expected AND, OR or WITH, not 'or'" },
		{ "", "empty license expression" },
		{ "Foo-1.0", "'Foo-1.0' is not an SPDX license id" },
		{ "MIT AND", "a license id is missing at the end" },
		{ "(MIT", "missing ')'" },
		{ "MIT WITH Apache-2.0",
		  "'Apache-2.0' is not an SPDX exception id" },
		{ "LicenseRef-", "'LicenseRef-' is not an SPDX license id" },
		{ "MIT)", "expected AND, OR or WITH, not ')'" },
	};

	RUN(tf_spdx_check, cases);
}

static void test_specifiers(void)
{
	static const struct check_case cases[] = {
		{ ">=3.8", NULL },
		{ ">=3.8, <4", NULL },
		{ "~=3.8", NULL },
		{ "==3.*", NULL },
		{ "!=3.9.*,>=3.8", NULL },
		{ "==1.0+local", NULL },
		{ "===foobar", NULL },
		{ "3.8+",
		  "'3.8+' has no operator (==, !=, <=, >=, <, >, ~=, ===)" },
		{ ">=3.8,",
		  "'' has no operator (==, !=, <=, >=, <, >, ~=, ===)" },
		{ "", "empty specifier" },
		{ ">=3.x", "'>=3.x': '3.x' is not a PEP 440 version" },
		{ "~=3", "'~=3': ~= needs at least two release segments" },
		{ ">=1.0+local",
		  "'>=1.0+local': a local version is only allowed with == and !=" },
		{ ">> 1", "'>> 1': '> 1' is not a PEP 440 version" },
		{ ">=3.*", "'>=3.*': '3.*' is not a PEP 440 version" },
	};

	RUN(tf_specifiers_check, cases);
}

static void test_requirements(void)
{
	static const struct check_case cases[] = {
		{ "numpy", NULL },
		{ "numpy>=1.20", NULL },
		{ "numpy (>=1.20, <2)", NULL },
		{ "requests[security,socks] >= 2.8.1, == 2.8.*", NULL },
		{ "nvidia-cuda-runtime>=13,<14", NULL },
		{ "pip @ https://github.com/pypa/pip/archive/1.3.1.zip#sha1=da9234ee9982d4bbb3c72346a6de940a148ea686",
		  NULL },
		{ "name; python_version < \"3.9\"", NULL },
		{ "name>=1; os_name == 'posix' and (platform_machine == \"x86_64\" or extra == \"cuda\")",
		  NULL },
		{ "name; \"linux\" in sys_platform", NULL },
		{ "name; platform_machine not in 'x86_64 aarch64'", NULL },
		{ "numpy >> 1", "'>> 1': '> 1' is not a PEP 440 version" },
		{ "", "a project name is missing at ''" },
		{ "-numpy", "a project name is missing at '-numpy'" },
		{ "numpy[", "a extra name is missing at ''" },
		{ "numpy; python_versio == '3'",
		  "'python_versio' is not a marker variable or a quoted string" },
		{ "numpy; python_version = '3'",
		  "a marker operator is missing at '= '3''" },
		{ "numpy @ notaurl", "'@' needs a URL" },
		{ "numpy 1.0",
		  "'1.0' has no operator (==, !=, <=, >=, <, >, ~=, ===)" },
	};

	RUN(tf_requirement_check, cases);
}

static void test_rest(void)
{
	static const struct check_case types[] = {
		{ "text/markdown", NULL },
		{ "text/x-rst; charset=UTF-8", NULL },
		{ "text/markdown; variant=GFM", NULL },
		{ "text/html",
		  "'text/html' is not text/plain, text/x-rst or text/markdown (with an optional '; charset=UTF-8', '; variant=GFM' or 'CommonMark')" },
	};
	static const struct check_case urls[] = {
		{ "https://example.org/x", NULL },
		{ "http://example.org", NULL },
		{ "ftp://example.org",
		  "'ftp://example.org' is not an http:// or https:// URL" },
		{ "https:///x", "'https:///x' is not a valid URL" },
		{ "https://a b", "'https://a b' is not a valid URL" },
	};
	static const struct check_case emails[] = {
		{ "dev@example.org", NULL },
		{ "dev", "'dev' is not an email address" },
		{ "a b@example.org",
		  "'a b@example.org' is not an email address" },
		{ "dev@localhost", "'dev@localhost' is not an email address" },
	};

	RUN(tf_content_type_check, types);
	RUN(tf_url_check, urls);
	RUN(tf_email_check, emails);
}

static void test_cuda_archs(void)
{
	static const char *const valid[] = { "sm_80",   "sm_90a",
					     "sm_100f", "compute_90",
					     "sm_120",  "compute_75" };
	static const char *const invalid[] = { "sm80",   "sm_8",     "sm_1000",
					       "sm_90b", "sm_90aa",  "compute_",
					       "SM_80",  "lto_90",   "",
					       "sm_80 ", "compute90" };
	const char *list[] = { "compute_90", "sm_100", "sm_90a",
			       "sm_80",      "sm_90",  "compute_75" };
	static const char *const sorted[] = { "sm_80",      "sm_90",
					      "sm_90a",     "sm_100",
					      "compute_75", "compute_90" };
	size_t i;

	for (i = 0; i < sizeof(valid) / sizeof(*valid); i++)
		CHECK_INT(tf_cuda_arch_is_valid(valid[i]), 1);
	for (i = 0; i < sizeof(invalid) / sizeof(*invalid); i++)
		CHECK_INT(tf_cuda_arch_is_valid(invalid[i]), 0);
	qsort(list, sizeof(list) / sizeof(*list), sizeof(*list),
	      tf_cuda_arch_cmp);
	for (i = 0; i < sizeof(list) / sizeof(*list); i++)
		CHECK_STR(list[i], sorted[i]);
}

int main(void)
{
	test_spdx();
	test_specifiers();
	test_requirements();
	test_rest();
	test_cuda_archs();
	return unit_done();
}
