#ifndef TF_SANDBOX_H
#define TF_SANDBOX_H

/*
 * The step sandbox (docs/security.md#the-step-sandbox): each step runs
 * under bubblewrap, with the network, processes and file system it may
 * touch, and nothing else. Private to build/.
 */

#include <stddef.h>

struct tf_plan;
struct tf_plan_step;
struct tf_strvec;

/* Forget the probe's answer: the next run asks again. */
void tf_sandbox_forget(void);

/*
 * Put the command of step ps of p into argv: `sh -e -c SCRIPT` in its
 * sandbox, or as it is when off (--sandbox=off). env is the step's whole
 * environment (it reaches the step through bwrap's own, which holds
 * nothing else); cache_dir's trusted parts and the secret files
 * keys[0..nr_keys) (the signing and attestation keys; NULL entries
 * skipped) are hidden from it. The run's choice is said once (*said, 0 at the start of a run, set
 * then), a step with the network each time it starts; ps->sandbox
 * records how it ran. 0, or -1 when no sandbox can be made (said once).
 */
int tf_sandbox_command(const struct tf_plan *p, struct tf_plan_step *ps,
		       int off, const char *cache_dir, const char *const *keys,
		       size_t nr_keys, int *said, const struct tf_strvec *env,
		       struct tf_strvec *argv);

/*
 * Check every `sandbox.read` of every step of plans (tf_build_check_reads
 * says what): each refusal reported once at its position; 0 or -1.
 */
int tf_sandbox_check_reads(struct tf_plan *const *plans, size_t nr_plans,
			   const char *cache_dir, const char *const *keys,
			   size_t nr_keys);

/*
 * After step ps of p ended in its sandbox (ps->sandbox > 0): clear the
 * setuid and setgid bits of what it could write (its work, stage and
 * build directories, the source tree it built in), before tfbuild or
 * anyone uses them. Nothing for a step run with --sandbox=off.
 */
void tf_sandbox_after(const struct tf_plan *p, const struct tf_plan_step *ps);

#endif
