/*
 * Zipout: parallel deflate (libdeflate) into a zip written by minizip.
 * See zipout.h for the format decisions; the comments here say why.
 */
#include "zipout.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <libdeflate.h>
#include <minizip/zip.h>
#include <zlib.h>

#include "base/base.h"

/* Entries this large need ZIP64 fields (minizip's limit is 4 GiB - 1). */
#define ZIP64_MIN 0xffff0000LL
/* Bytes an empty stored block adds after a non-final block (see pad). */
#define PAD_MAX 5
#define MAX_JOBS 64
/* Deflate's window: an entry no longer than this never slides it. */
#define WINDOW (32 * 1024)

enum slot_state {
	SLOT_FREE,
	SLOT_QUEUED,
	SLOT_DONE
};

/* Small entries one block may carry (bounds the hand-offs per entry). */
#define MAX_PARTS 64

/*
 * One entry's bytes within a block: all of a small entry, or one
 * TF_ZIPOUT_BLOCK piece of a large one. Each part is its own deflate
 * stream (or a piece of one), so batching never changes a byte.
 */
struct part {
	size_t in_off, in_len;           /* in the slot's in */
	size_t out_off, out_len;         /* in the slot's out */
	size_t out_room;                 /* the most it may take in out */
	uint32_t crc;                    /* CRC-32 of its bytes */
	int first, final;                /* the entry's first or last part */
	unsigned char md[TF_SHA256_LEN]; /* the entry's, if first and final */
	/* Set on the first part: the entry's header. */
	char *name; /* owned */
	unsigned perm;
	unsigned long dosdate;
	uint32_t mtime; /* for the "UT" extra field */
	int zip64;
};

/* One block of input on its way through the pipeline. */
struct slot {
	enum slot_state state;
	unsigned char *in; /* owned: TF_ZIPOUT_BLOCK bytes of input */
	size_t in_len;
	unsigned char *out; /* owned: out_cap bytes, the parts' output */
	size_t out_room;    /* sum of the parts' out_room */
	struct part parts[MAX_PARTS];
	size_t nr_parts;
	size_t failed; /* 1 + the part that failed, or 0 */
};

/* What a compressing thread keeps for its whole life. */
struct worker {
	struct libdeflate_compressor *c;   /* owned; state reused per block */
	struct libdeflate_compressor *cw;  /* owned: for entries in a window,
					      NULL if at c's level */
	struct libdeflate_decompressor *d; /* owned */
	z_stream zs;                       /* inflate for walking blocks */
	int zs_ok;
	unsigned char *scratch; /* owned: TF_ZIPOUT_BLOCK + 1 */
	pthread_t thread;
	struct tf_zipout *z; /* borrowed */
};

struct tf_zipout {
	zipFile zf;    /* owned */
	char *context; /* owned */
	char *path;    /* owned: the archive's, for its ZIP64 end records */
	uint64_t nr_entries; /* headers written */
	int level;
	size_t out_cap;     /* size of each slot's out */
	struct slot *slots; /* owned ring of nr_slots */
	size_t nr_slots;
	unsigned long long fill, work, drain; /* next sequence numbers */
	struct worker *workers; /* owned: nr_workers threads, or one inline */
	size_t nr_workers;
	size_t nr_threads; /* of them started: joined when stopping */
	int threaded, stopping;
	pthread_mutex_t lock;
	pthread_cond_t work_cv, done_cv;
	tf_zipout_done_fn *done; /* told each entry's digest, in order */
	void *done_arg;
	/* The entry being fed. */
	struct slot *cur; /* the slot being filled, or NULL */
	long long fed;    /* bytes fed to the current entry */
	long long promised;
	int in_entry;
	/* The entry being written out (the caller's thread). */
	char *wname;           /* owned: its name */
	struct tf_sha256 *sha; /* owned: its digest, if in several parts */
	uint32_t crc;
	long long written;
	int failed;
};

