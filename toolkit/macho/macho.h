#ifndef TF_MACHO_H
#define TF_MACHO_H

/*
 * macho/: Mach-O files (macOS binaries, thin or universal) read through
 * LLVM's object library, the reader the field's tools (llvm-otool,
 * llvm-objdump, lld) are built on: never a parser of tfbuild's own.
 * LLVM is C++ and some 100 MB (libLLVM-14.so), so the reader is a
 * small shared object of its own, libtfmacho.so (reader.cpp, the only
 * file that includes LLVM's headers), dlopened on the first Mach-O
 * file a run reads (macho.c), as dl/ loads its libraries: a run that
 * reads none never loads LLVM. It is looked for beside the binary and
 * in tfbuild's lib folder (tf_macho_read says where it looked); what it
 * reads comes back as the plain C structures below, one per slice.
 * This header is also the interface between the two, compiled as C++
 * by reader.cpp: TF_MACHO_ABI changes whenever these structures do.
 */

#include <stddef.h>
#include <stdint.h>

#define TF_MACHO_ABI 2

/* How a dylib is loaded: LC_LOAD_DYLIB, LC_LOAD_WEAK_DYLIB, ... */
enum tf_macho_dylib_kind {
	TF_MACHO_LOAD = 0,
	TF_MACHO_WEAK,
	TF_MACHO_REEXPORT,
	TF_MACHO_LAZY,
	TF_MACHO_UPWARD,
};

struct tf_macho_dylib {
	char *name; /* owned; the path as the load command writes it */
	enum tf_macho_dylib_kind kind;
	uint32_t current_version, compat_version; /* X.Y.Z as 16.8.8 bits */
};

/*
 * Where an undefined symbol is looked up: ordinal N >= 1 is the Nth
 * dylib of the slice (two-level namespace), or one of these.
 */
#define TF_MACHO_SELF 0              /* SELF_LIBRARY_ORDINAL */
#define TF_MACHO_DYNAMIC_LOOKUP (-1) /* -undefined dynamic_lookup: any */
#define TF_MACHO_EXECUTABLE (-2)     /* the main executable */
#define TF_MACHO_FLAT (-3)           /* flat namespace: every image */

struct tf_macho_undef {
	char *name; /* owned; as in the symbol table ("_malloc") */
	int ordinal;
	int weak; /* N_WEAK_REF: may stay unbound */
};

/* The macOS the slice needs and was built with, as LC_BUILD_VERSION
   (or LC_VERSION_MIN_MACOSX) says it: X.Y.Z as 16.8.8 bits. */
#define TF_MACHO_VERSION_MAJOR(v) ((unsigned)((v) >> 16))
#define TF_MACHO_VERSION_MINOR(v) ((unsigned)(((v) >> 8) & 0xff))
#define TF_MACHO_VERSION_PATCH(v) ((unsigned)((v)&0xff))

#define TF_MACHO_PLATFORM_MACOS 1 /* PLATFORM_MACOS */

/* The CPU types and subtypes tfbuild names (mach/machine.h). */
#define TF_MACHO_CPU_X86_64 0x01000007u
#define TF_MACHO_CPU_ARM64 0x0100000cu
#define TF_MACHO_ARM64E 2u /* CPU_SUBTYPE_ARM64E: pointer authentication */

struct tf_macho_slice {
	char arch[24];         /* "arm64", "arm64e", "x86_64", or "cpu 7/3" */
	uint32_t cputype;      /* CPU_TYPE_ARM64 ... */
	uint32_t cpusubtype;   /* without the capability bits */
	uint32_t filetype;     /* MH_DYLIB ... */
	const char *type_name; /* static: "dylib", "bundle", "execute", ... */
	uint32_t flags;        /* the header's MH_* flags */
	int twolevel;          /* MH_TWOLEVEL */
	int version_cmd; /* 0: none, 1: LC_BUILD_VERSION, 2: LC_VERSION_MIN_MACOSX;
			    another LC_VERSION_MIN_* gives platform 0 */
	uint32_t platform;  /* PLATFORM_MACOS (1) ...; 0 when unknown */
	uint32_t minos;     /* the minimum OS version; 0 when none */
	uint32_t sdk;       /* the SDK's; 0 when none */
	char *install_name; /* owned; LC_ID_DYLIB's name, or NULL */
	struct tf_macho_dylib *dylibs; /* owned; in load order (ordinal - 1) */
	size_t nr_dylibs;
	char **rpaths; /* owned; LC_RPATH in order */
	size_t nr_rpaths;
	char *dylinker;           /* owned; LC_LOAD_DYLINKER's path, or NULL */
	int code_signature;       /* 1: an LC_CODE_SIGNATURE */
	uint32_t signature_size;  /* its bytes in __LINKEDIT */
	uint32_t signature_pages; /* code pages whose hashes were checked */
	char *signature_problem;  /* owned; why the signature does not hold
				     for these bytes (a page whose hash
				     differs, ...), or NULL */
	char **exports; /* owned; the exports trie's names, in its order */
	size_t nr_exports;
	struct tf_macho_undef *undefs; /* owned; undefined external symbols */
	size_t nr_undefs;
	uint64_t text_addr;  /* __TEXT,__text's address */
	unsigned char *text; /* owned copy of its bytes, or NULL */
	size_t text_size;
	size_t nr_load_commands;
};

struct tf_macho {
	int universal; /* 1: a fat (universal) file, whatever its slices */
	struct tf_macho_slice *slices; /* owned */
	size_t nr_slices;
};

struct tf_buf;

/*
 * 1 if the n bytes at buf (the file's first; 8 are enough) start a
 * Mach-O file or a universal one of Mach-O slices. A Java class file
 * shares the universal magic (0xcafebabe); its version follows, which
 * is how it is told apart, as LLVM and file(1) do.
 */
int tf_macho_magic(const void *buf, size_t n);

/*
 * Read the Mach-O file at path (thin or universal) into *out, the
 * caller's to free with tf_macho_free. Returns 0, or -1 with the reason
 * appended to why (nothing printed): libtfmacho.so missing (where it
 * was looked for and why not), or what LLVM found wrong in the file.
 */
int tf_macho_read(const char *path, struct tf_macho **out, struct tf_buf *why);
void tf_macho_free(struct tf_macho *m);

/* "load", "weak", "reexport", "lazy", "upward". Static string. */
const char *tf_macho_dylib_kind_name(enum tf_macho_dylib_kind kind);

/*
 * The interface libtfmacho.so exports (reader.cpp), which macho.c
 * looks up: tfmacho_abi() returns TF_MACHO_ABI; tfmacho_read() reads
 * path into a structure it allocates and returns 0, or writes the
 * reason (NUL-ended, at most why_size bytes) and returns -1;
 * tfmacho_free() frees what tfmacho_read() made (NULL too).
 */
typedef int tfmacho_abi_fn(void);
typedef int tfmacho_read_fn(const char *path, struct tf_macho **out, char *why,
			    size_t why_size);
typedef void tfmacho_free_fn(struct tf_macho *m);

#endif
