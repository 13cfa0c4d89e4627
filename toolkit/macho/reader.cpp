// libtfmacho.so: a Mach-O file read through LLVM's object library into
// macho.h's plain C structures. The only file of tfbuild that includes
// LLVM's headers (toolkit/LAYERS); built as a shared object of its own
// and dlopened by macho.c on first use, so that tfbuild's start never
// loads LLVM. LLVM is built without exceptions: every Error and
// Expected is taken or consumed here, and what went wrong is written
// into the caller's buffer.
#include "macho.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <llvm/ADT/StringMap.h>
#include <llvm/BinaryFormat/MachO.h>
#include <llvm/Object/Binary.h>
#include <llvm/Object/MachO.h>
#include <llvm/Object/MachOUniversal.h>
#include <llvm/Support/Endian.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/SHA1.h>
#include <llvm/Support/SHA256.h>

#include <algorithm>
#include <array>
#include <string>

using namespace llvm;
using namespace llvm::object;

namespace
{

struct reason {
	char *buf;
	size_t size;
};

int fail(const reason &why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why.buf, why.size, fmt, ap);
	va_end(ap);
	return -1;
}

int fail_error(const reason &why, const char *what, Error err)
{
	std::string msg = toString(std::move(err));

	return fail(why, "%s: %s", what, msg.c_str());
}

char *dup(StringRef s)
{
	char *p = static_cast<char *>(malloc(s.size() + 1));

	if (!p)
		abort();
	memcpy(p, s.data(), s.size());
	p[s.size()] = '\0';
	return p;
}

// Room for element nr of an array grown one element at a time: doubled
// when nr is 0 or a power of two, so a dylib's 400,000 exports (TensorFlow's
// libtensorflow_cc) are not copied once each.
template <typename T> T *grow(T *array, size_t nr)
{
	T *p = array;

	if (!(nr & (nr - 1)))
		p = static_cast<T *>(
			realloc(array, (nr ? 2 * nr : 1) * sizeof(T)));
	if (!p)
		abort();
	memset(&p[nr], 0, sizeof(T));
	return p;
}

// The string a load command holds at offset, up to its NUL or its end.
StringRef lc_string(const MachOObjectFile::LoadCommandInfo &lc, uint32_t offset)
{
	if (offset >= lc.C.cmdsize)
		return StringRef();
	StringRef s(lc.Ptr + offset, lc.C.cmdsize - offset);
	return s.substr(0, s.find('\0'));
}

const char *type_name(uint32_t filetype)
{
	switch (filetype) {
	case MachO::MH_OBJECT:
		return "object";
	case MachO::MH_EXECUTE:
		return "execute";
	case MachO::MH_DYLIB:
		return "dylib";
	case MachO::MH_BUNDLE:
		return "bundle";
	case MachO::MH_DYLINKER:
		return "dylinker";
	case MachO::MH_DYLIB_STUB:
		return "dylib stub";
	case MachO::MH_DSYM:
		return "dsym";
	case MachO::MH_KEXT_BUNDLE:
		return "kext bundle";
	default:
		return "unknown";
	}
}

void add_dylib(tf_macho_slice *s, const MachOObjectFile &o,
	       const MachOObjectFile::LoadCommandInfo &lc,
	       tf_macho_dylib_kind kind)
{
	MachO::dylib_command d = o.getDylibIDLoadCommand(lc);
	tf_macho_dylib *dl;

	s->dylibs = grow(s->dylibs, s->nr_dylibs);
	dl = &s->dylibs[s->nr_dylibs++];
	dl->name = dup(lc_string(lc, d.dylib.name));
	dl->kind = kind;
	dl->current_version = d.dylib.current_version;
	dl->compat_version = d.dylib.compatibility_version;
}

void set_version_min(tf_macho_slice *s, const MachOObjectFile &o,
		     const MachOObjectFile::LoadCommandInfo &lc)
{
	MachO::version_min_command v = o.getVersionMinLoadCommand(lc);

	if (s->version_cmd == 1)
		return; // LC_BUILD_VERSION says it, and wins
	s->version_cmd = 2;
	s->platform = lc.C.cmd == MachO::LC_VERSION_MIN_MACOSX
			      ? TF_MACHO_PLATFORM_MACOS
			      : 0;
	s->minos = v.version;
	s->sdk = v.sdk;
}

