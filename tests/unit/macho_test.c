/*
 * The Mach-O reader (toolkit/macho/) on files this test writes itself:
 * a small arm64 dylib's header and load commands, laid out as
 * <mach-o/loader.h> has them, thin and in a universal file beside an
 * x86_64 one; then damaged ones, and the reader library missing. Real
 * linkers' output (zig's) is t2260's.
 */
#include "unit.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base.h"
#include "macho.h"

struct image {
	unsigned char b[8192];
	size_t len;   /* bytes written */
	size_t ncmds; /* load commands */
};

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v & 0xff, p[1] = v >> 8 & 0xff, p[2] = v >> 16 & 0xff,
	p[3] = v >> 24;
}

static void put32be(unsigned char *p, uint32_t v)
{
	p[0] = v >> 24, p[1] = v >> 16 & 0xff, p[2] = v >> 8 & 0xff,
	p[3] = v & 0xff;
}

/* A load command of words, then a string at its end, padded to 8. */
static void command(struct image *im, uint32_t cmd, const uint32_t *words,
		    size_t nr, const char *str)
{
	size_t size = 8 + 4 * nr + (str ? strlen(str) + 1 : 0), i;
	unsigned char *p = im->b + im->len;

	size = (size + 7) & ~(size_t)7;
	memset(p, 0, size);
	put32(p, cmd);
	put32(p + 4, (uint32_t)size);
	for (i = 0; i < nr; i++)
		put32(p + 8 + 4 * i, words[i]);
	if (str)
		memcpy(p + 8 + 4 * nr, str, strlen(str));
	im->len += size;
	im->ncmds++;
}

static void dylib_command(struct image *im, uint32_t cmd, const char *name)
{
	/* name's offset, timestamp, current and compatibility versions */
	const uint32_t w[] = { 24, 2, 0x10203, 0x10000 };

	command(im, cmd, w, 4, name);
}

static void build(struct image *im, uint32_t cputype, uint32_t minos)
{
	const uint32_t build_version[] = { TF_MACHO_PLATFORM_MACOS, minos,
					   0x0e0000, 0 };
	const uint32_t rpath[] = { 12 };

	memset(im, 0, sizeof(*im));
	im->len = 32;                                /* mach_header_64 */
	dylib_command(im, 0xd, "@rpath/libt.dylib"); /* LC_ID_DYLIB */
	dylib_command(im, 0xc, "/usr/lib/libSystem.B.dylib"); /* LOAD */
	dylib_command(im, 0x80000018, "@rpath/libw.dylib");   /* WEAK */
	dylib_command(im, 0x8000001f, "@rpath/libr.dylib");   /* REEXPORT */
	command(im, 0x8000001c, rpath, 1, "@loader_path/../lib");
	command(im, 0x8000001c, rpath, 1, "/build/here");
	command(im, 0x32, build_version, 4, NULL); /* LC_BUILD_VERSION */
	put32(im->b, 0xfeedfacf);
	put32(im->b + 4, cputype);
	put32(im->b + 12, 6); /* MH_DYLIB */
	put32(im->b + 16, (uint32_t)im->ncmds);
	put32(im->b + 20, (uint32_t)(im->len - 32));
	put32(im->b + 24, 0x85); /* NOUNDEFS | DYLDLINK | TWOLEVEL */
}

static void write_file(const char *path, const void *b, size_t n)
{
	FILE *f = fopen(path, "wb");

	CHECK(f && fwrite(b, 1, n, f) == n);
	if (f)
		fclose(f);
}

static struct tf_macho *read_ok(const char *path)
{
	struct tf_buf why = TF_BUF_INIT;
	struct tf_macho *m = NULL;

	CHECK_INT(tf_macho_read(path, &m, &why), 0);
	if (why.len)
		printf("#   %s\n", why.buf);
	tf_buf_release(&why);
	return m;
}

static void check_slice(const struct tf_macho_slice *s, const char *arch,
			uint32_t minos)
{
	CHECK_STR(s->arch, arch);
	CHECK_STR(s->type_name, "dylib");
	CHECK_INT(s->twolevel, 1);
	CHECK_INT(s->version_cmd, 1);
	CHECK_INT(s->platform, TF_MACHO_PLATFORM_MACOS);
	CHECK_INT(s->minos, minos);
	CHECK_INT(s->sdk, 0x0e0000);
	CHECK_STR(s->install_name, "@rpath/libt.dylib");
	CHECK_INT(s->nr_dylibs, 3);
	if (s->nr_dylibs == 3) {
		CHECK_STR(s->dylibs[0].name, "/usr/lib/libSystem.B.dylib");
		CHECK_INT(s->dylibs[0].kind, TF_MACHO_LOAD);
		CHECK_INT(s->dylibs[0].current_version, 0x10203);
		CHECK_STR(s->dylibs[1].name, "@rpath/libw.dylib");
		CHECK_INT(s->dylibs[1].kind, TF_MACHO_WEAK);
		CHECK_INT(s->dylibs[2].kind, TF_MACHO_REEXPORT);
	}
	CHECK_INT(s->nr_rpaths, 2);
	if (s->nr_rpaths == 2) {
		CHECK_STR(s->rpaths[0], "@loader_path/../lib");
		CHECK_STR(s->rpaths[1], "/build/here");
	}
	CHECK_INT(s->code_signature, 0);
	CHECK(!s->dylinker);
	CHECK_INT(s->nr_load_commands, 7);
}

