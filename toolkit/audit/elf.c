#include "elf.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "abi3.h"
#include "base/base.h"

/* Page size aarch64 wheels must be linked for: 64 KiB kernels exist. */
#define AARCH64_PAGE 65536

/* A .gnu.version entry: the version index, and a bit set when the symbol
   is a non-default version (foo@V, not foo@@V) that plain lookups skip. */
#define VERSYM_VERSION 0x7fff
#define VERSYM_HIDDEN 0x8000

/* Which exported symbols to keep while reading. */
struct want {
	int all;                  /* keep every exported symbol */
	const char *const *names; /* else only these (borrowed strings) */
	size_t nr;
	struct tf_strvec *undefined; /* NULL, or where strong undefined
					symbols go (tf_elf_read_undefined) */
};

struct reader {
	Elf *elf;
	const char *shown;       /* the file, for messages */
	struct tf_elf_info *out;
	const struct want *want;
	Elf_Scn *dynsym, *versym, *verneed;
	int dynamic_segment;     /* has PT_DYNAMIC */
	int dynamic_section;     /* has SHT_DYNAMIC */
	int has_shoff;           /* the ELF header points at section headers */
	int has_phnum;           /* the ELF header counts program headers */
};

static int bad(const struct reader *r, const char *what)
{
	return error("%s: malformed ELF: %s", r->shown, what);
}

static int bad_libelf(const struct reader *r, const char *what)
{
	return error("%s: malformed ELF: %s: %s", r->shown, what,
		     elf_errmsg(-1));
}

/* The size of one ELF_T_x item in the file, never 0. */
static size_t item_size(const struct reader *r, Elf_Type type)
{
	size_t n = gelf_fsize(r->elf, type, 1, EV_CURRENT);

	return n ? n : 1;
}

static int read_header(struct reader *r)
{
	GElf_Ehdr eh;
	int cls;

	if (!gelf_getehdr(r->elf, &eh))
		return bad_libelf(r, "cannot read the ELF header");
	cls = gelf_getclass(r->elf);
	if (cls != ELFCLASS32 && cls != ELFCLASS64)
		return bad(r, "unknown ELF class");
	if (eh.e_ident[EI_DATA] != ELFDATA2LSB &&
	    eh.e_ident[EI_DATA] != ELFDATA2MSB)
		return bad(r, "unknown byte order");
	r->out->elf_class = cls == ELFCLASS64 ? 64 : 32;
	r->out->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	r->out->machine = eh.e_machine;
	r->out->type = eh.e_type;
	r->has_shoff = eh.e_shoff != 0;
	r->has_phnum = eh.e_phnum != 0;
	return 0;
}

static int read_segments(struct reader *r)
{
	unsigned long long align;
	GElf_Phdr ph;
	size_t i, n;

	if (elf_getphdrnum(r->elf, &n))
		return bad_libelf(r, "cannot count program headers");
	/* libelf shows none when their table is cut off. */
	if (r->has_phnum && !n)
		return bad(r, "program headers lie outside the file");
	for (i = 0; i < n && i < INT_MAX; i++) {
		if (!gelf_getphdr(r->elf, (int)i, &ph))
			return bad_libelf(r, "cannot read a program header");
		if (ph.p_type == PT_DYNAMIC)
			r->dynamic_segment = 1;
		if (ph.p_type == PT_GNU_STACK && (ph.p_flags & PF_X))
			r->out->exec_stack = 1;
		if (ph.p_type != PT_LOAD)
			continue;
		/* p_align 0 and 1 both mean no alignment. */
		align = ph.p_align ? ph.p_align : 1;
		if (!r->out->min_load_align || align < r->out->min_load_align)
			r->out->min_load_align = align;
	}
	return 0;
}

/* Keep the first DT_SONAME, DT_RPATH or DT_RUNPATH. */
static void keep_first(char **slot, const char *s)
{
	if (!*slot)
		*slot = tf_strdup(s);
}

static int read_dynamic(struct reader *r, Elf_Scn *scn, const GElf_Shdr *sh)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	const char *s;
	GElf_Dyn dyn;
	size_t i, n;

	if (!d)
		return bad_libelf(r, "cannot read the dynamic section");
	n = d->d_size / item_size(r, ELF_T_DYN);
	for (i = 0; i < n && i < INT_MAX; i++) {
		if (!gelf_getdyn(d, (int)i, &dyn))
			return bad_libelf(r, "cannot read a dynamic entry");
		if (dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_SONAME &&
		    dyn.d_tag != DT_RPATH && dyn.d_tag != DT_RUNPATH)
			continue;
		s = elf_strptr(r->elf, sh->sh_link, dyn.d_un.d_val);
		if (!s)
			return bad(r, "a dynamic entry names no string");
		if (dyn.d_tag == DT_NEEDED)
			tf_strvec_push(&r->out->needed, s);
		else if (dyn.d_tag == DT_SONAME)
			keep_first(&r->out->soname, s);
		else if (dyn.d_tag == DT_RPATH)
			keep_first(&r->out->rpath, s);
		else
			keep_first(&r->out->runpath, s);
	}
	return 0;
}

static unsigned get32(const struct reader *r, const unsigned char *p)
{
	if (r->out->big_endian)
		return (unsigned)p[0] << 24 | (unsigned)p[1] << 16 |
		       (unsigned)p[2] << 8 | p[3];
	return (unsigned)p[3] << 24 | (unsigned)p[2] << 16 |
	       (unsigned)p[1] << 8 | p[0];
}

/*
 * A GNU property note's descriptor is an array of (type, size, data)
 * records, each padded to the class's word size. libelf frames notes but
 * leaves their contents to us. A malformed array is ignored, as glibc's
 * loader ignores it.
 */
static void read_properties(struct reader *r, const unsigned char *p,
			    size_t size)
{
	size_t align = r->out->elf_class == 64 ? 8 : 4, step;
	unsigned type, datasz;

	while (size >= 8) {
		type = get32(r, p);
		datasz = get32(r, p + 4);
		if (datasz > size - 8)
			return;
		if (type == GNU_PROPERTY_X86_ISA_1_NEEDED && datasz == 4)
			r->out->x86_isa_needed |= get32(r, p + 8);
		step = 8 + (datasz + align - 1) / align * align;
		if (step > size)
			return;
		p += step;
		size -= step;
	}
}