static unsigned long dos_date(long long t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || tm.tm_year < 80)
		return (1 << 21) | (1 << 16); /* 1980-01-01 00:00 */
	return ((unsigned long)(tm.tm_year - 80) << 25) |
	       ((unsigned long)(tm.tm_mon + 1) << 21) |
	       ((unsigned long)tm.tm_mday << 16) |
	       ((unsigned long)tm.tm_hour << 11) |
	       ((unsigned long)tm.tm_min << 5) | ((unsigned long)tm.tm_sec / 2);
}

/* --- compressing one block (any thread) --- */

/*
 * A part that is not its entry's last: find its last deflate block's
 * header with zlib's inflate (Z_BLOCK stops at every block boundary, as
 * gzjoin uses it), checking the bytes it inflates to, then clear that
 * header's final bit and end on a byte boundary with an empty stored
 * block.
 */
static int unfinal(struct worker *w, const unsigned char *in, size_t in_len,
		   unsigned char *out, size_t *out_len)
{
	z_stream *zs = &w->zs;
	size_t hdr = 0, used, n = *out_len;
	int bit = 0, ret, unused = 0;

	if (inflateReset(zs) != Z_OK)
		return -1;
	zs->next_in = out;
	zs->avail_in = (uInt)n;
	zs->next_out = w->scratch;
	zs->avail_out = TF_ZIPOUT_BLOCK + 1;
	for (;;) {
		ret = inflate(zs, Z_BLOCK);
		if (ret == Z_STREAM_END)
			break;
		if (ret != Z_OK)
			return -1;
		if (!(zs->data_type & 128))
			continue;
		/*
		 * After a block: the next header starts here, unless that
		 * was the last block (64), whose end is the stream's end.
		 */
		used = (size_t)(zs->next_in - out);
		unused = zs->data_type & 7;
		if (zs->data_type & 64)
			continue;
		hdr = unused ? used - 1 : used;
		bit = unused ? 8 - unused : 0;
	}
	if (zs->avail_in || zs->total_out != in_len ||
	    memcmp(w->scratch, in, in_len) || hdr >= n ||
	    !(out[hdr] & (1u << bit)))
		return -1;
	out[hdr] &= (unsigned char)~(1u << bit);
	if (unused) {
		/* BFINAL=0 BTYPE=00: three zero bits, then LEN 0, NLEN ~0. */
		out[n - 1] &= (unsigned char)((1u << (8 - unused)) - 1);
		if (unused < 3)
			out[n++] = 0;
		memcpy(out + n, "\0\0\377\377", 4);
		n += 4;
	}
	*out_len = n;
	return 0;
}

static int check_final(struct worker *w, const unsigned char *in, size_t in_len,
		       const unsigned char *out, size_t out_len)
{
	size_t n;

	return libdeflate_deflate_decompress(w->d, out, out_len, w->scratch,
					     TF_ZIPOUT_BLOCK,
					     &n) == LIBDEFLATE_SUCCESS &&
			       n == in_len && !memcmp(w->scratch, in, n)
		       ? 0
		       : -1;
}

/*
 * Compress one part into out + off. A whole entry (first and final) is
 * also hashed here, so small files cost the caller's thread nothing
 * but reading them.
 */
static int compress_part(struct tf_zipout *z, struct worker *w, struct slot *s,
			 struct part *pt, size_t off)
{
	const unsigned char *in = s->in + pt->in_off;
	unsigned char *out = s->out + off;

	pt->out_off = off;
	pt->crc = (uint32_t)libdeflate_crc32(0, in, pt->in_len);
	if (pt->first && pt->final)
		tf_sha256_buf(in, pt->in_len, pt->md);
	if (!z->level) {
		memcpy(out, in, pt->in_len);
		pt->out_len = pt->in_len;
		return 0;
	}
	pt->out_len = libdeflate_deflate_compress(
		pt->first && pt->final && pt->in_len <= WINDOW && w->cw ? w->cw
									: w->c,
		in, pt->in_len, out, pt->out_room - PAD_MAX);
	if (!pt->out_len)
		return -1;
	if (pt->final)
		return check_final(w, in, pt->in_len, out, pt->out_len);
	return unfinal(w, in, pt->in_len, out, &pt->out_len);
}

