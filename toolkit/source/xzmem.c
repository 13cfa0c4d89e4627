#include "xzmem.h"

#include <lzma.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"

static const unsigned char XZ_MAGIC[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };

/*
 * The index of every stream in the file, found from the footers: 0, or
 * -1 if it does not decode, or 1 if holding it would take more than
 * limit bytes (*need is then raised to what it would take). The index
 * counts: a 60-byte file can claim a billion blocks, and liblzma
 * allocates room for the records it is told to expect.
 */
static int read_index(int fd, const char *label, uint64_t size, uint64_t limit,
		      lzma_index **idx, uint64_t *need)
{
	lzma_stream s = LZMA_STREAM_INIT;
	unsigned char buf[8192];
	uint64_t pos = 0;
	lzma_ret r;

	if (lzma_file_info_decoder(&s, idx, limit, size) != LZMA_OK)
		return error("%s: cannot start the xz index decoder", label);
	for (;;) {
		if (!s.avail_in) {
			ssize_t n = pread(fd, buf, sizeof(buf), (off_t)pos);

			if (n < 0) {
				lzma_end(&s);
				return error_errno("%s: cannot read", label);
			}
			s.next_in = buf;
			s.avail_in = (size_t)n;
			pos += (uint64_t)n;
		}
		r = lzma_code(&s, pos >= size ? LZMA_FINISH : LZMA_RUN);
		if (r == LZMA_SEEK_NEEDED) {
			pos = s.seek_pos;
			s.avail_in = 0;
		} else if (r == LZMA_STREAM_END) {
			break;
		} else if (r == LZMA_MEMLIMIT_ERROR) {
			uint64_t m = lzma_memusage(&s);

			lzma_end(&s);
			if (m <= limit) /* over it, whatever liblzma says */
				m = limit + 1;
			if (m > *need)
				*need = m;
			return 1;
		} else if (r != LZMA_OK) {
			lzma_end(&s);
			return -1; /* truncated or damaged: see xz_memusage */
		}
	}
	lzma_end(&s);
	return 0;
}

/* What one block needs, from its header. */
static int block_memusage(int fd, const char *label, const lzma_index_iter *it,
			  uint64_t *need)
{
	lzma_filter filters[LZMA_FILTERS_MAX + 1];
	lzma_block block;
	uint8_t hdr[LZMA_BLOCK_HEADER_SIZE_MAX];
	uint64_t m;
	off_t off = (off_t)it->block.compressed_file_offset;

	memset(&block, 0, sizeof(block));
	if (pread(fd, hdr, 1, off) != 1)
		return error("%s: xz block header past the end of the file",
			     label);
	block.version = 1;
	block.check = it->stream.flags->check;
	block.header_size = lzma_block_header_size_decode(hdr[0]);
	block.filters = filters;
	if (pread(fd, hdr, block.header_size, off) !=
		    (ssize_t)block.header_size ||
	    lzma_block_header_decode(&block, NULL, hdr) != LZMA_OK)
		return error(
			"%s: xz block header at offset %lld does not decode",
			label, (long long)off);
	m = lzma_raw_decoder_memusage(filters);
	lzma_filters_free(filters, NULL);
	if (m == UINT64_MAX)
		return error(
			"%s: xz block at offset %lld uses unsupported filters",
			label, (long long)off);
	if (m > *need)
		*need = m;
	return 0;
}

static int first_block_memusage(int fd, uint64_t *need)
{
	lzma_filter filters[LZMA_FILTERS_MAX + 1];
	uint8_t hdr[LZMA_BLOCK_HEADER_SIZE_MAX];
	lzma_stream_flags flags;
	lzma_block block;
	uint64_t m;

	if (pread(fd, hdr, LZMA_STREAM_HEADER_SIZE, 0) !=
		    LZMA_STREAM_HEADER_SIZE ||
	    lzma_stream_header_decode(&flags, hdr) != LZMA_OK ||
	    pread(fd, hdr, 1, LZMA_STREAM_HEADER_SIZE) != 1 || !hdr[0])
		return 0;
	memset(&block, 0, sizeof(block));
	block.version = 1;
	block.check = flags.check;
	block.header_size = lzma_block_header_size_decode(hdr[0]);
	block.filters = filters;
	if (pread(fd, hdr, block.header_size, LZMA_STREAM_HEADER_SIZE) !=
		    (ssize_t)block.header_size ||
	    lzma_block_header_decode(&block, NULL, hdr) != LZMA_OK)
		return 0;
	m = lzma_raw_decoder_memusage(filters);
	lzma_filters_free(filters, NULL);
	if (m != UINT64_MAX && m > *need)
		*need = m;
	return 0;
}

static int xz_memusage(int fd, const char *label, uint64_t size, uint64_t limit,
		       uint64_t *need)
{
	lzma_index *idx = NULL;
	lzma_index_iter it;
	int ret = 0;

	/*
	 * Without an index (a truncated download, say) only the first
	 * block's header is checked; libarchive then reports the damage
	 * with the member it was reading, which says more than we could.
	 */
	ret = read_index(fd, label, size, limit, &idx, need);
	if (ret < 0)
		return first_block_memusage(fd, need);
	if (ret > 0)
		return 0; /* over the limit already: the caller refuses it */
	lzma_index_iter_init(&it, idx);
	while (!ret && !lzma_index_iter_next(&it, LZMA_INDEX_ITER_BLOCK))
		ret = block_memusage(fd, label, &it, need);
	lzma_index_end(idx, NULL);
	return ret;
}

/* The legacy .lzma header: properties byte, then the dictionary size. */
static void lzma_alone_memusage(const unsigned char *h, uint64_t *need)
{
	lzma_options_lzma opt;
	lzma_filter f[2] = { { LZMA_FILTER_LZMA1, &opt },
			     { LZMA_VLI_UNKNOWN, NULL } };

	memset(&opt, 0, sizeof(opt));
	opt.dict_size = (uint32_t)h[1] | (uint32_t)h[2] << 8 |
			(uint32_t)h[3] << 16 | (uint32_t)h[4] << 24;
	opt.lc = h[0] % 9;
	opt.lp = (h[0] / 9) % 5;
	opt.pb = h[0] / 45;
	*need = lzma_raw_decoder_memusage(f);
	if (*need == UINT64_MAX)
		*need = opt.dict_size;
}

static int looks_like_lzma_dict(const unsigned char *h)
{
	uint32_t d = (uint32_t)h[1] | (uint32_t)h[2] << 8 |
		     (uint32_t)h[3] << 16 | (uint32_t)h[4] << 24;
	int n;

	for (n = 12; n < 32; n++)
		if (d == (uint32_t)1 << n || d == ((uint32_t)3 << (n - 1)))
			return 1;
	return d == UINT32_MAX || d == (uint32_t)1 << 31;
}

int tf_xz_memusage(int fd, const char *label, uint64_t limit, uint64_t *need)
{
	unsigned char h[13];
	struct stat st;

	*need = 0;
	if (fstat(fd, &st) < 0)
		return error_errno("%s: cannot stat", label);
	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return 0;
	if (!memcmp(h, XZ_MAGIC, sizeof(XZ_MAGIC)))
		return xz_memusage(fd, label, (uint64_t)st.st_size, limit,
				   need);
	/* libarchive's own test for .lzma: props, then a 2^n or 3*2^(n-1) dictionary. */
	if (h[0] < 225 && looks_like_lzma_dict(h))
		lzma_alone_memusage(h, need);
	return 0;
}