static int read_notes(struct reader *r, Elf_Scn *scn)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t off = 0, next, name_off, desc_off;
	GElf_Nhdr nh;

	if (!d)
		return bad_libelf(r, "cannot read a note section");
	while (off < d->d_size &&
	       (next = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
		const unsigned char *buf = d->d_buf;

		if (nh.n_type == NT_GNU_PROPERTY_TYPE_0 && nh.n_namesz == 4 &&
		    !memcmp(buf + name_off, "GNU", 4))
			read_properties(r, buf + desc_off, nh.n_descsz);
		off = next;
	}
	return 0;
}

static void add_version(struct tf_elf_info *out, const char *library,
			const char *name, unsigned index)
{
	size_t n = out->nr_versions + 1;
	struct tf_elf_version *v;

	out->versions = tf_realloc(out->versions, n * sizeof(*v));
	v = &out->versions[out->nr_versions++];
	v->library = tf_strdup(library);
	v->name = tf_strdup(name);
	v->symbol = NULL;
	v->index = index;
}

static int read_vernaux(struct reader *r, Elf_Data *d, size_t link,
			size_t off, unsigned count, const char *library)
{
	GElf_Vernaux aux;
	const char *name;
	unsigned i;

	for (i = 0; i < count; i++) {
		if (off > INT_MAX || !gelf_getvernaux(d, (int)off, &aux))
			return bad_libelf(r, "cannot read a needed version");
		name = elf_strptr(r->elf, link, aux.vna_name);
		if (!name)
			return bad(r, "a needed version has no name");
		add_version(r->out, library, name, aux.vna_other);
		if (!aux.vna_next)
			break;
		off += aux.vna_next;
	}
	return 0;
}

/* .gnu.version_r: for each library, the versions needed from it. */
static int read_verneed(struct reader *r)
{
	Elf_Data *d = elf_getdata(r->verneed, NULL);
	const char *library;
	GElf_Verneed vn;
	GElf_Shdr sh;
	size_t off = 0, i;

	if (!d || !gelf_getshdr(r->verneed, &sh))
		return bad_libelf(r, "cannot read version needs");
	for (i = 0; i < sh.sh_info; i++) {
		if (off > INT_MAX || !gelf_getverneed(d, (int)off, &vn))
			return bad_libelf(r, "cannot read version needs");
		library = elf_strptr(r->elf, sh.sh_link, vn.vn_file);
		if (!library)
			return bad(r, "a version need names no library");
		if (read_vernaux(r, d, sh.sh_link, off + vn.vn_aux, vn.vn_cnt,
				 library))
			return -1;
		if (!vn.vn_next)
			break;
		off += vn.vn_next;
	}
	return 0;
}

