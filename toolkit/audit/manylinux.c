#include "manylinux.h"
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

/* A symbol version and the glibc minor of the first policy allowing it. */
struct symver {
	const char *name; /* "GLIBC_2.17" */
	unsigned since;   /* 17: manylinux_2_17 and later allow it */
};

/*
 * From auditwheel's manylinux-policy.json (commit 2d1ad63; manylinux_2_40
 * and 2_41 from commit 86154d1, which add only GLIBC_2.40 and GLIBC_2.41
 * and no library), "symbol_versions" of each policy up to manylinux_2_41,
 * grouped by the policy that first lists each version. manylinux_2_37 adds nothing on these architectures
 * but ZLIB_1.2.12.
 */
static const struct symver x86_64_symvers[] = {
	{ "GLIBC_2.2.5", 5 },
	{ "GLIBC_2.2.6", 5 },
	{ "GLIBC_2.3", 5 },
	{ "GLIBC_2.3.2", 5 },
	{ "GLIBC_2.3.3", 5 },
	{ "GLIBC_2.3.4", 5 },
	{ "GLIBC_2.4", 5 },
	{ "GLIBC_2.5", 5 },
	{ "GLIBC_2.6", 12 },
	{ "GLIBC_2.7", 12 },
	{ "GLIBC_2.8", 12 },
	{ "GLIBC_2.9", 12 },
	{ "GLIBC_2.10", 12 },
	{ "GLIBC_2.11", 12 },
	{ "GLIBC_2.12", 12 },
	{ "GLIBC_2.13", 17 },
	{ "GLIBC_2.14", 17 },
	{ "GLIBC_2.15", 17 },
	{ "GLIBC_2.16", 17 },
	{ "GLIBC_2.17", 17 },
	{ "GLIBC_2.18", 24 },
	{ "GLIBC_2.22", 24 },
	{ "GLIBC_2.23", 24 },
	{ "GLIBC_2.24", 24 },
	{ "GLIBC_2.25", 26 },
	{ "GLIBC_2.26", 26 },
	{ "GLIBC_2.27", 27 },
	{ "GLIBC_2.28", 28 },
	{ "GLIBC_2.29", 31 },
	{ "GLIBC_2.30", 31 },
	{ "GLIBC_2.31", 31 },
	{ "GLIBC_2.32", 34 },
	{ "GLIBC_2.33", 34 },
	{ "GLIBC_2.34", 34 },
	{ "GLIBC_2.35", 35 },
	{ "GLIBC_2.36", 36 },
	{ "GLIBC_ABI_DT_RELR", 36 },
	{ "GLIBC_2.38", 38 },
	{ "GLIBC_2.39", 39 },
	{ "GLIBC_2.40", 40 },
	{ "GLIBC_2.41", 41 },
	{ "GLIBCXX_3.4", 5 },
	{ "GLIBCXX_3.4.1", 5 },
	{ "GLIBCXX_3.4.2", 5 },
	{ "GLIBCXX_3.4.3", 5 },
	{ "GLIBCXX_3.4.4", 5 },
	{ "GLIBCXX_3.4.5", 5 },
	{ "GLIBCXX_3.4.6", 5 },
	{ "GLIBCXX_3.4.7", 5 },
	{ "GLIBCXX_3.4.8", 5 },
	{ "GLIBCXX_3.4.9", 12 },
	{ "GLIBCXX_3.4.10", 12 },
	{ "GLIBCXX_3.4.11", 12 },
	{ "GLIBCXX_3.4.12", 12 },
	{ "GLIBCXX_3.4.13", 12 },
	{ "GLIBCXX_3.4.14", 17 },
	{ "GLIBCXX_3.4.15", 17 },
	{ "GLIBCXX_3.4.16", 17 },
	{ "GLIBCXX_3.4.17", 17 },
	{ "GLIBCXX_3.4.18", 17 },
	{ "GLIBCXX_3.4.19", 17 },
	{ "GLIBCXX_3.4.20", 24 },
	{ "GLIBCXX_3.4.21", 24 },
	{ "GLIBCXX_3.4.22", 24 },
	{ "GLIBCXX_3.4.23", 27 },
	{ "GLIBCXX_3.4.24", 27 },
	{ "GLIBCXX_3.4.25", 31 },
	{ "GLIBCXX_3.4.26", 31 },
	{ "GLIBCXX_3.4.27", 31 },
	{ "GLIBCXX_3.4.28", 31 },
	{ "GLIBCXX_3.4.29", 34 },
	{ "GLIBCXX_3.4.30", 35 },
	{ "GLIBCXX_3.4.31", 39 },
	{ "GLIBCXX_3.4.32", 39 },
	{ "GLIBCXX_3.4.33", 39 },
	{ "CXXABI_1.3", 5 },
	{ "CXXABI_1.3.1", 5 },
	{ "CXXABI_1.3.2", 12 },
	{ "CXXABI_1.3.3", 12 },
	{ "CXXABI_1.3.4", 17 },
	{ "CXXABI_1.3.5", 17 },
	{ "CXXABI_1.3.6", 17 },
	{ "CXXABI_1.3.7", 17 },
	{ "CXXABI_TM_1", 17 },
	{ "CXXABI_1.3.8", 24 },
	{ "CXXABI_1.3.9", 24 },
	{ "CXXABI_1.3.10", 24 },
	{ "CXXABI_FLOAT128", 24 },
	{ "CXXABI_1.3.11", 27 },
	{ "CXXABI_1.3.12", 31 },
	{ "CXXABI_1.3.13", 34 },
	{ "CXXABI_1.3.14", 39 },
	{ "CXXABI_1.3.15", 39 },
	{ "GCC_3.0", 5 },
	{ "GCC_3.3", 5 },
	{ "GCC_3.3.1", 5 },
	{ "GCC_3.4", 5 },
	{ "GCC_3.4.2", 5 },
	{ "GCC_3.4.4", 5 },
	{ "GCC_4.0.0", 5 },
	{ "GCC_4.2.0", 5 },
	{ "GCC_4.3.0", 12 },
	{ "GCC_4.7.0", 17 },
	{ "GCC_4.8.0", 17 },
	{ "GCC_7.0.0", 27 },
	{ "GCC_12.0.0", 35 },
	{ "GCC_13.0.0", 39 },
	{ "GCC_14.0.0", 39 },
	{ "LIBATOMIC_1.0", 24 },
	{ "LIBATOMIC_1.1", 24 },
	{ "LIBATOMIC_1.2", 24 },
	{ "ZLIB_1.2.0", 12 },
	{ "ZLIB_1.2.0.2", 12 },
	{ "ZLIB_1.2.0.8", 12 },
	{ "ZLIB_1.2.2", 12 },
	{ "ZLIB_1.2.2.3", 12 },
	{ "ZLIB_1.2.2.4", 12 },
	{ "ZLIB_1.2.3.3", 17 },
	{ "ZLIB_1.2.3.4", 17 },
	{ "ZLIB_1.2.3.5", 17 },
	{ "ZLIB_1.2.5.1", 17 },
	{ "ZLIB_1.2.5.2", 17 },
	{ "ZLIB_1.2.7.1", 27 },
	{ "ZLIB_1.2.9", 27 },
	{ "ZLIB_1.2.12", 37 },
};

