#ifndef TF_VENDORSRC_H
#define TF_VENDORSRC_H

/*
 * Where a wheel's vendored libraries come from. For a cross target with
 * target packages, the root they were unpacked into is searched first
 * (before the recipe's library-dirs and the toolchain's directories), so
 * the version the recipe pins is the one vendored. Each vendored file is
 * then mapped to the Debian package that ships it, for the wheel's
 * libraries record (docs/libraries.md).
 */

struct tf_plan;
struct tf_strvec;
struct tf_vendor_result;

/* Append the target root's library directories (none without a root). */
void tf_pack_root_dirs(const struct tf_plan *p, struct tf_strvec *dirs);

/*
 * Set .package of each library in v vendored from a file some Debian
 * package ships. Returns 0, or -1 after reporting a dpkg failure or a
 * library found outside the target root while a target package ships a
 * file of that name (the pinned version must be the one vendored).
 */
int tf_pack_vendored_packages(const struct tf_plan *p, const char *context,
			      struct tf_vendor_result *v);

#endif