static int read_sections(struct reader *r)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int ret = 0;
	size_t n;

	if (elf_getshdrnum(r->elf, &n))
		return bad_libelf(r, "cannot count section headers");
	/* As for program headers. */
	if (r->has_shoff && !n)
		return bad(r, "section headers lie outside the file");
	while (!ret && (scn = elf_nextscn(r->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return bad_libelf(r, "cannot read a section header");
		if (sh.sh_type == SHT_DYNAMIC) {
			r->dynamic_section = 1;
			ret = read_dynamic(r, scn, &sh);
		} else if (sh.sh_type == SHT_NOTE) {
			ret = read_notes(r, scn);
		} else if (sh.sh_type == SHT_DYNSYM) {
			r->dynsym = scn;
		} else if (sh.sh_type == SHT_GNU_versym) {
			r->versym = scn;
		} else if (sh.sh_type == SHT_GNU_verneed) {
			r->verneed = scn;
		}
	}
	if (ret)
		return -1;
	/* What the loader reads could not be checked: refuse, don't guess. */
	if (r->dynamic_segment && !r->dynamic_section)
		return bad(r, "dynamic segment without a dynamic section "
			      "(section headers stripped?)");
	return r->verneed ? read_verneed(r) : 0;
}

/* Remember the bytewise first undefined symbol bound to version index. */
static void note_version_user(struct tf_elf_info *out, unsigned index,
			      const char *name)
{
	size_t i;

	for (i = 0; i < out->nr_versions; i++) {
		struct tf_elf_version *v = &out->versions[i];

		if (v->index != index ||
		    (v->symbol && strcmp(name, v->symbol) >= 0))
			continue;
		free(v->symbol);
		v->symbol = tf_strdup(name);
	}
}

static int is_exported(const GElf_Sym *sym, GElf_Versym vs, const char *name)
{
	int bind = GELF_ST_BIND(sym->st_info);
	int type = GELF_ST_TYPE(sym->st_info);
	int vis = GELF_ST_VISIBILITY(sym->st_other);

	return *name && (bind == STB_GLOBAL || bind == STB_WEAK ||
			 bind == STB_GNU_UNIQUE) &&
	       (vis == STV_DEFAULT || vis == STV_PROTECTED) &&
	       type != STT_SECTION && type != STT_FILE &&
	       !(vs & VERSYM_HIDDEN);
}

static void add_export(struct reader *r, const char *name)
{
	size_t i;

	for (i = 0; !r->want->all && i < r->want->nr; i++)
		if (!strcmp(r->want->names[i], name))
			break;
	if (r->want->all || i < r->want->nr)
		tf_strvec_push(&r->out->exports, name);
}

/* "name" when unversioned, "name\tLIBRARY" when bound to a version of LIBRARY. */
static void add_undefined(struct reader *r, const char *name, unsigned index)
{
	size_t i;

	for (i = 0; index > 1 && i < r->out->nr_versions; i++)
		if (r->out->versions[i].index == index) {
			tf_strvec_push_take(r->want->undefined, tf_xstrfmt(
				"%s\t%s", name, r->out->versions[i].library));
			return;
		}
	tf_strvec_push(r->want->undefined, name);
}

static int read_symbols(struct reader *r)
{
	Elf_Data *d, *vd = NULL;
	size_t i, n, nv = 0;
	const char *name;
	GElf_Versym vs;
	GElf_Shdr sh;
	GElf_Sym sym;

	if (!r->dynsym)
		return 0;
	d = elf_getdata(r->dynsym, NULL);
	if (!d || !gelf_getshdr(r->dynsym, &sh))
		return bad_libelf(r, "cannot read the dynamic symbols");
	if (r->versym && (vd = elf_getdata(r->versym, NULL)))
		nv = vd->d_size / item_size(r, ELF_T_HALF);
	n = d->d_size / item_size(r, ELF_T_SYM);
	for (i = 1; i < n && i < INT_MAX; i++) {
		if (!gelf_getsym(d, (int)i, &sym))
			return bad_libelf(r, "cannot read a dynamic symbol");
		if (i >= nv || !gelf_getversym(vd, (int)i, &vs))
			vs = VER_NDX_GLOBAL;
		name = elf_strptr(r->elf, sh.sh_link, sym.st_name);
		if (!name)
			return bad(r, "a dynamic symbol has no name");
		if (sym.st_shndx == SHN_UNDEF &&
		    tf_abi3_is_python_symbol(name))
			tf_strvec_push(&r->out->python_imports, name);
		if (sym.st_shndx == SHN_UNDEF) {
			note_version_user(r->out, vs & VERSYM_VERSION, name);
			if (r->want->undefined && *name &&
			    GELF_ST_BIND(sym.st_info) != STB_WEAK)
				add_undefined(r, name, vs & VERSYM_VERSION);
		} else if (is_exported(&sym, vs, name))
			add_export(r, name);
	}
	return 0;
}

static void sort_unique(struct tf_strvec *sv)
{
	size_t i, j = 0;

	if (!sv->nr)
		return;
	qsort(sv->v, sv->nr, sizeof(*sv->v), tf_strcmp_ptr);
	for (i = 1; i < sv->nr; i++) {
		if (!strcmp(sv->v[i], sv->v[j]))
			free(sv->v[i]);
		else
			sv->v[++j] = sv->v[i];
	}
	sv->nr = j + 1;
	sv->v[sv->nr] = NULL;
}

/* 1 if fd starts with the ELF magic, 0 if not, -1 with errno on error. */
static int has_elf_magic(int fd)
{
	unsigned char magic[SELFMAG];
	ssize_t n = pread(fd, magic, sizeof(magic), 0);

	if (n < 0)
		return -1;
	return n == SELFMAG && !memcmp(magic, ELFMAG, SELFMAG);
}

/* Open path: 0 with *fd open on an ELF file, 1 if it is not ELF, -1. */
static int open_elf(const char *path, const char *shown, int *fd)
{
	int magic, ret;

	/* O_NONBLOCK: a FIFO in a stage must not hang the check. */
	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (*fd < 0)
		return error_errno("%s: cannot open '%s'", shown, path);
	magic = has_elf_magic(*fd);
	if (magic < 0)
		ret = error_errno("%s: cannot read '%s'", shown, path);
	else if (!magic)
		ret = 1;
	else if (elf_version(EV_CURRENT) == EV_NONE)
		ret = error("libelf: %s", elf_errmsg(-1));
	else
		return 0;
	close(*fd);
	return ret;
}

static int read_elf(const char *path, const char *shown,
		    struct tf_elf_info *out, const struct want *want)
{
	struct reader r = { NULL, shown, out, want, NULL, NULL, NULL,
			    0, 0, 0, 0 };
	int fd, ret;

	tf_elf_info_release(out);
	ret = open_elf(path, shown, &fd);
	if (ret)
		return ret;
	r.elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!r.elf)
		ret = bad_libelf(&r, "cannot read the file");
	else if (elf_kind(r.elf) != ELF_K_ELF)
		ret = bad(&r, "not an ELF object");
	else if (read_header(&r) || read_segments(&r) || read_sections(&r) ||
		 read_symbols(&r))
		ret = -1;
	elf_end(r.elf);
	close(fd);
	if (ret) {
		tf_elf_info_release(out);
	} else {
		sort_unique(&out->exports);
		sort_unique(&out->python_imports);
	}
	return ret;
}

int tf_elf_read(const char *path, const char *shown, struct tf_elf_info *out)
{
	struct want all = { 1, NULL, 0, NULL };

	return read_elf(path, shown, out, &all);
}

int tf_elf_read_undefined(const char *path, const char *shown,
			  struct tf_elf_info *out, struct tf_strvec *undefined)
{
	struct want all = { 1, NULL, 0, undefined };

	return read_elf(path, shown, out, &all);
}

int tf_elf_read_exports(const char *path, const char *shown,
			struct tf_elf_info *out, const char *const *names,
			size_t nr)
{
	struct want some = { 0, names, nr, NULL };

	return read_elf(path, shown, out, &some);
}

void tf_elf_info_release(struct tf_elf_info *info)
{
	struct tf_elf_info empty = TF_ELF_INFO_INIT;
	size_t i;

	if (!info)
		return;
	tf_strvec_release(&info->needed);
	tf_strvec_release(&info->exports);
	tf_strvec_release(&info->python_imports);
	free(info->soname);
	free(info->rpath);
	free(info->runpath);
	for (i = 0; i < info->nr_versions; i++) {
		free(info->versions[i].library);
		free(info->versions[i].name);
		free(info->versions[i].symbol);
	}
	free(info->versions);
	*info = empty;
}

int tf_elf_x86_isa_level(unsigned bits)
{
	if (bits & GNU_PROPERTY_X86_ISA_1_V4)
		return 4;
	if (bits & GNU_PROPERTY_X86_ISA_1_V3)
		return 3;
	if (bits & GNU_PROPERTY_X86_ISA_1_V2)
		return 2;
	return bits & GNU_PROPERTY_X86_ISA_1_BASELINE ? 1 : 0;
}

const char *tf_elf_machine_name(unsigned machine, char buf[32])
{
	static const struct {
		unsigned machine;
		const char *name;
	} names[] = {
		{ EM_X86_64, "x86-64" }, { EM_AARCH64, "aarch64" },
		{ EM_386, "i386" },      { EM_ARM, "arm" },
		{ EM_PPC64, "ppc64" },   { EM_PPC, "ppc" },
		{ EM_S390, "s390" },     { EM_RISCV, "riscv" },
		{ EM_MIPS, "mips" },     { EM_SPARCV9, "sparc64" },
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].machine == machine)
			return names[i].name;
	snprintf(buf, 32, "machine %u", machine);
	return buf;
}