static const struct symver aarch64_symvers[] = {
	{ "GLIBC_2.0", 17 },         { "GLIBC_2.17", 17 },
	{ "GLIBC_2.18", 17 },        { "GLIBC_2.22", 24 },
	{ "GLIBC_2.23", 24 },        { "GLIBC_2.24", 24 },
	{ "GLIBC_2.25", 26 },        { "GLIBC_2.26", 26 },
	{ "GLIBC_2.27", 27 },        { "GLIBC_2.28", 28 },
	{ "GLIBC_2.29", 31 },        { "GLIBC_2.30", 31 },
	{ "GLIBC_2.31", 31 },        { "GLIBC_2.32", 34 },
	{ "GLIBC_2.33", 34 },        { "GLIBC_2.34", 34 },
	{ "GLIBC_2.35", 35 },        { "GLIBC_2.36", 36 },
	{ "GLIBC_ABI_DT_RELR", 36 }, { "GLIBC_2.38", 38 },
	{ "GLIBC_2.39", 39 },        { "GLIBC_2.40", 40 },
	{ "GLIBC_2.41", 41 },        { "GLIBCXX_3.4", 17 },
	{ "GLIBCXX_3.4.1", 17 },     { "GLIBCXX_3.4.2", 17 },
	{ "GLIBCXX_3.4.3", 17 },     { "GLIBCXX_3.4.4", 17 },
	{ "GLIBCXX_3.4.5", 17 },     { "GLIBCXX_3.4.6", 17 },
	{ "GLIBCXX_3.4.7", 17 },     { "GLIBCXX_3.4.8", 17 },
	{ "GLIBCXX_3.4.9", 17 },     { "GLIBCXX_3.4.10", 17 },
	{ "GLIBCXX_3.4.11", 17 },    { "GLIBCXX_3.4.12", 17 },
	{ "GLIBCXX_3.4.13", 17 },    { "GLIBCXX_3.4.14", 17 },
	{ "GLIBCXX_3.4.15", 17 },    { "GLIBCXX_3.4.16", 17 },
	{ "GLIBCXX_3.4.17", 17 },    { "GLIBCXX_3.4.18", 17 },
	{ "GLIBCXX_3.4.19", 17 },    { "GLIBCXX_3.4.20", 24 },
	{ "GLIBCXX_3.4.21", 24 },    { "GLIBCXX_3.4.22", 24 },
	{ "GLIBCXX_3.4.23", 26 },    { "GLIBCXX_3.4.24", 26 },
	{ "GLIBCXX_3.4.25", 31 },    { "GLIBCXX_3.4.26", 31 },
	{ "GLIBCXX_3.4.27", 31 },    { "GLIBCXX_3.4.28", 31 },
	{ "GLIBCXX_3.4.29", 34 },    { "GLIBCXX_3.4.30", 35 },
	{ "GLIBCXX_3.4.31", 39 },    { "GLIBCXX_3.4.32", 39 },
	{ "GLIBCXX_3.4.33", 39 },    { "CXXABI_1.3", 17 },
	{ "CXXABI_1.3.1", 17 },      { "CXXABI_1.3.2", 17 },
	{ "CXXABI_1.3.3", 17 },      { "CXXABI_1.3.4", 17 },
	{ "CXXABI_1.3.5", 17 },      { "CXXABI_1.3.6", 17 },
	{ "CXXABI_1.3.7", 17 },      { "CXXABI_TM_1", 17 },
	{ "CXXABI_1.3.8", 24 },      { "CXXABI_1.3.9", 24 },
	{ "CXXABI_1.3.10", 24 },     { "CXXABI_1.3.11", 26 },
	{ "CXXABI_1.3.12", 31 },     { "CXXABI_1.3.13", 34 },
	{ "CXXABI_1.3.14", 39 },     { "CXXABI_1.3.15", 39 },
	{ "GCC_3.0", 17 },           { "GCC_3.3", 17 },
	{ "GCC_3.3.1", 17 },         { "GCC_3.4", 17 },
	{ "GCC_3.4.2", 17 },         { "GCC_3.4.4", 17 },
	{ "GCC_4.0.0", 17 },         { "GCC_4.2.0", 17 },
	{ "GCC_4.3.0", 17 },         { "GCC_4.5.0", 17 },
	{ "GCC_4.7.0", 17 },         { "GCC_7.0.0", 26 },
	{ "GCC_11.0", 34 },          { "GCC_13.0.0", 39 },
	{ "GCC_14.0", 39 },          { "GCC_14.0.0", 39 },
	{ "LIBATOMIC_1.0", 17 },     { "LIBATOMIC_1.1", 24 },
	{ "LIBATOMIC_1.2", 24 },     { "ZLIB_1.2.0", 17 },
	{ "ZLIB_1.2.0.2", 17 },      { "ZLIB_1.2.0.8", 17 },
	{ "ZLIB_1.2.2", 17 },        { "ZLIB_1.2.2.3", 17 },
	{ "ZLIB_1.2.2.4", 17 },      { "ZLIB_1.2.3.3", 17 },
	{ "ZLIB_1.2.3.4", 17 },      { "ZLIB_1.2.3.5", 17 },
	{ "ZLIB_1.2.5.1", 17 },      { "ZLIB_1.2.5.2", 17 },
	{ "ZLIB_1.2.7.1", 27 },      { "ZLIB_1.2.9", 27 },
	{ "ZLIB_1.2.12", 37 },
};