static void thin(const char *dir)
{
	struct image im;
	struct tf_macho *m;
	char path[512];

	build(&im, TF_MACHO_CPU_ARM64, 0x0c0100);
	snprintf(path, sizeof(path), "%s/thin.dylib", dir);
	write_file(path, im.b, im.len);
	CHECK_INT(tf_macho_magic(im.b, im.len), 1);
	m = read_ok(path);
	if (!m)
		return;
	CHECK_INT(m->universal, 0);
	CHECK_INT(m->nr_slices, 1);
	if (m->nr_slices == 1)
		check_slice(&m->slices[0], "arm64", 0x0c0100);
	tf_macho_free(m);
}

/* A universal file: x86_64 at 4096, arm64 at 8192 (align 2^12). */
static void universal(const char *dir)
{
	static unsigned char fat[16384];
	struct image x, a;
	struct tf_macho *m;
	char path[512];

	build(&x, TF_MACHO_CPU_X86_64, 0x0a0900);
	build(&a, TF_MACHO_CPU_ARM64, 0x0b0000);
	put32be(fat, 0xcafebabe);
	put32be(fat + 4, 2);
	put32be(fat + 8, TF_MACHO_CPU_X86_64);
	put32be(fat + 12, 3); /* CPU_SUBTYPE_X86_64_ALL */
	put32be(fat + 16, 4096);
	put32be(fat + 20, (uint32_t)x.len);
	put32be(fat + 24, 12);
	put32(x.b + 8, 3);
	put32be(fat + 28, TF_MACHO_CPU_ARM64);
	put32be(fat + 32, 0);
	put32be(fat + 36, 8192);
	put32be(fat + 40, (uint32_t)a.len);
	put32be(fat + 44, 12);
	memcpy(fat + 4096, x.b, x.len);
	memcpy(fat + 8192, a.b, a.len);
	CHECK_INT(tf_macho_magic(fat, 8), 1);
	snprintf(path, sizeof(path), "%s/fat.dylib", dir);
	write_file(path, fat, 8192 + a.len);
	m = read_ok(path);
	if (!m)
		return;
	CHECK_INT(m->universal, 1);
	CHECK_INT(m->nr_slices, 2);
	if (m->nr_slices == 2) {
		check_slice(&m->slices[0], "x86_64", 0x0a0900);
		check_slice(&m->slices[1], "arm64", 0x0b0000);
	}
	tf_macho_free(m);
}

static void refused(const char *path, const char *want)
{
	struct tf_buf why = TF_BUF_INIT;
	struct tf_macho *m = NULL;

	CHECK_INT(tf_macho_read(path, &m, &why), -1);
	CHECK(!m);
	CHECK(strstr(why.buf, want) != NULL);
	if (!strstr(why.buf, want))
		printf("#   got '%s', want '%s' in it\n", why.buf, want);
	tf_buf_release(&why);
}

static void damaged(const char *dir)
{
	struct image im;
	char path[512];

	build(&im, TF_MACHO_CPU_ARM64, 0x0c0000);
	snprintf(path, sizeof(path), "%s/short.dylib", dir);
	/* The header says more load commands than there are bytes. */
	write_file(path, im.b, im.len - 16);
	refused(path, "not a readable Mach-O file");
	snprintf(path, sizeof(path), "%s/text", dir);
	write_file(path, "hello, world\n", 13);
	refused(path, "not a readable Mach-O file");
	snprintf(path, sizeof(path), "%s/none", dir);
	refused(path, "not a readable Mach-O file");
}

static void magic(void)
{
	static const struct {
		const char *bytes;
		size_t n;
		int want;
	} t[] = {
		{ "\xcf\xfa\xed\xfe\x0c\x00\x00\x01", 8, 1 }, /* arm64 */
		{ "\xce\xfa\xed\xfe", 4, 1 },                 /* 32-bit */
		{ "\xca\xfe\xba\xbe\x00\x00\x00\x02", 8, 1 }, /* fat, 2 */
		{ "\xca\xfe\xba\xbe\x00\x00\x00\x37", 8, 0 }, /* Java 11 */
		{ "\xca\xfe\xba\xbe\x00\x00\x00\x00", 8, 0 }, /* fat, none */
		{ "\xca\xfe\xba\xbe", 4, 0 },                 /* too short */
		{ "\x7f"
		  "ELF\x02\x01\x01\x00",
		  8, 0 },
		{ "\xcf\xfa\xed", 3, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		CHECK_INT(tf_macho_magic(t[i].bytes, t[i].n), t[i].want);
}

/*
 * The library is looked for once per process: in a child that has not
 * loaded it, with another place to look, it is missing and said so.
 */
static void missing_library(const char *dir)
{
	char path[512];
	pid_t pid;
	int status = -1;

	snprintf(path, sizeof(path), "%s/thin.dylib", dir);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct tf_buf why = TF_BUF_INIT;
		struct tf_macho *m = NULL;
		int ret;

		setenv("TFBUILD_LIBTFMACHO", "/nonexistent/libtfmacho.so", 1);
		ret = tf_macho_read(path, &m, &why);
		_exit(ret == -1 && !m &&
				      strstr(why.buf,
					     "cannot load libtfmacho.so") &&
				      strstr(why.buf,
					     "/nonexistent/libtfmacho.so: "
					     "not there")
			      ? 0
			      : 1);
	}
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
	char dir[] = "/tmp/tfbuild-macho-test.XXXXXX";

	if (!mkdtemp(dir))
		return 1;
	magic();
	missing_library(dir); /* first: before this process loads it */
	thin(dir);
	universal(dir);
	damaged(dir);
	tf_rm_rf(dir);
	return unit_done();
}