/* Apply path to dir ('/'-separated, "" for the root); -1 if it leaves it. */
static int walk(struct tf_buf *dir, const char *path)
{
	while (*path) {
		size_t n = strcspn(path, "/");

		if (n == 2 && !strncmp(path, "..", 2)) {
			char *slash = strrchr(dir->buf, '/');

			if (!dir->len)
				return -1;
			tf_buf_setlen(dir, slash ? slash - dir->buf : 0);
		} else if (n && !(n == 1 && *path == '.')) {
			if (dir->len)
				tf_buf_addch(dir, '/');
			tf_buf_add(dir, path, n);
		}
		path += n + (path[n] == '/');
	}
	return 0;
}

int tf_elf_origin_dir(const char *file_in_wheel, const char *entry,
		      struct tf_buf *out)
{
	const char *slash = strrchr(file_in_wheel, '/'), *rest;
	struct tf_buf dir = TF_BUF_INIT;
	int ret = -1;

	if (!strncmp(entry, "$ORIGIN", 7))
		rest = entry + 7;
	else if (!strncmp(entry, "${ORIGIN}", 9))
		rest = entry + 9;
	else
		return -1;
	if ((*rest && *rest != '/') || strchr(rest, '$'))
		return -1;
	if (slash)
		tf_buf_add(&dir, file_in_wheel, slash - file_in_wheel);
	if (!walk(&dir, rest)) {
		tf_buf_add(out, dir.buf, dir.len);
		ret = 0;
	}
	tf_buf_release(&dir);
	return ret;
}

/* Checking one file against the rules. */
struct checker {
	const struct tf_elf_rules *rules;
	const struct tf_elf_info *info;
	const char *shown; /* path inside the wheel */
	const struct tf_manylinux_policy *policy; /* requested; NULL: none */
};

/* "CONTEXT: " when there is a context, for messages. */
static void add_context(struct tf_buf *msg, const char *context)
{
	if (context)
		tf_buf_addf(msg, "%s: ", context);
}

/* Print one line; error() cleans bytes from untrusted files. */
static int print_line(struct tf_buf *msg)
{
	error("%s", msg->buf);
	tf_buf_release(msg);
	return -1;
}

static int refuse(const struct checker *c, const char *fmt, ...)
	TF_PRINTF(2, 3);
static int refuse(const struct checker *c, const char *fmt, ...)
{
	struct tf_buf msg = TF_BUF_INIT;
	va_list ap;

	add_context(&msg, c->rules->context);
	tf_buf_addf(&msg, "%s: ", c->shown);
	va_start(ap, fmt);
	tf_buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	return print_line(&msg);
}

/* The requested policy; -1 (printed) if that policy was never published. */
static int find_policy(const struct tf_elf_rules *rules,
		       const struct tf_manylinux_policy **out)
{
	const struct tf_platform *p = &rules->platform;
	const char *arch = tf_arch_name(p->arch);
	struct tf_buf msg = TF_BUF_INIT;

	*out = NULL;
	if (p->kind != TF_PLATFORM_MANYLINUX || !p->glibc_minor)
		return 0;
	*out = tf_manylinux_find(p->arch, p->glibc_minor);
	if (*out)
		return 0;
	add_context(&msg, rules->context);
	tf_buf_addf(&msg, "platform 'manylinux_2_%u_%s': no published "
		    "manylinux policy for glibc 2.%u on %s", p->glibc_minor,
		    arch, p->glibc_minor, arch);
	return print_line(&msg);
}

static unsigned arch_machine(enum tf_arch arch)
{
	return arch == TF_ARCH_X86_64 ? EM_X86_64 : EM_AARCH64;
}

static int check_arch(const struct checker *c)
{
	const struct tf_platform *p = &c->rules->platform;
	const char *plat = tf_arch_name(p->arch);
	char buf[32];

	if (p->kind == TF_PLATFORM_ANY ||
	    c->info->machine != arch_machine(p->arch))
		return refuse(c, "ELF machine %s does not match platform %s",
			      tf_elf_machine_name(c->info->machine, buf), plat);
	if (c->info->elf_class != 64)
		return refuse(c, "ELF class %d-bit does not match platform %s "
			      "(64-bit)", c->info->elf_class, plat);
	if (c->info->big_endian)
		return refuse(c, "ELF byte order big-endian does not match "
			      "platform %s (little-endian)", plat);
	return 0;
}

static int check_pages(const struct checker *c)
{
	unsigned long long align = c->info->min_load_align;

	if (c->rules->platform.arch != TF_ARCH_AARCH64 || !align ||
	    align >= AARCH64_PAGE)
		return 0;
	return refuse(c, "is linked for %llu-byte pages; aarch64 wheels need "
		      "%d (link with -Wl,-z,max-page-size=%d)", align,
		      AARCH64_PAGE, AARCH64_PAGE);
}

static int check_libpython(const struct checker *c)
{
	size_t i;

	for (i = 0; i < c->info->needed.nr; i++)
		if (!strncmp(c->info->needed.v[i], "libpython", 9))
			return refuse(c, "links '%s' (DT_NEEDED); Python "
				      "extension modules must not link "
				      "libpython", c->info->needed.v[i]);
	return 0;
}

static int in_list(const char *const *v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return 1;
	return 0;
}

/* The file's run path: RUNPATH, else RPATH (the loader ignores RPATH then). */
static const char *run_path(const struct tf_elf_info *info)
{
	return info->runpath ? info->runpath : info->rpath;
}

