#include "pack.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "elf.h"
#include "isa.h"
#include "log.h"
#include "manylinux.h"
#include "path.h"
#include "verify.h"
#include "wheel.h"

/* The files of one wheel, with storage for their paths. */
struct file_list {
	struct tf_wheel_file *v; /* owned array */
	size_t nr, alloc;
	struct tf_strvec store;  /* owned: every src and dst string */
	int has_elf;             /* some file starts with the ELF magic */
};

static int is_elf(const char *path)
{
	unsigned char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, magic, sizeof(magic));
	close(fd);
	return n == 4 && !memcmp(magic, "\177ELF", 4);
}

static void add_file(struct file_list *fl, const char *src, const char *dst)
{
	if (fl->nr == fl->alloc) {
		fl->alloc = fl->alloc ? fl->alloc * 2 : 16;
		fl->v = tf_realloc(fl->v, fl->alloc * sizeof(*fl->v));
	}
	tf_strvec_push(&fl->store, src);
	fl->v[fl->nr].src = fl->store.v[fl->store.nr - 1];
	tf_strvec_push(&fl->store, dst);
	fl->v[fl->nr].dst = fl->store.v[fl->store.nr - 1];
	fl->nr++;
	fl->has_elf |= is_elf(src);
}

/* Add src (a file, or a directory and all below it) as dst. */
static int add_tree(const char *src, const char *dst, void *arg)
{
	struct file_list *fl = arg;
	struct stat st;

	if (stat(src, &st) < 0)
		return error_errno("cannot read '%s'", src);
	if (S_ISREG(st.st_mode)) {
		add_file(fl, src, dst);
		return 0;
	}
	if (!S_ISDIR(st.st_mode))
		return error("'%s' is neither a file nor a directory", src);
	return tf_dir_each(src, dst, add_tree, fl);
}

static int collect_rule(const struct tf_plan *p, const struct tf_plan_wheel *pw,
			const struct tf_plan_file *f, struct file_list *fl)
{
	const struct tf_plan_step *ps = &p->steps[f->step];
	struct tf_buf pattern = TF_BUF_INIT, dst = TF_BUF_INIT;
	glob_t g;
	size_t i;
	int ret = 0, rc;

	tf_path_join(&pattern, ps->stage, f->src);
	rc = glob(pattern.buf, GLOB_ERR, NULL, &g);
	if (rc == GLOB_NOMATCH)
		ret = tf_error_at(&f->def->src.pos,
				  "wheel '%s': '%s' matches nothing in the stage of step '%s' (%s)",
				  pw->spec.name, f->src, ps->def->name.s, ps->stage);
	else if (rc)
		ret = error("wheel '%s': cannot search '%s'", pw->spec.name,
			    pattern.buf);
	for (i = 0; !ret && i < g.gl_pathc; i++) {
		tf_buf_reset(&dst);
		if (strcmp(f->dst, "."))
			tf_path_join(&dst, f->dst, tf_path_basename(g.gl_pathv[i]));
		else
			tf_buf_addstr(&dst, tf_path_basename(g.gl_pathv[i]));
		ret = add_tree(g.gl_pathv[i], dst.buf, fl);
	}
	if (rc != GLOB_NOMATCH && rc != GLOB_NOSPACE)
		globfree(&g);
	tf_buf_release(&pattern);
	tf_buf_release(&dst);
	return ret;
}

/* A declared x86-64 minimum also allows GNU property notes up to it. */
static void raise_isa_level(const struct tf_wheel_def *def, int *level)
{
	enum tf_isa_family fam;
	size_t i;
	int l;

	for (i = 0; i < def->nr_isa_minimum; i++)
		if (!tf_isa_level_parse(def->isa_minimum[i].s, &fam, &l) &&
		    fam == TF_ISA_X86_64 && l > *level)
			*level = l;
}

/*
 * Check every ELF file against the wheel's platform and the recipe's
 * declarations before it is packed. Without a platform in the recipe,
 * one is derived into `platform`: "any" with no native code, else the
 * lowest manylinux policy the binaries allow.
 */
