#include "unit.h"

#include "buf.h"
#include "pytag.h"
#include "recipe.h"

/* Extension module names against wheel tags (tf_pytag_check_entry). */
static void test_entries(void)
{
	static const struct {
		const char *path, *python, *abi, *platform;
		int ok;
	} cases[] = {
		{ "pkg/_x.cpython-311-aarch64-linux-gnu.so", "cp311", "cp311",
		  "manylinux_2_17_aarch64", 1 },
		{ "pkg/_x.cpython-311-aarch64-linux-gnu.so", "cp312", "cp312",
		  "manylinux_2_17_aarch64", 0 },
		{ "pkg/_x.cpython-311-aarch64-linux-gnu.so", "cp311", "abi3",
		  "manylinux_2_17_aarch64", 0 },
		{ "pkg/_x.cpython-311-aarch64-linux-gnu.so", "py3", "none",
		  "manylinux_2_17_aarch64", 0 },
		{ "pkg/_x.cpython-311-aarch64-linux-gnu.so", "cp311", "cp311",
		  "manylinux_2_17_x86_64", 0 },
		{ "pkg/_x.cpython-311-x86_64-linux-gnu.so", "cp311", "cp311",
		  "linux_x86_64", 1 },
		{ "pkg/_x.cpython-311d-x86_64-linux-gnu.so", "cp311", "cp311",
		  "linux_x86_64", 1 },
		{ "pkg/_x.cpython-39-x86_64-linux-gnu.so", "cp39", "cp39",
		  "linux_x86_64", 1 },
		{ "pkg/_x.cpython-39-x86_64-linux-gnu.so", "cp39.cp310", "cp39",
		  "linux_x86_64", 0 },
		{ "pkg/_x.abi3.so", "cp38", "abi3", "manylinux_2_34_x86_64",
		  1 },
		{ "pkg/_x.abi3.so", "py3", "none", "manylinux_2_34_x86_64", 0 },
		{ "pkg/libfoo.so", "py3", "none", "manylinux_2_34_x86_64", 1 },
		{ "pkg/libfoo.so.1", "py3", "none", "manylinux_2_34_x86_64",
		  1 },
		{ "pkg/notes.cpython-311-x86_64-linux-gnu.txt", "py3", "none",
		  "any", 1 },
	};
	struct tf_buf why = TF_BUF_INIT;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		tf_buf_reset(&why);
		CHECK_INT(tf_pytag_check_entry(cases[i].path, cases[i].python,
					       cases[i].abi, cases[i].platform,
					       &why) == 0,
			  cases[i].ok);
		if (!cases[i].ok)
			CHECK(why.len > 0);
	}
	tf_buf_reset(&why);
	tf_pytag_check_entry("pkg/_x.cpython-311-aarch64-linux-gnu.so", "cp312",
			     "cp312", "manylinux_2_17_aarch64", &why);
	CHECK_STR(
		why.buf,
		"an extension module for CPython 3.11 (_x.cpython-311-aarch64-linux-gnu.so) in a wheel tagged cp312-cp312; its tags must be cp311-cp311");
	tf_buf_release(&why);
}

/* Durations of `timeout` and --timeout (tf_parse_duration). */
static void test_durations(void)
{
	CHECK_INT(tf_parse_duration("90"), 90);
	CHECK_INT(tf_parse_duration("2s"), 2);
	CHECK_INT(tf_parse_duration("30m"), 1800);
	CHECK_INT(tf_parse_duration("2h"), 7200);
	CHECK_INT(tf_parse_duration("0"), 0);
	CHECK_INT(tf_parse_duration(""), -1);
	CHECK_INT(tf_parse_duration("m"), -1);
	CHECK_INT(tf_parse_duration("1.5h"), -1);
	CHECK_INT(tf_parse_duration("-3s"), -1);
	CHECK_INT(tf_parse_duration("10 s"), -1);
	CHECK_INT(tf_parse_duration("99999999999999"), -1);
}

int main(void)
{
	test_entries();
	test_durations();
	return unit_done();
}
