/*
 * The C side of the Mach-O reader: find libtfmacho.so, dlopen it on
 * the first Mach-O file a run reads (once, for every thread), and call
 * it. Where it is looked for, in order: $TFBUILD_LIBTFMACHO (for tests:
 * another file, e.g. one that does not exist); beside the binary (an
 * uninstalled tree: ./tfbuild and obj/libtfmacho.so, or a test
 * program in obj/unit/ with obj/libtfmacho.so above it); and
 * PREFIX/lib/tfbuild/, where `make install` puts it for PREFIX/bin/.
 */
#include "macho.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/base.h"

#ifndef TF_MACHO_OBJ_DIR
#define TF_MACHO_OBJ_DIR "obj"
#endif

#define LIB "libtfmacho.so"

static struct {
	pthread_once_t once;
	tfmacho_read_fn *read;
	tfmacho_free_fn *free;
	char why[1024]; /* when read is NULL: where it was looked for */
} lib = { PTHREAD_ONCE_INIT, NULL, NULL, "" };

/* The folder of the running binary, as /proc/self/exe names it. */
static void exe_dir(struct tf_buf *dir)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash)
		tf_buf_add(dir, exe, (size_t)(slash - exe));
}

static void candidates(struct tf_strvec *out)
{
	const char *env = getenv("TFBUILD_LIBTFMACHO");
	struct tf_buf dir = TF_BUF_INIT;

	if (env && *env) {
		tf_strvec_push(out, env);
		return;
	}
	exe_dir(&dir);
	/* The build's object folder, beside the binary; or itself when
	 * make was given an absolute O= (bench/same-wheels.sh). */
	if (TF_MACHO_OBJ_DIR[0] == '/')
		tf_strvec_push(out, TF_MACHO_OBJ_DIR "/" LIB);
	else
		tf_strvec_pushf(out, "%s/" TF_MACHO_OBJ_DIR "/" LIB, dir.buf);
	tf_strvec_pushf(out, "%s/../" LIB, dir.buf);
	tf_strvec_pushf(out, "%s/../lib/tfbuild/" LIB, dir.buf);
	tf_buf_release(&dir);
}

/* Take the interface from h: 0, or -1 with lib.why. */
static int bind(void *h, const char *path)
{
	tfmacho_abi_fn *abi = (tfmacho_abi_fn *)dlsym(h, "tfmacho_abi");

	lib.read = (tfmacho_read_fn *)dlsym(h, "tfmacho_read");
	lib.free = (tfmacho_free_fn *)dlsym(h, "tfmacho_free");
	if (!abi || !lib.read || !lib.free || abi() != TF_MACHO_ABI) {
		snprintf(lib.why, sizeof(lib.why),
			 "%s is not the Mach-O reader this tfbuild was built "
			 "with (its interface is %d, not %d): rebuild both "
			 "with `make`",
			 path, abi ? abi() : -1, TF_MACHO_ABI);
		lib.read = NULL;
		return -1;
	}
	return 0;
}

static void load(void)
{
	struct tf_strvec tried = TF_STRVEC_INIT;
	struct tf_buf why = TF_BUF_INIT;
	void *h = NULL;
	size_t i;

	candidates(&tried);
	for (i = 0; i < tried.nr && !h; i++) {
		/* A missing file is the usual miss; say why for the rest. */
		if (access(tried.v[i], F_OK) < 0) {
			tf_buf_addf(&why, "%s%s: not there", i ? "; " : "",
				    tried.v[i]);
			continue;
		}
		h = dlopen(tried.v[i], RTLD_NOW | RTLD_LOCAL);
		if (!h)
			tf_buf_addf(&why, "%s%s", i ? "; " : "", dlerror());
	}
	/* Never dlclose'd: it stays for the process, as if linked. */
	if (h)
		bind(h, tried.v[i - 1]);
	else
		snprintf(lib.why, sizeof(lib.why),
			 "cannot load %s, which reads Mach-O files through "
			 "LLVM (build it with `make`; it needs Debian's "
			 "libllvm14): %s",
			 LIB, why.buf);
	tf_strvec_release(&tried);
	tf_buf_release(&why);
}

int tf_macho_read(const char *path, struct tf_macho **out, struct tf_buf *why)
{
	char reason[1024] = "";

	*out = NULL;
	pthread_once(&lib.once, load);
	if (!lib.read) {
		tf_buf_addstr(why, lib.why);
		return -1;
	}
	if (lib.read(path, out, reason, sizeof(reason)) < 0) {
		tf_buf_addstr(why, *reason ? reason : "unreadable");
		return -1;
	}
	return 0;
}

void tf_macho_free(struct tf_macho *m)
{
	if (m)
		lib.free(m);
}

int tf_macho_magic(const void *buf, size_t n)
{
	const unsigned char *p = buf;
	uint32_t be, nfat;

	if (n < 4)
		return 0;
	be = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
	     p[3];
	switch (be) {
	case 0xfeedface: /* MH_MAGIC, big-endian */
	case 0xfeedfacf: /* MH_MAGIC_64 */
	case 0xcefaedfe: /* MH_CIGAM: little-endian, as arm64 and x86_64 */
	case 0xcffaedfe: /* MH_CIGAM_64 */
		return 1;
	case 0xcafebabe: /* FAT_MAGIC, or a Java class file */
	case 0xcafebabf: /* FAT_MAGIC_64 */
		if (n < 8)
			return 0;
		nfat = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 |
		       (uint32_t)p[6] << 8 | p[7];
		/* A class file's major version is 45 or more. */
		return nfat > 0 && nfat < 45;
	default:
		return 0;
	}
}

const char *tf_macho_dylib_kind_name(enum tf_macho_dylib_kind kind)
{
	switch (kind) {
	case TF_MACHO_LOAD:
		return "load";
	case TF_MACHO_WEAK:
		return "weak";
	case TF_MACHO_REEXPORT:
		return "reexport";
	case TF_MACHO_LAZY:
		return "lazy";
	case TF_MACHO_UPWARD:
		return "upward";
	}
	return "load";
}
