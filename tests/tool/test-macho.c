/*
 * test-macho: let shell tests call the Mach-O reader (toolkit/macho/)
 * directly.
 *
 *   test-macho FILE
 *       prints what tf_macho_read() found, one "key: value" per line and
 *       slice ("slice: N" opens each); exports and undefined symbols with
 *       their library ordinal, each on its own line; the __text section
 *       as its address, size and sha256
 *   test-macho magic FILE
 *       prints "mach-o" or "not mach-o" from the first bytes
 *
 * Exits 0, or 1 after the reader's error, or 2 on bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "macho.h"

static void version(const char *key, uint32_t v)
{
	printf("%s: %u.%u", key, TF_MACHO_VERSION_MAJOR(v),
	       TF_MACHO_VERSION_MINOR(v));
	if (TF_MACHO_VERSION_PATCH(v))
		printf(".%u", TF_MACHO_VERSION_PATCH(v));
	putchar('\n');
}

static const char *ordinal(int ord, char buf[16])
{
	switch (ord) {
	case TF_MACHO_SELF:
		return "self";
	case TF_MACHO_DYNAMIC_LOOKUP:
		return "dynamic-lookup";
	case TF_MACHO_EXECUTABLE:
		return "executable";
	case TF_MACHO_FLAT:
		return "flat";
	}
	snprintf(buf, 16, "%d", ord);
	return buf;
}

static void symbols(const struct tf_macho_slice *s)
{
	char buf[16];
	size_t i;

	for (i = 0; i < s->nr_exports; i++)
		printf("export: %s\n", s->exports[i]);
	for (i = 0; i < s->nr_undefs; i++)
		printf("undefined: %s %s%s\n", s->undefs[i].name,
		       ordinal(s->undefs[i].ordinal, buf),
		       s->undefs[i].weak ? " weak" : "");
}

static void text(const struct tf_macho_slice *s)
{
	unsigned char md[TF_SHA256_LEN];
	char hex[TF_SHA256_HEX_LEN + 1];

	if (!s->text) {
		puts("text: none");
		return;
	}
	tf_sha256_buf(s->text, s->text_size, md);
	tf_sha256_hex(md, hex);
	printf("text: 0x%llx %zu %s\n", (unsigned long long)s->text_addr,
	       s->text_size, hex);
}

static void slice(const struct tf_macho_slice *s, size_t n)
{
	size_t i;

	printf("slice: %zu\narch: %s\ntype: %s\n", n, s->arch, s->type_name);
	printf("twolevel: %d\nplatform: %u\n", s->twolevel, s->platform);
	version("minos", s->minos);
	version("sdk", s->sdk);
	printf("install-name: %s\n", s->install_name ? s->install_name : "");
	for (i = 0; i < s->nr_dylibs; i++)
		printf("dylib: %s %s\n",
		       tf_macho_dylib_kind_name(s->dylibs[i].kind),
		       s->dylibs[i].name);
	for (i = 0; i < s->nr_rpaths; i++)
		printf("rpath: %s\n", s->rpaths[i]);
	printf("dylinker: %s\n", s->dylinker ? s->dylinker : "");
	printf("signature: %d\n", s->code_signature);
	symbols(s);
	text(s);
}

static int dump(const char *path)
{
	struct tf_buf why = TF_BUF_INIT;
	struct tf_macho *m;
	size_t i;

	if (tf_macho_read(path, &m, &why) < 0) {
		error("%s: %s", path, why.buf);
		tf_buf_release(&why);
		return 1;
	}
	printf("universal: %d\n", m->universal);
	for (i = 0; i < m->nr_slices; i++)
		slice(&m->slices[i], i);
	tf_macho_free(m);
	return 0;
}

static int magic(const char *path)
{
	unsigned char head[8];
	size_t n;
	FILE *f = fopen(path, "rb");

	if (!f) {
		perror(path);
		return 1;
	}
	n = fread(head, 1, sizeof(head), f);
	fclose(f);
	puts(tf_macho_magic(head, n) ? "mach-o" : "not mach-o");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2)
		return dump(argv[1]);
	if (argc == 3 && !strcmp(argv[1], "magic"))
		return magic(argv[2]);
	fputs("usage: test-macho FILE\n       test-macho magic FILE\n", stderr);
	return 2;
}