/* 1 if the wheel ships lib where the file's $ORIGIN run path finds it. */
static int shipped(const struct tf_elf_rules *rules,
		   const struct tf_elf_info *info, const char *shown,
		   const char *lib)
{
	const char *path = run_path(info);
	struct tf_buf dir = TF_BUF_INIT;
	int found = 0;

	while (path && *path && !found && !strchr(lib, '/')) {
		size_t n = strcspn(path, ":");
		char *entry = tf_strndup(path, n);

		tf_buf_reset(&dir);
		if (!tf_elf_origin_dir(shown, entry, &dir)) {
			if (dir.len)
				tf_buf_addch(&dir, '/');
			tf_buf_addstr(&dir, lib);
			found = in_list(rules->wheel_files,
					rules->nr_wheel_files, dir.buf);
		}
		free(entry);
		path += n + (path[n] == ':');
	}
	tf_buf_release(&dir);
	return found;
}

/*
 * 1 if DT_NEEDED lib needs no allow-list: the loader, a system library
 * (allow-needed), shipped in the wheel, or declared provided or system.
 * Declarations are checked by resolve_needed() first.
 */
static int needed_exempt(const struct tf_elf_rules *rules,
			 const struct tf_elf_info *info, const char *shown,
			 const char *lib)
{
	const struct tf_lib *d = tf_libs_find(rules->libs, rules->nr_libs, lib);

	return !strcmp(lib, tf_arch_loader(rules->platform.arch)) ||
	       in_list(rules->allow_needed, rules->nr_allow_needed, lib) ||
	       (d && d->kind != TF_LIB_VENDOR) ||
	       shipped(rules, info, shown, lib);
}

/*
 * Check how lib is resolved when the recipe (or the wheel's record)
 * declares it: the one rule pack and verify share. Returns 1 when it is
 * resolved, 0 when the allow-list decides, -1 after printing why not.
 */
static int resolve_needed(const struct checker *c, const char *lib)
{
	const struct tf_elf_rules *r = c->rules;
	const struct tf_lib *d = tf_libs_find(r->libs, r->nr_libs, lib);
	const char *path = run_path(c->info);

	if (!d)
		return needed_exempt(r, c->info, c->shown, lib);
	switch (d->kind) {
	case TF_LIB_SYSTEM:
		return 1;
	case TF_LIB_VENDOR:
		if (shipped(r, c->info, c->shown, lib))
			return 1;
		return refuse(c, "needs '%s' (DT_NEEDED), declared vendored, "
			      "which is not shipped in the wheel on an $ORIGIN "
			      "RUNPATH", lib);
	case TF_LIB_PROVIDED:
		if (!tf_libs_runpath_has(path, d->runpath))
			return refuse(c, "needs '%s' (DT_NEEDED) from '%s', but "
				      "its RUNPATH ('%s') lacks '%s'", lib,
				      d->from, path ? path : "", d->runpath);
		if (!tf_libs_requirement_listed(d->from, r->requires,
						r->nr_requires))
			return refuse(c, "needs '%s' (DT_NEEDED) from '%s', "
				      "which is not in Requires-Dist", lib,
				      d->from);
		return 1;
	case TF_LIB_FRAMEWORK:
		/* Loaded by the framework before the wheel's binaries;
		   framework.c checked the symbols against it. */
		if (!tf_libs_requirement_listed(d->from, r->requires,
						r->nr_requires))
			return refuse(c, "needs '%s' (DT_NEEDED) from framework "
				      "'%s', which is not in Requires-Dist", lib,
				      d->from);
		return 1;
	}
	return 0;
}

/* Under linux_* and musllinux_* the manylinux allow-list is not the rule:
   what is left is reported. */
static int report_needed(const struct checker *c, const char *lib)
{
	verbose("%s%s%s: needs '%s' (DT_NEEDED), left to the system: "
		"platform is not manylinux",
		c->rules->context ? c->rules->context : "",
		c->rules->context ? ": " : "", c->shown, lib);
	return 0;
}

/*
 * A cp3X-abi3 wheel: every Python C API symbol imported must be in the
 * stable ABI of Python 3.X, as `abi3audit --strict` checks.
 */
static int check_abi3(const struct checker *c)
{
	int want = c->rules->abi3_minor, since;
	size_t i;

	for (i = 0; want && i < c->info->python_imports.nr; i++) {
		const char *sym = c->info->python_imports.v[i];

		since = tf_abi3_since(sym);
		if (!since)
			return refuse(c, "imports '%s', which is not in the "
				      "stable ABI (abi3)", sym);
		if (since > want)
			return refuse(c, "imports '%s', in the stable ABI only "
				      "from Python 3.%d, but the wheel is tagged "
				      "cp3%d-abi3", sym, since, want);
	}
	return 0;
}

/* With -v, what `auditwheel show` would say of the file. */
static int report_facts(const struct checker *c)
{
	const char *ctx = c->rules->context ? c->rules->context : "";
	const char *sep = c->rules->context ? ": " : "";
	const char *path = run_path(c->info);
	size_t i;

	if (tf_verbosity < 2)
		return 0;
	if (path)
		verbose("%s%s%s: %s '%s'", ctx, sep, c->shown,
			c->info->runpath ? "RUNPATH" : "RPATH", path);
	for (i = 0; i < c->info->needed.nr; i++) {
		const char *lib = c->info->needed.v[i];
		const struct tf_lib *d = tf_libs_find(c->rules->libs,
						      c->rules->nr_libs, lib);

		if (shipped(c->rules, c->info, c->shown, lib))
			verbose("%s%s%s: needs '%s': shipped in the wheel",
				ctx, sep, c->shown, lib);
		else if (d && d->kind == TF_LIB_PROVIDED)
			verbose("%s%s%s: needs '%s': provided by '%s'", ctx,
				sep, c->shown, lib, d->from);
		else if (d && d->kind == TF_LIB_FRAMEWORK)
			verbose("%s%s%s: needs '%s': provided by framework '%s'",
				ctx, sep, c->shown, lib, d->from);
		else if (d || in_list(c->rules->allow_needed,
				      c->rules->nr_allow_needed, lib))
			verbose("%s%s%s: needs '%s': a system library", ctx,
				sep, c->shown, lib);
	}
	return 0;
}

