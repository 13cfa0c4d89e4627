/*
 * The ISA audit's reports and verdicts (docs/isa.md): what a scan
 * (isa.c) found, described for -v, and judged against the wheel's
 * declarations: refused, passed with the paths chosen at run time, or
 * undecided.
 */
#include "isa.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"

static void add_where(const struct tf_isa_hit *h, struct tf_buf *out)
{
	tf_buf_addf(out, "%s in ", h->mnemonic);
	if (h->function)
		tf_buf_addf(out, "%s+0x%llx", h->function, h->offset);
	else
		tf_buf_addstr(out, "(no symbol)");
	tf_buf_addf(out, " at 0x%llx", h->addr);
}

/* The feature above `above`, and not in allow, found at the lowest
   address; -1 if none. */
static int first_above(const struct tf_isa_report *rep, int above,
		       unsigned long long allow)
{
	int f, best = -1;

	for (f = 0; f < TF_ISA_NR; f++)
		if (rep->count[f] && tf_isa_feature_level(f) > above &&
		    !(allow >> f & 1) &&
		    (best < 0 || rep->first[f].addr < rep->first[best].addr))
			best = f;
	return best;
}

void tf_isa_describe(const struct tf_isa_report *rep, struct tf_buf *out)
{
	int f, n = 0;

	tf_buf_addstr(out, tf_isa_level_name(rep->family, rep->level));
	for (f = 0; f < TF_ISA_NR; f++) {
		if (!rep->count[f])
			continue;
		tf_buf_addf(out, "%s %s x%zu (first ", n++ ? ";" : ":",
			    tf_isa_feature_name(f), rep->count[f]);
		add_where(&rep->first[f], out);
		tf_buf_addch(out, ')');
	}
	for (f = 0; f < TF_ISA_NR; f++) {
		if (!rep->accepted[f])
			continue;
		tf_buf_addf(out, "; accepted: %s x%zu (first ",
			    tf_isa_feature_name(f), rep->accepted[f]);
		add_where(&rep->first_accepted[f], out);
		tf_buf_addf(out, "), %s", rep->accepted_by[f]);
		if (f == TF_ISA_LSE && rep->lse_unnamed)
			tf_buf_addf(out,
				    "; %zu of them where no helper's name "
				    "covers them: %s%s",
				    rep->lse_unnamed, rep->lse_sites,
				    rep->lse_unnamed > 6 ? "; ..." : "");
	}
	for (f = 0, n = 0; f < TF_ISA_NR && rep->evidence; f++) {
		if (!rep->chosen[f])
			continue;
		tf_buf_addf(out, "%s %s x%zu (first ",
			    n++ ? ";" : "; chosen at run time:",
			    tf_isa_feature_name(f), rep->chosen[f]);
		add_where(&rep->first_chosen[f], out);
		tf_buf_addf(out, ", %s)", rep->chosen_by[f]);
	}
	if (rep->evidence)
		tf_buf_addf(out, "; run-time checks: %s", rep->evidence);
	if (rep->nr_unknown)
		tf_buf_addf(out, "; %zu undecoded", rep->nr_unknown);
}

int tf_isa_dispatches(const struct tf_isa_policy *p, const char *shown)
{
	size_t i;

	for (i = 0; i < p->nr_dispatch; i++)
		if (!fnmatch(p->dispatch[i], shown, FNM_PATHNAME))
			return 1;
	return 0;
}

static int refuse(const char *context, const char *shown, struct tf_buf *msg)
{
	if (context)
		error("%s: %s: %s", context, shown, msg->buf);
	else
		error("%s: %s", shown, msg->buf);
	tf_buf_release(msg);
	return -1;
}

/* The policy's minimum for family, or its baseline. */
static int minimum_for(const struct tf_isa_policy *p, enum tf_isa_family family)
{
	enum tf_isa_family fam;
	int level;

	if (p->minimum && !tf_isa_level_parse(p->minimum, &fam, &level) &&
	    fam == family)
		return level;
	return tf_isa_baseline(family);
}

