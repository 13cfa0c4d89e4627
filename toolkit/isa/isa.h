#ifndef TF_ISA_H
#define TF_ISA_H

/*
 * isa/: the instruction-level ISA audit of every loadable ELF file that
 * goes into a wheel (docs/isa.md). The executable sections are
 * disassembled with capstone (isa.c is the only file that includes it)
 * and each instruction is classified by the extension it needs: the
 * x86-64 psABI levels v2-v4 and the aarch64 extensions above armv8.0-a.
 * A file whose code needs more than the wheel's platform guarantees is
 * refused unless the recipe declared that it picks its kernels at run
 * time (dispatch, isa_dispatch.c and isa_guard.h), and then the levels
 * found are reported instead. The verdicts against the wheel's
 * declarations (isa_check.c), the wheel's tfbuild-isa record
 * (isa_record.c), what a variant label claims of the CPU
 * (isa_variant.c) and the suspects of a crash on an illegal instruction
 * (isa_blame.c) are here too.
 */

#include <stddef.h>

struct tf_buf;

/*
 * Levels are small integers per family: x86-64-vN is N (1 the baseline,
 * 5 for extensions in no psABI level, such as AES-NI); armv8.N-a is N (0
 * the baseline, 9 for optional extensions no armv8.x-a level requires,
 * such as SVE).
 */
enum tf_isa_family {
	TF_ISA_NONE,
	TF_ISA_X86_64,
	TF_ISA_AARCH64
};

/* Feature indices; tf_isa_feature_name() and _level() describe them. */
enum {
	TF_ISA_SSE3,
	TF_ISA_SSSE3,
	TF_ISA_SSE41,
	TF_ISA_SSE42,
	TF_ISA_POPCNT,
	TF_ISA_CX16,
	TF_ISA_AVX,
	TF_ISA_AVX2,
	TF_ISA_BMI1,
	TF_ISA_BMI2,
	TF_ISA_FMA,
	TF_ISA_F16C,
	TF_ISA_LZCNT,
	TF_ISA_MOVBE,
	TF_ISA_AVX512F,
	TF_ISA_AVX512BW,
	TF_ISA_AVX512CD,
	TF_ISA_AVX512DQ,
	TF_ISA_AVX512VL,
	TF_ISA_AVX512X,
	TF_ISA_AES,
	TF_ISA_PCLMUL,
	TF_ISA_SHA,
	TF_ISA_ADX,
	TF_ISA_RTM,
	TF_ISA_AMD,
	TF_ISA_FSGSBASE,
	TF_ISA_CRC,
	TF_ISA_LSE,
	TF_ISA_RDM,
	TF_ISA_RCPC,
	TF_ISA_JSCVT,
	TF_ISA_FCMA,
	TF_ISA_DOTPROD,
	TF_ISA_RCPC2,
	TF_ISA_FP16,
	TF_ISA_SVE,
	TF_ISA_I8MM,
	TF_ISA_BF16,
	TF_ISA_NR
};

/* The first instruction (lowest address) found of one feature. */
struct tf_isa_hit {
	unsigned long long addr;   /* virtual address */
	char *function;            /* owned; the function holding it, or NULL */
	unsigned long long offset; /* addr minus the function's start */
	char mnemonic[32];         /* "vpaddd", "ldaddal" */
};

/*
 * Instructions above the baseline are "accepted" where the code itself
 * shows that it runs them only on CPUs that have them (docs/isa.md,
 * "Run-time dispatch the audit recognises"): libgcc's outline atomics,
 * whose LSE instructions sit behind a test of __aarch64_have_lse_atomics.
 * They are counted apart and do not raise the level.
 */
struct tf_isa_report {
	enum tf_isa_family family; /* TF_ISA_NONE: nothing was scanned */
	int level;                 /* what the code needs, as described above */
	int note_level;            /* x86-64 level of the GNU property note,
					0 without one */
	size_t count[TF_ISA_NR];   /* instructions of each feature */
	struct tf_isa_hit first[TF_ISA_NR]; /* valid where count is non-zero */
	size_t nr_insns;                    /* instructions decoded */
	size_t nr_unknown;          /* words/bytes nothing could decode */
	int from_symtab;            /* 1: functions named from .symtab */
	size_t accepted[TF_ISA_NR]; /* guarded by a recognised run-time check */
	struct tf_isa_hit first_accepted[TF_ISA_NR]; /* where accepted != 0 */
	const char *accepted_by[TF_ISA_NR]; /* static: "libgcc's outline
					       atomics, chosen at run time by
					       __aarch64_have_lse_atomics" */
	size_t lse_unconfirmed; /* LSE instructions (in count) guarded as in
				   libgcc's outline atomics, in no helper
				   named by .symtab: a stripped file */
	size_t lse_unnamed;     /* of accepted[TF_ISA_LSE]: where no helper's
			       name covers it (unnamed, BOLT's split or
			       patched helpers) */
	char *lse_sites;        /* owned: the first few of those, "0x7f0-0x824
			       unnamed, same guard as __aarch64_cas8_acq;
			       ...", or NULL */
	/*
	 * Run-time dispatch the file shows without a declaration
	 * (docs/isa.md): count[f] splits into chosen[f], in functions tied
	 * to a choice (an ifunc's candidates, target_clones versions,
	 * functions named for an extension), and outside[f], the rest.
	 */
	size_t chosen[TF_ISA_NR];
	struct tf_isa_hit first_chosen[TF_ISA_NR];
	const char *chosen_by[TF_ISA_NR]; /* static: the first one's kind */
	size_t outside[TF_ISA_NR];
	struct tf_isa_hit first_outside[TF_ISA_NR];
	size_t nr_legacy; /* baseline vector (SSE, SSE2) instructions
			       outside chosen functions */
	char *evidence;   /* owned: "cpuid in f+0x10, uses __cpu_model",
			       NULL: the file shows no run-time choice */
};