/* A musllinux wheel must not need glibc's libc, loader or symbol versions. */
static int check_musl(const struct checker *c)
{
	size_t i;

	if (c->rules->platform.kind != TF_PLATFORM_MUSLLINUX)
		return 0;
	for (i = 0; i < c->info->needed.nr; i++) {
		const char *lib = c->info->needed.v[i];

		if (!strcmp(lib, "libc.so.6") || !strncmp(lib, "ld-linux", 8))
			return refuse(c, "needs '%s' (DT_NEEDED), a glibc "
				      "library, but the platform is musllinux",
				      lib);
	}
	for (i = 0; i < c->info->nr_versions; i++)
		if (!strncmp(c->info->versions[i].name, "GLIBC_", 6))
			return refuse(c, "needs %s, a glibc symbol version, but "
				      "the platform is musllinux",
				      c->info->versions[i].name);
	return 0;
}

static int check_needed(const struct checker *c)
{
	const struct tf_platform *p = &c->rules->platform;
	unsigned minor = c->policy ? c->policy->glibc_minor : 0;
	struct tf_buf list = TF_BUF_INIT;
	const char *lib;
	size_t i;
	int since;

	for (i = 0; i < c->info->needed.nr; i++) {
		lib = c->info->needed.v[i];
		since = resolve_needed(c, lib);
		if (since < 0)
			return -1;
		if (since)
			continue;
		since = tf_manylinux_library_since(p->arch, lib);
		if (since && (!c->policy || (unsigned)since <= minor))
			continue;
		if (p->kind != TF_PLATFORM_MANYLINUX) {
			report_needed(c, lib);
			continue;
		}
		if (c->policy)
			tf_buf_addf(&list, "manylinux_2_%u", minor);
		else
			tf_buf_addstr(&list, "manylinux");
		since = refuse(c, "needs '%s' (DT_NEEDED), which is neither "
			       "in the %s allow-list nor shipped in the wheel "
			       "on an $ORIGIN RUNPATH", lib, list.buf);
		tf_buf_release(&list);
		return since;
	}
	return 0;
}

/* " (symbol 'x')" when a symbol is known to need version v. */
static void add_symbol(struct tf_buf *out, const struct tf_elf_version *v)
{
	if (v->symbol)
		tf_buf_addf(out, " (symbol '%s')", v->symbol);
}

static int refuse_version(const struct checker *c,
			  const struct tf_elf_version *v, int since)
{
	struct tf_buf sym = TF_BUF_INIT;
	const char *max;
	int ret;

	add_symbol(&sym, v);
	if (since < 0) {
		ret = refuse(c, "needs %s%s, which no manylinux policy for %s "
			     "allows", v->name, sym.buf,
			     tf_arch_name(c->rules->platform.arch));
	} else {
		max = tf_manylinux_family_max(c->policy, v->name);
		ret = refuse(c, "needs %s%s, newer than manylinux_2_%u "
			     "allows (%s)", v->name, sym.buf,
			     c->policy->glibc_minor, max ? max : "none");
	}
	tf_buf_release(&sym);
	return ret;
}

/*
 * Versions needed from libraries the wheel ships are the shipped
 * library's business; the rest must be in the policy. The worst one is
 * named: one no policy allows, else the one needing the newest policy.
 */
static int check_versions(const struct checker *c)
{
	enum tf_arch arch = c->rules->platform.arch;
	const struct tf_elf_version *worst = NULL;
	int worst_since = 0, since;
	size_t i;

	if (c->rules->platform.kind != TF_PLATFORM_MANYLINUX)
		return 0;
	for (i = 0; i < c->info->nr_versions; i++) {
		const struct tf_elf_version *v = &c->info->versions[i];

		if (shipped(c->rules, c->info, c->shown, v->library))
			continue;
		since = tf_manylinux_version_since(arch, v->name);
		if (since < 0)
			return refuse_version(c, v, since);
		if (c->policy && (unsigned)since > c->policy->glibc_minor &&
		    since > worst_since) {
			worst = v;
			worst_since = since;
		}
	}
	return worst ? refuse_version(c, worst, worst_since) : 0;
}

static int check_isa(const struct checker *c)
{
	int level = tf_elf_x86_isa_level(c->info->x86_isa_needed);
	int allowed = c->rules->isa_level ? c->rules->isa_level : 1;

	if (c->info->machine != EM_X86_64 || level <= allowed)
		return 0;
	return refuse(c, "needs x86-64-v%d (GNU property), above the allowed "
		      "x86-64-v%d", level, allowed);
}

/* glibc 2.41 and Debian 13 refuse to load these; older ones make every
   thread's stack executable. */
static int check_stack(const struct checker *c)
{
	if (!c->info->exec_stack)
		return 0;
	return refuse(c, "asks for an executable stack (PT_GNU_STACK has PF_X); "
		      "link with -Wl,-z,noexecstack or fix the assembly's "
		      ".note.GNU-stack");
}

static int check_exports(const struct checker *c)
{
	const struct tf_strvec *have = &c->info->exports;
	const struct tf_elf_export *e;
	size_t i;

	for (i = 0; i < c->rules->nr_exports; i++) {
		e = &c->rules->exports[i];
		if (strcmp(e->file, c->shown))
			continue;
		if (!bsearch(&e->symbol, have->v, have->nr, sizeof(*have->v),
			     tf_strcmp_ptr))
			return refuse(c, "does not export required symbol '%s'",
				      e->symbol);
	}
	return 0;
}

/* 1 for what the dynamic loader maps, the files checked in full. */
static int loadable(const struct tf_elf_info *info)
{
	return info->type == ET_DYN || info->type == ET_EXEC;
}

int tf_elf_check(const struct tf_elf_info *info,
		 const struct tf_elf_rules *rules, const char *shown)
{
	struct checker c = { rules, info, shown, NULL };
	unsigned type = info->type;

	if (rules->platform.kind == TF_PLATFORM_OTHER ||
	    (!loadable(info) && type != ET_REL))
		return 0;
	if (find_policy(rules, &c.policy) || check_arch(&c))
		return -1;
	/* Object files are for a later link on the target: only the
	   architecture (and exports asked of them) matter. */
	if (type == ET_REL)
		return check_exports(&c);
	if (check_pages(&c) || check_libpython(&c) || check_musl(&c) ||
	    check_needed(&c) || report_facts(&c) || check_abi3(&c) ||
	    check_versions(&c) || check_isa(&c) || check_stack(&c) ||
	    check_exports(&c))
		return -1;
	return 0;
}

