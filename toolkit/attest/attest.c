/*
 * The attest stage (attest.h): the names of the files beside the wheels
 * that vouch for them, their withdrawal before a wheel changes, and
 * their writing once the wheels are in place.
 */
#include "attest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"
#include "ui/ui.h"
#include "attest740.h"
#include "provenance.h"

#define SUMS_NAME "SHA256SUMS"
#define STATEMENT_END ".whl" TF_ATTEST_SUFFIX

/* 1 if name (a base name) is one of the attestations of in's run. */
static int is_attestation(const struct tf_attest_in *in, const char *name)
{
	size_t n = strlen(name), k = strlen(STATEMENT_END);
	size_t r = strlen(in->name);

	if (!strcmp(name, SUMS_NAME))
		return 1;
	if (!strncmp(name, in->name, r) && !strcmp(name + r, ".intoto.json"))
		return 1;
	return n > k && !strcmp(name + n - k, STATEMENT_END);
}

/* The attestations now in out_dir, as paths; none when it is missing. */
static int attestations(const struct tf_attest_in *in, struct tf_strvec *out)
{
	struct tf_strvec names = TF_STRVEC_INIT;
	size_t i;

	/* A first run has no output folder yet. */
	if (!tf_path_exists(in->out_dir))
		return 0;
	if (tf_list_dir(in->out_dir, &names) < 0)
		return -1;
	for (i = 0; i < names.nr; i++)
		if (is_attestation(in, names.v[i]))
			tf_strvec_pushf(out, "%s/%s", in->out_dir, names.v[i]);
	tf_strvec_release(&names);
	return 0;
}

int tf_attest_withdraw(const struct tf_attest_in *in)
{
	struct tf_strvec paths = TF_STRVEC_INIT;
	size_t i;
	int ret = attestations(in, &paths);

	for (i = 0; !ret && i < paths.nr; i++)
		if (unlink(paths.v[i]) < 0 && errno != ENOENT)
			ret = error_errno("cannot remove '%s'", paths.v[i]);
	tf_strvec_release(&paths);
	return ret;
}

int tf_attest_check_replace(const struct tf_attest_in *in,
			    const struct tf_strvec *paths)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < paths->nr; i++)
		ret = tf_provenance_check_replace(paths->v[i], in->plans,
						  in->nr_plans, in->sets);
	return ret;
}

static int listed(const struct tf_strvec *v, const char *name)
{
	size_t i;

	for (i = 0; i < v->nr; i++)
		if (!strcmp(tf_path_basename(v->v[i]), name))
			return 1;
	return 0;
}

/*
 * Warn about each entry of out_dir that is neither this run's wheels,
 * the variants JSON nor an attestation: nothing else belongs there, and
 * none of it is listed in SHA256SUMS.
 */
static void report_strays(const struct tf_attest_in *in,
			  const struct tf_strvec *wheels,
			  const struct tf_strvec *indexes)
{
	struct tf_strvec names = TF_STRVEC_INIT;
	size_t i;

	if (tf_list_dir(in->out_dir, &names) < 0)
		return;
	for (i = 0; i < names.nr; i++)
		if (!listed(wheels, names.v[i]) &&
		    !listed(indexes, names.v[i]) &&
		    !is_attestation(in, names.v[i]))
			warning("'%s/%s' was not written by this run; it is not "
				"listed in SHA256SUMS",
				in->out_dir, names.v[i]);
	tf_strvec_release(&names);
}

/* WHEEL.intoto.jsonl beside each wheel, signed by in's signer. */
static int attest_wheels(const struct tf_attest_in *in,
			 const struct tf_strvec *wheels,
			 const struct tf_provenance_run *run)
{
	struct tf_buf path = TF_BUF_INIT;
	char *predicate;
	size_t i;
	int ret = 0;

	if (!in->signer)
		return 0;
	predicate = tf_provenance_predicate(in->plans, in->nr_plans, run);
	if (!predicate)
		return -1;
	for (i = 0; !ret && i < wheels->nr; i++) {
		tf_buf_setf(&path, "%s%s", wheels->v[i], TF_ATTEST_SUFFIX);
		ret = tf_attest_wheel_write(
			path.buf, tf_path_basename(wheels->v[i]),
			run->wheels->digests.v[i], predicate, in->signer);
	}
	free(predicate);
	tf_buf_release(&path);
	return ret;
}

/* SHA256SUMS, the provenance and the statements, from sums. */
static int write_all(const struct tf_attest_in *in,
		     const struct tf_strvec *wheels, const struct tf_sums *sums)
{
	struct tf_provenance_run run = { .sets = in->sets,
					 .wheels = sums,
					 .paths = wheels,
					 .sandbox_off = in->sandbox_off };
	struct tf_buf path = TF_BUF_INIT;
	int ret;

	tf_path_join(&path, in->out_dir, SUMS_NAME);
	ret = tf_sums_write(path.buf, sums);
	tf_buf_setf(&path, "%s/%s.intoto.json", in->out_dir, in->name);
	if (!ret)
		ret = tf_provenance_write(path.buf, in->plans, in->nr_plans,
					  &run);
	if (!ret)
		ret = attest_wheels(in, wheels, &run);
	tf_buf_release(&path);
	return ret;
}

int tf_attest_run(const struct tf_attest_in *in, const struct tf_strvec *wheels,
		  const struct tf_strvec *indexes)
{
	struct tf_sums sums = TF_SUMS_INIT;
	struct tf_strvec all = TF_STRVEC_INIT;
	size_t i;
	int ret;

	report_strays(in, wheels, indexes);
	/* The wheels first: sums and subjects in the same order. */
	for (i = 0; i < wheels->nr; i++)
		tf_strvec_push(&all, wheels->v[i]);
	for (i = 0; i < indexes->nr; i++)
		tf_strvec_push(&all, indexes->v[i]);
	ret = tf_sums_of_files(&all, &sums);
	tf_strvec_release(&all);
	if (!ret)
		ret = write_all(in, wheels, &sums);
	for (i = 0; !ret && i < wheels->nr; i++) {
		tf_ui_wheel_written(wheels->v[i], sums.digests.v[i]);
		if (tf_verbosity && !tf_ui_json())
			printf("%s  %s\n", sums.digests.v[i], wheels->v[i]);
	}
	tf_sums_release(&sums);
	return ret;
}