/* The feature above `above` first found outside chosen functions. */
static int first_outside_above(const struct tf_isa_report *rep, int above,
			       unsigned long long allow, int *level, size_t *nr)
{
	int f, best = -1;

	*level = above;
	*nr = 0;
	for (f = 0; f < TF_ISA_NR; f++) {
		if (!rep->outside[f] || tf_isa_feature_level(f) <= above ||
		    (allow >> f & 1))
			continue;
		*nr += rep->outside[f];
		if (tf_isa_feature_level(f) > *level)
			*level = tf_isa_feature_level(f);
		if (best < 0 ||
		    rep->first_outside[f].addr < rep->first_outside[best].addr)
			best = f;
	}
	return best;
}

/* The names of the features chosen at run time: "avx2, fma". */
static void add_chosen(const struct tf_isa_report *rep, struct tf_buf *out)
{
	int f, n = 0;

	for (f = 0; f < TF_ISA_NR; f++)
		if (rep->chosen[f])
			tf_buf_addf(out, "%s%s", n++ ? ", " : "",
				    tf_isa_feature_name(f));
}

/*
 * A file with code above min that shows run-time checks (rep->evidence):
 * passes when every such instruction is in a chosen function; is refused
 * when the code outside them is built for the level (its extension
 * instructions outnumber its SSE/SSE2 ones three to one, as in a library
 * compiled with -mavx); is undecided otherwise.
 */
static int check_dispatch(const struct tf_isa_report *rep, const char *shown,
			  const char *context, const struct tf_isa_policy *p,
			  int min)
{
	struct tf_buf msg = TF_BUF_INIT;
	size_t nr;
	int level, f = first_outside_above(rep, min, p->allow, &level, &nr);

	if (f < 0) {
		add_chosen(rep, &msg);
		(p->undecided_ok ? info : verbose)(
			"%s%s%s: %s, with paths for %s chosen at run time "
			"(%s)",
			context ? context : "", context ? ": " : "", shown,
			tf_isa_level_name(rep->family, min), msg.buf,
			rep->evidence);
		tf_buf_release(&msg);
		return 0;
	}
	if (rep->family == TF_ISA_X86_64 && nr > 3 * rep->nr_legacy) {
		tf_buf_addf(&msg, "needs %s (%s: ",
			    tf_isa_level_name(rep->family, level),
			    tf_isa_feature_name(f));
		add_where(&rep->first_outside[f], &msg);
		tf_buf_addf(&msg,
			    "), above %s: the code outside its run-time "
			    "choices is built for it (%zu such instructions, "
			    "%zu SSE/SSE2), though the file checks the CPU "
			    "(%s)",
			    tf_isa_level_name(rep->family, min), nr,
			    rep->nr_legacy, rep->evidence);
		return refuse(context, shown, &msg);
	}
	tf_buf_addf(&msg, "undecided: %zu instructions of %s (first %s: ", nr,
		    tf_isa_level_name(rep->family, level),
		    tf_isa_feature_name(f));
	add_where(&rep->first_outside[f], &msg);
	tf_buf_addf(&msg,
		    ") in functions the audit cannot tie to the file's "
		    "run-time checks (%s)",
		    rep->evidence);
	if (!p->undecided_ok) {
		tf_buf_addstr(&msg,
			      tf_isa_dispatches(p, shown)
				      ? ", and a variant's declared dispatch "
					"counts only for what the audit ties "
					"to them"
				      : ", and it does not declare run-time "
					"dispatch (wheels[].isa.dispatch)");
		return refuse(context, shown, &msg);
	}
	tf_buf_addf(&msg,
		    "; not refused: run it on a baseline CPU (%s) to know, "
		    "or declare the file's dispatch",
		    tf_isa_level_name(rep->family, min));
	if (context)
		warning("%s: %s: %s", context, shown, msg.buf);
	else
		warning("%s: %s", shown, msg.buf);
	tf_buf_release(&msg);
	return 0;
}