/* Read the file keeping only the exports rules ask of it, and check it. */
static int read_and_check(const char *path, const char *shown,
			  const struct tf_elf_rules *rules,
			  struct tf_elf_info *info)
{
	const char **names = tf_calloc(rules->nr_exports, sizeof(*names));
	struct tf_buf full = TF_BUF_INIT;
	size_t i, nr = 0;
	int ret;

	for (i = 0; i < rules->nr_exports; i++)
		if (!strcmp(rules->exports[i].file, shown))
			names[nr++] = rules->exports[i].symbol;
	add_context(&full, rules->context);
	tf_buf_addstr(&full, shown);
	ret = tf_elf_read_exports(path, full.buf, info, names, nr);
	if (!ret)
		ret = tf_elf_check(info, rules, shown);
	free(names);
	tf_buf_release(&full);
	return ret;
}

int tf_elf_check_file(const char *path, const char *shown,
		      const struct tf_elf_rules *rules)
{
	struct tf_elf_info info = TF_ELF_INFO_INIT;
	int ret = read_and_check(path, shown, rules, &info);

	tf_elf_info_release(&info);
	return ret;
}

/* What decides a computed platform: the newest policy a file needs. */
struct need {
	unsigned minor;     /* glibc minor of that policy; 0: the oldest */
	struct tf_buf why;  /* "pkg/a.so needs GLIBC_2.34 (symbol 'x')" */
};

static void raise_need(struct need *need, unsigned minor, const char *shown,
		       const char *what, const struct tf_elf_version *v)
{
	if (minor <= need->minor)
		return;
	need->minor = minor;
	tf_buf_reset(&need->why);
	tf_buf_addf(&need->why, "%s needs %s", shown, what);
	if (v)
		add_symbol(&need->why, v);
}

/* Fold one checked file's versions and libraries into need. */
static void note_need(const struct tf_elf_rules *rules,
		      const struct tf_elf_info *info, const char *shown,
		      struct need *need)
{
	size_t i, n = 0, driver, nv = info->nr_versions;
	const struct tf_elf_version **vs = tf_calloc(nv, sizeof(*vs));
	const char **names = tf_calloc(nv, sizeof(*names));
	enum tf_arch arch = rules->platform.arch;
	const struct tf_manylinux_policy *p;
	struct tf_buf lib = TF_BUF_INIT;
	int since;

	for (i = 0; i < info->nr_versions; i++)
		if (!shipped(rules, info, shown, info->versions[i].library)) {
			vs[n] = &info->versions[i];
			names[n++] = info->versions[i].name;
		}
	p = tf_manylinux_lowest(arch, names, n, &driver);
	if (!p)
		BUG("'%s' passed its check with no manylinux policy", shown);
	if (driver < n)
		raise_need(need, p->glibc_minor, shown, names[driver],
			   vs[driver]);
	for (i = 0; i < info->needed.nr; i++) {
		const char *soname = info->needed.v[i];

		if (needed_exempt(rules, info, shown, soname))
			continue;
		since = tf_manylinux_library_since(arch, soname);
		tf_buf_reset(&lib);
		tf_buf_addf(&lib, "'%s'", soname);
		raise_need(need, (unsigned)since, shown, lib.buf, NULL);
	}
	tf_buf_release(&lib);
	free(names);
	free(vs);
}

static int refuse_export(const struct tf_elf_rules *rules,
			 const struct tf_elf_export *e, const char *why)
{
	struct tf_buf msg = TF_BUF_INIT;

	add_context(&msg, rules->context);
	tf_buf_addf(&msg, "%s: must export '%s' but %s", e->file, e->symbol,
		    why);
	return print_line(&msg);
}

/* Every required export's file must be in the wheel and, once elf[]
   says which files are ELF, be one. */
static int check_export_files(const struct tf_elf_rules *rules,
			      const struct tf_wheel_file *files, size_t nr,
			      const unsigned char *elf)
{
	size_t i, j;

	for (i = 0; i < rules->nr_exports; i++) {
		for (j = 0; j < nr; j++)
			if (!strcmp(files[j].dst, rules->exports[i].file))
				break;
		if (j == nr)
			return refuse_export(rules, &rules->exports[i],
					     "is not in the wheel");
		if (elf && !elf[j])
			return refuse_export(rules, &rules->exports[i],
					     "is not an ELF file");
	}
	return 0;
}

static void computed_tag(const struct tf_elf_rules *rules,
			 const struct need *need, struct tf_buf *out)
{
	enum tf_arch arch = rules->platform.arch;
	const struct tf_manylinux_policy *oldest = tf_manylinux_oldest(arch);
	const struct tf_manylinux_policy *p = oldest;
	size_t start = out->len;

	if (need->minor > oldest->glibc_minor)
		p = tf_manylinux_find(arch, need->minor);
	if (!p)
		BUG("no manylinux policy 2_%u for %s", need->minor,
		    tf_arch_name(arch));
	tf_manylinux_tag(p, out);
	verbose("%s%splatform %s: %s", rules->context ? rules->context : "",
		rules->context ? ": " : "", out->buf + start,
		p != oldest ? need->why.buf : "no file needs a newer policy");
}

int tf_elf_check_wheel(const struct tf_wheel_file *files, size_t nr_files,
		       const struct tf_elf_rules *rules,
		       struct tf_buf *platform_out)
{
	struct tf_elf_rules r = *rules;
	struct tf_elf_info info = TF_ELF_INFO_INIT;
	struct need need = { 0, TF_BUF_INIT };
	const char **names = tf_calloc(nr_files, sizeof(*names));
	unsigned char *elf = tf_calloc(nr_files, 1);
	int compute = r.platform.kind == TF_PLATFORM_MANYLINUX &&
		      !r.platform.glibc_minor;
	const struct tf_manylinux_policy *policy;
	size_t i;
	int ret;