static void compress_slot(struct tf_zipout *z, struct worker *w, struct slot *s)
{
	size_t i, off = 0;

	for (i = 0; i < s->nr_parts && !s->failed; i++) {
		if (compress_part(z, w, s, &s->parts[i], off) < 0)
			s->failed = i + 1;
		off += s->parts[i].out_len;
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct tf_zipout *z = w->z;
	struct slot *s;

	tf_signals_worker(); /* fatal signals are the main thread's */
	pthread_mutex_lock(&z->lock);
	for (;;) {
		while (!z->stopping && z->work == z->fill)
			pthread_cond_wait(&z->work_cv, &z->lock);
		if (z->work == z->fill)
			break;
		s = &z->slots[z->work++ % z->nr_slots];
		pthread_mutex_unlock(&z->lock);
		compress_slot(z, w, s);
		pthread_mutex_lock(&z->lock);
		s->state = SLOT_DONE;
		pthread_cond_broadcast(&z->done_cv);
	}
	pthread_mutex_unlock(&z->lock);
	return NULL;
}

/*
 * libdeflate's level for zlib's. From 6 up, one more: on long inputs of
 * generated source-like text libdeflate 6 comes out 5.5 % larger than
 * zlib 6 and 7 within 0.2 %, still faster than zlib 6. Not for an entry
 * that fits in deflate's 32 KiB window: libdeflate's level N stays
 * within 0.7 % of zlib's N there (its shorter match search loses only
 * once the window is full), and is 1.4-1.7x faster than N + 1
 * (docs/performance.md, "Entries within the window at libdeflate 6").
 */
static int libdeflate_level(int level, int in_window)
{
	static const int map[10] = { 1, 1, 2, 3, 4, 5, 7, 8, 9, 12 };

	return in_window && level >= 6 ? level : map[level];
}

static int worker_init(struct worker *w, struct tf_zipout *z)
{
	int level = libdeflate_level(z->level, 0),
	    in_window = libdeflate_level(z->level, 1);

	w->z = z;
	w->c = libdeflate_alloc_compressor(level);
	/* Below zlib's 6 both are the same level: one compressor. */
	w->cw = in_window == level ? NULL
				   : libdeflate_alloc_compressor(in_window);
	w->d = libdeflate_alloc_decompressor();
	w->scratch = tf_malloc(TF_ZIPOUT_BLOCK + 1);
	memset(&w->zs, 0, sizeof(w->zs));
	w->zs_ok = inflateInit2(&w->zs, -MAX_WBITS) == Z_OK;
	return w->c && (w->cw || in_window == level) && w->d && w->zs_ok ? 0
									 : -1;
}

static void worker_release(struct worker *w)
{
	libdeflate_free_compressor(w->c);
	libdeflate_free_compressor(w->cw);
	libdeflate_free_decompressor(w->d);
	if (w->zs_ok)
		inflateEnd(&w->zs);
	free(w->scratch);
}

/* --- writing out, in order (the caller's thread) --- */

static int zip_fail(struct tf_zipout *z, const char *what, const char *name)
{
	z->failed = 1;
	return error("%s: cannot %s '%s'", z->context, what, name);
}

/*
 * The extra fields of every entry, local and central, as the libarchive
 * writer before it made them: Info-ZIP "UT" (the time, UTC) and "ux"
 * (owner and group 0), so unzip -Z and zipfile show fixed times and
 * owners, not the packer's.
 */
static void extra_fields(uint32_t mtime, unsigned char x[24])
{
	static const unsigned char ux[11] = { 'u', 'x', 11, 0, 1, 4,
					      0,   0,   0,  0, 4 };

	memcpy(x, "UT\5\0\1", 5);
	x[5] = (unsigned char)mtime;
	x[6] = (unsigned char)(mtime >> 8);
	x[7] = (unsigned char)(mtime >> 16);
	x[8] = (unsigned char)(mtime >> 24);
	memcpy(x + 9, ux, sizeof(ux));
	memset(x + 20, 0, 4);
}

static int write_part(struct tf_zipout *z, const struct slot *s,
		      const struct part *pt)
{
	unsigned char md[TF_SHA256_LEN];
	zip_fileinfo zi;
	unsigned char x[24];

	if (pt->first) {
		memset(&zi, 0, sizeof(zi));
		zi.dosDate = pt->dosdate;
		zi.external_fa = (0100000UL | pt->perm) << 16;
		extra_fields(pt->mtime, x);
		/* Made by Unix (3), so readers take the modes; version 2.0. */
		if (zipOpenNewFileInZip4_64(
			    z->zf, pt->name, &zi, x, sizeof(x), x, sizeof(x),
			    NULL, z->level ? Z_DEFLATED : 0, z->level, 1,
			    -MAX_WBITS, 8, Z_DEFAULT_STRATEGY, NULL, 0,
			    (3 << 8) | 20, 0, pt->zip64) != ZIP_OK)
			return zip_fail(z, "write the header of", pt->name);
		z->nr_entries++;
		free(z->wname);
		z->wname = tf_strdup(pt->name);
		z->crc = 0;
		z->written = 0;
		if (!pt->final)
			z->sha = tf_sha256_new();
	}
	/* A large entry's digest, part by part in order. */
	if (z->sha)
		tf_sha256_update(z->sha, s->in + pt->in_off, pt->in_len);
	if (pt->out_len && zipWriteInFileInZip(z->zf, s->out + pt->out_off,
					       (unsigned)pt->out_len) != ZIP_OK)
		return zip_fail(z, "write", z->wname);
	z->crc = (uint32_t)crc32_combine(z->crc, pt->crc, (z_off_t)pt->in_len);
	z->written += (long long)pt->in_len;
	if (!pt->final)
		return 0;
	if (zipCloseFileInZipRaw64(z->zf, (ZPOS64_T)z->written, z->crc) !=
	    ZIP_OK)
		return zip_fail(z, "finish", z->wname);
	if (z->sha) {
		tf_sha256_final(z->sha, md);
		z->sha = NULL;
	} else {
		memcpy(md, pt->md, sizeof(md));
	}
	if (z->done)
		z->done(z->done_arg, z->wname, z->written, md);
	return 0;
}

static int write_slot(struct tf_zipout *z, struct slot *s)
{
	size_t i;

	if (s->failed) {
		const struct part *pt = &s->parts[s->failed - 1];

		return zip_fail(z, "compress",
				pt->name   ? pt->name
				: z->wname ? z->wname
					   : "an entry");
	}
	for (i = 0; i < s->nr_parts; i++)
		if (write_part(z, s, &s->parts[i]) < 0)
			return -1;
	return 0;
}

/* Wait for the oldest block, write it and free its slot. */
static int drain_one(struct tf_zipout *z)
{
	struct slot *s = &z->slots[z->drain % z->nr_slots];
	size_t i;
	int ret;

	if (z->threaded) {
		pthread_mutex_lock(&z->lock);
		while (s->state != SLOT_DONE)
			pthread_cond_wait(&z->done_cv, &z->lock);
		pthread_mutex_unlock(&z->lock);
	}
	ret = z->failed ? -1 : write_slot(z, s);
	for (i = 0; i < s->nr_parts; i++) {
		free(s->parts[i].name);
		s->parts[i].name = NULL;
	}
	s->state = SLOT_FREE;
	z->drain++;
	return ret;
}

/* Hand the slot being filled to the workers (or compress it here). */
static int submit(struct tf_zipout *z)
{
	struct slot *s = z->cur;

	z->cur = NULL;
	if (!z->threaded) {
		compress_slot(z, &z->workers[0], s);
		s->state = SLOT_DONE;
		z->fill++;
		return drain_one(z);
	}
	pthread_mutex_lock(&z->lock);
	s->state = SLOT_QUEUED;
	z->fill++;
	pthread_cond_signal(&z->work_cv);
	pthread_mutex_unlock(&z->lock);
	return 0;
}

/* The next free slot, writing out the oldest ones to make room. */
static struct slot *take_slot(struct tf_zipout *z)
{
	struct slot *s;

	while (z->fill - z->drain >= z->nr_slots)
		if (drain_one(z) < 0)
			return NULL;
	s = &z->slots[z->fill % z->nr_slots];
	s->in_len = s->out_room = s->nr_parts = s->failed = 0;
	z->cur = s;
	return s;
}

/* The room in out a part of n bytes may need (its deflate bound). */
static size_t part_room(const struct tf_zipout *z, size_t n)
{
	return libdeflate_deflate_compress_bound(z->workers[0].c, n) + PAD_MAX;
}

/* Start a part of the current entry in s: up to `want` more bytes. */
static struct part *add_part(struct tf_zipout *z, struct slot *s, size_t want,
			     int first)
{
	struct part *pt = &s->parts[s->nr_parts++];

	memset(pt, 0, sizeof(*pt));
	pt->in_off = s->in_len;
	pt->first = first;
	pt->out_room = part_room(z, want);
	s->out_room += pt->out_room;
	return pt;
}

/* 1 if a whole entry of size bytes fits in the slot being filled. */
static int fits(const struct tf_zipout *z, long long size)
{
	const struct slot *s = z->cur;

	return s && s->nr_parts < MAX_PARTS &&
	       size <= (long long)(TF_ZIPOUT_BLOCK - s->in_len) &&
	       s->out_room + part_room(z, (size_t)size) <= z->out_cap;
}

/* Send off a partly filled block, so every entry begun is on its way. */
static int send_partial(struct tf_zipout *z)
{
	return z->cur && z->cur->nr_parts ? submit(z) : 0;
}

/* --- the interface --- */

struct tf_zipout *tf_zipout_open(const char *path, int level, int jobs,
				 const char *context)
{
	struct tf_zipout *z = tf_calloc(1, sizeof(*z));
	size_t i;

	z->context = tf_strdup(context);
	z->level = level < 0 ? 6 : level > 9 ? 9 : level;
	if (jobs < 1)
		jobs = 1;
	if (jobs > MAX_JOBS)
		jobs = MAX_JOBS;
	z->threaded = jobs > 1;
	z->nr_workers = (size_t)jobs;
	z->nr_slots = z->threaded ? 2 * (size_t)jobs : 1;
	z->workers = tf_calloc(z->nr_workers, sizeof(*z->workers));
	z->slots = tf_calloc(z->nr_slots, sizeof(*z->slots));
	pthread_mutex_init(&z->lock, NULL);
	pthread_cond_init(&z->work_cv, NULL);
	pthread_cond_init(&z->done_cv, NULL);
	for (i = 0; i < z->nr_workers; i++)
		if (worker_init(&z->workers[i], z) < 0)
			tf_out_of_memory(0);
	/* A whole block of one entry, or up to MAX_PARTS small ones. */
	z->out_cap =
		part_room(z, TF_ZIPOUT_BLOCK) + MAX_PARTS * part_room(z, 0);
	for (i = 0; i < z->nr_slots; i++) {
		z->slots[i].in = tf_malloc(TF_ZIPOUT_BLOCK);
		z->slots[i].out = tf_malloc(z->out_cap);
	}
	z->path = tf_strdup(path);
	z->zf = zipOpen64(path, APPEND_STATUS_CREATE);
	if (!z->zf) {
		error_errno("%s: cannot create '%s'", context, path);
		tf_zipout_free(z);
		return NULL;
	}
	for (i = 0; z->threaded && i < z->nr_workers; i++) {
		int rc = pthread_create(&z->workers[i].thread, NULL,
					worker_main, &z->workers[i]);

		if (rc) {
			error("%s: cannot start a thread: %s", context,
			      strerror(rc));
			tf_zipout_free(z);
			return NULL;
		}
		z->nr_threads++;
	}
	return z;
}

void tf_zipout_on_entry(struct tf_zipout *z, tf_zipout_done_fn *fn, void *arg)
{
	z->done = fn;
	z->done_arg = arg;
}

int tf_zipout_begin(struct tf_zipout *z, const char *name, unsigned perm,
		    long long mtime, long long size)
{
	struct slot *s;
	struct part *pt;
	size_t room;

	if (z->failed || z->in_entry || size < 0)
		return -1;
	/* Small entries share a block; any other starts a fresh one. */
	if (!fits(z, size) && (send_partial(z) < 0 || !take_slot(z)))
		return -1;
	s = z->cur;
	room = TF_ZIPOUT_BLOCK - s->in_len;
	pt = add_part(z, s, size < (long long)room ? (size_t)size : room, 1);
	pt->name = tf_strdup(name);
	pt->perm = perm & 07777;
	pt->dosdate = dos_date(mtime);
	pt->mtime = (uint32_t)mtime;
	pt->zip64 = size >= ZIP64_MIN;
	z->in_entry = 1;
	z->fed = 0;
	z->promised = size;
	return 0;
}

unsigned char *tf_zipout_buffer(struct tf_zipout *z, size_t *room)
{
	struct slot *s = z->cur;
	long long left = z->promised - z->fed;

	if (!z->in_entry || z->failed)
		return NULL;
	if (!s) {
		/* The entry goes on in a new block. */
		s = take_slot(z);
		if (!s)
			return NULL;
		add_part(z, s,
			 left < TF_ZIPOUT_BLOCK ? (size_t)left
						: TF_ZIPOUT_BLOCK,
			 0);
	}
	*room = TF_ZIPOUT_BLOCK - s->in_len;
	return s->in + s->in_len;
}

int tf_zipout_commit(struct tf_zipout *z, size_t n)
{
	struct slot *s = z->cur;

	if (!s || !z->in_entry || n > TF_ZIPOUT_BLOCK - s->in_len)
		BUG("zipout: commit past the buffer");
	if ((long long)n > z->promised - z->fed)
		return -1;
	s->in_len += n;
	s->parts[s->nr_parts - 1].in_len += n;
	z->fed += (long long)n;
	/* Full: on its way, unless the entry ends here (then it is final). */
	if (s->in_len == TF_ZIPOUT_BLOCK && z->fed < z->promised)
		return submit(z);
	return 0;
}

int tf_zipout_write(struct tf_zipout *z, const void *data, size_t n)
{
	const unsigned char *p = data;
	size_t room, k;

	while (n) {
		unsigned char *buf = tf_zipout_buffer(z, &room);

		if (!buf || !room)
			return -1;
		k = n < room ? n : room;
		memcpy(buf, p, k);
		if (tf_zipout_commit(z, k) < 0)
			return -1;
		p += k;
		n -= k;
	}
	return 0;
}

int tf_zipout_end(struct tf_zipout *z)
{
	struct slot *s = z->cur;

	if (!z->in_entry || z->fed != z->promised || z->failed || !s)
		return -1;
	z->in_entry = 0;
	s->parts[s->nr_parts - 1].final = 1;
	/* A block with no room left goes at once; others wait for more. */
	if (s->in_len == TF_ZIPOUT_BLOCK || s->nr_parts == MAX_PARTS)
		return submit(z);
	return 0;
}

int tf_zipout_flush(struct tf_zipout *z)
{
	if (z->in_entry || send_partial(z) < 0)
		return -1;
	while (z->drain < z->fill)
		if (drain_one(z) < 0)
			return -1;
	return 0;
}

static void stop_workers(struct tf_zipout *z)
{
	size_t i;

	if (!z->threaded)
		return;
	pthread_mutex_lock(&z->lock);
	z->stopping = 1;
	pthread_cond_broadcast(&z->work_cv);
	pthread_mutex_unlock(&z->lock);
	for (i = 0; i < z->nr_threads; i++)
		pthread_join(z->workers[i].thread, NULL);
	z->threaded = 0;
}

static void put_le(unsigned char *p, uint64_t v, int n)
{
	while (n--) {
		*p++ = (unsigned char)v;
		v >>= 8;
	}
}

static uint64_t get_le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/*
 * minizip (1.1, Debian's) writes 0xffff for the entry count from 65,535
 * entries on, but the ZIP64 end records only for an archive past 4 GiB:
 * a reader that takes the count from the end record (tfbuild's own, and
 * APPNOTE 4.4.21-22 says 0xffff means "see the ZIP64 record") finds no
 * count. The ZIP64 end record and its locator go in before the end
 * record, the file's last 22 bytes (zipClose writes no comment). An
 * archive of fewer entries is not touched: its bytes stay as they were.
 */
static int zip64_end(const struct tf_zipout *z)
{
	unsigned char b[56 + 20 + 22], *loc = b + 56, *e = b + 76;
	int fd = open(z->path, O_RDWR | O_CLOEXEC), ret = -1;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < 42 ||
	    pread(fd, loc, 42, st.st_size - 42) != 42 || memcmp(e, "PK\5\6", 4))
		goto out;
	ret = 0;
	if (get_le(e + 10, 2) != 0xffff || !memcmp(loc, "PK\6\7", 4))
		goto out;
	memset(b, 0, 76);
	memcpy(b, "PK\6\6", 4);
	put_le(b + 4, 44, 8);             /* the rest of the record's size */
	put_le(b + 12, (3 << 8) | 45, 2); /* made by Unix, ZIP64's 4.5 */
	put_le(b + 14, 45, 2);            /* needed to extract */
	put_le(b + 24, z->nr_entries, 8);
	put_le(b + 32, z->nr_entries, 8);
	put_le(b + 40, get_le(e + 12, 4), 8); /* the directory's size */
	put_le(b + 48, get_le(e + 16, 4), 8); /* and where it starts */
	memcpy(loc, "PK\6\7", 4);
	put_le(loc + 8, (uint64_t)st.st_size - 22, 8);
	put_le(loc + 16, 1, 4); /* disks */
	if (lseek(fd, st.st_size - 22, SEEK_SET) < 0 ||
	    tf_write_all(fd, b, sizeof(b)) < 0)
		ret = -1;
out:
	if (ret < 0)
		error_errno("%s: cannot write the ZIP64 end records of '%s'",
			    z->context, z->path);
	if (fd >= 0)
		close(fd);
	return ret;
}

