/*
 * Names, versions and tags from untrusted wheels and ELF files: each line
 * of the input goes through the wheel filename parser, PEP 440 and PEP 503
 * normalization, tag validation and expansion, platform tags, manylinux
 * symbol versions and sonames, and $ORIGIN run paths. Besides not
 * crashing, normalizing twice must change nothing, and what a parser
 * accepts the next stage must accept too (as verify.c relies on).
 */
#include <stdlib.h>
#include <string.h>

#include "elf.h"
#include "fuzz.h"
#include "manylinux.h"
#include "path.h"
#include "pyname.h"
#include "verify.h"
#include "wheelname.h"

/* A file name longer than this cannot exist, so verify never sees one. */
#define NAME_MAX_BYTES 255

static void wheel_name(const char *line)
{
	struct tf_wheel_name wn = TF_WHEEL_NAME_INIT;
	struct tf_strvec tags = TF_STRVEC_INIT;
	struct tf_buf why = TF_BUF_INIT;

	if (!tf_wheel_name_parse(line, &wn, &why)) {
		FUZZ_ASSERT(!why.len && tf_pyname_is_valid(wn.name));
		if (strlen(line) <= NAME_MAX_BYTES)
			FUZZ_ASSERT(!tf_wheel_tags_expand(wn.python, wn.abi,
							  wn.platform, &tags));
	} else {
		FUZZ_ASSERT(why.len && !wn.name);
	}
	tf_wheel_name_release(&wn);
	tf_wheel_name_release(&wn);
	tf_strvec_release(&tags);
	tf_buf_release(&why);
}

static void normalize(const char *line)
{
	struct tf_buf a = TF_BUF_INIT, b = TF_BUF_INIT;

	if (!tf_pep440_normalize(line, &a)) {
		FUZZ_ASSERT(!tf_pep440_normalize(a.buf, &b));
		FUZZ_ASSERT(!strcmp(a.buf, b.buf));
	} else {
		FUZZ_ASSERT(!a.len);
	}
	tf_buf_reset(&a);
	tf_buf_reset(&b);
	tf_pyname_normalize(line, &a);
	tf_pyname_normalize(a.buf, &b);
	FUZZ_ASSERT(!strcmp(a.buf, b.buf));
	tf_buf_reset(&a);
	tf_buf_reset(&b);
	tf_pyname_wheel_escape(line, &a);
	tf_pyname_wheel_escape(a.buf, &b);
	FUZZ_ASSERT(!strcmp(a.buf, b.buf));
	tf_pyname_is_valid(line);
	tf_buf_release(&a);
	tf_buf_release(&b);
}

static void tags(const char *line)
{
	struct tf_strvec out = TF_STRVEC_INIT;
	struct tf_platform p = TF_PLATFORM_INIT;
	struct tf_elf_rules rules;
	struct tf_buf why = TF_BUF_INIT;
	int valid = tf_wheel_tag_is_valid(line);
	size_t alternatives = 1;
	const char *s;

	for (s = line; *s; s++)
		alternatives += *s == '.';
	FUZZ_ASSERT((tf_wheel_tags_expand(line, "none", "any", &out) == 0) ==
		    valid);
	FUZZ_ASSERT(out.nr == (valid ? alternatives : 0));
	if (!tf_platform_parse(line, &p, &why))
		FUZZ_ASSERT(p.kind != TF_PLATFORM_MANYLINUX ||
			    p.arch != TF_ARCH_NONE);
	else
		FUZZ_ASSERT(why.len);
	tf_elf_rules_for_platform(&rules, line, "x.whl");
	tf_strvec_release(&out);
	tf_buf_release(&why);
}

static void elf_strings(const char *line)
{
	static const enum tf_arch arches[] = { TF_ARCH_X86_64,
					       TF_ARCH_AARCH64 };
	struct tf_buf dir = TF_BUF_INIT;
	size_t i, driver;

	for (i = 0; i < sizeof(arches) / sizeof(*arches); i++) {
		const struct tf_manylinux_policy *p;

		tf_manylinux_version_since(arches[i], line);
		tf_manylinux_library_since(arches[i], line);
		tf_manylinux_family_max(tf_manylinux_oldest(arches[i]), line);
		tf_manylinux_family_max(tf_manylinux_newest(arches[i]), line);
		p = tf_manylinux_lowest(arches[i], &line, 1, &driver);
		FUZZ_ASSERT(p ? driver <= 1 : driver == 0);
	}
	/* A run path the wheel honours must stay inside the wheel. */
	if (!tf_elf_origin_dir("pkg/ext/a.so", line, &dir))
		FUZZ_ASSERT(!dir.len || tf_path_is_safe_relative(dir.buf));
	tf_buf_reset(&dir);
	if (!tf_elf_origin_dir(line, "$ORIGIN/../lib", &dir) &&
	    tf_path_is_safe_relative(line))
		FUZZ_ASSERT(!dir.len || tf_path_is_safe_relative(dir.buf));
	tf_buf_release(&dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size), *line = text, *end;

	for (;;) {
		end = strchr(line, '\n');
		if (end)
			*end = '\0';
		wheel_name(line);
		normalize(line);
		tags(line);
		elf_strings(line);
		if (!end)
			break;
		line = end + 1;
	}
	free(text);
	return 0;
}