	for (i = 0; i < nr_files; i++)
		names[i] = files[i].dst;
	r.wheel_files = names;
	r.nr_wheel_files = nr_files;
	ret = find_policy(&r, &policy) ||
	      check_export_files(&r, files, nr_files, NULL);
	for (i = 0; !ret && i < nr_files; i++) {
		if (i < r.nr_not_elf && r.not_elf[i])
			continue;
		ret = read_and_check(files[i].src, files[i].dst, &r, &info);
		elf[i] = ret == 0;
		if (ret == 1)
			ret = 0;
		else if (!ret && compute && loadable(&info))
			note_need(&r, &info, files[i].dst, &need);
	}
	if (!ret)
		ret = check_export_files(&r, files, nr_files, elf);
	if (!ret && compute)
		computed_tag(&r, &need, platform_out);
	tf_elf_info_release(&info);
	tf_buf_release(&need.why);
	free(names);
	free(elf);
	return ret ? -1 : 0;
}

int tf_elf_rules_for_platform(struct tf_elf_rules *rules, const char *tag,
			      const char *context)
{
	struct tf_elf_rules empty = TF_ELF_RULES_INIT;
	const struct tf_manylinux_policy *policy;
	struct tf_buf why = TF_BUF_INIT;

	*rules = empty;
	rules->context = context;
	rules->isa_level = 1;
	if (tf_platform_parse(tag, &rules->platform, &why)) {
		struct tf_buf msg = TF_BUF_INIT;

		add_context(&msg, context);
		tf_buf_addf(&msg, "platform '%s': %s", tag, why.buf);
		tf_buf_release(&why);
		return print_line(&msg);
	}
	return find_policy(rules, &policy);
}

/* ---- code for a disassembler ---- */

static int cmp_func(const void *a, const void *b)
{
	const struct tf_elf_func *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Sized after sizeless: tf_elf_code_func() walks back to it first. */
	if ((x->size != 0) != (y->size != 0))
		return x->size ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int read_funcs(struct reader *r, Elf_Scn *scn, struct tf_elf_code *c)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t i, n, nr = 0;
	const char *name;
	GElf_Shdr sh;
	GElf_Sym sym;
	int type;

	if (!d || !gelf_getshdr(scn, &sh))
		return bad_libelf(r, "cannot read a symbol table");
	n = d->d_size / item_size(r, ELF_T_SYM);
	c->funcs = tf_calloc(n + 1, sizeof(*c->funcs));
	for (i = 1; i < n && i < INT_MAX; i++) {
		if (!gelf_getsym(d, (int)i, &sym))
			return bad_libelf(r, "cannot read a symbol");
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(r->elf, sh.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		c->funcs[nr].addr = sym.st_value;
		c->funcs[nr].size = sym.st_size;
		c->funcs[nr++].name = tf_strdup(name);
	}
	c->nr_funcs = nr;
	qsort(c->funcs, nr, sizeof(*c->funcs), cmp_func);
	return 0;
}

static int read_code(struct reader *r, struct tf_elf_code *c)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	size_t shstrndx, n = 0;
	const char *name;
	Elf_Data *d;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(r->elf, &shstrndx))
		return bad_libelf(r, "cannot find section names");
	while ((scn = elf_nextscn(r->elf, scn)))
		n++;
	c->sections = tf_calloc(n + 1, sizeof(*c->sections));
	while ((scn = elf_nextscn(r->elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return bad_libelf(r, "cannot read a section header");
		if (sh.sh_type == SHT_SYMTAB)
			symtab = scn;
		else if (sh.sh_type == SHT_DYNSYM)
			dynsym = scn;
		if (sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR) ||
		    !sh.sh_size)
			continue;
		d = elf_rawdata(scn, NULL);
		if (!d || d->d_size != sh.sh_size)
			return bad_libelf(r, "cannot read an executable section");
		name = elf_strptr(r->elf, shstrndx, sh.sh_name);
		c->sections[c->nr_sections].name = tf_strdup(name ? name : "?");
		c->sections[c->nr_sections].addr = sh.sh_addr;
		c->sections[c->nr_sections].bytes = d->d_buf;
		c->sections[c->nr_sections++].size = d->d_size;
	}
	c->from_symtab = symtab != NULL;
	if (symtab || dynsym)
		return read_funcs(r, symtab ? symtab : dynsym, c);
	return 0;
}

int tf_elf_code_read(const char *path, const char *shown,
		     struct tf_elf_code *out)
{
	struct tf_elf_info info = TF_ELF_INFO_INIT;
	struct reader r = { NULL, shown, &info, NULL, NULL, NULL, NULL,
			    0, 0, 0, 0 };
	int ret;

	tf_elf_code_release(out);
	ret = open_elf(path, shown, &out->fd);
	if (ret)
		return ret;
	r.elf = elf_begin(out->fd, ELF_C_READ_MMAP, NULL);
	out->elf = r.elf;
	if (!r.elf)
		ret = bad_libelf(&r, "cannot read the file");
	else if (elf_kind(r.elf) != ELF_K_ELF)
		ret = bad(&r, "not an ELF object");
	else if (read_header(&r) || read_code(&r, out))
		ret = -1;
	out->machine = info.machine;
	out->type = info.type;
	tf_elf_info_release(&info);
	if (ret)
		tf_elf_code_release(out);
	return ret;
}

void tf_elf_code_release(struct tf_elf_code *c)
{
	struct tf_elf_code empty = TF_ELF_CODE_INIT;
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr_sections; i++)
		free(c->sections[i].name);
	for (i = 0; i < c->nr_funcs; i++)
		free(c->funcs[i].name);
	free(c->sections);
	free(c->funcs);
	if (c->elf)
		elf_end(c->elf);
	if (c->fd >= 0)
		close(c->fd);
	*c = empty;
}

const struct tf_elf_func *tf_elf_code_func(const struct tf_elf_code *c,
					   unsigned long long addr)
{
	size_t lo = 0, hi = c->nr_funcs, i;
	const struct tf_elf_func *f;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->funcs[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* lo: the first above addr; walk back over aliases to a sized one. */
	for (i = lo; i > 0; i--) {
		f = &c->funcs[i - 1];
		if (f->size && addr < f->addr + f->size)
			return f;
		if (!f->size && f->addr <= addr)
			return f;
		if (i < lo && f->addr != c->funcs[lo - 1].addr)
			break;
	}
	return NULL;
}