void add_rpath(tf_macho_slice *s, const MachOObjectFile &o,
	       const MachOObjectFile::LoadCommandInfo &lc)
{
	MachO::rpath_command r = o.getRpathCommand(lc);

	s->rpaths = grow(s->rpaths, s->nr_rpaths);
	s->rpaths[s->nr_rpaths++] = dup(lc_string(lc, r.path));
}

// Where the exports trie and the code signature lie in __LINKEDIT.
struct linkedit {
	MachO::linkedit_data_command trie, signature;
};

// One load command; the trie's and the signature's places go in *le.
void load_command(tf_macho_slice *s, const MachOObjectFile &o,
		  const MachOObjectFile::LoadCommandInfo &lc, linkedit *le)
{
	switch (lc.C.cmd) {
	case MachO::LC_LOAD_DYLIB:
		return add_dylib(s, o, lc, TF_MACHO_LOAD);
	case MachO::LC_LOAD_WEAK_DYLIB:
		return add_dylib(s, o, lc, TF_MACHO_WEAK);
	case MachO::LC_REEXPORT_DYLIB:
		return add_dylib(s, o, lc, TF_MACHO_REEXPORT);
	case MachO::LC_LAZY_LOAD_DYLIB:
		return add_dylib(s, o, lc, TF_MACHO_LAZY);
	case MachO::LC_LOAD_UPWARD_DYLIB:
		return add_dylib(s, o, lc, TF_MACHO_UPWARD);
	case MachO::LC_ID_DYLIB:
		free(s->install_name);
		s->install_name = dup(
			lc_string(lc, o.getDylibIDLoadCommand(lc).dylib.name));
		return;
	case MachO::LC_RPATH:
		return add_rpath(s, o, lc);
	case MachO::LC_LOAD_DYLINKER:
		free(s->dylinker);
		s->dylinker = dup(lc_string(lc, o.getDylinkerCommand(lc).name));
		return;
	case MachO::LC_BUILD_VERSION: {
		MachO::build_version_command b =
			o.getBuildVersionLoadCommand(lc);
		s->version_cmd = 1;
		s->platform = b.platform;
		s->minos = b.minos;
		s->sdk = b.sdk;
		return;
	}
	case MachO::LC_VERSION_MIN_MACOSX:
	case MachO::LC_VERSION_MIN_IPHONEOS:
	case MachO::LC_VERSION_MIN_TVOS:
	case MachO::LC_VERSION_MIN_WATCHOS:
		return set_version_min(s, o, lc);
	case MachO::LC_CODE_SIGNATURE:
		s->code_signature = 1;
		le->signature = o.getLinkeditDataLoadCommand(lc);
		s->signature_size = le->signature.datasize;
		return;
	case MachO::LC_DYLD_EXPORTS_TRIE:
		le->trie = o.getLinkeditDataLoadCommand(lc);
		return;
	}
}

void add_export(tf_macho_slice *s, StringRef name)
{
	s->exports = grow(s->exports, s->nr_exports);
	s->exports[s->nr_exports++] = dup(name);
}

// The exports trie: LC_DYLD_INFO's, or LC_DYLD_EXPORTS_TRIE's (chained
// fixups), which LLVM 14's exports() does not look for by itself.
int read_exports(tf_macho_slice *s, const MachOObjectFile &o,
		 const MachO::linkedit_data_command &trie, const reason &why)
{
	ArrayRef<uint8_t> bytes = o.getDyldInfoExportsTrie();
	Error err = Error::success();

	if (bytes.empty() && trie.datasize) {
		StringRef data = o.getData();

		if (trie.dataoff > data.size() ||
		    trie.datasize > data.size() - trie.dataoff)
			return fail(why,
				    "its exports trie (%u bytes at %u) "
				    "ends past the end of the file",
				    trie.datasize, trie.dataoff);
		bytes = arrayRefFromStringRef(
			data.substr(trie.dataoff, trie.datasize));
	}
	for (const ExportEntry &e : MachOObjectFile::exports(err, bytes, &o))
		add_export(s, e.name());
	if (err)
		return fail_error(why, "its exports trie", std::move(err));
	return 0;
}

