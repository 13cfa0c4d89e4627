/* toolkit/ is an -iquote directory, so <elf.h> still means the system's. */
#ifndef TF_ELF_H
#define TF_ELF_H

/*
 * ELF inspection (libelf) and the checks every shared object and
 * executable passes before it goes into a wheel, and in `tfbuild verify`:
 * architecture, page size on aarch64, manylinux symbol versions and
 * libraries, libpython, x86-64 ISA level and required exported symbols.
 *
 * Messages name the file as "CONTEXT: PATH-IN-WHEEL: ...", e.g.
 *   tfbuild: wheel 'tfmini_m1_plugin': tfmini_m1_plugin/libm1.so: ELF
 *   machine x86-64 does not match platform aarch64
 * (one line). Only what the dynamic loader maps is checked in full:
 * object files (ET_REL) only have to match the architecture, as they are
 * for a later link on the target; static archives are not ELF files.
 *
 * elf.c reads files with libelf; elf_verify.c checks them against rules.
 */

#include <stddef.h>

#include "base/base.h"
#include "manylinux.h"

struct tf_lib;
struct tf_wheel_file;

/* A symbol version needed from a library (.gnu.version_r). */
struct tf_elf_version {
	char *library;  /* owned; the library it is needed from: "libc.so.6" */
	char *name;     /* owned; "GLIBC_2.34" */
	char *symbol;   /* owned; the bytewise first undefined dynamic symbol
			   bound to this version, NULL if none is */
	unsigned index; /* its index in .gnu.version (vna_other) */
};

struct tf_elf_info {
	int elf_class;           /* 32 or 64 */
	int big_endian;          /* 1 for ELFDATA2MSB, 0 for LSB */
	unsigned machine;        /* e_machine: EM_X86_64, EM_AARCH64, ... */
	unsigned type;           /* e_type: ET_DYN, ET_EXEC, ET_REL, ... */
	struct tf_strvec needed; /* DT_NEEDED entries, in order */
	char *soname;            /* owned; DT_SONAME, or NULL */
	char *rpath;             /* owned; DT_RPATH, or NULL */
	char *runpath;           /* owned; DT_RUNPATH, or NULL */
	unsigned long long min_load_align; /* smallest PT_LOAD p_align (0 and 1
					      both count as 1); 0: no PT_LOAD */
	struct tf_elf_version *versions;   /* owned array, grouped by library */
	size_t nr_versions;
	struct tf_strvec exports; /* defined exported dynamic symbols (global
					or weak, default or protected
					visibility, default version), sorted,
					unique */
	unsigned x86_isa_needed;  /* GNU_PROPERTY_X86_ISA_1_NEEDED bits from
					the GNU property note; 0 if none */
	int exec_stack;           /* 1: PT_GNU_STACK asks for PF_X */
	struct tf_strvec python_imports; /* undefined dynamic symbols of the
					    Python C API ("Py*", "_Py*"),
					    sorted, unique */
};

#define TF_ELF_INFO_INIT                                                  \
	{                                                                 \
		0, 0, 0, 0, TF_STRVEC_INIT, NULL, NULL, NULL, 0, NULL, 0, \
			TF_STRVEC_INIT, 0, 0, TF_STRVEC_INIT              \
	}

/* What reading a file gave: tf_elf_read(), its variants, tf_elf_code_read(). */
enum tf_elf_read_result {
	TF_ELF_READ_OK = 0,
	TF_ELF_READ_NOT_ELF =
		1, /* no ELF magic: not an error, nothing printed */
	TF_ELF_READ_ERROR = -1, /* cannot be opened, or malformed: printed */
};

/*
 * Read path's ELF headers, dynamic section, symbol versions, dynamic
 * symbols and notes into out (which must be initialized; it is reset
 * first). `shown` names the file in messages (e.g. "wheel 'x': pkg/a.so").
 * Returns TF_ELF_READ_OK, TF_ELF_READ_NOT_ELF, or TF_ELF_READ_ERROR if
 * it cannot be opened or is a malformed ELF file (printed as "tfbuild:
 * SHOWN: malformed ELF: ..."). Memory grows with the number of exported
 * symbols; checks go through tf_elf_verify_file() and
 * tf_elf_verify_wheel(), which keep only the symbols they look for.
 */
enum tf_elf_read_result tf_elf_read(const char *path, const char *shown,
				    struct tf_elf_info *out);