static int check_report(const struct tf_isa_report *rep, const char *shown,
			const char *context, const struct tf_isa_policy *p)
{
	int min = minimum_for(p, rep->family), f;
	struct tf_buf msg = TF_BUF_INIT;

	/* In a variant wheel a declaration alone proves nothing: the
	   file's own run-time checks are judged below, as if undeclared. */
	if (tf_isa_dispatches(p, shown) && !p->dispatch_shown)
		return 0;
	f = first_above(rep, min, p->allow);
	/* LSE guarded as libgcc's helpers but unnamed (stripped): the
	   message below says how to keep their names. */
	if (f >= 0 && rep->evidence &&
	    !(f == TF_ISA_LSE &&
	      rep->lse_unconfirmed == rep->count[TF_ISA_LSE]))
		return check_dispatch(rep, shown, context, p, min);
	if (f >= 0) {
		tf_buf_addf(&msg, "needs %s (%s: ",
			    tf_isa_level_name(rep->family, rep->level),
			    tf_isa_feature_name(f));
		add_where(&rep->first[f], &msg);
		if (tf_isa_dispatches(p, shown))
			tf_buf_addf(&msg,
				    "), above %s, and declares run-time "
				    "dispatch but shows no check of the CPU: "
				    "a variant is held to its label",
				    tf_isa_level_name(rep->family, min));
		else
			tf_buf_addf(&msg,
				    "), above %s, and does not declare "
				    "run-time dispatch (wheels[].isa.dispatch)",
				    tf_isa_level_name(rep->family, min));
		if (f == TF_ISA_LSE &&
		    rep->lse_unconfirmed == rep->count[TF_ISA_LSE])
			tf_buf_addstr(
				&msg,
				"; its LSE instructions are guarded as "
				"in libgcc's outline atomics, which "
				"the audit accepts only where .symtab "
				"names them: strip with "
				"-w -K '__aarch64_*', or declare dispatch");
		return refuse(context, shown, &msg);
	}
	if (rep->note_level && rep->note_level < rep->level) {
		tf_buf_addf(&msg,
			    "GNU property note claims %s but the code "
			    "needs %s",
			    tf_isa_level_name(rep->family, rep->note_level),
			    tf_isa_level_name(rep->family, rep->level));
		return refuse(context, shown, &msg);
	}
	return 0;
}

/* What rep needs, added to u (a variant's "needs less" warning). */
static void add_usage(const struct tf_isa_report *rep, struct tf_isa_usage *u)
{
	int f;

	for (f = 0; f < TF_ISA_NR; f++)
		if (rep->count[f]) {
			u->used |= 1ULL << f;
			if (tf_isa_feature_level(f) > u->level)
				u->level = tf_isa_feature_level(f);
		}
}

enum tf_isa_audit_result tf_isa_audit_file(const char *path, const char *shown,
					   const char *context,
					   const struct tf_isa_policy *policy)
{
	struct tf_isa_report rep = TF_ISA_REPORT_INIT;
	struct tf_buf what = TF_BUF_INIT;
	enum tf_isa_scan_result res = tf_isa_scan(path, shown, &rep);
	enum tf_isa_audit_result ret = res == TF_ISA_SCAN_NOTHING
					       ? TF_ISA_AUDIT_NOTHING
					       : TF_ISA_AUDIT_FAILED;

	if (res == TF_ISA_SCAN_OK) {
		tf_isa_describe(&rep, &what);
		verbose("%s%s%s: isa %s%s", context ? context : "",
			context ? ": " : "", shown, what.buf,
			tf_isa_dispatches(policy, shown) ? " (dispatches)"
							 : "");
		ret = check_report(&rep, shown, context, policy)
			      ? TF_ISA_AUDIT_FAILED
			      : TF_ISA_AUDIT_OK;
		if (policy->usage)
			add_usage(&rep, policy->usage);
	}
	tf_buf_release(&what);
	tf_isa_report_release(&rep);
	return ret;
}