/* A library in the "lib_whitelist"s and the first policy listing it. */
struct allowed_lib {
	const char *soname;
	unsigned since; /* on x86_64; aarch64 policies start at 2_17 */
};

static const struct allowed_lib allowed_libs[] = {
	{ "libatomic.so.1", 5 },      { "libgcc_s.so.1", 5 },
	{ "libstdc++.so.6", 5 },      { "libm.so.6", 5 },
	{ "libmvec.so.1", 24 },       { "libanl.so.1", 5 },
	{ "libdl.so.2", 5 },          { "librt.so.1", 5 },
	{ "libc.so.6", 5 },           { "libnsl.so.1", 5 },
	{ "libutil.so.1", 5 },        { "libpthread.so.0", 5 },
	{ "libX11.so.6", 5 },         { "libXext.so.6", 5 },
	{ "libXrender.so.1", 5 },     { "libICE.so.6", 5 },
	{ "libSM.so.6", 5 },          { "libGL.so.1", 5 },
	{ "libgobject-2.0.so.0", 5 }, { "libgthread-2.0.so.0", 5 },
	{ "libglib-2.0.so.0", 5 },    { "libresolv.so.2", 5 },
	{ "libexpat.so.1", 12 },      { "libz.so.1", 5 },
};

static const struct tf_manylinux_policy x86_64_policies[] = {
	{ TF_ARCH_X86_64, 5, "manylinux1" },
	{ TF_ARCH_X86_64, 12, "manylinux2010" },
	{ TF_ARCH_X86_64, 17, "manylinux2014" },
	{ TF_ARCH_X86_64, 24, NULL },
	{ TF_ARCH_X86_64, 26, NULL },
	{ TF_ARCH_X86_64, 27, NULL },
	{ TF_ARCH_X86_64, 28, NULL },
	{ TF_ARCH_X86_64, 31, NULL },
	{ TF_ARCH_X86_64, 34, NULL },
	{ TF_ARCH_X86_64, 35, NULL },
	{ TF_ARCH_X86_64, 36, NULL },
	{ TF_ARCH_X86_64, 37, NULL },
	{ TF_ARCH_X86_64, 38, NULL },
	{ TF_ARCH_X86_64, 39, NULL },
	{ TF_ARCH_X86_64, 40, NULL },
	{ TF_ARCH_X86_64, 41, NULL },
};

