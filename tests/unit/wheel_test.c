#include "unit.h"

#include "buf.h"
#include "wheel.h"

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
	test_wheel_filename();
	return unit_done();
}
