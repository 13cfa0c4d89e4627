#include "unit.h"

#include <stdlib.h>
#include <unistd.h>

#include "elf.h"

/* From the ELF specification (the system's <elf.h> is shadowed here). */
#define M_X86_64 62
#define M_AARCH64 183
#define T_REL 1
#define T_DYN 3
#define T_CORE 4

static void test_isa_level(void)
{
	static const struct {
		unsigned bits;
		int level;
	} cases[] = {
		{ 0, 0 }, { 1, 1 }, { 2, 2 },  { 3, 2 },  { 4, 3 },
		{ 7, 3 }, { 8, 4 }, { 15, 4 }, { 16, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_INT(tf_elf_x86_isa_level(cases[i].bits), cases[i].level);
}

static void test_machine_name(void)
{
	char buf[32];

	CHECK_STR(tf_elf_machine_name(M_X86_64, buf), "x86-64");
	CHECK_STR(tf_elf_machine_name(M_AARCH64, buf), "aarch64");
	CHECK_STR(tf_elf_machine_name(3, buf), "i386");
	CHECK_STR(tf_elf_machine_name(9999, buf), "machine 9999");
}

static void test_origin_dir(void)
{
	static const struct {
		const char *file, *entry, *dir; /* dir NULL: -1 */
	} cases[] = {
		{ "pkg/a.so", "$ORIGIN", "pkg" },
		{ "pkg/a.so", "$ORIGIN/", "pkg" },
		{ "pkg/ext/a.so", "$ORIGIN/../lib", "pkg/lib" },
		{ "pkg/a.so", "${ORIGIN}/libs", "pkg/libs" },
		{ "pkg/a.so", "$ORIGIN/./x//y/", "pkg/x/y" },
		{ "pkg/a/b.so", "$ORIGIN/../../pkg.libs", "pkg.libs" },
		{ "a.so", "$ORIGIN", "" },
		{ "a.so", "$ORIGIN/..", NULL },
		{ "pkg/a.so", "$ORIGIN/../..", NULL },
		{ "pkg/a.so", "/usr/lib", NULL },
		{ "pkg/a.so", "lib", NULL },
		{ "pkg/a.so", "", NULL },
		{ "pkg/a.so", "$ORIGINAL", NULL },
		{ "pkg/a.so", "$ORIGIN/$LIB", NULL },
		{ "pkg/a.so", "$PLATFORM", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tf_buf out = TF_BUF_INIT;
		int ret =
			tf_elf_origin_dir(cases[i].file, cases[i].entry, &out);
		int failed = unit_failed;

		if (cases[i].dir) {
			CHECK_INT(ret, 0);
			CHECK_STR(out.buf, cases[i].dir);
		} else {
			CHECK_INT(ret, -1);
			CHECK_INT(out.len, 0);
		}
		if (unit_failed != failed)
			printf("#   case: %s %s\n", cases[i].file,
			       cases[i].entry);
		tf_buf_release(&out);
	}
}

/*
 * A check case: a file as tf_elf_read() would describe it, rules, and
 * the message expected ("" if it passes). Lists are ','-separated;
 * versions are "library:VERSION:symbol" (symbol may be empty) joined by
 * ';'. The file is "pkg/lib/a.so" in wheel 'w'.
 */
struct check_case {
	const char *what;
	unsigned machine, type;
	int elf_class, big_endian;
	unsigned long long align;
	const char *needed, *runpath, *rpath, *versions;
	unsigned isa_bits;
	const char *exports;
	const char *platform, *allow;
	int isa_level;
	const char *required, *wheel, *expect;
};

#define X86_DYN M_X86_64, T_DYN, 64, 0, 4096
#define ARM_DYN M_AARCH64, T_DYN, 64, 0, 65536
#define PRE "tfbuild: wheel 'w': pkg/lib/a.so: "

static const struct check_case check_cases[] = {
	{ "a plain library passes", X86_DYN, "libc.so.6", NULL, NULL,
	  "libc.so.6:GLIBC_2.2.5:free", 0, "f", "manylinux_2_17_x86_64", NULL,
	  0, NULL, NULL, "" },
	{ "x86-64 in an aarch64 wheel", X86_DYN, "", NULL, NULL, "", 0, "",
	  "manylinux2014_aarch64", NULL, 0, NULL, NULL,
	  PRE "ELF machine x86-64 does not match platform aarch64" },
	{ "aarch64 in an x86_64 wheel", ARM_DYN, "", NULL, NULL, "", 0, "",
	  "linux_x86_64", NULL, 0, NULL, NULL,
	  PRE "ELF machine aarch64 does not match platform x86_64" },
	{ "any native code in an 'any' wheel", X86_DYN, "", NULL, NULL, "", 0,
	  "", "any", NULL, 0, NULL, NULL,
	  PRE "ELF machine x86-64 does not match platform any" },
	{ "platforms without policy are not checked", ARM_DYN, "", NULL, NULL,
	  "", 0, "", "win_amd64", NULL, 0, NULL, NULL, "" },
	{ "32-bit x86-64 (x32)", M_X86_64, T_DYN, 32, 0, 4096, "", NULL, NULL,
	  "", 0, "", "linux_x86_64", NULL, 0, NULL, NULL,
	  PRE "ELF class 32-bit does not match platform x86_64 (64-bit)" },
	{ "big-endian aarch64", M_AARCH64, T_DYN, 64, 1, 65536, "", NULL, NULL,
	  "", 0, "", "linux_aarch64", NULL, 0, NULL, NULL,
	  PRE "ELF byte order big-endian does not match platform aarch64 "
	      "(little-endian)" },
	{ "aarch64 linked for 4 KiB pages", M_AARCH64, T_DYN, 64, 0, 4096, "",
	  NULL, NULL, "", 0, "", "manylinux2014_aarch64", NULL, 0, NULL, NULL,
	  PRE "is linked for 4096-byte pages; aarch64 wheels need 65536 "
	      "(link with -Wl,-z,max-page-size=65536)" },
	{ "x86-64 may use 4 KiB pages", X86_DYN, "", NULL, NULL, "", 0, "",
	  "linux_x86_64", NULL, 0, NULL, NULL, "" },
	{ "a version newer than the policy, with its symbol", X86_DYN,
	  "libc.so.6", NULL, NULL,
	  "libc.so.6:GLIBC_2.2.5:free;libc.so.6:GLIBC_2.34:memcpy", 0, "",
	  "manylinux_2_17_x86_64", NULL, 0, NULL, NULL,
	  PRE "needs GLIBC_2.34 (symbol 'memcpy'), newer than manylinux_2_17 "
	      "allows (GLIBC_2.17)" },
	{ "the newest version needed is named", X86_DYN, "libc.so.6", NULL,
	  NULL, "libc.so.6:GLIBC_2.34:memcpy;libc.so.6:GLIBC_2.36:arc4random",
	  0, "", "manylinux_2_28_x86_64", NULL, 0, NULL, NULL,
	  PRE "needs GLIBC_2.36 (symbol 'arc4random'), newer than "
	      "manylinux_2_28 allows (GLIBC_2.28)" },
	{ "aarch64's manylinux2014 allows GLIBC_2.18", ARM_DYN, "libc.so.6",
	  NULL, NULL, "libc.so.6:GLIBC_2.18:__cxa_thread_atexit_impl", 0, "",
	  "manylinux2014_aarch64", NULL, 0, NULL, NULL, "" },
	{ "C++ versions, without a symbol", X86_DYN, "libstdc++.so.6", NULL,
	  NULL, "libstdc++.so.6:GLIBCXX_3.4.30:", 0, "",
	  "manylinux_2_34_x86_64", NULL, 0, NULL, NULL,
	  PRE "needs GLIBCXX_3.4.30, newer than manylinux_2_34 allows "
	      "(GLIBCXX_3.4.29)" },
	{ "a family the policy has no version of", X86_DYN, "libatomic.so.1",
	  NULL, NULL, "libatomic.so.1:LIBATOMIC_1.0:__atomic_load", 0, "",
	  "manylinux2014_x86_64", NULL, 0, NULL, NULL,
	  PRE "needs LIBATOMIC_1.0 (symbol '__atomic_load'), newer than "
	      "manylinux_2_17 allows (none)" },
	{ "a version no policy allows", X86_DYN, "libc.so.6", NULL, NULL,
	  "libc.so.6:GLIBC_2.2.5:free;libc.so.6:GLIBC_PRIVATE:_dl_x", 0, "",
	  "manylinux_2_39_x86_64", NULL, 0, NULL, NULL,
	  PRE "needs GLIBC_PRIVATE (symbol '_dl_x'), which no manylinux policy "
	      "for x86_64 allows" },
	{ "computing allows any published version", X86_DYN, "libc.so.6", NULL,
	  NULL, "libc.so.6:GLIBC_2.39:x", 0, "", NULL, NULL, 0, NULL, NULL,
	  "" },
	{ "computing refuses unpublished versions", X86_DYN, "libc.so.6", NULL,
	  NULL, "libc.so.6:GLIBC_2.42:x", 0, "", NULL, NULL, 0, NULL, NULL,
	  PRE "needs GLIBC_2.42 (symbol 'x'), which no manylinux policy for "
	      "x86_64 allows" },
	{ "linux_ tags have no version policy", X86_DYN, "libc.so.6", NULL,
	  NULL, "libc.so.6:GLIBC_2.40:x", 0, "", "linux_x86_64", NULL, 0, NULL,
	  NULL, "" },
	{ "versions of a shipped library are its own", X86_DYN,
	  "libstdc++.so.6", "$ORIGIN", NULL,
	  "libstdc++.so.6:GLIBCXX_3.4.99:_Zx", 0, "", "manylinux2014_x86_64",
	  NULL, 0, NULL, "pkg/lib/libstdc++.so.6", "" },
	{ "a policy never published", X86_DYN, "", NULL, NULL, "", 0, "",
	  "manylinux_2_29_x86_64", NULL, 0, NULL, NULL,
	  "tfbuild: wheel 'w': platform 'manylinux_2_29_x86_64': no published "
	  "manylinux policy for glibc 2.29 on x86_64" },
	{ "libpython", X86_DYN, "libc.so.6,libpython3.11.so.1.0", NULL, NULL,
	  "", 0, "", "linux_x86_64", "libpython3.11.so.1.0", 0, NULL, NULL,
	  PRE "links 'libpython3.11.so.1.0' (DT_NEEDED); Python extension "
	      "modules must not link libpython" },
	{ "a library outside the allow-list", X86_DYN, "libc.so.6,libfoo.so.1",
	  NULL, NULL, "", 0, "", "manylinux2014_x86_64", NULL, 0, NULL, NULL,
	  PRE "needs 'libfoo.so.1' (DT_NEEDED), which is neither in the "
	      "manylinux_2_17 allow-list nor shipped in the wheel on an "
	      "$ORIGIN RUNPATH" },
	{ "computing: outside every allow-list", X86_DYN, "libfoo.so.1", NULL,
	  NULL, "", 0, "", NULL, NULL, 0, NULL, NULL,
	  PRE "needs 'libfoo.so.1' (DT_NEEDED), which is neither in the "
	      "manylinux allow-list nor shipped in the wheel on an $ORIGIN "
	      "RUNPATH" },
	{ "linux_ tags are not audited against the allow-lists", X86_DYN,
	  "libfoo.so.1", NULL, NULL, "", 0, "", "linux_x86_64", NULL, 0, NULL,
	  NULL, "" },
	{ "musllinux refuses glibc", X86_DYN, "libc.so.6", NULL, NULL, "", 0,
	  "", "musllinux_1_2_x86_64", NULL, 0, NULL, NULL,
	  PRE "needs 'libc.so.6' (DT_NEEDED), a glibc library, but the "
	      "platform is musllinux" },
	{ "musllinux refuses glibc versions", X86_DYN, "libc.musl-x86_64.so.1",
	  NULL, NULL, "libc.musl-x86_64.so.1:GLIBC_2.2.5:x", 0, "",
	  "musllinux_1_2_x86_64", NULL, 0, NULL, NULL,
	  PRE "needs GLIBC_2.2.5, a glibc symbol version, but the platform is "
	      "musllinux" },
	{ "a declared library", X86_DYN, "libfoo.so.1", NULL, NULL, "", 0, "",
	  "manylinux2014_x86_64", "libbar.so,libfoo.so.1", 0, NULL, NULL, "" },
	{ "shipped beside it", X86_DYN, "libfoo.so.1", "$ORIGIN", NULL, "", 0,
	  "", "manylinux2014_x86_64", NULL, 0, NULL,
	  "pkg/lib/a.so,pkg/lib/libfoo.so.1", "" },
	{ "shipped elsewhere, on the run path", X86_DYN, "libfoo.so.1",
	  "/opt/x:$ORIGIN/../../pkg.libs", NULL, "", 0, "",
	  "manylinux2014_x86_64", NULL, 0, NULL, "pkg.libs/libfoo.so.1", "" },
	{ "shipped, found through RPATH", X86_DYN, "libfoo.so.1", NULL,
	  "$ORIGIN/..", "", 0, "", "manylinux2014_x86_64", NULL, 0, NULL,
	  "pkg/libfoo.so.1", "" },
	{ "RUNPATH hides RPATH, as in the loader", X86_DYN, "libfoo.so.1",
	  "/usr/lib", "$ORIGIN", "", 0, "", "manylinux2014_x86_64", NULL, 0,
	  NULL, "pkg/lib/libfoo.so.1",
	  PRE "needs 'libfoo.so.1' (DT_NEEDED), which is neither in the "
	      "manylinux_2_17 allow-list nor shipped in the wheel on an "
	      "$ORIGIN RUNPATH" },
	{ "shipped but not on the run path", X86_DYN, "libfoo.so.1", NULL, NULL,
	  "", 0, "", "manylinux2014_x86_64", NULL, 0, NULL,
	  "pkg/lib/libfoo.so.1",
	  PRE "needs 'libfoo.so.1' (DT_NEEDED), which is neither in the "
	      "manylinux_2_17 allow-list nor shipped in the wheel on an "
	      "$ORIGIN RUNPATH" },
	{ "libmvec is allowed from manylinux_2_24", X86_DYN, "libmvec.so.1",
	  NULL, NULL, "", 0, "", "manylinux_2_24_x86_64", NULL, 0, NULL, NULL,
	  "" },
	{ "libmvec is not in manylinux2014", X86_DYN, "libmvec.so.1", NULL,
	  NULL, "", 0, "", "manylinux2014_x86_64", NULL, 0, NULL, NULL,
	  PRE "needs 'libmvec.so.1' (DT_NEEDED), which is neither in the "
	      "manylinux_2_17 allow-list nor shipped in the wheel on an "
	      "$ORIGIN RUNPATH" },
	{ "the dynamic loader", X86_DYN, "ld-linux-x86-64.so.2", NULL, NULL,
	  "ld-linux-x86-64.so.2:GLIBC_2.3:__tls_get_addr", 0, "",
	  "manylinux2014_x86_64", NULL, 0, NULL, NULL, "" },
	{ "an x86-64-v3 library", X86_DYN, "", NULL, NULL, "", 7, "",
	  "linux_x86_64", NULL, 0, NULL, NULL,
	  PRE "needs x86-64-v3 (GNU property), above the allowed x86-64-v1" },
	{ "an x86-64-v3 library, allowed", X86_DYN, "", NULL, NULL, "", 7, "",
	  "linux_x86_64", NULL, 3, NULL, NULL, "" },
	{ "v4 above an allowed v2", X86_DYN, "", NULL, NULL, "", 8, "",
	  "linux_x86_64", NULL, 2, NULL, NULL,
	  PRE "needs x86-64-v4 (GNU property), above the allowed x86-64-v2" },
	{ "a required export present", X86_DYN, "", NULL, NULL, "", 0,
	  "TFM_GetDeviceApi,tfm_x", "linux_x86_64", NULL, 0,
	  "pkg/lib/a.so:TFM_GetDeviceApi,pkg/lib/b.so:other", NULL, "" },
	{ "a required export missing", X86_DYN, "", NULL, NULL, "", 0, "tfm_x",
	  "linux_x86_64", NULL, 0, "pkg/lib/a.so:TFM_GetDeviceApi", NULL,
	  PRE "does not export required symbol 'TFM_GetDeviceApi'" },
	{ "object files: the architecture", M_X86_64, T_REL, 64, 0, 0, "", NULL,
	  NULL, "", 0, "", "manylinux2014_aarch64", NULL, 0, NULL, NULL,
	  PRE "ELF machine x86-64 does not match platform aarch64" },
	{ "object files: nothing else", M_X86_64, T_REL, 64, 0, 0,
	  "libfoo.so.1", NULL, NULL, "libc.so.6:GLIBC_2.40:x", 7, "",
	  "manylinux2014_x86_64", NULL, 0, NULL, NULL, "" },
	{ "core files are not checked", M_AARCH64, T_CORE, 64, 0, 0, "", NULL,
	  NULL, "", 0, "", "linux_x86_64", NULL, 0, NULL, NULL, "" },
	{ "control bytes from the file stay on one line", X86_DYN,
	  "lib\nfoo\033.so", NULL, NULL, "", 0, "", "manylinux2014_x86_64",
	  NULL, 0, NULL, NULL,
	  PRE
	  "needs 'lib?foo?.so' (DT_NEEDED), which is neither in the "
	  "manylinux_2_17 allow-list nor shipped in the wheel on an $ORIGIN "
	  "RUNPATH" },
};

/* Split s at sep into sv (empty parts dropped). */
static void split(const char *s, int sep, struct tf_strvec *sv)
{
	while (s && *s) {
		const char *end = strchr(s, sep);
		size_t n = end ? (size_t)(end - s) : strlen(s);

		if (n)
			tf_strvec_push_take(sv, tf_strndup(s, n));
		s = end ? end + 1 : NULL;
	}
}

static char *dup_or_null(const char *s)
{
	return s ? tf_strdup(s) : NULL;
}

static void make_info(const struct check_case *c, struct tf_elf_info *info)
{
	struct tf_strvec vers = TF_STRVEC_INIT;
	size_t i;

	info->machine = c->machine;
	info->type = c->type;
	info->elf_class = c->elf_class;
	info->big_endian = c->big_endian;
	info->min_load_align = c->align;
	split(c->needed, ',', &info->needed);
	info->runpath = dup_or_null(c->runpath);
	info->rpath = dup_or_null(c->rpath);
	split(c->versions, ';', &vers);
	info->versions = tf_calloc(vers.nr, sizeof(*info->versions));
	for (i = 0; i < vers.nr; i++) {
		struct tf_elf_version *v = &info->versions[info->nr_versions++];
		char *c1 = strchr(vers.v[i], ':'), *c2 = strchr(c1 + 1, ':');

		v->library = tf_strndup(vers.v[i], (size_t)(c1 - vers.v[i]));
		v->name = tf_strndup(c1 + 1, (size_t)(c2 - c1 - 1));
		v->symbol = c2[1] ? tf_strdup(c2 + 1) : NULL;
		v->index = (unsigned)i + 2;
	}
	info->x86_isa_needed = c->isa_bits;
	split(c->exports, ',', &info->exports);
	tf_strvec_release(&vers);
}

/* Run tf_elf_verify with stderr captured into msg. */
static int check_captured(const struct tf_elf_info *info,
			  const struct tf_elf_rules *rules, struct tf_buf *msg)
{
	FILE *tmp = tmpfile();
	int saved = dup(2), ret, ch;

	fflush(stderr);
	dup2(fileno(tmp), 2);
	ret = tf_elf_verify(info, rules, "pkg/lib/a.so");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	while ((ch = getc(tmp)) != EOF)
		tf_buf_addch(msg, (char)ch);
	fclose(tmp);
	if (msg->len && msg->buf[msg->len - 1] == '\n')
		tf_buf_setlen(msg, msg->len - 1);
	return ret;
}

static void run_check_case(const struct check_case *c)
{
	struct tf_elf_info info = TF_ELF_INFO_INIT;
	struct tf_elf_rules rules = TF_ELF_RULES_INIT;
	struct tf_strvec allow = TF_STRVEC_INIT, req = TF_STRVEC_INIT;
	struct tf_strvec files = TF_STRVEC_INIT;
	struct tf_elf_export *exports;
	struct tf_buf why = TF_BUF_INIT, msg = TF_BUF_INIT;
	int failed = unit_failed;
	size_t i;

	make_info(c, &info);
	rules.context = "wheel 'w'";
	if (c->platform)
		tf_platform_parse(c->platform, &rules.platform, &why);
	else
		tf_platform_compute(&rules.platform, TF_ARCH_X86_64);
	split(c->allow, ',', &allow);
	rules.allow_needed = (const char *const *)allow.v;
	rules.nr_allow_needed = allow.nr;
	rules.isa_level = c->isa_level;
	split(c->required, ',', &req);
	exports = tf_calloc(req.nr, sizeof(*exports));
	for (i = 0; i < req.nr; i++) {
		char *colon = strchr(req.v[i], ':');

		*colon = '\0';
		exports[i].file = req.v[i];
		exports[i].symbol = colon + 1;
	}
	rules.exports = exports;
	rules.nr_exports = req.nr;
	split(c->wheel, ',', &files);
	rules.wheel_files = (const char *const *)files.v;
	rules.nr_wheel_files = files.nr;

	CHECK_INT(check_captured(&info, &rules, &msg), *c->expect ? -1 : 0);
	CHECK_STR(msg.buf, c->expect);
	if (unit_failed != failed)
		printf("#   case: %s\n", c->what);

	free(exports);
	tf_strvec_release(&allow);
	tf_strvec_release(&req);
	tf_strvec_release(&files);
	tf_buf_release(&why);
	tf_buf_release(&msg);
	tf_elf_info_release(&info);
}

static void test_checks(void)
{
	size_t i;

	for (i = 0; i < sizeof(check_cases) / sizeof(check_cases[0]); i++)
		run_check_case(&check_cases[i]);
}

/* This test program is an ELF executable for the host. */
static void test_read_self(void)
{
	struct tf_elf_info info = TF_ELF_INFO_INIT;
	char buf[32];
	size_t i;
	int glibc = 0;

	CHECK_INT(tf_elf_read("/proc/self/exe", "self", &info), TF_ELF_READ_OK);
	CHECK_INT(info.elf_class, 64);
	CHECK_INT(info.big_endian, 0);
#if defined(__x86_64__)
	CHECK_STR(tf_elf_machine_name(info.machine, buf), "x86-64");
#elif defined(__aarch64__)
	CHECK_STR(tf_elf_machine_name(info.machine, buf), "aarch64");
#endif
	CHECK(info.min_load_align >= 4096);
	for (i = 0; i < info.needed.nr; i++)
		glibc |= !strcmp(info.needed.v[i], "libc.so.6");
	CHECK(glibc);
	for (i = 0, glibc = 0; i < info.nr_versions; i++)
		glibc |= !strncmp(info.versions[i].name, "GLIBC_2.", 8) &&
			 !strcmp(info.versions[i].library, "libc.so.6") &&
			 info.versions[i].symbol;
	CHECK(glibc);
	tf_elf_info_release(&info);
	tf_elf_info_release(&info);
	CHECK(info.needed.nr == 0 && info.versions == NULL);
	tf_elf_info_release(NULL);
}

static void test_read_not_elf(void)
{
	struct tf_elf_info info = TF_ELF_INFO_INIT;
	char path[] = "/tmp/elf_test.XXXXXX";
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	CHECK(write(fd, "#!/bin/sh\n", 10) == 10);
	close(fd);
	CHECK_INT(tf_elf_read(path, path, &info), TF_ELF_READ_NOT_ELF);
	CHECK(info.needed.nr == 0);
	unlink(path);
}

int main(void)
{
	test_isa_level();
	test_machine_name();
	test_origin_dir();
	test_checks();
	test_read_self();
	test_read_not_elf();
	return unit_done();
}
