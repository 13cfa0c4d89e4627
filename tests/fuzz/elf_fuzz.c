/*
 * ELF files inside wheels and build stages: libelf reads them, tfbuild
 * walks the dynamic section, version needs, symbols and notes, then
 * checks them against a computed manylinux policy and against the rules
 * `tfbuild verify` derives from a few platform tags. What the reader
 * returns must be consistent: sorted unique exports, named versions.
 */
#include <elf.h>
#include <string.h>

#include "elf.h"
#include "fuzz.h"
#include "manylinux.h"
#include "wheel.h"

#define SHOWN "pkg/lib.so"

static const char *const wheel_files[] = { SHOWN, "pkg/lib/libbar.so.1" };
static const char *const allow_needed[] = { "libfoo.so.1" };
static const struct tf_elf_export exports[] = { { SHOWN, "tfm_add" } };

static void check_info(const struct tf_elf_info *info)
{
	size_t i;

	FUZZ_ASSERT(info->elf_class == 32 || info->elf_class == 64);
	for (i = 1; i < info->exports.nr; i++)
		FUZZ_ASSERT(strcmp(info->exports.v[i - 1], info->exports.v[i]) <
			    0);
	for (i = 0; i < info->nr_versions; i++)
		FUZZ_ASSERT(info->versions[i].library &&
			    info->versions[i].name);
}

/* Rules that compute the lowest manylinux policy, as packing does. */
static void computed_rules(struct tf_elf_rules *rules, unsigned machine)
{
	struct tf_elf_rules empty = TF_ELF_RULES_INIT;

	*rules = empty;
	rules->context = "wheel 'x'";
	tf_platform_compute(&rules->platform, machine == EM_AARCH64
						      ? TF_ARCH_AARCH64
						      : TF_ARCH_X86_64);
	rules->allow_needed = allow_needed;
	rules->nr_allow_needed = 1;
	rules->isa_level = 2;
	rules->exports = exports;
	rules->nr_exports = 1;
	rules->wheel_files = wheel_files;
	rules->nr_wheel_files = 2;
}

static void check_file(const char *path)
{
	static const char *const tags[] = { "manylinux_2_17_x86_64",
					    "manylinux_2_28_aarch64",
					    "linux_aarch64", "any" };
	struct tf_elf_info info = TF_ELF_INFO_INIT;
	struct tf_elf_rules rules;
	size_t i;

	if (tf_elf_read(path, SHOWN, &info) != TF_ELF_READ_OK)
		return;
	check_info(&info);
	computed_rules(&rules, info.machine);
	tf_elf_verify(&info, &rules, SHOWN);
	for (i = 0; i < sizeof(tags) / sizeof(*tags); i++) {
		if (tf_elf_rules_for_platform(&rules, tags[i], "x.whl"))
			FUZZ_ASSERT(!"a published platform has rules");
		rules.wheel_files = wheel_files;
		rules.nr_wheel_files = 2;
		tf_elf_verify(&info, &rules, SHOWN);
	}
	tf_elf_info_release(&info);
	tf_elf_info_release(&info);
}

/* As packing checks a wheel's files: the exports it keeps, the tag. */
static void check_wheel(const char *path, const uint8_t *data, size_t size)
{
	struct tf_wheel_file files[] = { { path, SHOWN } };
	struct tf_buf tag = TF_BUF_INIT, why = TF_BUF_INIT;
	struct tf_platform p = TF_PLATFORM_INIT;
	struct tf_elf_rules rules;

	computed_rules(&rules, size > 19 && data[18] == EM_AARCH64 ? EM_AARCH64
								   : EM_X86_64);
	if (!tf_elf_verify_wheel(files, 1, &rules, &tag))
		FUZZ_ASSERT(tag.len && !tf_platform_parse(tag.buf, &p, &why) &&
			    p.kind == TF_PLATFORM_MANYLINUX);
	tf_buf_release(&tag);
	tf_buf_release(&why);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tf_buf dir = TF_BUF_INIT, path = TF_BUF_INIT;

	fuzz_dir_make(&dir);
	fuzz_write(dir.buf, "lib.so", data, size, &path);
	check_file(path.buf);
	check_wheel(path.buf, data, size);
	tf_buf_release(&path);
	fuzz_dir_remove(&dir);
	return 0;
}