/*
 * tf_elf_read(), and also append to undefined every strong (not weak)
 * undefined dynamic symbol: "NAME" when it is unversioned, "NAME\tLIB"
 * when it is bound to a version needed from LIB ("libc.so.6").
 */
enum tf_elf_read_result tf_elf_read_undefined(const char *path,
					      const char *shown,
					      struct tf_elf_info *out,
					      struct tf_strvec *undefined);
/*
 * tf_elf_read(), keeping of the exported symbols only those named in
 * names[0..nr) (borrowed), as the checks read files: memory then stays
 * small whatever a library exports.
 */
enum tf_elf_read_result tf_elf_read_exports(const char *path, const char *shown,
					    struct tf_elf_info *out,
					    const char *const *names,
					    size_t nr);
/* Free everything; safe on NULL and twice. Leaves out initialized. */
void tf_elf_info_release(struct tf_elf_info *info);

/*
 * 1 if the ELF file at path has a section called name (".nv_fatbin"),
 * 0 if it has none or is not ELF, -1 if it cannot be read (printed,
 * naming it as shown).
 */
int tf_elf_has_section(const char *path, const char *shown, const char *name);

/* The x86-64 ISA level (1-4) of GNU_PROPERTY_X86_ISA_1_NEEDED bits; 0: none. */
int tf_elf_x86_isa_level(unsigned bits);
/* "x86-64", "aarch64", "i386", ... for e_machine; "machine N" otherwise
   (written into buf, which must hold 32 bytes). */
const char *tf_elf_machine_name(unsigned machine, char buf[32]);

/*
 * Resolve one RPATH/RUNPATH entry of the file at file_in_wheel ('/'
 * separated) to a directory inside the wheel, appended to out ("" for
 * the wheel's root): "$ORIGIN/../lib" in "pkg/ext/a.so" gives "pkg/lib".
 * Returns 0, or -1 (out unchanged) if the entry is not relative to
 * $ORIGIN, uses another token ($LIB, $PLATFORM) or leaves the wheel.
 */
int tf_elf_origin_dir(const char *file_in_wheel, const char *entry,
		      struct tf_buf *out);

/*
 * 1 if an entry of the colon-separated run path list (NULL: none), as
 * the file at file_in_wheel resolves it (tf_elf_origin_dir), is the
 * directory dir ("" for the root), else 0.
 */
int tf_elf_runpath_reaches(const char *list, const char *file_in_wheel,
			   const char *dir);

/* A symbol a file must export, e.g. a plugin's entry point. */
struct tf_elf_export {
	const char *file;   /* borrowed; path inside the wheel */
	const char *symbol; /* borrowed; "TFM_GetDeviceApi" */
};

/* What a wheel's ELF files must satisfy. All pointers borrowed. */
struct tf_elf_rules {
	const char *context;             /* message prefix before the file:
					 "wheel 'tfmini'" or a wheel's path;
					 NULL: none */
	struct tf_platform platform;     /* the wheel's platform; MANYLINUX with
					 glibc_minor 0: compute the lowest */
	const char *const *allow_needed; /* extra DT_NEEDED names the recipe
					    declares (system libraries) */
	size_t nr_allow_needed;
	int isa_level; /* highest x86-64 ISA level allowed (1-4);
					 0 means 1, the baseline */
	const struct tf_elf_export *exports; /* symbols files must export */
	size_t nr_exports;
	const char *const *wheel_files; /* every path inside the wheel: a
					   DT_NEEDED library shipped there on an
					   $ORIGIN RUNPATH/RPATH is allowed */
	size_t nr_wheel_files;
	const struct tf_lib *libs; /* how libraries outside the allow-list
					 are resolved (libs.h): the recipe's
					 at pack time, the wheel's record in
					 verify */
	size_t nr_libs;
	const char *const *requires; /* the wheel's Requires-Dist: a provided
					 library's requirement must be there */
	size_t nr_requires;
	int abi3_minor;               /* X of a cp3X-abi3 wheel: Python C API
					 imports must be in the stable ABI of
					 3.X (abi3.h); 0: not audited */
	const unsigned char *not_elf; /* tf_elf_verify_wheel: files[i] for
					 i < nr_not_elf with not_elf[i] set
					 were read by the caller and do not
					 start with the ELF magic: not opened
					 again (the wheel's post-pack check
					 still sees every ELF entry) */
	size_t nr_not_elf;
	unsigned glibc_pin; /* X of the toolchain's glibc 2.X (zig's): a
			       computed tag is manylinux_2_X, and a file
			       needing a newer policy is refused; 0: the
			       lowest policy the files fit */
};