static int check_elf(const struct tf_plan *p, const struct tf_plan_wheel *pw,
		     const struct file_list *fl, struct tf_buf *platform)
{
	struct tf_elf_rules rules = TF_ELF_RULES_INIT;
	struct tf_buf context = TF_BUF_INIT, why = TF_BUF_INIT;
	const struct tf_wheel_def *def = pw->def;
	int ret = 0;

	tf_buf_addf(&context, "wheel '%s'", pw->spec.name);
	rules.context = context.buf;
	rules.allow_needed = pw->allow_needed;
	rules.nr_allow_needed = def->nr_allow_needed;
	rules.isa_level = def->isa_level;
	raise_isa_level(def, &rules.isa_level);
	rules.exports = pw->exports;
	rules.nr_exports = def->nr_exports;
	if (pw->spec.platform_tag) {
		if (tf_platform_parse(pw->spec.platform_tag, &rules.platform, &why))
			ret = tf_error_at(&def->platform.pos, "platform '%s': %s",
					  pw->spec.platform_tag, why.buf);
	} else if (!fl->has_elf && !def->nr_exports) {
		tf_buf_addstr(platform, "any");
		rules.platform.kind = TF_PLATFORM_ANY;
	} else {
		tf_platform_compute(&rules.platform,
				    tf_arch_from_name(p->target.name));
	}
	if (!ret)
		ret = tf_elf_check_wheel(fl->v, fl->nr, &rules, platform);
	tf_buf_release(&context);
	tf_buf_release(&why);
	return ret;
}

/*
 * The wheel's ISA declarations (recipe key `isa`) for this target's
 * family: dispatch globs, and the minimum of that family if any. The
 * arrays point into the recipe; free *globs.
 */
static void isa_policy(const struct tf_plan *p, const struct tf_wheel_def *def,
		       struct tf_isa_policy *pol, const char ***globs)
{
	enum tf_isa_family want = !strcmp(p->target.name, "aarch64") ?
				  TF_ISA_AARCH64 : TF_ISA_X86_64, fam;
	size_t i;
	int level;

	*globs = tf_calloc(def->nr_isa_dispatch + 1, sizeof(**globs));
	for (i = 0; i < def->nr_isa_dispatch; i++)
		(*globs)[i] = def->isa_dispatch[i].s;
	pol->dispatch = *globs;
	pol->nr_dispatch = def->nr_isa_dispatch;
	pol->minimum = NULL;
	for (i = 0; i < def->nr_isa_minimum; i++)
		if (!tf_isa_level_parse(def->isa_minimum[i].s, &fam, &level) &&
		    fam == want && level > tf_isa_baseline(fam))
			pol->minimum = def->isa_minimum[i].s;
}

/*
 * Disassemble every ELF file: code above the platform's baseline (or
 * the declared minimum) must be declared as dispatching. The
 * declarations go into the wheel for `tfbuild verify`.
 */
static int check_isa(const struct tf_plan *p, const struct tf_plan_wheel *pw,
		     const struct file_list *fl, struct tf_buf *record)
{
	struct tf_isa_policy pol = TF_ISA_POLICY_INIT;
	struct tf_buf context = TF_BUF_INIT;
	const char **globs;
	size_t i;
	int ret = 0;

	isa_policy(p, pw->def, &pol, &globs);
	tf_buf_addf(&context, "wheel '%s'", pw->spec.name);
	for (i = 0; !ret && i < fl->nr; i++)
		if (tf_isa_audit_file(fl->v[i].src, fl->v[i].dst, context.buf,
				      &pol) < 0)
			ret = -1;
	if (pol.minimum || pol.nr_dispatch)
		tf_isa_policy_format(&pol, record);
	tf_buf_release(&context);
	free(globs);
	return ret;
}

static void file_list_release(struct file_list *fl)
{
	free(fl->v);
	tf_strvec_release(&fl->store);
	memset(fl, 0, sizeof(*fl));
}

