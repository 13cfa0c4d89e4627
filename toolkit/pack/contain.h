#ifndef TF_PACK_CONTAIN_H
#define TF_PACK_CONTAIN_H

/*
 * What a wheel's file rules may reach: the tree the rule names (a
 * step's stage, a source tree) and nothing outside it. A step writes
 * its stage, so what is there is untrusted: a symlink to ~/.ssh, a
 * directory linked to /, a glob's `..` would otherwise put a file of
 * the build machine in a wheel. docs/security.md#stages.
 */

#include <glob.h>

struct tf_buf;

struct tf_contain {
	char *root;        /* owned: the rule's tree, resolved */
	char *wide;        /* owned: with follow-links, the target's build tree,
		       resolved; else NULL */
	const char *shown; /* borrowed: root as the user gave it */
};

#define TF_CONTAIN_INIT        \
	{                      \
		NULL, NULL, "" \
	}

/*
 * Set c up for the tree root (borrowed for messages); wide is the
 * target's build tree when the rule has follow-links: true, else NULL.
 * -1 after reporting a root that cannot be resolved.
 */
int tf_contain_init(struct tf_contain *c, const char *root, const char *wide);
void tf_contain_release(struct tf_contain *c);

/*
 * 1 if a glob's match is only the glob's doing and names no file: its
 * last part is `.` or `..` (`.*` matches them). Skipped, not packed.
 */
int tf_contain_match_is_dots(const char *match);
/*
 * glob(3) with GLOB_ERR; GLOB_NOMATCH also when it matched only `.` and
 * `..` (then g is freed already, as glob leaves it on GLOB_NOMATCH).
 */
int tf_contain_glob(const char *pattern, glob_t *g);
/*
 * A glob's match must be in the tree: no `.` or `..` component, and its
 * directory (symlinks resolved) inside root. 0, or -1 with why filled.
 */
int tf_contain_match_check(const struct tf_contain *c, const char *match,
			   struct tf_buf *why);

/*
 * The symlink at path must resolve inside root (or, with follow-links,
 * inside the build tree), to an existing file or directory, and a
 * directory link must not lead to a directory above it (a loop). 0, or
 * -1 with why naming the link, its target and where it resolves.
 */
int tf_contain_link_check(const struct tf_contain *c, const char *path,
			  struct tf_buf *why);

#endif
