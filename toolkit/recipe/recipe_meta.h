#ifndef TF_RECIPE_META_H
#define TF_RECIPE_META_H

/*
 * The core metadata a recipe's wheel declares, checked where it is
 * written: license, requires-python, requires-dist, readme,
 * license-files, urls, authors, maintainers, keywords, classifiers
 * (validators in metadata.c). Each problem is printed as
 * "FILE:LINE:COL: ..." (exit 3 from the command); all of them, not
 * only the first.
 */

struct tf_recipe;
struct tf_wheel_def;
struct tf_str;

/*
 * Validate w's literal values when the recipe is loaded: values using
 * ${...} wait for the plan, which expands them and calls
 * tf_wheel_meta_validate_value(). Files (readme, license-files) must
 * exist, relative to the recipe's directory, and no two license files
 * share a file name. Returns 0, or -1 after printing every problem.
 */
int tf_wheel_def_validate_metadata(const struct tf_recipe *r,
				   const struct tf_wheel_def *w);

enum tf_meta_kind {
	TF_META_LICENSE,         /* SPDX expression */
	TF_META_REQUIRES_PYTHON, /* PEP 440 specifier set */
	TF_META_REQUIREMENT,     /* PEP 508 requirement */
	TF_META_FILE,            /* an existing file (readme, license-files) */
};

/*
 * Validate one expanded value v of kind, written at s (for its
 * position). Returns 0, or -1 after printing the problem.
 */
int tf_wheel_meta_validate_value(const struct tf_str *s, const char *v,
				 enum tf_meta_kind kind);

/*
 * Report license file s, whose file name is also first's: in the wheel
 * both would be .dist-info/licenses/NAME, for a license file keeps only
 * its name there. The load checks names written as they are, the plan
 * the expanded ones. Returns -1.
 */
int tf_license_twice(const struct tf_str *s, const struct tf_str *first,
		     const char *name);

/*
 * The content type of a readme: its declared type, or from its
 * extension (.md text/markdown, .rst text/x-rst, .txt or none
 * text/plain). NULL when the extension says nothing.
 */
const char *tf_readme_content_type(const char *file, const char *declared);

#endif
