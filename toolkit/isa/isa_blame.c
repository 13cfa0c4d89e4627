/*
 * After a test died of an illegal instruction on the baseline CPU: name
 * the ELF files it could have run whose code is above the baseline.
 * qemu-user reports the signal but not the faulting address, so this is
 * a list of suspects from the static audit, and says so.
 */
#include "isa.h"

#include <ftw.h>
#include <string.h>

#include "base/base.h"

static struct blame {
	enum tf_isa_family family; /* the target's */
	int level;                 /* the level the baseline CPU has */
	size_t found;              /* suspects named so far */
} blame;

static int visit(const char *path, const struct stat *st, int type,
		 struct FTW *ftw)
{
	struct tf_isa_report rep = TF_ISA_REPORT_INIT;
	struct tf_buf what = TF_BUF_INIT;

	(void)st;
	(void)ftw;
	if (type != FTW_F || blame.found >= 10)
		return 0;
	if (tf_isa_scan(path, path, &rep) == TF_ISA_SCAN_OK &&
	    rep.family == blame.family && rep.level > blame.level) {
		tf_isa_describe(&rep, &what);
		error("  suspect: %s: %s", path, what.buf);
		blame.found++;
	}
	tf_buf_release(&what);
	tf_isa_report_release(&rep);
	return 0;
}

size_t tf_isa_blame(const char *const *dirs, size_t nr, const char *target,
		    int level)
{
	size_t i;

	blame.family =
		!strcmp(target, "aarch64") ? TF_ISA_AARCH64 : TF_ISA_X86_64;
	blame.level = level;
	blame.found = 0;
	for (i = 0; i < nr; i++)
		nftw(dirs[i], visit, 16, FTW_PHYS);
	return blame.found;
}
