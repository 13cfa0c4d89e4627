#include "dl.h"

#include "base/base.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

void tf_dl_load(struct tf_dl_lib *lib)
{
	const char *file = getenv(lib->env);
	void *h;
	size_t i;

	if (!file || !*file)
		file = lib->soname;
	h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(lib->why, sizeof(lib->why),
			 "cannot load %s, needed %s: %s (install Debian's %s)",
			 file, lib->use, dlerror(), lib->package);
		return;
	}
	for (i = 0; i < lib->nr_syms; i++) {
		/* POSIX: a data pointer from dlsym converts to a function pointer. */
		*lib->syms[i].fn = dlsym(h, lib->syms[i].name);
		if (!*lib->syms[i].fn) {
			snprintf(
				lib->why, sizeof(lib->why),
				"cannot load %s, needed %s: it has no %s (install Debian's %s)",
				file, lib->use, lib->syms[i].name,
				lib->package);
			return;
		}
	}
	/* Never dlclose'd: it stays for the process, as if linked. */
	lib->ok = 1;
}

int tf_dl_require(const struct tf_dl_lib *lib)
{
	return lib->ok ? 0 : error("%s", lib->why);
}

void tf_dl_need(const struct tf_dl_lib *lib)
{
	if (!lib->ok)
		BUG("called without its entry point's check: %s", lib->why);
}
