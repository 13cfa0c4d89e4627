#ifndef TF_MACHOTAG_H
#define TF_MACHOTAG_H

/*
 * The platform tag of a wheel of the macos-arm64 target, from its
 * Mach-O files (docs/cross.md#macos): macosx_M_0_arm64 for M the
 * highest major of their minimum macOS (LC_BUILD_VERSION's minos), the
 * rule pip and delocate apply from macOS 11 on, where the minor is 0
 * (a minimum of 12.1 takes 13: a macosx_12_0 wheel installs on 12.0).
 * Its Mach-O files are then audited as `tfbuild verify` audits them
 * (audit/macos.h), against that tag: verifying the packed wheel does
 * not read its entries again, so the audit is here, on their sources.
 */

#include <stddef.h>

struct tf_buf;
struct tf_elf_export;
struct tf_lib;
struct tf_wheel_file;

/*
 * Without a tag (the recipe's `platform`), append the derived one to
 * platform: "any" when no file is Mach-O. Refuses, naming it after
 * context, a file that is ELF (no macOS loads it), a Mach-O file LLVM
 * cannot read, or one without an arm64 slice; then audits every
 * Mach-O file against the tag (given or derived), and each of the
 * recipe's `exports` (symbols as C spells them: "GetPjrtApi") is in
 * its file's arm64 exports ("_GetPjrtApi"). libs[0..nr_libs) are the
 * wheel's library decisions (libs.h): the dylibs they say another
 * distribution provides (the framework's) are expected outside the
 * wheel. Returns 0, or -1 after saying why.
 */
int tf_pack_macos_platform(const char *context, const char *tag,
			   const struct tf_wheel_file *files, size_t nr,
			   const struct tf_elf_export *exports,
			   size_t nr_exports, const struct tf_lib *libs,
			   size_t nr_libs, struct tf_buf *platform);

#endif