/* Pack one wheel into dir and verify it; its path goes to path_out. */
static int pack_one(const struct tf_plan *p, struct tf_plan_wheel *pw,
		    const char *dir, struct tf_buf *path_out)
{
	struct file_list fl = { NULL, 0, 0, TF_STRVEC_INIT, 0 };
	struct tf_wheel_spec spec = pw->spec;
	struct tf_buf platform = TF_BUF_INIT, isa = TF_BUF_INIT;
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < pw->def->nr_files; i++)
		ret = collect_rule(p, pw, &pw->files[i], &fl);
	if (ret)
		goto out;
	ret = check_elf(p, pw, &fl, &platform);
	if (!ret && fl.has_elf)
		ret = check_isa(p, pw, &fl, &isa);
	if (ret)
		goto out;
	if (isa.len)
		spec.isa_record = isa.buf;
	if (!spec.platform_tag)
		spec.platform_tag = platform.buf;
	spec.files = fl.v;
	spec.nr_files = fl.nr;
	ret = tf_wheel_pack(&spec, dir, path_out);
	if (!ret && tf_verify_wheel(path_out->buf))
		ret = error("wheel '%s' failed verification right after packing",
			    spec.name);
out:
	file_list_release(&fl);
	tf_buf_release(&platform);
	tf_buf_release(&isa);
	return ret;
}

/* 1 if both exist with the same bytes: an unchanged wheel is not rewritten. */
static int same_file(const char *a, const char *b)
{
	unsigned char ma[TF_SHA256_LEN], mb[TF_SHA256_LEN];

	if (!tf_path_exists(b))
		return 0;
	return !tf_sha256_file(a, ma, NULL) && !tf_sha256_file(b, mb, NULL) &&
	       !memcmp(ma, mb, sizeof(ma));
}

/* Wheels identical across targets (pure Python) are packed once. */
static int already_made(const struct tf_strvec *made, const char *path,
			int *same)
{
	size_t i;

	for (i = 0; i < made->nr; i++) {
		if (strcmp(tf_path_basename(made->v[i]), tf_path_basename(path)))
			continue;
		*same = same_file(made->v[i], path);
		return 1;
	}
	return 0;
}

static int pack_all(struct tf_plan **plans, size_t nr_plans, const char *tmp,
		    struct tf_strvec *made)
{
	struct tf_buf path = TF_BUF_INIT;
	size_t i, j;
	int ret = 0, same;

	for (i = 0; !ret && i < nr_plans; i++)
		for (j = 0; !ret && j < plans[i]->recipe->nr_wheels; j++) {
			struct tf_buf sub = TF_BUF_INIT;

			/* Each wheel in its own directory: targets may collide. */
			tf_buf_addf(&sub, "%s/%zu-%zu", tmp, i, j);
			tf_buf_reset(&path);
			ret = tf_mkdir_p(sub.buf) ||
			      pack_one(plans[i], &plans[i]->wheels[j], sub.buf, &path);
			tf_buf_release(&sub);
			if (ret)
				break;
			if (!already_made(made, path.buf, &same))
				tf_strvec_push(made, path.buf);
			else if (!same)
				ret = error("wheel '%s' differs between targets but has the same name",
					    tf_path_basename(path.buf));
		}
	tf_buf_release(&path);
	return ret ? -1 : 0;
}

int tf_pack_wheels(struct tf_plan **plans, size_t nr_plans,
		   const char *out_dir, struct tf_strvec *written)
{
	struct tf_strvec made = TF_STRVEC_INIT;
	struct tf_buf tmp = TF_BUF_INIT, dst = TF_BUF_INIT;
	size_t i;
	int ret;

	ret = tf_mkdir_p(out_dir);
	if (!ret)
		ret = tf_mkdtemp_in(out_dir, "tfbuild-wheels", &tmp);
	if (ret)
		goto out;
	ret = pack_all(plans, nr_plans, tmp.buf, &made);
	for (i = 0; !ret && i < made.nr; i++) {
		tf_buf_reset(&dst);
		tf_path_join(&dst, out_dir, tf_path_basename(made.v[i]));
		if (same_file(made.v[i], dst.buf))
			info("%s is unchanged", dst.buf);
		else if (rename(made.v[i], dst.buf) < 0)
			ret = error_errno("cannot move wheel to '%s'", dst.buf);
		if (!ret)
			tf_strvec_push(written, dst.buf);
	}
	tf_rm_rf(tmp.buf);
out:
	tf_strvec_release(&made);
	tf_buf_release(&tmp);
	tf_buf_release(&dst);
	return ret;
}
