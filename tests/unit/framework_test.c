#include "unit.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "framework.h"
#include "path.h"
#include "fwbuild.h"
#include "install.h"

static char self[PATH_MAX];

static void put(const char *dir, const char *rel, const char *text)
{
	struct tf_buf p = TF_BUF_INIT, d = TF_BUF_INIT;

	tf_path_join(&p, dir, rel);
	tf_path_dirname(&d, p.buf);
	tf_mkdir_p(d.buf);
	tf_write_file_atomic(p.buf, text, strlen(text), 0);
	tf_buf_release(&p);
	tf_buf_release(&d);
}

/* A site-packages: metadata, headers of release `minor`, one library. */
static void make_site(const char *dir, int minor)
{
	struct tf_buf link = TF_BUF_INIT;
	char *h = tf_xstrfmt("#define TORCH_VERSION_MAJOR 1\n"
			     "#define TORCH_VERSION_MINOR %d\n"
			     "#define TORCH_VERSION_PATCH 0\n",
			     minor);

	put(dir, "torch-1.13.0a0+gitunknown.egg-info/PKG-INFO",
	    "Metadata-Version: 2.1\nName: torch\nVersion: 1.13.0a0+gitunknown\n"
	    "Summary: x\n\nName: not-this\n");
	put(dir, "torch/include/torch/csrc/api/include/torch/version.h", h);
	put(dir, "torch/lib/README", "not a library\n");
	tf_path_join(&link, dir, "torch/lib/libself.so");
	unlink(link.buf);
	CHECK(symlink(self, link.buf) == 0);
	free(h);
	tf_buf_release(&link);
}

static void test_load(const char *dir)
{
	struct tf_framework fw = TF_FRAMEWORK_INIT;
	struct tf_buf req = TF_BUF_INIT;

	make_site(dir, 13);
	CHECK_INT(tf_framework_load(&fw, "Torch", dir, "unit"), 0);
	CHECK_STR(fw.name, "torch");
	CHECK_STR(fw.version, "1.13.0a0+gitunknown");
	CHECK_STR(fw.header_version, "1.13.0");
	CHECK_INT((int)fw.nr_libs, 1);
	CHECK(tf_framework_provides(&fw, "libself.so") ||
	      tf_framework_provides(&fw, tf_path_basename(self)));
	CHECK(!tf_framework_provides(&fw, "libc10.so.1.13"));
	tf_framework_requirement(&fw, &req);
	CHECK_STR(req.buf, "torch==1.13.0a0+gitunknown");

	CHECK_INT(tf_framework_check_version(&fw, NULL, "unit"), 0);
	CHECK_INT(tf_framework_check_version(&fw, "1.13", "unit"), 0);
	CHECK_INT(tf_framework_check_version(&fw, "1", "unit"), 0);
	CHECK_INT(tf_framework_check_version(&fw, "1.13.0", "unit"), 0);
	fprintf(stderr, "(expected refusals follow)\n");
	CHECK_INT(tf_framework_check_version(&fw, "1.12", "unit"), -1);
	CHECK_INT(tf_framework_check_version(&fw, "1.13.1", "unit"), -1);
	CHECK_INT(tf_framework_check_version(&fw, "2", "unit"), -1);
	CHECK_INT(tf_framework_check_version(&fw, "x", "unit"), -1);
	tf_framework_release(&fw);

	/* Headers of another release than the installation. */
	make_site(dir, 12);
	CHECK_INT(tf_framework_load(&fw, "torch", dir, "unit"), 0);
	CHECK_INT(tf_framework_check_version(&fw, NULL, "unit"), -1);
	tf_framework_release(&fw);

	CHECK_INT(tf_framework_load(&fw, "jax", dir, "unit"), -1);
	tf_framework_release(&fw);
	tf_buf_release(&req);
}

int main(int argc, char **argv)
{
	struct tf_buf dir = TF_BUF_INIT;
	const char *tmp = getenv("TMPDIR");

	(void)argc;
	if (!realpath("/proc/self/exe", self) && !realpath(argv[0], self))
		return 1;
	if (tf_mkdtemp_in(tmp && *tmp ? tmp : "/tmp", "framework_test", &dir) <
	    0)
		return 1;
	test_load(dir.buf);
	tf_rm_rf(dir.buf);
	tf_buf_release(&dir);
	return unit_done();
}
