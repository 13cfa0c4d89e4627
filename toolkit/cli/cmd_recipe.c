/*
 * tfbuild recipe: the whole pipeline. Each stage reports its own errors;
 * this file only sequences them and maps a failing stage to its exit code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attest/attest.h"
#include "build/build.h"
#include "cache/cache.h"
#include "cli.h"
#include "base/base.h"
#include "pack/pack.h"
#include "session.h"
#include "source/source.h"
#include "ui/ui.h"
#include "opt.h"
#include "env/env.h"

const char tf_usage_recipe[] =
	"Run a recipe: check it, fetch every source and verify its sha256,\n"
	"extract and patch, run the build steps in dependency order, pack the\n"
	"wheels into the output directory, verify each wheel and write\n"
	"SHA256SUMS and a provenance statement beside them.\n"
	"\n"
	"With --attestation-key KEYFILE (or TFBUILD_ATTESTATION_KEY), an\n"
	"Ed25519 private key in PEM (`tfbuild cache keygen` makes one), each\n"
	"wheel also gets WHEEL.intoto.jsonl beside it: a DSSE envelope signed\n"
	"with the key, holding an in-toto statement whose one subject is the\n"
	"wheel, with the SLSA provenance of the run (PEP 740's shape;\n"
	"docs/publishing.md). `tfbuild verify --attestation-trust` checks it.\n";

static const char *const *sandbox_choices(void)
{
	static const char *const v[] = { "on", "off", NULL };
	return v;
}

const struct tf_opt tf_opts_recipe[] = {
	TF_OPT_OUT,
	TF_OPT_BUILD_DIR,
	TF_OPT_CACHE,
	TF_OPT_JOBS,
	TF_OPT_TARGET,
	TF_OPT_SET,
	TF_OPT_TOOLCHAIN,
	TF_OPT_OFFLINE,
	TF_OPT_RECHECK,
	{ 'k', "keep-going", TF_OPT_FLAG, TF_ARG(keep_going), NULL,
	  "after a failing step, go on with the others", NULL, 0, 0 },
	{ 'f', "force", TF_OPT_FLAG, TF_ARG(force), NULL,
	  "rebuild every step, even if up to date", NULL, 0, 0 },
	{ 0, "wait", TF_OPT_FLAG, TF_ARG(wait), NULL,
	  "if another tfbuild is using the build tree or output folder, "
	  "wait for it instead of failing",
	  NULL, 0, 0 },
	{ 0, "timeout", TF_OPT_STRING, TF_ARG(timeout), "TIME",
	  "time limit of every step and test (90s, 30m, 2h), over the "
	  "recipe's; default: the recipe's, or 1h",
	  NULL, 0, 0 },
	{ 0, "launcher", TF_OPT_CHOICE, TF_ARG(launcher), "NAME",
	  "compile through ccache, sccache or distcc (none: not even the "
	  "toolchain's); never changes the wheels",
	  tf_launcher_choices, 0, 0 },
	{ 0, "distcc-hosts", TF_OPT_STRING, TF_ARG(distcc_hosts), "HOSTS",
	  "DISTCC_HOSTS for --launcher distcc (127.0.0.1:3632/4,lzo ...)", NULL,
	  0, 0 },
	{ 0, "sandbox", TF_OPT_CHOICE, TF_ARG(sandbox), "WHEN",
	  "on (the default): each step in a bubblewrap sandbox, with no "
	  "network unless it says `network: true` or its launcher "
	  "reaches other machines; off: none "
	  "(TFBUILD_SANDBOX=off; docs/security.md)",
	  sandbox_choices, 0, 0 },
	{ 0, "attestation-key", TF_OPT_STRING, TF_ARG(attestation_key),
	  "KEYFILE",
	  "Ed25519 private key (PEM) that signs each wheel's attestation "
	  "(default: $TFBUILD_ATTESTATION_KEY)",
	  NULL, 0, 0 },
	TF_OPTS_CACHE,
	TF_OPT_END,
};

/*
 * Pack the wheels; none replaces a wheel another build made; the
 * attestations of the wheels there now are withdrawn before a changed
 * one moves in.
 */
static int pack(struct tf_session *s, const struct tf_attest_in *ai,
		struct tf_strvec *written, struct tf_strvec *indexes)
{
	struct tf_pack_run run = TF_PACK_RUN_INIT;
	struct tf_strvec replaced = TF_STRVEC_INIT;
	int ret =
		tf_pack_wheels(s->plan_ptrs, s->nr_plans, s->opt.out_dir, &run);