// The library each symbol is bound to, by the bind opcodes dyld runs
// (LC_DYLD_INFO): zig's linker leaves the symbol table's ordinal 0 for
// -undefined dynamic_lookup and says flat lookup only there. LLVM 14
// reads no chained fixups: those files keep the symbol table's word.
typedef StringMap<int> bind_map;

int read_binds(bind_map *binds, MachOObjectFile &o, const reason &why)
{
	Error err = Error::success();

	for (const MachOBindEntry &b : o.bindTable(err))
		binds->try_emplace(b.symbolName(), b.ordinal());
	if (err)
		return fail_error(why, "its bind opcodes", std::move(err));
	for (const MachOBindEntry &b : o.lazyBindTable(err))
		binds->try_emplace(b.symbolName(), b.ordinal());
	if (err)
		return fail_error(why, "its lazy bind opcodes", std::move(err));
	return 0;
}

int bind_ordinal(int ordinal)
{
	switch (ordinal) {
	case MachO::BIND_SPECIAL_DYLIB_SELF:
		return TF_MACHO_SELF;
	case MachO::BIND_SPECIAL_DYLIB_MAIN_EXECUTABLE:
		return TF_MACHO_EXECUTABLE;
	case MachO::BIND_SPECIAL_DYLIB_FLAT_LOOKUP:
		return TF_MACHO_DYNAMIC_LOOKUP;
	default:
		return ordinal > 0 ? ordinal : TF_MACHO_DYNAMIC_LOOKUP;
	}
}

int undef_ordinal(const tf_macho_slice *s, const bind_map &binds,
		  StringRef name, uint16_t desc)
{
	unsigned ordinal = MachO::GET_LIBRARY_ORDINAL(desc);
	auto bound = binds.find(name);

	if (!s->twolevel)
		return TF_MACHO_FLAT;
	if (bound != binds.end())
		return bind_ordinal(bound->second);
	switch (ordinal) {
	case MachO::SELF_LIBRARY_ORDINAL:
		return TF_MACHO_SELF;
	case MachO::DYNAMIC_LOOKUP_ORDINAL:
		return TF_MACHO_DYNAMIC_LOOKUP;
	case MachO::EXECUTABLE_ORDINAL:
		return TF_MACHO_EXECUTABLE;
	default:
		return (int)ordinal;
	}
}

int read_undefs(tf_macho_slice *s, MachOObjectFile &o, const reason &why)
{
	bind_map binds;

	if (read_binds(&binds, o, why) < 0)
		return -1;
	for (const SymbolRef &sym : o.symbols()) {
		DataRefImpl d = sym.getRawDataRefImpl();
		uint8_t type;
		uint16_t desc;
		uint64_t value;

		if (o.is64Bit()) {
			MachO::nlist_64 n = o.getSymbol64TableEntry(d);
			type = n.n_type, desc = n.n_desc, value = n.n_value;
		} else {
			MachO::nlist n = o.getSymbolTableEntry(d);
			type = n.n_type, desc = (uint16_t)n.n_desc,
			value = n.n_value;
		}
		// Debugging entries, defined symbols, common symbols.
		if ((type & MachO::N_STAB) || !(type & MachO::N_EXT) ||
		    (type & MachO::N_TYPE) != MachO::N_UNDF || value)
			continue;
		Expected<StringRef> name = sym.getName();
		if (!name)
			return fail_error(why, "its symbol table",
					  name.takeError());
		s->undefs = grow(s->undefs, s->nr_undefs);
		s->undefs[s->nr_undefs].name = dup(*name);
		s->undefs[s->nr_undefs].ordinal =
			undef_ordinal(s, binds, *name, desc);
		s->undefs[s->nr_undefs++].weak = !!(desc & MachO::N_WEAK_REF);
	}
	return 0;
}