static const struct tf_manylinux_policy aarch64_policies[] = {
	{ TF_ARCH_AARCH64, 17, "manylinux2014" },
	{ TF_ARCH_AARCH64, 24, NULL },
	{ TF_ARCH_AARCH64, 26, NULL },
	{ TF_ARCH_AARCH64, 27, NULL },
	{ TF_ARCH_AARCH64, 28, NULL },
	{ TF_ARCH_AARCH64, 31, NULL },
	{ TF_ARCH_AARCH64, 34, NULL },
	{ TF_ARCH_AARCH64, 35, NULL },
	{ TF_ARCH_AARCH64, 36, NULL },
	{ TF_ARCH_AARCH64, 37, NULL },
	{ TF_ARCH_AARCH64, 38, NULL },
	{ TF_ARCH_AARCH64, 39, NULL },
	{ TF_ARCH_AARCH64, 40, NULL },
	{ TF_ARCH_AARCH64, 41, NULL },
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct arch_data {
	const char *name;
	const char *loader;
	const struct tf_manylinux_policy *policies;
	size_t nr_policies;
	const struct symver *symvers;
	size_t nr_symvers;
};

static const struct arch_data arches[] = {
	[TF_ARCH_NONE] = { "any", NULL, NULL, 0, NULL, 0 },
	[TF_ARCH_X86_64] = { "x86_64", "ld-linux-x86-64.so.2", x86_64_policies,
			     ARRAY_SIZE(x86_64_policies), x86_64_symvers,
			     ARRAY_SIZE(x86_64_symvers) },
	[TF_ARCH_AARCH64] = { "aarch64", "ld-linux-aarch64.so.1",
			      aarch64_policies, ARRAY_SIZE(aarch64_policies),
			      aarch64_symvers, ARRAY_SIZE(aarch64_symvers) },
};

static const struct arch_data *arch_data(enum tf_arch arch)
{
	if ((size_t)arch >= ARRAY_SIZE(arches))
		BUG("unknown architecture %d", (int)arch);
	return &arches[arch];
}

enum tf_arch tf_arch_from_name(const char *name)
{
	if (!strcmp(name, "x86_64"))
		return TF_ARCH_X86_64;
	if (!strcmp(name, "aarch64"))
		return TF_ARCH_AARCH64;
	return TF_ARCH_NONE;
}

const char *tf_arch_name(enum tf_arch arch)
{
	return arch_data(arch)->name;
}

const char *tf_arch_loader(enum tf_arch arch)
{
	return arch_data(arch)->loader;
}

const struct tf_manylinux_policy *tf_manylinux_find(enum tf_arch arch,
						    unsigned glibc_minor)
{
	const struct arch_data *d = arch_data(arch);
	size_t i;

	for (i = 0; i < d->nr_policies; i++)
		if (d->policies[i].glibc_minor == glibc_minor)
			return &d->policies[i];
	return NULL;
}

const struct tf_manylinux_policy *tf_manylinux_oldest(enum tf_arch arch)
{
	const struct arch_data *d = arch_data(arch);

	return d->nr_policies ? &d->policies[0] : NULL;
}

const struct tf_manylinux_policy *tf_manylinux_newest(enum tf_arch arch)
{
	const struct arch_data *d = arch_data(arch);

	return d->nr_policies ? &d->policies[d->nr_policies - 1] : NULL;
}

void tf_manylinux_tag(const struct tf_manylinux_policy *p, struct tf_buf *out)
{
	const char *arch = tf_arch_name(p->arch);

	tf_buf_addf(out, "manylinux_2_%u_%s", p->glibc_minor, arch);
	if (p->alias)
		tf_buf_addf(out, ".%s_%s", p->alias, arch);
}

/* The families manylinux governs; versions of others belong to libraries
   the wheel must ship or declare. */
static int governed_family(const char *version)
{
	static const char *const families[] = {
		"GLIBC_", "GLIBCXX_", "CXXABI_", "GCC_", "LIBATOMIC_", "ZLIB_",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(families); i++)
		if (!strncmp(version, families[i], strlen(families[i])))
			return 1;
	return 0;
}

static const struct symver *find_symver(enum tf_arch arch, const char *version)
{
	const struct arch_data *d = arch_data(arch);
	size_t i;

	for (i = 0; i < d->nr_symvers; i++)
		if (!strcmp(d->symvers[i].name, version))
			return &d->symvers[i];
	return NULL;
}

int tf_manylinux_version_since(enum tf_arch arch, const char *version)
{
	const struct symver *sv;

	if (!governed_family(version))
		return 0;
	sv = find_symver(arch, version);
	return sv ? (int)sv->since : -1;
}

/* Compare dotted numbers ("2.2.5" < "2.17"); a prefix sorts first. */
static int compare_numbers(const char *a, const char *b)
{
	while (*a || *b) {
		unsigned long x = strtoul(a, (char **)&a, 10);
		unsigned long y = strtoul(b, (char **)&b, 10);

		if (x != y)
			return x < y ? -1 : 1;
		if (!*a || !*b)
			return *a ? 1 : *b ? -1 : 0;
		a++;
		b++;
	}
	return 0;
}

const char *tf_manylinux_family_max(const struct tf_manylinux_policy *p,
				    const char *version)
{
	const struct arch_data *d = arch_data(p->arch);
	const char *best = NULL, *us = strchr(version, '_');
	size_t flen = us ? (size_t)(us - version) + 1 : strlen(version), i;

	for (i = 0; i < d->nr_symvers; i++) {
		const char *name = d->symvers[i].name;

		if (d->symvers[i].since > p->glibc_minor ||
		    strncmp(name, version, flen) || name[flen] < '0' ||
		    name[flen] > '9')
			continue;
		if (!best || compare_numbers(name + flen, best + flen) > 0)
			best = name;
	}
	return best;
}

int tf_manylinux_library_since(enum tf_arch arch, const char *soname)
{
	const struct tf_manylinux_policy *oldest = tf_manylinux_oldest(arch);
	size_t i;

	if (!oldest)
		return 0;
	for (i = 0; i < ARRAY_SIZE(allowed_libs); i++)
		if (!strcmp(allowed_libs[i].soname, soname))
			return allowed_libs[i].since > oldest->glibc_minor
				       ? (int)allowed_libs[i].since
				       : (int)oldest->glibc_minor;
	return 0;
}

const struct tf_manylinux_policy *tf_manylinux_lowest(
	enum tf_arch arch, const char *const *versions, size_t n,
	size_t *driver)
{
	const struct arch_data *d = arch_data(arch);
	int need = 0, since;
	size_t i;

	*driver = n;
	if (!d->nr_policies)
		return NULL;
	for (i = 0; i < n; i++) {
		since = tf_manylinux_version_since(arch, versions[i]);
		if (since < 0) {
			*driver = i;
			return NULL;
		}
		if (since > need) {
			need = since;
			*driver = i;
		}
	}
	for (i = 0; i < d->nr_policies; i++)
		if (d->policies[i].glibc_minor >= (unsigned)need) {
			if (&d->policies[i] == tf_manylinux_oldest(arch))
				*driver = n;
			return &d->policies[i];
		}
	BUG("a version allowed since 2_%d has no policy", need);
}

void tf_platform_compute(struct tf_platform *p, enum tf_arch arch)
{
	p->kind = TF_PLATFORM_MANYLINUX;
	p->arch = arch;
	p->glibc_minor = 0;
}

/* Parse the decimal number at *s, advancing past it; -1 if there is none. */
static long parse_number(const char **s)
{
	long n = 0;

	if (**s < '0' || **s > '9')
		return -1;
	while (**s >= '0' && **s <= '9' && n < 100000)
		n = n * 10 + *(*s)++ - '0';
	return n;
}

/* The part after "manylinux_": "2_17_x86_64"; OTHER unless major is 2. */
static void parse_pep600(const char *s, struct tf_platform *p)
{
	long major = parse_number(&s), minor;

	if (major != 2 || *s++ != '_')
		return;
	minor = parse_number(&s);
	if (minor < 0 || *s++ != '_')
		return;
	p->arch = tf_arch_from_name(s);
	if (p->arch != TF_ARCH_NONE) {
		p->kind = TF_PLATFORM_MANYLINUX;
		p->glibc_minor = (unsigned)minor;
	}
}

/* The part after "musllinux_": "1_2_x86_64"; OTHER unless major is 1. */
static void parse_pep656(const char *s, struct tf_platform *p)
{
	long major = parse_number(&s), minor;

	if (major != 1 || *s++ != '_')
		return;
	minor = parse_number(&s);
	if (minor < 0 || *s++ != '_')
		return;
	p->arch = tf_arch_from_name(s);
	if (p->arch != TF_ARCH_NONE)
		p->kind = TF_PLATFORM_MUSLLINUX;
}

/* One tag of a set, s[0..n). */
static void parse_one(const char *s, size_t n, struct tf_platform *p)
{
	static const struct {
		const char *prefix;
		unsigned minor;
	} legacy[] = {
		{ "manylinux1_", 5 },
		{ "manylinux2010_", 12 },
		{ "manylinux2014_", 17 },
	};
	char *tag = tf_strndup(s, n);
	size_t i;

	*p = (struct tf_platform)TF_PLATFORM_INIT;
	if (!strcmp(tag, "any"))
		p->kind = TF_PLATFORM_ANY;
	else if (!strncmp(tag, "linux_", 6) &&
		 (p->arch = tf_arch_from_name(tag + 6)) != TF_ARCH_NONE)
		p->kind = TF_PLATFORM_LINUX;
	else if (!strncmp(tag, "manylinux_", 10))
		parse_pep600(tag + 10, p);
	else if (!strncmp(tag, "musllinux_", 10))
		parse_pep656(tag + 10, p);
	for (i = 0; i < ARRAY_SIZE(legacy); i++) {
		size_t len = strlen(legacy[i].prefix);

		if (strncmp(tag, legacy[i].prefix, len))
			continue;
		p->arch = tf_arch_from_name(tag + len);
		if (p->arch != TF_ARCH_NONE) {
			p->kind = TF_PLATFORM_MANYLINUX;
			p->glibc_minor = legacy[i].minor;
		}
	}
	free(tag);
}

/* Fold one parsed tag of a set into the whole. */
static int merge(struct tf_platform *all, const struct tf_platform *p,
		 struct tf_buf *why)
{
	if (p->kind == TF_PLATFORM_OTHER)
		return 0;
	if (all->kind == TF_PLATFORM_OTHER) {
		*all = *p;
		return 0;
	}
	if ((all->kind == TF_PLATFORM_ANY) != (p->kind == TF_PLATFORM_ANY)) {
		tf_buf_addstr(why, "mixes 'any' with a system platform");
		return -1;
	}
	if (all->arch != p->arch) {
		tf_buf_addf(why, "mixes architectures %s and %s",
			    tf_arch_name(all->arch), tf_arch_name(p->arch));
		return -1;
	}
	if (p->kind == TF_PLATFORM_MANYLINUX &&
	    (all->kind != TF_PLATFORM_MANYLINUX ||
	     p->glibc_minor < all->glibc_minor))
		*all = *p;
	return 0;
}

int tf_platform_parse(const char *tag, struct tf_platform *out,
		      struct tf_buf *why)
{
	struct tf_platform all = TF_PLATFORM_INIT, one;
	const char *s = tag;

	for (;;) {
		size_t n = strcspn(s, ".");

		if (!n) {
			tf_buf_addstr(why, "has an empty tag");
			return -1;
		}
		parse_one(s, n, &one);
		if (merge(&all, &one, why) < 0)
			return -1;
		if (!s[n])
			break;
		s += n + 1;
	}
	*out = all;
	return 0;
}
