#ifndef TF_MACOS_H
#define TF_MACOS_H

/*
 * The platform checks of the Mach-O files in a macOS wheel (tagged
 * macosx_X_Y_ARCH), read through macho/: what each slice needs of the
 * Mac that loads it against what the wheel's tag promises. ELF files
 * are elf.h's; a wheel of other tags is not checked here.
 */

#include <stddef.h>

struct tf_buf;
struct tf_lib;

/* The architectures of macOS wheel tags, as bits. */
#define TF_MACOS_ARM64 1u
#define TF_MACOS_X86_64 2u

/* What a wheel's Mach-O files must satisfy. Pointers borrowed. */
struct tf_macos_rules {
	const char *context; /* message prefix before the file (the wheel) */
	const char *tag;     /* the wheel's platform tag, for messages */
	int macos;           /* 1: every tag is macosx_X_Y_ARCH, ARCH one of
				arm64, x86_64, universal2 */
	unsigned archs;      /* TF_MACOS_*: each file has a slice of each */
	unsigned arm64_version, x86_64_version; /* the lowest macOS the tags
						   promise for each, as
						   16.8.8 bits */
	const char *const *wheel_files; /* every path in the wheel: where an
					   @loader_path rpath leads */
	size_t nr_wheel_files;
	const struct tf_lib *libs; /* the libraries record (libs.h): a dylib
				      it says another distribution provides
				      (the framework's) is expected outside
				      the wheel, and so is the rpath to it */
	size_t nr_libs;
};

#define TF_MACOS_RULES_INIT                              \
	{                                                \
		.context = NULL, .tag = NULL, .macos = 0 \
	}

/*
 * Fill r from a wheel's platform tag (a '.'-joined set): macos stays 0
 * when a tag is not one of macOS's tfbuild knows (linux, any, win...,
 * macosx_10_9_intel), and nothing is checked. Returns 0, or -1 with the
 * reason in why for a macosx_ tag whose version does not parse.
 */
int tf_macos_rules_for_platform(struct tf_macos_rules *r, const char *tag,
				struct tf_buf *why);

/*
 * Read the Mach-O file at path (found at shown in the wheel) and check
 * every slice against r: its architecture is one the tag names (arm64e
 * and x86_64 are refused in an arm64 wheel), and the tag's others are
 * there; the platform is macOS and its minimum (LC_BUILD_VERSION or
 * LC_VERSION_MIN_MACOSX) at most the tag's; no load command, rpath or
 * install name is a path outside /usr/lib/ and /System/Library/ that
 * does not start with @rpath, @loader_path or @executable_path; an
 * arm64 slice has a code signature. Prints each refusal as "CONTEXT:
 * SHOWN: why" and returns -1 after all of them, or 0; warns of symbols
 * bound by dynamic or flat lookup and of @loader_path rpaths that lead
 * out of the wheel. With -v, says what each slice needs and loads.
 * Each loadable slice is added to w, for tf_macos_wheel_finish.
 */
struct tf_macos_wheel;
int tf_macos_verify_file(const char *path, const char *shown,
			 const struct tf_macos_rules *r,
			 struct tf_macos_wheel *w);

/*
 * 1 if load ("@rpath/libtensorflow_framework.2.dylib") is a library r's
 * libraries record says another distribution provides at run time
 * (framework, external or provided), by its file name.
 */
int tf_macos_provided(const struct tf_macos_rules *r, const char *load);

/*
 * The wheel's Mach-O files together (macos_wheel.c): tf_macos_verify_file
 * adds each loadable slice to w (when not NULL); after the last,
 * tf_macos_wheel_finish resolves each slice's @loader_path/ and @rpath/
 * loads to files of the wheel, as dyld does through its rpaths, and
 * refuses a symbol bound to one of them that it does not export (or a
 * load that leads to a file that is no Mach-O of that architecture);
 * a load that leads out of the wheel is a warning. Returns -1 after
 * its refusals, or 0.
 */
struct tf_macho_slice;
struct tf_macos_wheel *tf_macos_wheel_new(void);
void tf_macos_wheel_add(struct tf_macos_wheel *w, const char *shown,
			unsigned arch, const struct tf_macho_slice *s);
int tf_macos_wheel_finish(struct tf_macos_wheel *w,
			  const struct tf_macos_rules *r);
void tf_macos_wheel_free(struct tf_macos_wheel *w);

/*
 * Where `rest` (what follows @loader_path) leads from the folder of
 * shown, a wheel path: appended to out without '/' at either end; -1
 * if it climbs above the wheel's root.
 */
int tf_macos_resolve_loader(const char *shown, const char *rest,
			    struct tf_buf *out);

#endif
