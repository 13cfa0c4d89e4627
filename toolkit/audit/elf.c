/* Reading ELF files with libelf: what the checks see, and code to scan. */
#include "elf.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "abi3.h"
#include "base/base.h"

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
	const char *shown; /* the file, for messages */
	struct tf_elf_info *out;
	const struct want *want;
	Elf_Scn *dynsym, *versym, *verneed;
	int dynamic_segment; /* has PT_DYNAMIC */
	int dynamic_section; /* has SHT_DYNAMIC */
	int has_shoff;       /* the ELF header points at section headers */
	int has_phnum;       /* the ELF header counts program headers */
	const struct tf_elf_code *map; /* the file's own mapping, whose
					  pages reading gives back; NULL */
};

static int map_file(struct reader *r, struct tf_elf_code *c);

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

static int read_vernaux(struct reader *r, Elf_Data *d, size_t link, size_t off,
			unsigned count, const char *library)
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

	return *name &&
	       (bind == STB_GLOBAL || bind == STB_WEAK ||
		bind == STB_GNU_UNIQUE) &&
	       (vis == STV_DEFAULT || vis == STV_PROTECTED) &&
	       type != STT_SECTION && type != STT_FILE && !(vs & VERSYM_HIDDEN);
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
			tf_strvec_push_take(
				r->want->undefined,
				tf_xstrfmt("%s\t%s", name,
					   r->out->versions[i].library));
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
		/* Read through: libtensorflow_cc.so's .dynstr is 80 MB. */
		if (r->map && !(i & 0xff))
			tf_elf_code_drop(r->map, NULL, 0);
		if (!gelf_getsym(d, (int)i, &sym))
			return bad_libelf(r, "cannot read a dynamic symbol");
		if (i >= nv || !gelf_getversym(vd, (int)i, &vs))
			vs = VER_NDX_GLOBAL;
		name = elf_strptr(r->elf, sh.sh_link, sym.st_name);
		if (!name)
			return bad(r, "a dynamic symbol has no name");
		if (sym.st_shndx == SHN_UNDEF && tf_abi3_is_python_symbol(name))
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

/* OK if fd starts with the ELF magic, NOT_ELF if not, ERROR with errno
   set (nothing printed) if it cannot be read. */
static enum tf_elf_read_result read_magic(int fd)
{
	unsigned char magic[SELFMAG];
	ssize_t n = pread(fd, magic, sizeof(magic), 0);

	if (n < 0)
		return TF_ELF_READ_ERROR;
	if (n == SELFMAG && !memcmp(magic, ELFMAG, SELFMAG))
		return TF_ELF_READ_OK;
	return TF_ELF_READ_NOT_ELF;
}

/* Open path: OK with *fd open on an ELF file, NOT_ELF, or ERROR (printed). */
static enum tf_elf_read_result open_elf(const char *path, const char *shown,
					int *fd)
{
	enum tf_elf_read_result ret;

	/* O_NONBLOCK: a FIFO in a stage must not hang the check. */
	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (*fd < 0) {
		error_errno("%s: cannot open '%s'", shown, path);
		return TF_ELF_READ_ERROR;
	}
	ret = read_magic(*fd);
	if (ret == TF_ELF_READ_ERROR) {
		error_errno("%s: cannot read '%s'", shown, path);
	} else if (ret == TF_ELF_READ_OK) {
		if (elf_version(EV_CURRENT) != EV_NONE)
			return TF_ELF_READ_OK;
		error("libelf: %s", elf_errmsg(-1));
		ret = TF_ELF_READ_ERROR;
	}
	close(*fd);
	*fd = -1;
	return ret;
}

