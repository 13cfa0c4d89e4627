#ifndef TF_INSTALL_H
#define TF_INSTALL_H

/*
 * A framework's installation in a site-packages directory: the
 * distribution's metadata (NAME-*.dist-info/METADATA or Debian's
 * .egg-info/PKG-INFO: name and version; TensorFlow's either of
 * tensorflow and tensorflow-cpu; JAX's jaxlib, which may be absent) and
 * the version its C++ headers declare (torch's version.h), and the
 * release checked against the recipe's.
 */

struct tf_framework;

/*
 * Fill fw->name, fw->version (NULL for JAX without jaxlib), and
 * fw->header_version/header_file when the headers say. fw->site and
 * fw->kind must be set. Returns 0, or -1 after printing what is missing.
 */
int tf_framework_read_install(struct tf_framework *fw, const char *name,
			      const char *context);

/*
 * The recipe's expected version (a release prefix: "1.13", "1.13.0")
 * against the headers the backend was compiled with and the metadata.
 * JAX without jaxlib in the site takes declared as its release. Returns
 * 0, or -1 after printing the mismatch.
 */
int tf_framework_check_version(struct tf_framework *fw, const char *declared,
			       const char *context);

#endif