int tf_zipout_close(struct tf_zipout *z)
{
	int ret = tf_zipout_flush(z);

	if (!ret && zipClose(z->zf, NULL) != ZIP_OK)
		ret = error("%s: cannot write the central directory",
			    z->context);
	else if (ret)
		zipClose(z->zf, NULL);
	else if (z->nr_entries >= 0xffff)
		ret = zip64_end(z);
	z->zf = NULL;
	tf_zipout_free(z);
	return ret;
}

void tf_zipout_free(struct tf_zipout *z)
{
	size_t i, j;

	if (!z)
		return;
	stop_workers(z);
	if (z->zf)
		zipClose(z->zf, NULL);
	for (i = 0; i < z->nr_slots; i++) {
		free(z->slots[i].in);
		free(z->slots[i].out);
		for (j = 0; j < z->slots[i].nr_parts; j++)
			free(z->slots[i].parts[j].name);
	}
	for (i = 0; i < z->nr_workers; i++)
		worker_release(&z->workers[i]);
	pthread_mutex_destroy(&z->lock);
	pthread_cond_destroy(&z->work_cv);
	pthread_cond_destroy(&z->done_cv);
	tf_sha256_free(z->sha);
	free(z->wname);
	free(z->slots);
	free(z->workers);
	free(z->context);
	free(z->path);
	free(z);
}