	if (!ret) {
		tf_pack_replacing(&run, &replaced);
		ret = tf_attest_check_replace(ai, &replaced);
	}
	if (!ret && run.changes)
		ret = tf_attest_withdraw(ai);
	if (!ret)
		ret = tf_pack_commit(&run, written, indexes);
	tf_pack_run_release(&run);
	tf_strvec_release(&replaced);
	return ret;
}

/* Pack, digest the trees read in place, attest. */
static int pack_and_attest(struct tf_session *s, const struct tf_attest_in *ai)
{
	struct tf_strvec written = TF_STRVEC_INIT, indexes = TF_STRVEC_INIT;
	size_t i;
	int ret = TF_EXIT_OK;

	if (pack(s, ai, &written, &indexes))
		ret = TF_EXIT_WHEEL;
	/* Trees read in place that no wheel packed, for the provenance. */
	for (i = 0; !ret && i < s->nr_plans; i++)
		if (tf_sources_stamp_in_place(&s->plans[i], 0))
			ret = TF_EXIT_BUILD;
	if (!ret && tf_attest_run(ai, &written, &indexes))
		ret = TF_EXIT_WHEEL;
	tf_strvec_release(&written);
	tf_strvec_release(&indexes);
	return ret;
}

static int run_pipeline(struct tf_session *s, int no_sandbox,
			const struct tf_signer *signer, const char *key)
{
	struct tf_build_opts bo = { .jobs = s->opt.jobs,
				    .keep_going = s->opt.keep_going,
				    .force = s->opt.force,
				    .timeout = s->opt.timeout,
				    .cache = s->cache,
				    .cache_dir = s->opt.cache.dir,
				    .no_sandbox = no_sandbox,
				    .signing_key = s->opt.cache.signing_key,
				    .attestation_key = key };
	struct tf_attest_in ai = { .plans = s->plan_ptrs,
				   .nr_plans = s->nr_plans,
				   .out_dir = s->opt.out_dir,
				   .name = s->recipe.name.s,
				   .sets = &s->opt.sets,
				   .sandbox_off = no_sandbox,
				   .signer = signer };
	struct tf_strvec names = TF_STRVEC_INIT;
	size_t i;
	int ret;

	for (i = 0; i < s->nr_plans; i++)
		tf_strvec_push(&names, s->plans[i].target.name);
	tf_ui_targets((const char *const *)names.v, names.nr);
	tf_strvec_release(&names);
	if (tf_build_check_reads(s->plan_ptrs, s->nr_plans, &bo))
		return TF_EXIT_RECIPE;
	/* What the steps are given: roots, tool files, the target wheels. */
	if ((ret = tf_session_provision(s)))
		return ret;
	for (i = 0; i < s->nr_plans; i++)
		if (tf_sources_fetch(&s->plans[i], &s->fetch))
			return TF_EXIT_FETCH;
	for (i = 0; i < s->nr_plans; i++)
		if (tf_sources_stamp_copies(&s->plans[i]) ||
		    tf_sources_prepare(&s->plans[i], s->opt.force))
			return TF_EXIT_BUILD;
	if (tf_build_run(s->plan_ptrs, s->nr_plans, &bo, NULL))
		return tf_build_signal ? 128 + tf_build_signal : TF_EXIT_BUILD;
	return pack_and_attest(s, &ai);
}

/* --sandbox, else TFBUILD_SANDBOX, else on: 1 for off, 0 for on, -1 bad. */
static int sandbox_off(const struct tf_args *a)
{
	const char *v = a->sandbox ? a->sandbox : getenv("TFBUILD_SANDBOX");

	if (!v || !*v || !strcmp(v, "on"))
		return 0;
	if (!strcmp(v, "off"))
		return 1;
	return error("TFBUILD_SANDBOX must be on or off, not '%s'", v);
}

int cmd_recipe(struct tf_args *a)
{
	const char *key = a->attestation_key
				  ? a->attestation_key
				  : getenv("TFBUILD_ATTESTATION_KEY");
	struct tf_signer *signer = NULL;
	struct tf_session s;
	int ret, off = sandbox_off(a);

	/* A key that cannot sign is found before anything is built. */
	if (off < 0 || (key && *key && !(signer = tf_signer_load(key))))
		return TF_EXIT_USAGE;
	ret = tf_session_setup(&s, a, tf_cmd_find("recipe"));
	s.opt.lock = 1;
	if (!ret)
		ret = tf_session_open(&s, 1);
	if (!ret && tf_cache_open(&s.cache, &s.opt.cache))
		ret = TF_EXIT_USAGE;
	if (!ret)
		ret = run_pipeline(&s, off, signer, key);
	tf_session_release(&s);
	tf_signer_free(signer);
	return ret;
}
