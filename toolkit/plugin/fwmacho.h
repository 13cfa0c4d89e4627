#ifndef TF_FWMACHO_H
#define TF_FWMACHO_H

/*
 * framework.c's check for macOS wheels: the framework's dylibs (its
 * macOS wheel's tensorflow/libtensorflow_framework.2.dylib) as
 * providers, named by their install names, and a wheel's Mach-O files
 * resolved against them, symbol by symbol, through the dylib each
 * undefined symbol is bound to (two-level namespace). Read through
 * macho/ (LLVM's object library).
 */

#include <stddef.h>

struct tf_framework;
struct tf_framework_lib;
struct tf_strvec;
struct tf_wheel_file;

/* 1 if the file at path starts as a Mach-O file; 0 if not, or unread. */
int tf_fwmacho_is_macho(const char *path);

/*
 * Fill lib (its path set, the rest zero) from the Mach-O dylib at path:
 * soname the install name's file name, the install name, EM_AARCH64 for
 * its arm64 slice (0 with no such slice) and that slice's exports,
 * sorted. Returns 0, or -1 after saying why it cannot be read.
 */
int tf_fwmacho_read_provider(const char *path, struct tf_framework_lib *lib);

/*
 * Check the Mach-O files among files against fw's Mach-O providers:
 * every undefined symbol of an arm64 slice that loads one of them and
 * is bound to it is in its exports or another Mach-O file's of the
 * wheel; one looked up in every image (flat namespace, -undefined
 * dynamic_lookup) must be in one of them. Bound to a dylib that is not
 * the framework's (libSystem), a symbol is dyld's to find. Appends the
 * sonames of the providers used to used. Returns 0, or -1 after
 * printing the first defect.
 */
int tf_fwmacho_audit(struct tf_framework *fw, const struct tf_wheel_file *files,
		     size_t nr_files, const char *context,
		     struct tf_strvec *used);

#endif
