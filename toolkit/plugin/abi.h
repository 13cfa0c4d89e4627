#ifndef TF_ABI_H
#define TF_ABI_H

/*
 * The ABI a framework plugin was built against, as data (docs/
 * frameworks.md): the C API version its headers declare, the window of
 * framework releases that ABI promises, the Requires-Dist derived from
 * that window, and the record's extra keys in framework.json. Also the
 * refusals of `tfbuild verify` that follow from it: a plugin wheel whose
 * Requires-Dist on its framework is missing or wider than the window.
 *
 *   tensorflow  (tensorflow, tensorflow-cpu): the StreamExecutor C API
 *               (SE_MAJOR.SE_MINOR.SE_PATCH in stream_executor.h);
 *               TensorFlow keeps no plugin or C++ ABI across minor
 *               releases: "tensorflow<2.22,>=2.21.0" for 2.21.0
 *   jax         (jax, jaxlib): the PJRT C API (PJRT_API_MAJOR.MINOR of
 *               the pjrt_c_api.h the build used); JAX pins its
 *               plugins, and jax its jaxlib, to one release:
 *               "jaxlib==0.10.2"
 *   other       (torch): "torch==VERSION", the one build it was checked
 *               against (framework.c)
 */

#include <stddef.h>

struct tf_buf;
struct tf_framework;

struct json_t;

/* enum tf_framework_kind of a distribution name ("tensorflow-cpu"). */
int tf_framework_kind_of(const char *name);

/*
 * Read the C API version from the framework's header: for TensorFlow
 * SITE/tensorflow/include/tensorflow/c/experimental/stream_executor/
 * stream_executor.h, for JAX fw->pjrt_header or else the first of
 * SITE/{jaxlib,tensorflow}/include/xla/pjrt/c/pjrt_c_api.h. A header
 * without its macros is refused, naming the file. Nothing for other
 * frameworks. Returns 0, or -1 after printing.
 */
int tf_framework_read_api(struct tf_framework *fw, const char *context);

/* The Requires-Dist derived from fw's release (above), into out. */
void tf_framework_window(const struct tf_framework *fw, struct tf_buf *out);

/*
 * A recipe's requires-dist entry req: 0 if it does not name fw's
 * framework or is within the window and admits fw's release; -1 with
 * why if it is wider, excludes the release, or cannot be judged.
 */
int tf_framework_requirement_check(const struct tf_framework *fw,
				   const char *req, struct tf_buf *why);

/* Add the kind's keys (c-api, requires-dist, library) to the record. */
void tf_framework_abi_record(const struct tf_framework *fw, struct json_t *fwj);

/*
 * What verify saw of a wheel: its framework record (or NULL), METADATA,
 * and the plugin libraries the conventions found.
 */
struct tf_plugin_wheel {
	const char *path;     /* borrowed: the wheel */
	const char *record;   /* borrowed: framework.json's text, or NULL */
	const char *metadata; /* borrowed: METADATA's text */
	const char *tf_lib;   /* borrowed: a tensorflow-plugins/ library */
	const char *pjrt_lib; /* borrowed: a PJRT plugin library */
	int report;           /* 1: say what the record says (info) */
};

/*
 * The library a record names as the PJRT plugin, or NULL (owned by the
 * caller).
 */
char *tf_framework_record_library(const char *record);

/*
 * Say what the record says ("built for tensorflow 2.21.0 (StreamExecutor
 * C API 0.0.1)") when w->report, and refuse a plugin wheel whose
 * Requires-Dist on its framework is missing or wider than the record's
 * window. Returns 0, or -1 after printing.
 */
int tf_framework_plugin_verify(const struct tf_plugin_wheel *w);

/*
 * The framework record of the wheel at path into out: 1 when it has one,
 * 0 when not, -1 after printing a read error.
 */
int tf_framework_record_read(const char *path, struct tf_buf *out);

#endif
