/*
 * Recipes: libyaml's parser and tfbuild's schema checks, then the plan
 * for each target (variables expanded, paths resolved, toolchain
 * overrides applied), without looking for the toolchain. The input is a recipe.yaml in a scratch
 * directory, so relative patch and source paths stay inside it.
 */
#include "fuzz.h"
#include "path.h"
#include "plan.h"
#include "recipe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const targets[] = { "x86_64", "aarch64" };
	struct tf_buf dir = TF_BUF_INIT, path = TF_BUF_INIT,
		      build = TF_BUF_INIT;
	struct tf_recipe r = TF_RECIPE_INIT;
	struct tf_plan plan;
	size_t i;

	fuzz_dir_make(&dir);
	fuzz_write(dir.buf, "recipe.yaml", data, size, &path);
	tf_path_join(&build, dir.buf, "build");
	if (!tf_recipe_load(path.buf, &r)) {
		struct tf_plan_opts o = { .build_dir = build.buf, .jobs = 2 };

		for (i = 0; i < sizeof(targets) / sizeof(*targets); i++) {
			tf_plan_make(&r, targets[i], &o, &plan);
			tf_plan_release(&plan);
			tf_plan_release(&plan);
		}
	}
	tf_recipe_release(&r);
	tf_recipe_release(&r);
	tf_buf_release(&path);
	tf_buf_release(&build);
	fuzz_dir_remove(&dir);
	return 0;
}