int read_text(tf_macho_slice *s, const MachOObjectFile &o, const reason &why)
{
	for (const SectionRef &sec : o.sections()) {
		DataRefImpl d = sec.getRawDataRefImpl();
		Expected<StringRef> name = sec.getName();

		if (!name)
			return fail_error(why, "its sections",
					  name.takeError());
		if (*name != "__text" ||
		    o.getSectionFinalSegmentName(d) != "__TEXT")
			continue;
		Expected<StringRef> bytes = sec.getContents();
		if (!bytes)
			return fail_error(why, "its __TEXT,__text section",
					  bytes.takeError());
		s->text_addr = sec.getAddress();
		s->text_size = bytes->size();
		s->text =
			static_cast<unsigned char *>(malloc(s->text_size + 1));
		if (!s->text)
			abort();
		memcpy(s->text, bytes->data(), s->text_size);
		return 0;
	}
	return 0;
}

void read_header(tf_macho_slice *s, const MachOObjectFile &o)
{
	const char *flag = nullptr;
	uint32_t cpu, sub;

	if (o.is64Bit()) {
		const MachO::mach_header_64 &h = o.getHeader64();
		cpu = h.cputype, sub = h.cpusubtype, s->filetype = h.filetype;
		s->flags = h.flags;
	} else {
		const MachO::mach_header &h = o.getHeader();
		cpu = h.cputype, sub = h.cpusubtype, s->filetype = h.filetype;
		s->flags = h.flags;
	}
	s->cputype = cpu;
	s->cpusubtype = sub & ~MachO::CPU_SUBTYPE_MASK;
	MachOObjectFile::getArchTriple(cpu, sub, nullptr, &flag);
	if (flag)
		snprintf(s->arch, sizeof(s->arch), "%s", flag);
	else
		snprintf(s->arch, sizeof(s->arch), "cpu %u/%u", cpu,
			 s->cpusubtype);
	s->type_name = type_name(s->filetype);
	s->twolevel = !!(s->flags & MachO::MH_TWOLEVEL);
}

// The code signature (LLVM's BinaryFormat/MachO.h gives its layout; its
// blobs are big-endian): every CodeDirectory's page hashes, each over
// 2^pageSize bytes of the slice from its start up to codeLimit, must be
// those of the bytes, as the kernel checks each page it maps. What is
// wrong is said in words; the special slots (requirements,
// entitlements) hash blobs of the signature itself and are not checked.
uint32_t be32(const uint8_t *p)
{
	return support::endian::read32be(p);
}

std::string page_hash(uint8_t type, ArrayRef<uint8_t> page)
{
	if (type == MachO::CS_HASHTYPE_SHA1) {
		std::array<uint8_t, 20> h = SHA1::hash(page);
		return std::string(h.begin(), h.end());
	}
	std::array<uint8_t, 32> h = SHA256::hash(page);
	size_t n = type == MachO::CS_HASHTYPE_SHA256
			   ? MachO::CS_SHA256_LEN
			   : MachO::CS_SHA256_TRUNCATED_LEN;
	return std::string(h.begin(), h.begin() + n);
}

size_t hash_size(uint8_t type)
{
	switch (type) {
	case MachO::CS_HASHTYPE_SHA1:
		return MachO::CS_SHA1_LEN;
	case MachO::CS_HASHTYPE_SHA256:
		return MachO::CS_SHA256_LEN;
	case MachO::CS_HASHTYPE_SHA256_TRUNCATED:
		return MachO::CS_SHA256_TRUNCATED_LEN;
	}
	return 0;
}

struct directory {
	uint32_t length, hash_offset, slots;
	uint64_t limit;
	uint8_t hash_size, hash_type, page_shift;
};