#define TF_ISA_REPORT_INIT                                                   \
	{                                                                    \
		TF_ISA_NONE, 0, 0, { 0 }, { { 0, NULL, 0, "" } }, 0, 0, 0,   \
			{ 0 }, { { 0, NULL, 0, "" } }, { NULL }, 0, 0, NULL, \
			{ 0 }, { { 0, NULL, 0, "" } }, { NULL }, { 0 },      \
			{ { 0, NULL, 0, "" } }, 0, NULL                      \
	}

/* What scanning a file gave (tf_isa_scan()). */
enum tf_isa_scan_result {
	TF_ISA_SCAN_OK = 0,
	TF_ISA_SCAN_NOTHING = 1, /* nothing to audit: not ELF, an object
				    file, another machine */
	TF_ISA_SCAN_ERROR = -1,  /* cannot be read: printed */
};

/*
 * Disassemble the executable sections of the loadable ELF file at path
 * (ET_DYN or ET_EXEC, x86-64 or aarch64) into out (initialized; reset
 * first). Returns TF_ISA_SCAN_NOTHING when there is nothing to audit,
 * TF_ISA_SCAN_OK, or TF_ISA_SCAN_ERROR after printing why it cannot be
 * read.
 */
enum tf_isa_scan_result tf_isa_scan(const char *path, const char *shown,
				    struct tf_isa_report *out);
/* Free; safe on NULL and twice. Leaves out initialized. */
void tf_isa_report_release(struct tf_isa_report *out);

/* The family's baseline level: 1 for x86-64, 0 for aarch64. */
int tf_isa_baseline(enum tf_isa_family family);
/* "x86-64-v3", "armv8.1-a"; for the top levels "x86-64 extensions" and
   "aarch64 optional extensions". */
const char *tf_isa_level_name(enum tf_isa_family family, int level);
/* Parse a level name (as above; "x86-64" and "armv8-a" are baselines).
   Returns 0, or -1 (nothing set) if it names none. */
int tf_isa_level_parse(const char *s, enum tf_isa_family *family, int *level);
/* "avx2", "lse", ... and the level that guarantees it. */
const char *tf_isa_feature_name(int feature);
int tf_isa_feature_level(int feature);
enum tf_isa_family tf_isa_feature_family(int feature);

/*
 * The qemu-user -cpu model for a family's level: the oldest CPU that
 * has it (qemu64, Nehalem, Haswell, Skylake-Server; cortex-a53,
 * cortex-a76, max).
 */
const char *tf_isa_cpu_model(enum tf_isa_family family, int level);

/* Classify one aarch64 instruction word by encoding: a feature index,
   or -1 if it needs nothing above armv8.0-a that the table knows.
   name gets a mnemonic (at least 32 bytes). */
int tf_isa_a64_classify(unsigned word, char name[32]);

/*
 * What a wheel declares (recipe key wheels[].isa, recorded in the wheel
 * as .dist-info/tfbuild-isa): files that pick kernels at run time, and a
 * minimum level above the platform's baseline.
 */
struct tf_isa_policy {
	const char *const *dispatch; /* borrowed; glob patterns of wheel paths */
	size_t nr_dispatch;
	const char *minimum; /* borrowed; a level name, NULL: baseline */
	int undecided_ok;    /* 1 (`tfbuild verify`): a file with code above
			     the minimum outside what the audit can tie to
			     its run-time checks is reported undecided, not
			     refused */
	unsigned long long allow;   /* features (1 << TF_ISA_*) allowed above
				     the minimum: a variant's claimed
				     extensions (isa_variant.c) */
	struct tf_isa_usage *usage; /* NULL, or what the audited files need
				       is added to it */
	int dispatch_shown;         /* 1 (a variant wheel): a file declared in
			       dispatch is judged as if undeclared: only the
			       run-time checks its code shows count */
};