static enum tf_elf_read_result read_elf(const char *path, const char *shown,
					struct tf_elf_info *out,
					const struct want *want)
{
	struct reader r = { NULL, shown, out, want, NULL, NULL,
			    NULL, 0,     0,   0,    0,    NULL };
	struct tf_elf_code m = TF_ELF_CODE_INIT; /* only its mapping */
	enum tf_elf_read_result opened;
	int ret = 0;

	tf_elf_info_release(out);
	opened = open_elf(path, shown, &m.fd);
	if (opened != TF_ELF_READ_OK)
		return opened;
	/* Mapped here, not by libelf, to give back what was read. */
	if (map_file(&r, &m))
		ret = -1;
	else if (!(r.elf = elf_memory((char *)m.map, m.map_size)))
		ret = bad_libelf(&r, "cannot read the file");
	else if (elf_kind(r.elf) != ELF_K_ELF)
		ret = bad(&r, "not an ELF object");
	else if (read_header(&r) ||
		 (m.droppable = !out->big_endian, r.map = &m,
		  read_segments(&r) || read_sections(&r) || read_symbols(&r)))
		ret = -1;
	if (r.elf)
		elf_end(r.elf);
	if (m.map)
		munmap(m.map, m.map_size);
	close(m.fd);
	if (ret) {
		tf_elf_info_release(out);
		return TF_ELF_READ_ERROR;
	}
	sort_unique(&out->exports);
	sort_unique(&out->python_imports);
	return TF_ELF_READ_OK;
}

enum tf_elf_read_result tf_elf_read(const char *path, const char *shown,
				    struct tf_elf_info *out)
{
	struct want all = { 1, NULL, 0, NULL };

	return read_elf(path, shown, out, &all);
}

enum tf_elf_read_result tf_elf_read_undefined(const char *path,
					      const char *shown,
					      struct tf_elf_info *out,
					      struct tf_strvec *undefined)
{
	struct want all = { 1, NULL, 0, undefined };

	return read_elf(path, shown, out, &all);
}

enum tf_elf_read_result tf_elf_read_exports(const char *path, const char *shown,
					    struct tf_elf_info *out,
					    const char *const *names, size_t nr)
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

/* 1 if elf has a section called name, 0 if not, -1 if unreadable. */
static int find_section(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	size_t strndx;
	GElf_Shdr sh;
	const char *s;

	if (elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &strndx))
		return -1;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return -1;
		s = elf_strptr(elf, strndx, sh.sh_name);
		if (s && !strcmp(s, name))
			return 1;
	}
	return 0;
}

