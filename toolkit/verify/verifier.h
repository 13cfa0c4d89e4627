#ifndef TF_VERIFIER_H
#define TF_VERIFIER_H

/*
 * Private to verify/: the verifier's state, shared by verify.c (the two
 * passes over the archive) and distinfo.c (what the .dist-info files
 * say, read between them).
 */

#include <stddef.h>

#include "audit/audit.h"
#include "isa/isa.h"
#include "base/base.h"
#include "wheelname.h"

struct record_row {
	const char *path; /* borrowed from verifier.record */
	const char *hash; /* borrowed; "sha256=..." or "" */
	const char *size; /* borrowed; digits or "" */
	size_t line;      /* where it is in RECORD */
	int seen;         /* 1 once the entry was found in the archive */
};

struct verifier {
	const char *path;        /* borrowed; the wheel as the user named it */
	struct tf_wheel_name wn; /* the filename's parts */
	struct tf_buf distinfo;  /* the .dist-info directory found, no '/' */
	struct tf_buf metadata;  /* METADATA's start (capped) */
	struct tf_buf wheel;     /* WHEEL (capped) */
	struct tf_buf record;    /* RECORD (capped), parsed in place */
	int have_metadata, have_wheel, have_record; /* found in pass 1 */
	struct record_row *rows;                    /* owned; sorted by path */
	size_t nr_rows;
	struct tf_elf_rules elf; /* what ELF entries must satisfy, from the tag */
	const char **entries;    /* owned array of borrowed RECORD paths */
	struct tf_buf
		isa_text; /* .dist-info/tfbuild-isa (capped), parsed in place */
	int have_isa;
	struct tf_isa_policy isa; /* its declarations, pointing into isa_text */
	const char **isa_globs;   /* owned array behind isa.dispatch */
	struct tf_buf libs_text; /* .dist-info/tfbuild/libraries.json (capped) */
	int have_libs;
	struct tf_libs_record libs; /* its decisions */
	const char **requires;      /* owned array of Requires-Dist values,
				    pointing into metadata */
	size_t nr_requires;
	struct tf_strvec license_files; /* METADATA's License-File values */
	int metadata_24;                /* 1: Metadata-Version 2.4 or later,
					   where License-File paths are under
					   .dist-info/licenses (PEP 639) */
	int conventions;                /* 1: an entry a convention is about */
	struct tf_buf variant_text;     /* .dist-info/variant.json (capped) */
	int have_variant;
	int packed;              /* 1: just written by this process, whose
				    packer computed every entry's digest from
				    its source bytes: entries are not inflated
				    again (tf_verify_wheel_packed) */
	struct tf_buf sbom_text; /* .dist-info/sboms/tfbuild.cdx.json
				    (capped) */
	int have_sbom;
	int by_tfbuild;          /* 1: WHEEL's Generator is tfbuild */
	struct tf_elf_need need; /* the manylinux policy its ELF files
				    need, to say with -v */
	size_t elf_refused;      /* ELF files the platform's rules refused */
	size_t isa_refused;      /* ELF files the ISA audit refused */
	int platform_isa_level;  /* the x86-64 level the platform tag allows,
				    before tfbuild-isa's Minimum */
	struct tf_macos_rules macos;  /* what Mach-O entries must satisfy,
					from a macosx_ tag */
	size_t macho_refused;         /* Mach-O files those rules refused */
	struct tf_macos_wheel *macho; /* owned; its Mach-O files together,
					 or NULL for another tag */
	struct tf_buf cuda_text; /* .dist-info/tfbuild/cuda-archs (capped) */
	int have_cuda;
	struct tf_strvec cuda_archs; /* its lines, checked (cuda.c) */
	int cuda_parsed;             /* 1: cuda_text read into cuda_archs */
	size_t cuda_refused;         /* ELF files the GPU-code audit refused */
};

/* Every field not named is 0 or NULL. */
#define VERIFIER_INIT                                                         \
	{                                                                     \
		.wn = TF_WHEEL_NAME_INIT, .distinfo = TF_BUF_INIT,            \
		.metadata = TF_BUF_INIT, .wheel = TF_BUF_INIT,                \
		.record = TF_BUF_INIT, .elf = TF_ELF_RULES_INIT,              \
		.isa_text = TF_BUF_INIT, .isa = TF_ISA_POLICY_INIT,           \
		.libs_text = TF_BUF_INIT, .libs = TF_LIBS_RECORD_INIT,        \
		.license_files = TF_STRVEC_INIT, .variant_text = TF_BUF_INIT, \
		.sbom_text = TF_BUF_INIT, .need = TF_ELF_NEED_INIT,           \
		.macos = TF_MACOS_RULES_INIT, .cuda_text = TF_BUF_INIT,       \
		.cuda_archs = TF_STRVEC_INIT,                                 \
	}

/* Report a defect: "WHEEL: ENTRY: what", or "WHEEL: what" without entry. */
int tf_verify_defect(const struct verifier *v, const char *entry,
		     const char *fmt, ...) TF_PRINTF(3, 4);

/*
 * Between the passes: the .dist-info directory matches the filename;
 * METADATA, WHEEL and RECORD (parsed into v->rows) are sound; extension
 * modules agree with the tags; and v->elf holds the rules the wheel's
 * ELF files must satisfy in pass 2. Returns 0, or -1 after the first
 * defect.
 */
int tf_verify_distinfo(struct verifier *v);
/*
 * distvariant.c: a variant wheel (PEP 825): its variant.json against its
 * label, and against {name}-{version}-variants.json beside the wheel when
 * there is one; the properties' claim on the CPU joins v->isa. Returns
 * 0, or -1 after the first defect.
 */
int tf_verify_variant(struct verifier *v);

/*
 * The SBOM (sbomcheck.c): a wheel tfbuild made carries one; any that is
 * there parses as CycloneDX JSON and its primary component is the
 * wheel's name and version. 0, or -1 after the defect.
 */
int tf_verify_sbom(const struct verifier *v);
/*
 * The GPU-code audit (cuda.c): an ELF entry (its bytes at tmp) with a
 * .nv_fatbin section has its SASS and PTX architectures listed by
 * cuobjdump ($TFBUILD_CUOBJDUMP) and checked against the wheel's
 * .dist-info/tfbuild/cuda-archs. 0, or -1 after the defect.
 */
int tf_verify_cuda_file(struct verifier *v, const char *tmp, const char *name);
/* Free what the audit kept. */
void tf_verify_cuda_release(struct verifier *v);

/*
 * external.c: an external library l of the wheel's record (entry): no
 * copy of it in the wheel, its distribution in Requires-Dist admitting
 * the version the build was pinned to. 0, or -1 after the defect.
 */
int tf_verify_external(const struct verifier *v, const struct tf_lib *l,
		       const char *entry);

/* 1 if path is the .dist-info directory's RECORD. */
int tf_verify_is_self(const struct verifier *v, const char *path);
/* RECORD's row for path, or NULL; rows must be sorted (distinfo.c). */
struct record_row *tf_verify_find_row(const struct verifier *v,
				      const char *path);

#endif