#define TF_ELF_RULES_INIT                                                      \
	{                                                                      \
		NULL, TF_PLATFORM_INIT, NULL, 0, 0, NULL, 0, NULL, 0, NULL, 0, \
			NULL, 0, 0, NULL, 0, 0                                 \
	}

/*
 * Check one ELF file, read by tf_elf_read(), found at `shown` inside the
 * wheel, against rules. Returns 0, or -1 after printing the first rule it
 * breaks as "tfbuild: CONTEXT: SHOWN: what, the offending value". With a
 * platform to compute, versions and libraries only have to be allowed by
 * some policy: tf_elf_verify_wheel() then picks the lowest. Under "any"
 * every ELF file is refused; platforms of kind OTHER are not checked.
 */
int tf_elf_verify(const struct tf_elf_info *info,
		  const struct tf_elf_rules *rules, const char *shown);

/* What verifying one file gave (tf_elf_verify_file()). */
enum tf_elf_verify_result {
	TF_ELF_VERIFY_OK = 0,       /* an ELF file that passes */
	TF_ELF_VERIFY_NOT_ELF = 1,  /* not ELF: nothing to check */
	TF_ELF_VERIFY_FAILED = -1,  /* refused, or unreadable: printed */
	TF_ELF_VERIFY_REFUSED = -2, /* read, and refused by the rules:
				       printed (tf_elf_verify_file_need()
				       only; the others say FAILED) */
};

/*
 * Read and check the file at path, found at `shown` inside the wheel.
 * Returns TF_ELF_VERIFY_NOT_ELF if it is not ELF, TF_ELF_VERIFY_OK if
 * it passes, TF_ELF_VERIFY_FAILED after printing why not (or why it
 * cannot be read).
 */
enum tf_elf_verify_result tf_elf_verify_file(const char *path,
					     const char *shown,
					     const struct tf_elf_rules *rules);

/*
 * What the files of a manylinux wheel need, folded file by file: the
 * newest manylinux policy one of them needs, and why.
 */
struct tf_elf_need {
	unsigned minor;    /* glibc minor of that policy; 0: the oldest */
	struct tf_buf why; /* "pkg/a.so needs GLIBC_2.34 (symbol 'x')" */
};

#define TF_ELF_NEED_INIT       \
	{                      \
		0, TF_BUF_INIT \
	}

/*
 * tf_elf_verify_file(), but REFUSED, not FAILED, for a file that was
 * read and breaks a rule (so its code can still be audited); and when
 * the file passes, is loadable and the rules' platform is manylinux,
 * fold what it needs into need (if not NULL), as tf_elf_verify_wheel()
 * does to compute a platform.
 */
enum tf_elf_verify_result tf_elf_verify_file_need(
	const char *path, const char *shown, const struct tf_elf_rules *rules,
	struct tf_elf_need *need);
/*
 * Append to out the tag of the lowest manylinux policy for the rules'
 * architecture that need allows ("manylinux_2_17_x86_64.
 * manylinux2014_x86_64"); returns why (borrowed from need, or static).
 */
const char *tf_elf_need_tag(const struct tf_elf_rules *rules,
			    const struct tf_elf_need *need, struct tf_buf *out);
void tf_elf_need_release(struct tf_elf_need *need);

/*
 * Check every file of a wheel (src on disk, dst inside the wheel; files
 * that are not ELF are skipped) against rules, whose wheel_files are
 * replaced by the dsts. Every required export's file must be in the
 * wheel and export it. When rules->platform asks to compute, append to
 * platform_out the tag of the lowest manylinux policy all files satisfy
 * ("manylinux_2_17_x86_64.manylinux2014_x86_64"; the oldest policy when
 * there is no ELF file) and say with -v which version decided it;
 * otherwise platform_out is left alone. Returns 0, or -1 after printing
 * the first defect.
 */
int tf_elf_verify_wheel(const struct tf_wheel_file *files, size_t nr_files,
			const struct tf_elf_rules *rules,
			struct tf_buf *platform_out);

/*
 * Rules for `tfbuild verify`, from the wheel's platform tag alone:
 * architecture, manylinux versions and allow-list if the tag says
 * manylinux, page size on aarch64, no libpython, x86-64 baseline ISA.
 * The caller adds wheel_files (every entry name). context is kept for
 * messages. Returns 0, or -1 after printing
 *   tfbuild: CONTEXT: platform 'TAG': why
 * when the tag mixes architectures or names a manylinux policy that was
 * never published (no table entry, e.g. manylinux_2_29; TAG is then
 * that manylinux tag alone).
 */
