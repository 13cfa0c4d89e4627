#ifndef TF_SBOM_H
#define TF_SBOM_H

/*
 * The SBOM every wheel carries (PEP 770): .dist-info/sboms/
 * tfbuild.cdx.json, CycloneDX 1.6 JSON written with jansson
 * (docs/sbom.md). The package is its primary component; the others are
 * what went into it: the recipe's sources with their patches, each
 * library vendored into the wheel and the Debian package it came from,
 * the target packages the recipe says are linked statically, the
 * framework the wheel was checked against, the target's wheels from
 * the package index and its compiler. Deterministic: keys and arrays
 * sorted, no path of the machine, the time from SOURCE_DATE_EPOCH, the
 * serial number derived from the rest of the document.
 */

#include <stddef.h>

struct tf_lib;
struct tf_plan;
struct tf_plan_wheel;
struct tf_wheel_file;

/* What the SBOM of one wheel is made from; everything borrowed. */
struct tf_sbom_in {
	const struct tf_plan *plan;
	const struct tf_plan_wheel *pw;
	const char *platform;      /* the wheel's platform tag */
	const struct tf_lib *libs; /* its library decisions */
	size_t nr_libs;
	const struct tf_wheel_file *files; /* its files, vendored ones too */
	size_t nr_files;
	const char *framework_record; /* its framework.json, or NULL */
};

/* Write the SBOM to path; 0, or -1 after reporting. */
int tf_sbom_write(const struct tf_sbom_in *in, const char *path);

#endif
