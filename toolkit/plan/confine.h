#ifndef TF_CONFINE_H
#define TF_CONFINE_H

struct tf_buf;

/*
 * Where a recipe's local files may come from. A `path:` source or a
 * patch is resolved (symlinks included) and must stay inside the
 * recipe's tree: the nearest directory above the recipe that holds
 * `.git` (its checkout), else the directory above the recipe's own (as
 * recipes/ reaches backend/). TFBUILD_RECIPE_ROOT names another root.
 * docs/security.md#local-paths.
 */

/* Set root to the recipe's tree for a recipe in recipe_dir (absolute). */
void tf_confine_root(const char *recipe_dir, struct tf_buf *root);

/*
 * 0 if the existing path resolves inside root; else -1 with why filled
 * ("resolves to '/etc', outside the recipe's tree '/src/x'").
 */
int tf_confine_check(const char *root, const char *path, struct tf_buf *why);

/*
 * 0 unless the directory tree holds dir (copying tree into dir would
 * copy forever); else -1 with why filled. dir need not exist yet.
 */
int tf_confine_not_above(const char *tree, const char *dir, struct tf_buf *why);

#endif