/* What the files audited under one policy need, added up. */
struct tf_isa_usage {
	int level;               /* the highest level any file needs */
	unsigned long long used; /* features (1 << TF_ISA_*) found */
};

#define TF_ISA_POLICY_INIT       \
	{                        \
		.dispatch = NULL \
	}

/* The name of the record inside NAME-VERSION.dist-info/. */
#define TF_ISA_RECORD "tfbuild-isa"

/* Append the record ("Minimum: L" and one "Dispatch: GLOB" per line). */
void tf_isa_policy_format(const struct tf_isa_policy *p, struct tf_buf *out);
/*
 * Parse a record in text (modified in place) into p; the strings point
 * into text and dispatch is an array pushed to *store (owned by the
 * caller, freed with free()). Returns 0, or -1 with why appended.
 */
int tf_isa_policy_parse(char *text, struct tf_isa_policy *p,
			const char ***store, struct tf_buf *why);

/* What auditing a file gave (tf_isa_audit_file()). */
enum tf_isa_audit_result {
	TF_ISA_AUDIT_OK = 0,
	TF_ISA_AUDIT_NOTHING = 1, /* nothing to audit (tf_isa_scan()) */
	TF_ISA_AUDIT_FAILED = -1, /* refused, or cannot be read: printed */
};

/*
 * Audit the file at path, shown as `shown` inside the wheel, for a
 * wheel whose platform is for `family`: with context as the message
 * prefix ("wheel 'x'" or a wheel's path). Refuses, printing one line,
 *   CONTEXT: SHOWN: needs x86-64-v3 (avx2: vpaddd in f+0x10 at 0x1139),
 *   above x86-64-v1, and does not declare run-time dispatch
 * a file that needs more than the policy's minimum without dispatch, and
 * one whose GNU property note claims less than its code needs. With -v,
 * prints what it found. Returns TF_ISA_AUDIT_OK, TF_ISA_AUDIT_NOTHING
 * when there was nothing to audit, or TF_ISA_AUDIT_FAILED.
 */
enum tf_isa_audit_result tf_isa_audit_file(const char *path, const char *shown,
					   const char *context,
					   const struct tf_isa_policy *policy);

/* 1 if the policy declares dispatch for the wheel path. */
int tf_isa_dispatches(const struct tf_isa_policy *p, const char *shown);

/* Append a one-line summary of what was found: "x86-64-v3: avx2 x12
   (first vpaddd in f+0x10), ..."; "x86-64-v1" when nothing is above. */
void tf_isa_describe(const struct tf_isa_report *rep, struct tf_buf *out);

/*
 * isa_variant.c: what a variant's properties (PEP 825) claim of the CPU,
 * as the audit's policy: `x86_64 :: level :: v1`..`v4`, `aarch64 ::
 * version :: 8.0a`..`8.4a`, and `NAMESPACE :: FEATURE :: on` for an
 * extension the audit knows (`aarch64 :: dotprod :: on`).
 */
struct tf_isa_claim {
	enum tf_isa_family family; /* TF_ISA_NONE: nothing claimed yet */
	int level;                 /* the claimed level; -1: none */
	unsigned long long extra;  /* features claimed beyond the level */
};

#define TF_ISA_CLAIM_INIT          \
	{                          \
		TF_ISA_NONE, -1, 0 \
	}

/*
 * Add the property ns :: feature :: value to c. Returns 1 when it is
 * about the CPU (namespace x86_64 or aarch64) and was added, 0 when it
 * is of another namespace (nothing the audit proves), -1 with why
 * filled when it names what the audit cannot check.
 */
int tf_isa_claim_add(struct tf_isa_claim *c, const char *ns,
		     const char *feature, const char *value,
		     struct tf_buf *why);
/*
 * The policy a claim gives a wheel of family: pol->minimum (static
 * storage) and pol->allow. The baseline when c claims nothing there.
 */
void tf_isa_claim_policy(const struct tf_isa_claim *c,
			 enum tf_isa_family family, struct tf_isa_policy *pol);
/*
 * 1 with why filled when the code (u) needs less than c claims: no file
 * needs the claimed level, or a claimed extension is never used; else 0.
 */
int tf_isa_claim_check_used(const struct tf_isa_claim *c,
			    const struct tf_isa_usage *u, struct tf_buf *why);

/*
 * isa_blame.c: after an illegal instruction in a test on the baseline
 * CPU, print "  suspect: FILE: SUMMARY" for each ELF file of target's
 * family under dirs whose code needs more than level (at most 10).
 * Returns how many it named.
 */
size_t tf_isa_blame(const char *const *dirs, size_t nr, const char *target,
		    int level);

#endif