int tf_elf_has_section(const char *path, const char *shown, const char *name)
{
	enum tf_elf_read_result opened;
	Elf *elf;
	int fd, ret;

	opened = open_elf(path, shown, &fd);
	if (opened != TF_ELF_READ_OK)
		return opened == TF_ELF_READ_NOT_ELF ? 0 : -1;
	/* Only the section headers and their names are read. */
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ret = elf ? find_section(elf, name) : -1;
	if (ret < 0)
		error("%s: malformed ELF: cannot read its section headers: %s",
		      shown, elf_errmsg(-1));
	elf_end(elf);
	close(fd);
	return ret;
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

/* ---- code for a disassembler ---- */

/* Sizeless before sized at one address: tf_elf_code_func() walks back
   to the sized one first. Then by name: the same name for the same
   address, whatever the order of .symtab. */
static int cmp_func(const void *a, const void *b)
{
	const struct tf_elf_func *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if ((x->size != 0) != (y->size != 0))
		return x->size ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* As cmp_func, but ties in symbol-table order: no name is read. */
static int cmp_func_at(const void *a, const void *b, void *arg)
{
	const struct tf_elf_func *funcs = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct tf_elf_func *x = &funcs[i], *y = &funcs[j];

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if ((x->size != 0) != (y->size != 0))
		return x->size ? 1 : -1;
	return i < j ? -1 : i > j;
}

/*
 * Sort c->funcs by cmp_func with little memory beside it: the indices
 * are sorted (qsort's buffer is as large as what it sorts: 13 MB for
 * jaxlib's 400,000 functions, not 1.6), the functions moved into their
 * order in place, and only the names of functions sharing an address
 * compared, a few runs at a time, giving their pages back as it goes.
 */
static void sort_funcs(struct tf_elf_code *c)
{
	size_t i, j, k, n = c->nr_funcs, runs = 0;
	uint32_t *order;

	if (n < 2)
		return;
	order = tf_malloc(n * sizeof(*order));
	for (i = 0; i < n; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, n, sizeof(*order), cmp_func_at, c->funcs);
	/* Position i takes funcs[order[i]], cycle by cycle. */
	for (i = 0; i < n; i++) {
		struct tf_elf_func keep;

		if (order[i] == i || order[i] == UINT32_MAX)
			continue;
		keep = c->funcs[i];
		for (j = i; order[j] != i; j = k) {
			k = order[j];
			c->funcs[j] = c->funcs[k];
			order[j] = UINT32_MAX;
		}
		c->funcs[j] = keep;
		order[j] = UINT32_MAX;
	}
	free(order);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && c->funcs[j].addr == c->funcs[i].addr &&
				!c->funcs[j].size == !c->funcs[i].size;
		     j++)
			;
		if (j - i < 2)
			continue;
		qsort(c->funcs + i, j - i, sizeof(*c->funcs), cmp_func);
		if (!(++runs & 0x7f))
			tf_elf_code_drop(c, NULL, 0);
	}
	tf_elf_code_drop(c, NULL, 0);
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
	if (n >= UINT32_MAX)
		return bad(r, "too many symbols");
	c->funcs = tf_calloc(n + 1, sizeof(*c->funcs));
	for (i = 1; i < n && i < INT_MAX; i++) {
		/* The names stay in the file: read through, not held (256
		   names fault in 16 MB at most, in any order). */
		if (!(i & 0xff))
			tf_elf_code_drop(c, NULL, 0);
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
		c->funcs[nr].size = sym.st_size > UINT_MAX
					    ? UINT_MAX
					    : (unsigned)sym.st_size;
		c->funcs[nr].ifunc = type == STT_GNU_IFUNC;
		c->funcs[nr++].name = name;
	}
	c->nr_funcs = nr;
	sort_funcs(c);
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
		if (sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size)
			continue;
		d = elf_rawdata(scn, NULL);
		if (!d || d->d_size != sh.sh_size)
			return bad_libelf(r,
					  "cannot read an executable section");
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

/* Map the whole file privately, for elf_memory(): the mapping is ours,
   so tf_elf_code_drop() may give its pages back. */
static int map_file(struct reader *r, struct tf_elf_code *c)
{
	struct stat st;
	void *map;

	if (fstat(c->fd, &st) || st.st_size <= 0)
		return bad(r, "cannot read the file");
	map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE, c->fd, 0);
	if (map == MAP_FAILED)
		return error_errno("%s: cannot map the file", r->shown);
	c->map = map;
	c->map_size = (size_t)st.st_size;
	return 0;
}

/* The names tf_elf_code_read() looks up ahead: what isa_dispatch.c and
   isa_guard.c ask every file for. */
static const char *const known[TF_ELF_NR_KNOWN] = {
	"__cpu_model", "__cpu_indicator_init",       "getauxval",
	"__getauxval", "__aarch64_have_lse_atomics",
};

/* 1 if the symbol table's name s is name: the same, or name@VERSION. */
static int sym_name_is(const char *s, const char *name)
{
	size_t len = strlen(name);

	return !strncmp(s, name, len) && (!s[len] || s[len] == '@');
}

/* sym as the answer for a name: the first match, then a defined one over
   an undefined one. */
static void take_sym(const GElf_Sym *sym, struct tf_elf_sym *out,
		     unsigned char *found)
{
	if (*found && (out->defined || sym->st_shndx == SHN_UNDEF))
		return;
	out->value = sym->st_value;
	out->size = sym->st_size;
	out->type = GELF_ST_TYPE(sym->st_info);
	out->defined = sym->st_shndx != SHN_UNDEF;
	*found = 1;
}

/* Look the nr names up in .symtab and .dynsym, in one pass: out[k] and
   found[k] for names[k]. */