// The fields of the CodeDirectory at cd (avail bytes), or a reason.
std::string read_directory(const uint8_t *cd, size_t avail, directory *d)
{
	if (avail < 44 || be32(cd) != MachO::CSMAGIC_CODEDIRECTORY)
		return "its CodeDirectory's magic is not 0xfade0c02";
	d->length = be32(cd + 4);
	d->hash_offset = be32(cd + 16);
	d->slots = be32(cd + 28);
	d->limit = be32(cd + 32);
	d->hash_size = cd[36], d->hash_type = cd[37], d->page_shift = cd[39];
	if (d->length < 44 || d->length > avail)
		return "its CodeDirectory runs past the signature";
	if (be32(cd + 8) >= MachO::CS_SUPPORTSCODELIMIT64 && d->length >= 64 &&
	    support::endian::read64be(cd + 56))
		d->limit = support::endian::read64be(cd + 56);
	if (d->page_shift >= 32)
		return "its CodeDirectory's page size is 2^" +
		       std::to_string(d->page_shift);
	if (d->hash_offset > d->length ||
	    (uint64_t)d->slots * d->hash_size > d->length - d->hash_offset)
		return "its CodeDirectory's hashes run past it";
	return "";
}

// Check one CodeDirectory against the slice's bytes; "" when they hold.
std::string check_directory(tf_macho_slice *s, StringRef file,
			    const uint8_t *cd, size_t avail)
{
	directory d = {};
	std::string why = read_directory(cd, avail, &d);
	uint64_t page, slots, i;

	if (!why.empty())
		return why;
	if (!hash_size(d.hash_type) || d.hash_size != hash_size(d.hash_type))
		return "its CodeDirectory's hash type " +
		       std::to_string(d.hash_type) + " (" +
		       std::to_string(d.hash_size) +
		       " bytes) is not SHA-1 or SHA-256";
	if (d.limit > file.size())
		return "its CodeDirectory covers " + std::to_string(d.limit) +
		       " bytes, but the file has " +
		       std::to_string(file.size());
	page = d.page_shift ? (uint64_t)1 << d.page_shift : d.limit;
	slots = page ? (d.limit + page - 1) / page : 0;
	if (slots != d.slots)
		return "its CodeDirectory has " + std::to_string(d.slots) +
		       " page hashes for " + std::to_string(d.limit) +
		       " bytes in pages of " + std::to_string(page);
	const uint8_t *bytes = reinterpret_cast<const uint8_t *>(file.data());
	for (i = 0; i < slots; i++) {
		uint64_t at = i * page, n = std::min(page, d.limit - at);
		std::string h = page_hash(d.hash_type,
					  ArrayRef<uint8_t>(bytes + at, n));
		if (memcmp(h.data(), cd + d.hash_offset + i * d.hash_size,
			   d.hash_size))
			return "page " + std::to_string(i) + " (bytes " +
			       std::to_string(at) + "-" +
			       std::to_string(at + n - 1) +
			       ") does not match its hash: the bytes "
			       "changed after signing";
	}
	s->signature_pages += (uint32_t)slots;
	return "";
}

// The SuperBlob at the LC_CODE_SIGNATURE's place, each CodeDirectory.
std::string signature_problem(tf_macho_slice *s, StringRef file,
			      const MachO::linkedit_data_command &lc)
{
	uint32_t count, i, found = 0;

	if (lc.dataoff > file.size() || lc.datasize > file.size() - lc.dataoff)
		return "its LC_CODE_SIGNATURE lies outside the file";
	const uint8_t *sig =
		reinterpret_cast<const uint8_t *>(file.data()) + lc.dataoff;
	if (lc.datasize < 12 || be32(sig) != MachO::CSMAGIC_EMBEDDED_SIGNATURE)
		return "no embedded signature (magic 0xfade0cc0) where "
		       "LC_CODE_SIGNATURE points";
	count = be32(sig + 8);
	if (count > (lc.datasize - 12) / 8)
		return "its signature's index runs past it";
	for (i = 0; i < count; i++) {
		uint32_t type = be32(sig + 12 + 8 * i);
		uint32_t off = be32(sig + 16 + 8 * i);

		if (type != MachO::CSSLOT_CODEDIRECTORY &&
		    (type < MachO::CSSLOT_ALTERNATE_CODEDIRECTORIES ||
		     type >= MachO::CSSLOT_ALTERNATE_CODEDIRECTORY_LIMIT))
			continue;
		if (off >= lc.datasize)
			return "its signature's CodeDirectory lies past it";
		std::string why =
			check_directory(s, file, sig + off, lc.datasize - off);
		if (!why.empty())
			return why;
		found++;
	}
	return found ? "" : "its signature holds no CodeDirectory";
}

