#ifndef TF_FRAMEWORK_H
#define TF_FRAMEWORK_H

/*
 * The framework a wheel's binaries load into (a PyTorch backend into
 * torch): found from its own installation, a site-packages directory
 * holding NAME/ and NAME's metadata (.dist-info or Debian's .egg-info).
 *
 *   - version: from the framework's metadata, never from the recipe;
 *   - providers: the shared libraries under NAME/lib/ (Debian's are
 *     symbolic links to /usr/lib/<triplet>/libc10.so.1.13: followed),
 *     named by their DT_SONAME; a wheel's DT_NEEDED on one of them is
 *     the framework's to satisfy;
 *   - the check: every strong undefined symbol of a wheel file that
 *     needs a provider resolves in a provider's exports or another file
 *     of the wheel, or is bound to a symbol version of a system library
 *     (checked against the platform tag by elf.c). The first one that
 *     does not is named demangled, with the provider that should have
 *     defined it;
 *   - the record: .dist-info/tfbuild/framework.json names the framework
 *     build a wheel was checked against, so `tfbuild verify --framework`
 *     can tell a user which build it was made for. The DT_NEEDED on the
 *     framework's libraries are recorded as resolution "framework" in
 *     libs.h's libraries.json, which plain `verify` applies.
 * See docs/frameworks.md.
 */

#include <stddef.h>

struct tf_buf;
struct tf_framework;
struct tf_strvec;
struct tf_wheel_file;

/*
 * Find framework `name` in site: its metadata's version, its headers'
 * version and its libraries. context prefixes messages. Returns 0, or
 * -1 after printing what is missing.
 */
int tf_framework_load(struct tf_framework *fw, const char *name,
		      const char *site, const char *context);
void tf_framework_release(struct tf_framework *fw);

/* 1 if soname is one of the framework's libraries. */
int tf_framework_provides(struct tf_framework *fw, const char *soname);

/*
 * Check the ELF files among files (src on disk, dst in the wheel)
 * against the framework: architecture, and every undefined symbol;
 * for a macOS wheel its Mach-O files, against the site's dylibs
 * (fwmacho.h).
 * When record is not NULL, append the record's JSON; when used is not
 * NULL, append the sonames of the framework's libraries the files need
 * (sorted, unique). Returns 0, or -1 after printing the first defect.
 */
int tf_framework_audit(struct tf_framework *fw,
		       const struct tf_wheel_file *files, size_t nr_files,
		       const char *context, struct tf_buf *record,
		       struct tf_strvec *used);

/* "torch==1.13.0a0+gitunknown": what only this framework build satisfies. */
void tf_framework_requirement(const struct tf_framework *fw,
			      struct tf_buf *out);
/*
 * What must move with it, into out (empty for none): "jax==0.10.2" for
 * a PJRT plugin built against jaxlib 0.10.2, since jax pins exactly its
 * jaxlib and fails to import beside another (docs/frameworks.md).
 */
void tf_framework_companion(const struct tf_framework *fw, struct tf_buf *out);
/*
 * 1 if req names another distribution of fw's framework that ships the
 * same libraries and so takes the derived requirement's place
 * ("tensorflow-cpu<2.22,>=2.21.0" for a plugin built against
 * tensorflow 2.21.0); 0 for JAX, whose jax and jaxlib both stay.
 */
int tf_framework_alternative(const struct tf_framework *fw, const char *req);

/*
 * `tfbuild verify --framework SITE`: the wheel at path was checked
 * against a framework build (its record); SITE holds the same build
 * (name, version, each provider's export table, C++ ABI), and every
 * ELF file still resolves against it. Returns 0, or -1 after printing
 * e.g. "built for torch 1.13.0a0+gitunknown (cxx11 ABI), SITE has
 * torch 2.1.0 (cxx11 ABI)".
 */
int tf_framework_verify(const char *path, const char *site);

#endif