static void look_up(const struct tf_elf_code *c, const char *const *names,
		    size_t nr, struct tf_elf_sym *out, unsigned char *found)
{
	Elf_Scn *scn = NULL;
	const char *s;
	size_t i, k, n;
	Elf_Data *d;
	GElf_Shdr sh;
	GElf_Sym sym;

	while ((scn = elf_nextscn(c->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		n = d->d_size / sh.sh_entsize;
		for (i = 1; i < n && i < INT_MAX; i++) {
			/* Names need not be in symbol order (a linker may
			   merge their tails), and each fault maps the
			   64 KB around it: 256 names are 16 MB at most. */
			if (!(i & 0xff))
				tf_elf_code_drop(c, NULL, 0);
			if (!gelf_getsym(d, (int)i, &sym) ||
			    !(s = elf_strptr(c->elf, sh.sh_link, sym.st_name)))
				continue;
			for (k = 0; k < nr; k++)
				if (sym_name_is(s, names[k]))
					take_sym(&sym, &out[k], &found[k]);
		}
	}
}

enum tf_elf_read_result tf_elf_code_read(const char *path, const char *shown,
					 struct tf_elf_code *out)
{
	struct tf_elf_info info = TF_ELF_INFO_INIT;
	struct reader r = { NULL, shown, &info, NULL, NULL, NULL,
			    NULL, 0,     0,     0,    0,    NULL };
	enum tf_elf_read_result opened;
	int ret = 0;

	tf_elf_code_release(out);
	opened = open_elf(path, shown, &out->fd);
	if (opened != TF_ELF_READ_OK)
		return opened;
	if (map_file(&r, out))
		ret = -1;
	else if (!(r.elf = elf_memory((char *)out->map, out->map_size)))
		ret = bad_libelf(&r, "cannot read the file");
	else if (elf_kind(r.elf) != ELF_K_ELF)
		ret = bad(&r, "not an ELF object");
	else if (read_header(&r) ||
		 (out->droppable = !info.big_endian, read_code(&r, out)))
		ret = -1;
	out->elf = r.elf;
	out->machine = info.machine;
	out->type = info.type;
	tf_elf_info_release(&info);
	if (ret) {
		tf_elf_code_release(out);
		return TF_ELF_READ_ERROR;
	}
	look_up(out, known, TF_ELF_NR_KNOWN, out->known, out->known_found);
	/* The symbol tables were read through: let them go till asked. */
	tf_elf_code_drop(out, NULL, 0);
	return TF_ELF_READ_OK;
}

void tf_elf_code_drop(const struct tf_elf_code *c, const void *from, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), start, end;

	if (!c->map || !c->droppable)
		return;
	if (!from) {
		from = c->map;
		len = c->map_size;
	}
	start = ((uintptr_t)from + page - 1) & ~(page - 1);
	end = ((uintptr_t)from + len) & ~(page - 1);
	if ((const unsigned char *)from < c->map ||
	    (const unsigned char *)from + len > c->map + c->map_size ||
	    end <= start)
		return;
	/* A private mapping nothing wrote to: the pages come back from
	   the file. Advice only: a failure costs memory, not results. */
	madvise((void *)start, end - start, MADV_DONTNEED);
}

void tf_elf_code_release(struct tf_elf_code *c)
{
	struct tf_elf_code empty = TF_ELF_CODE_INIT;
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr_sections; i++)
		free(c->sections[i].name);
	free(c->sections);
	free(c->funcs);
	if (c->elf)
		elf_end(c->elf);
	if (c->map)
		munmap(c->map, c->map_size);
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

int tf_elf_code_symbol(const struct tf_elf_code *c, const char *name,
		       struct tf_elf_sym *out)
{
	unsigned char found = 0;
	size_t k;

	if (!c->elf)
		return 0;
	for (k = 0; k < TF_ELF_NR_KNOWN; k++)
		if (!strcmp(name, known[k])) {
			if (c->known_found[k])
				*out = c->known[k];
			return c->known_found[k];
		}
	look_up(c, &name, 1, out, &found);
	return found;
}