void check_signature(tf_macho_slice *s, const MachOObjectFile &o,
		     const MachO::linkedit_data_command &lc)
{
	std::string why = signature_problem(s, o.getData(), lc);

	if (!why.empty())
		s->signature_problem = dup(why);
}

int read_slice(tf_macho_slice *s, MachOObjectFile &o, const reason &why)
{
	linkedit le = {};

	read_header(s, o);
	for (const MachOObjectFile::LoadCommandInfo &lc : o.load_commands()) {
		load_command(s, o, lc, &le);
		s->nr_load_commands++;
	}
	if (s->code_signature)
		check_signature(s, o, le.signature);
	if (read_exports(s, o, le.trie, why) < 0 || read_undefs(s, o, why) < 0)
		return -1;
	return read_text(s, o, why);
}

void free_slice(tf_macho_slice *s)
{
	size_t i;

	free(s->install_name);
	free(s->dylinker);
	for (i = 0; i < s->nr_dylibs; i++)
		free(s->dylibs[i].name);
	free(s->dylibs);
	for (i = 0; i < s->nr_rpaths; i++)
		free(s->rpaths[i]);
	free(s->rpaths);
	for (i = 0; i < s->nr_exports; i++)
		free(s->exports[i]);
	free(s->exports);
	for (i = 0; i < s->nr_undefs; i++)
		free(s->undefs[i].name);
	free(s->undefs);
	free(s->text);
	free(s->signature_problem);
}

int add_slice(tf_macho *m, MachOObjectFile &o, const reason &why)
{
	m->slices = grow(m->slices, m->nr_slices);
	return read_slice(&m->slices[m->nr_slices++], o, why);
}

int read_universal(tf_macho *m, const MachOUniversalBinary &u,
		   const reason &why)
{
	m->universal = 1;
	for (const MachOUniversalBinary::ObjectForArch &a : u.objects()) {
		Expected<std::unique_ptr<MachOObjectFile>> o =
			a.getAsObjectFile();
		if (!o) {
			std::string msg = toString(o.takeError());
			return fail(why, "its %s slice: %s",
				    a.getArchFlagName().c_str(), msg.c_str());
		}
		if (add_slice(m, **o, why) < 0)
			return -1;
	}
	return 0;
}

} // namespace

extern "C" {

// The interface macho.c looks up (macho.h); nothing else is exported.
__attribute__((visibility("default"))) int tfmacho_abi(void);
__attribute__((visibility("default"))) int tfmacho_read(const char *path,
							tf_macho **out,
							char *why,
							size_t why_size);
__attribute__((visibility("default"))) void tfmacho_free(tf_macho *m);

int tfmacho_abi(void)
{
	return TF_MACHO_ABI;
}

void tfmacho_free(tf_macho *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nr_slices; i++)
		free_slice(&m->slices[i]);
	free(m->slices);
	free(m);
}

int tfmacho_read(const char *path, tf_macho **out, char *why_buf,
		 size_t why_size)
{
	reason why = { why_buf, why_size };
	tf_macho *m;
	int ret;

	*out = nullptr;
	Expected<OwningBinary<Binary>> bin = createBinary(path);
	if (!bin)
		return fail_error(why, "not a readable Mach-O file",
				  bin.takeError());
	m = static_cast<tf_macho *>(calloc(1, sizeof(*m)));
	if (!m)
		abort();
	Binary *b = bin->getBinary();
	if (auto *u = dyn_cast<MachOUniversalBinary>(b))
		ret = read_universal(m, *u, why);
	else if (auto *o = dyn_cast<MachOObjectFile>(b))
		ret = add_slice(m, *o, why);
	else
		ret = fail(why, "not a Mach-O file");
	if (ret < 0) {
		tfmacho_free(m);
		return -1;
	}
	*out = m;
	return 0;
}
}