int tf_elf_rules_for_platform(struct tf_elf_rules *rules, const char *tag,
			      const char *context);

/* An executable section's bytes, for a disassembler (isa.c). */
struct tf_elf_code_section {
	char *name;                 /* owned; ".text" */
	unsigned long long addr;    /* sh_addr of its first byte */
	const unsigned char *bytes; /* borrowed from the mapped file */
	size_t size;
};

/* A function symbol, to name where an instruction is. */
struct tf_elf_func {
	unsigned long long addr; /* st_value */
	const char *name; /* borrowed from the mapped file: a 90 MB .strtab
			     is not copied */
	unsigned size;    /* st_size (0: unknown; no function is 4 GB): 24
			     bytes a function, for 700,000 of them */
	int ifunc;        /* STT_GNU_IFUNC: addr is its resolver */
};

/* A symbol of any type, found by name (tf_elf_code_symbol()). */
struct tf_elf_sym {
	unsigned long long value, size; /* st_value, st_size */
	int type;                       /* STT_OBJECT, STT_FUNC, ... */
	int defined;                    /* 0: undefined (imported) */
};

/* How many names tf_elf_code_read() looks up ahead (elf.c's known[]). */
#define TF_ELF_NR_KNOWN 5

/*
 * A loadable ELF file's code: its SHF_EXECINSTR sections (SHT_PROGBITS)
 * and function symbols from .symtab, else .dynsym, sorted by address.
 * The file stays mapped until tf_elf_code_release(), privately and
 * unmodified, so tf_elf_code_drop() can give its pages back.
 */
struct tf_elf_code {
	unsigned machine; /* e_machine */
	unsigned type;    /* e_type */
	int from_symtab;  /* 1: functions from .symtab, 0: .dynsym */
	struct tf_elf_code_section *sections; /* owned array */
	size_t nr_sections;
	struct tf_elf_func *funcs; /* owned array, sorted by addr */
	size_t nr_funcs;
	void *elf;          /* owned libelf handle */
	int fd;             /* owned, or -1 */
	unsigned char *map; /* owned: the whole file, mapped */
	size_t map_size;
	int droppable; /* 1: libelf converted nothing in place (a
			  little-endian file), so dropped pages read back
			  the same */
	/* The names the ISA audit asks tf_elf_code_symbol() for, found in
	   one pass when the file is read: a file of two million symbols
	   costs one read of their names, not one per name asked. */
	struct tf_elf_sym known[TF_ELF_NR_KNOWN];
	unsigned char known_found[TF_ELF_NR_KNOWN]; /* 1: known[i] is set */
};

#define TF_ELF_CODE_INIT \
	{                \
		.fd = -1 \
	}

/*
 * Map path's executable sections and function symbols into out (which
 * must be initialized). Returns TF_ELF_READ_OK, TF_ELF_READ_NOT_ELF
 * (nothing printed), or TF_ELF_READ_ERROR after printing "tfbuild:
 * SHOWN: malformed ELF: ...".
 */
enum tf_elf_read_result tf_elf_code_read(const char *path, const char *shown,
					 struct tf_elf_code *out);
/* Unmap and free; safe on NULL and twice. Leaves c initialized. */
void tf_elf_code_release(struct tf_elf_code *c);
/*
 * Give back the memory of the pages of the mapped file wholly inside
 * [from, from + len) (NULL: the whole file): touched again, they are
 * read again from the file. A scan calls it behind itself, so a 300 MB
 * library is not held in memory at once.
 */
void tf_elf_code_drop(const struct tf_elf_code *c, const void *from,
		      size_t len);

/*
 * Look name up in .symtab and .dynsym ("getauxval" also matches
 * .symtab's "getauxval@GLIBC_2.17"), preferring a defined symbol.
 * Returns 1 with out filled, or 0 if neither table has it.
 */
int tf_elf_code_symbol(const struct tf_elf_code *c, const char *name,
		       struct tf_elf_sym *out);
/* The function holding addr, or NULL: the last symbol at or below it
   whose size covers it (a sizeless one covers up to the next). */
const struct tf_elf_func *tf_elf_code_func(const struct tf_elf_code *c,
					   unsigned long long addr);

#endif
