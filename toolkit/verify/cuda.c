/*
 * The GPU-code audit: the GPU twin of the ISA audit. A CUDA library
 * carries its kernels in a fatbinary (the .nv_fatbin section): SASS for
 * some GPU architectures (sm_80: runs on those only) and PTX for others
 * (compute_90: compiled by the driver for that one and newer). A wheel
 * whose fatbinary lacks the user's architecture loads and then fails at
 * the first kernel ("no kernel image is available"), so the list is
 * checked here, before shipping, against what the recipe declared
 * (.dist-info/tfbuild/cuda-archs, written from the cuda-archs key).
 *
 * The fatbinary is listed by NVIDIA's cuobjdump, from the index's
 * nvidia-cuda-cuobjdump wheel, named by $TFBUILD_CUOBJDUMP (it is not
 * provisioned yet): only files that have the section are given to it.
 */
#include "verify.h"
#include "verifier.h"

#include <stdlib.h>
#include <string.h>

#include "audit/audit.h"
#include "base/base.h"
#include "metadata/metadata.h"

/* What cuobjdump's lists may say: a few lines a cubin (some 15 KiB for
   a 400 MB plugin), kept whole up to this. */
#define LIST_CAP (4u << 20)

void tf_verify_cuda_release(struct verifier *v)
{
	tf_buf_release(&v->cuda_text);
	tf_strvec_release(&v->cuda_archs);
	v->cuda_parsed = 0;
}

/* The record's lines into v->cuda_archs; -1 after a defect. */
static int read_declared(struct verifier *v, const char *entry)
{
	char *line, *next;

	v->cuda_parsed = 1;
	for (line = v->cuda_text.buf; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (!*line)
			continue;
		if (!tf_cuda_arch_is_valid(line))
			return tf_verify_defect(v, entry,
						"'%s' is not a CUDA "
						"architecture (sm_NN or "
						"compute_NN)",
						line);
		if (!tf_strvec_has(&v->cuda_archs, line))
			tf_strvec_push(&v->cuda_archs, line);
	}
	if (!v->cuda_archs.nr)
		return tf_verify_defect(v, entry, "declares no architecture");
	return 0;
}

/*
 * From one line of `cuobjdump --list-elf` ("ELF file 1: x.1.sm_80.cubin")
 * or `--list-ptx` ("PTX file 1: x.1.sm_90.ptx"), the architecture: the
 * name's last component before the suffix; PTX is named compute_NN.
 */
static void add_listed(struct tf_strvec *out, const char *line,
		       const char *kind, const char *suffix)
{
	const char *name = strstr(line, ": "), *end, *dot;
	struct tf_buf arch = TF_BUF_INIT;
	size_t sl = strlen(suffix);

	if (strncmp(line, kind, strlen(kind)) || !name)
		return;
	name += 2;
	end = name + strlen(name);
	if ((size_t)(end - name) <= sl || strcmp(end - sl, suffix))
		return;
	end -= sl;
	for (dot = end; dot > name && dot[-1] != '.'; dot--)
		;
	if (!strcmp(suffix, ".ptx") && !strncmp(dot, "sm_", 3))
		tf_buf_addf(&arch, "compute_%.*s", (int)(end - dot - 3),
			    dot + 3);
	else
		tf_buf_add(&arch, dot, (size_t)(end - dot));
	if (tf_cuda_arch_is_valid(arch.buf) && !tf_strvec_has(out, arch.buf))
		tf_strvec_push(out, arch.buf);
	tf_buf_release(&arch);
}

/* Run `cuobjdump OPTION tmp` and add what it lists to found. */
static int list(const struct verifier *v, const char *tool, const char *tmp,
		const char *name, const char *option, struct tf_strvec *found)
{
	const char *argv[] = { tool, option, tmp, NULL };
	const int ptx = !strcmp(option, "--list-ptx");
	struct tf_buf out = TF_BUF_INIT, why = TF_BUF_INIT;
	char *line, *next;
	int status = tf_run_tool(argv, NULL, &out, LIST_CAP);

	if (status) {
		tf_run_describe_status(status, &why);
		tf_verify_defect(v, name,
				 "cannot list its GPU code: '%s %s' "
				 "failed (%s): %.200s",
				 tool, option, why.buf, out.buf);
		tf_buf_release(&out);
		tf_buf_release(&why);
		return -1;
	}
	for (line = out.buf; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		add_listed(found, line, ptx ? "PTX file" : "ELF file",
			   ptx ? ".ptx" : ".cubin");
	}
	tf_buf_release(&out);
	return 0;
}

/* Check what name carries against what the wheel declares. */
static int check(struct verifier *v, const char *name,
		 const struct tf_strvec *found, const char *carried)
{
	char *entry = tf_xstrfmt("%s/%s", v->distinfo.buf, TF_CUDA_RECORD);
	size_t i;
	int ret = 0;

	if (!v->have_cuda) {
		if (v->by_tfbuild)
			ret = tf_verify_defect(v, name,
					       "carries GPU code (%s) but the "
					       "wheel declares no CUDA "
					       "architectures (cuda-archs)",
					       carried);
		goto out;
	}
	if (!v->cuda_parsed && read_declared(v, entry) < 0) {
		ret = -1;
		goto out;
	}
	for (i = 0; !ret && i < v->cuda_archs.nr; i++)
		if (!tf_strvec_has(found, v->cuda_archs.v[i]))
			ret = tf_verify_defect(v, name,
					       "its GPU code lacks the "
					       "declared architecture %s "
					       "(it carries %s)",
					       v->cuda_archs.v[i], carried);
out:
	free(entry);
	return ret;
}

int tf_verify_cuda_file(struct verifier *v, const char *tmp, const char *name)
{
	struct tf_strvec found = TF_STRVEC_INIT;
	struct tf_buf carried = TF_BUF_INIT;
	const char *tool = getenv("TFBUILD_CUOBJDUMP");
	int ret = tf_elf_has_section(tmp, name, ".nv_fatbin");

	if (ret <= 0)
		return ret;
	if (!tool || !*tool) {
		if (v->have_cuda || v->by_tfbuild)
			return tf_verify_defect(v, name,
						"carries GPU code (.nv_fatbin) "
						"and no cuobjdump is given to "
						"list it (TFBUILD_CUOBJDUMP)");
		verbose("%s: %s: GPU code not listed: no cuobjdump "
			"(TFBUILD_CUOBJDUMP)",
			v->path, name);
		return 0;
	}
	if (list(v, tool, tmp, name, "--list-elf", &found) < 0 ||
	    list(v, tool, tmp, name, "--list-ptx", &found) < 0) {
		ret = -1;
		goto out;
	}
	qsort(found.v, found.nr, sizeof(*found.v), tf_cuda_arch_cmp);
	tf_strvec_join(&found, " ", &carried);
	if (!found.nr)
		tf_buf_addstr(&carried, "no architecture cuobjdump can list");
	verbose("%s: %s: GPU code: %s", v->path, name, carried.buf);
	ret = check(v, name, &found, carried.buf);
out:
	tf_strvec_release(&found);
	tf_buf_release(&carried);
	return ret;
}
