#include "unit.h"

#include <stdlib.h>

#include "buf.h"
#include "verify.h"
#include "wheel.h"
#include "wheelname.h"

static void test_record_field(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "demo/__init__.py", "demo/__init__.py" },
		{ "a,b.txt", "\"a,b.txt\"" },
		{ "say \"hi\".txt", "\"say \"\"hi\"\".txt\"" },
		{ "line\nbreak", "\"line\nbreak\"" },
		{ "cr\rx", "\"cr\rx\"" },
		{ "", "" },
		{ "sp ace", "sp ace" },
	};
	struct tf_buf b = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		tf_buf_reset(&b);
		tf_wheel_record_field(cases[i].in, &b);
		CHECK_STR(b.buf, cases[i].out);
	}
	tf_buf_release(&b);
}

/* Parse text as RECORD; render rows as "path|hash|size@line;" or "ERR@line". */
static void record_rows(const char *text, struct tf_buf *out)
{
	char *copy = tf_strdup(text);
	struct tf_record_reader r = TF_RECORD_READER_INIT(copy);
	int got;

	while ((got = tf_record_next(&r)) > 0)
		tf_buf_addf(out, "%s|%s|%s@%zu;", r.path, r.hash, r.size,
			    r.row_line);
	if (got < 0)
		tf_buf_addf(out, "ERR@%zu", r.row_line);
	free(copy);
}

static void test_record_parse(void)
{
	static const struct {
		const char *in, *rows;
	} cases[] = {
		{ "a,sha256=x,1\nb,,\n", "a|sha256=x|1@1;b||@2;" },
		{ "a,h,1", "a|h|1@1;" },
		{ "a,h,1\r\nb,h,2\r\n", "a|h|1@1;b|h|2@2;" },
		{ "a,h,1\rb,h,2\r", "a|h|1@1;b|h|2@2;" },
		{ "\n\na,h,1\n\n", "a|h|1@3;" },
		{ "\"a,b\",h,1\n", "a,b|h|1@1;" },
		{ "\"say \"\"hi\"\"\",h,1\n", "say \"hi\"|h|1@1;" },
		{ "\"two\nlines\",h,1\nc,h,2\n", "two\nlines|h|1@1;c|h|2@3;" },
		{ "\"\",h,1\n", "|h|1@1;" },
		{ "a\"b,h,1\n", "a\"b|h|1@1;" },
		{ "", "" },
		{ "a,h\n", "ERR@1" },
		{ "a,h,1,x\n", "ERR@1" },
		{ "ok,h,1\n\"open,h,1\n", "ok|h|1@1;ERR@2" },
		{ "\"a\"x,h,1\n", "ERR@1" },
		{ "a\n", "ERR@1" },
	};
	struct tf_buf b = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		tf_buf_reset(&b);
		record_rows(cases[i].in, &b);
		CHECK_STR(b.buf, cases[i].rows);
	}
	tf_buf_release(&b);
}

static void test_filename_parse(void)
{
	static const struct {
		const char *in, *parts; /* "name version build py abi plat" */
		const char *why;        /* when it does not parse */
	} cases[] = {
		{ "demo-1.0-py3-none-any.whl", "demo 1.0 - py3 none any",
		  NULL },
		{ "dist/demo_pkg-1.0.0rc1+m1-py2.py3-none-linux_x86_64.whl",
		  "demo_pkg 1.0.0rc1+m1 - py2.py3 none linux_x86_64", NULL },
		{ "demo-1.0-1build-cp311-cp311-manylinux_2_17_x86_64.whl",
		  "demo 1.0 1build cp311 cp311 manylinux_2_17_x86_64", NULL },
		{ "demo-1.0-py3-none-any.zip", NULL,
		  "filename does not end in '.whl'" },
		{ "demo-1.0-py3-any.whl", NULL,
		  "filename is not NAME-VERSION[-BUILD]-PYTHON-ABI-PLATFORM.whl" },
		{ "a-b-1.0-1-x-py3-none-any.whl", NULL,
		  "filename is not NAME-VERSION[-BUILD]-PYTHON-ABI-PLATFORM.whl" },
		{ "demo-1.0-py3-none-any-.whl", NULL,
		  "filename is not NAME-VERSION[-BUILD]-PYTHON-ABI-PLATFORM.whl" },
		{ "demo-1..0-py3-none-any.whl", NULL,
		  "version '1..0' is not a valid PEP 440 version" },
		{ "_demo-1.0-py3-none-any.whl", NULL,
		  "'_demo' is not a valid distribution name" },
		{ "demo-1.0-b1-py3-none-any-v3.whl", NULL,
		  "build tag 'b1' is not valid" },
		/* PEP 825: a label after the platform; a python tag never
		   starts with a digit, a build tag always does. */
		{ "demo-1.0-py3-none-any-x86_64_v3.whl",
		  "demo 1.0 - py3 none any", NULL },
		{ "demo-1.0-1-py3-none-any-null.whl", "demo 1.0 1 py3 none any",
		  NULL },
		{ "demo-1.0-py3-none-any-X.whl", NULL,
		  "variant label is not 1-16 of 0-9, a-z, '_', '.' (PEP 825)" },
		{ "demo-1.0-py3-none-a+y.whl", NULL,
		  "tags 'py3-none-a+y' are not valid" },
		{ ".whl", NULL,
		  "filename is not NAME-VERSION[-BUILD]-PYTHON-ABI-PLATFORM.whl" },
	};
	struct tf_wheel_name wn = TF_WHEEL_NAME_INIT;
	struct tf_buf why = TF_BUF_INIT, got = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		int ret;

		tf_buf_reset(&why);
		ret = tf_wheel_name_parse(cases[i].in, &wn, &why);
		CHECK_INT(ret, cases[i].parts ? 0 : -1);
		if (ret) {
			CHECK_STR(why.buf, cases[i].why);
			continue;
		}
		tf_buf_setf(&got, "%s %s %s %s %s %s", wn.name, wn.version,
			    wn.build ? wn.build : "-", wn.python, wn.abi,
			    wn.platform);
		CHECK_STR(got.buf, cases[i].parts);
	}
	tf_wheel_name_release(&wn);
	tf_wheel_name_release(&wn);
	tf_buf_release(&why);
	tf_buf_release(&got);
}

static void test_wheel_filename(void)
{
	struct tf_wheel_spec w = { 0 };
	struct tf_buf b = TF_BUF_INIT;

	w.name = "Demo.Pkg";
	w.version = "1.0.0-RC.1+M1";
	w.python_tag = "py2.py3";
	w.abi_tag = "none";
	w.platform_tag = "any";
	CHECK_INT(tf_wheel_filename(&w, &b), 0);
	CHECK_STR(b.buf, "demo_pkg-1.0.0rc1+m1-py2.py3-none-any.whl");
	tf_buf_reset(&b);
	w.version = "1.0+";
	CHECK_INT(tf_wheel_filename(&w, &b), -1);
	CHECK_STR(b.buf, "");
	w.version = "1.0";
	w.abi_tag = "no-ne";
	CHECK_INT(tf_wheel_filename(&w, &b), -1);
	w.abi_tag = "none";
	w.name = "-demo";
	CHECK_INT(tf_wheel_filename(&w, &b), -1);
	tf_buf_release(&b);
}

int main(void)
{
	test_record_field();
	test_record_parse();
	test_filename_parse();
	test_wheel_filename();
	return unit_done();
}
