/*
 * Zipout: parallel deflate (libdeflate) into a zip written by minizip.
 * See zipout.h for the format decisions; the comments here say why.
 */
#include "zipout.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libdeflate.h>
#include <minizip/zip.h>
#include <zlib.h>

#include "buf.h"
#include "log.h"
#include "signals.h"

/* Entries this large need ZIP64 fields (minizip's limit is 4 GiB - 1). */
#define ZIP64_MIN 0xffff0000LL
/* Bytes an empty stored block adds after a non-final block (see pad). */
#define PAD_MAX 5
#define MAX_JOBS 64

enum slot_state { SLOT_FREE, SLOT_QUEUED, SLOT_DONE };

/* One block of one entry on its way through the pipeline. */
struct slot {
	enum slot_state state;
	unsigned char *in;    /* owned: TF_ZIPOUT_BLOCK bytes of input */
	size_t in_len;
	unsigned char *out;   /* owned: compressed bytes */
	size_t out_len;
	uint32_t crc;         /* CRC-32 of in */
	int first, final;     /* the entry's first or last block */
	int failed;           /* compressing or checking it failed */
	/* Set on the first block: the entry's header. */
	char *name;           /* owned */
	unsigned perm;
	unsigned long dosdate;
	uint32_t mtime;       /* for the "UT" extra field */
	int zip64;
	long long size;       /* the promised size (first and last block) */
};

/* What a compressing thread keeps for its whole life. */
struct worker {
	struct libdeflate_compressor *c;   /* owned; state reused per block */
	struct libdeflate_decompressor *d; /* owned */
	z_stream zs;                       /* inflate for walking blocks */
	int zs_ok;
	unsigned char *scratch;            /* owned: TF_ZIPOUT_BLOCK + 1 */
	pthread_t thread;
	struct tf_zipout *z;               /* borrowed */
};

struct tf_zipout {
	zipFile zf;              /* owned */
	char *context;           /* owned */
	int level;
	size_t out_cap;          /* size of each slot's out */
	struct slot *slots;      /* owned ring of nr_slots */
	size_t nr_slots;
	unsigned long long fill, work, drain; /* next sequence numbers */
	struct worker *workers;  /* owned: nr_workers threads, or one inline */
	size_t nr_workers;
	int threaded, stopping;
	pthread_mutex_t lock;
	pthread_cond_t work_cv, done_cv;
	/* The entry being fed, and the one being written out. */
	struct slot *cur;        /* the slot being filled, or NULL */
	long long fed;           /* bytes fed to the current entry */
	long long promised;
	int in_entry;
	uint32_t crc;            /* of the entry being written out */
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
 * A non-final block: find its last deflate block's header with zlib's
 * inflate (Z_BLOCK stops at every block boundary, as gzjoin uses it),
 * checking the bytes it inflates to, then clear that header's final bit
 * and end on a byte boundary with an empty stored block.
 */
static int unfinal(struct worker *w, struct slot *s)
{
	z_stream *zs = &w->zs;
	size_t hdr = 0, used;
	int bit = 0, ret, unused = 0;

	if (inflateReset(zs) != Z_OK)
		return -1;
	zs->next_in = s->out;
	zs->avail_in = (uInt)s->out_len;
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
		used = (size_t)(zs->next_in - s->out);
		unused = zs->data_type & 7;
		if (zs->data_type & 64)
			continue;
		hdr = unused ? used - 1 : used;
		bit = unused ? 8 - unused : 0;
	}
	if (zs->avail_in || zs->total_out != s->in_len ||
	    memcmp(w->scratch, s->in, s->in_len) || hdr >= s->out_len ||
	    !(s->out[hdr] & (1u << bit)))
		return -1;
	s->out[hdr] &= (unsigned char)~(1u << bit);
	if (unused) {
		/* BFINAL=0 BTYPE=00: three zero bits, then LEN 0, NLEN ~0. */
		s->out[s->out_len - 1] &= (unsigned char)((1u << (8 - unused)) - 1);
		if (unused < 3)
			s->out[s->out_len++] = 0;
		memcpy(s->out + s->out_len, "\0\0\377\377", 4);
		s->out_len += 4;
	}
	return 0;
}

static int check_final(struct worker *w, const struct slot *s)
{
	size_t n;

	return libdeflate_deflate_decompress(w->d, s->out, s->out_len,
					     w->scratch, TF_ZIPOUT_BLOCK, &n) ==
			       LIBDEFLATE_SUCCESS &&
		       n == s->in_len && !memcmp(w->scratch, s->in, n) ? 0 : -1;
}

static void compress_slot(struct tf_zipout *z, struct worker *w, struct slot *s)
{
	s->crc = (uint32_t)libdeflate_crc32(0, s->in, s->in_len);
	if (!z->level) {
		memcpy(s->out, s->in, s->in_len);
		s->out_len = s->in_len;
		return;
	}
	s->out_len = libdeflate_deflate_compress(w->c, s->in, s->in_len, s->out,
						 z->out_cap - PAD_MAX);
	if (!s->out_len)
		s->failed = 1;
	else if (s->final)
		s->failed = check_final(w, s) < 0;
	else
		s->failed = unfinal(w, s) < 0;
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
 * libdeflate's level for zlib's: from 6 up, one more. On generated
 * source-like text libdeflate 6 came out 5 % larger than zlib 6, and 7
 * within 1.5 % (smaller than zlib on real sources and binaries), still
 * faster than zlib 6 (docs/performance.md).
 */
static int libdeflate_level(int level)
{
	static const int map[10] = { 1, 1, 2, 3, 4, 5, 7, 8, 9, 12 };

	return map[level];
}

static int worker_init(struct worker *w, struct tf_zipout *z)
{
	w->z = z;
	w->c = libdeflate_alloc_compressor(libdeflate_level(z->level));
	w->d = libdeflate_alloc_decompressor();
	w->scratch = tf_malloc(TF_ZIPOUT_BLOCK + 1);
	memset(&w->zs, 0, sizeof(w->zs));
	w->zs_ok = inflateInit2(&w->zs, -MAX_WBITS) == Z_OK;
	return w->c && w->d && w->zs_ok ? 0 : -1;
}

static void worker_release(struct worker *w)
{
	libdeflate_free_compressor(w->c);
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
static void extra_fields(const struct slot *s, unsigned char x[24])
{
	static const unsigned char ux[11] = { 'u', 'x', 11, 0, 1, 4, 0, 0, 0,
					      0, 4 };

	memcpy(x, "UT\5\0\1", 5);
	x[5] = (unsigned char)s->mtime;
	x[6] = (unsigned char)(s->mtime >> 8);
	x[7] = (unsigned char)(s->mtime >> 16);
	x[8] = (unsigned char)(s->mtime >> 24);
	memcpy(x + 9, ux, sizeof(ux));
	memset(x + 20, 0, 4);
}

static int write_slot(struct tf_zipout *z, struct slot *s)
{
	zip_fileinfo zi;
	unsigned char x[24];

	if (s->failed)
		return zip_fail(z, "compress", s->name ? s->name : "an entry");
	if (s->first) {
		memset(&zi, 0, sizeof(zi));
		zi.dosDate = s->dosdate;
		zi.external_fa = (0100000UL | s->perm) << 16;
		extra_fields(s, x);
		/* Made by Unix (3), so readers take the modes; version 2.0. */
		if (zipOpenNewFileInZip4_64(z->zf, s->name, &zi, x, sizeof(x), x,
					    sizeof(x), NULL, z->level ? Z_DEFLATED : 0,
					    z->level, 1, -MAX_WBITS, 8,
					    Z_DEFAULT_STRATEGY, NULL, 0,
					    (3 << 8) | 20, 0, s->zip64) != ZIP_OK)
			return zip_fail(z, "write the header of", s->name);
		z->crc = 0;
		z->written = 0;
	}
	if (s->out_len &&
	    zipWriteInFileInZip(z->zf, s->out, (unsigned)s->out_len) != ZIP_OK)
		return zip_fail(z, "write", "an entry");
	z->crc = (uint32_t)crc32_combine(z->crc, s->crc, (z_off_t)s->in_len);
	z->written += (long long)s->in_len;
	if (s->final &&
	    zipCloseFileInZipRaw64(z->zf, (ZPOS64_T)z->written, z->crc) != ZIP_OK)
		return zip_fail(z, "finish", "an entry");
	return 0;
}

/* Wait for the oldest block, write it and free its slot. */
static int drain_one(struct tf_zipout *z)
{
	struct slot *s = &z->slots[z->drain % z->nr_slots];
	int ret;

	if (z->threaded) {
		pthread_mutex_lock(&z->lock);
		while (s->state != SLOT_DONE)
			pthread_cond_wait(&z->done_cv, &z->lock);
		pthread_mutex_unlock(&z->lock);
	}
	ret = z->failed ? -1 : write_slot(z, s);
	free(s->name);
	s->name = NULL;
	s->state = SLOT_FREE;
	z->drain++;
	return ret;
}

/* Hand the slot being filled to the workers (or compress it here). */
static int submit(struct tf_zipout *z, int final)
{
	struct slot *s = z->cur;

	s->final = final;
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
	s->in_len = s->out_len = 0;
	s->first = s->final = s->failed = 0;
	s->crc = 0;
	z->cur = s;
	return s;
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
			die(TF_EXIT_FAILURE, "out of memory");
	z->out_cap = libdeflate_deflate_compress_bound(z->workers[0].c,
						       TF_ZIPOUT_BLOCK) + PAD_MAX;
	for (i = 0; i < z->nr_slots; i++) {
		z->slots[i].in = tf_malloc(TF_ZIPOUT_BLOCK);
		z->slots[i].out = tf_malloc(z->out_cap);
	}
	z->zf = zipOpen64(path, APPEND_STATUS_CREATE);
	if (!z->zf) {
		error_errno("%s: cannot create '%s'", context, path);
		tf_zipout_free(z);
		return NULL;
	}
	for (i = 0; z->threaded && i < z->nr_workers; i++)
		if (pthread_create(&z->workers[i].thread, NULL, worker_main,
				   &z->workers[i]))
			die(TF_EXIT_FAILURE, "cannot start a thread");
	return z;
}

int tf_zipout_begin(struct tf_zipout *z, const char *name, unsigned perm,
		    long long mtime, long long size)
{
	struct slot *s;

	if (z->failed || z->in_entry)
		return -1;
	s = take_slot(z);
	if (!s)
		return -1;
	s->first = 1;
	s->name = tf_strdup(name);
	s->perm = perm & 07777;
	s->dosdate = dos_date(mtime);
	s->mtime = (uint32_t)mtime;
	s->zip64 = size >= ZIP64_MIN;
	s->size = size;
	z->in_entry = 1;
	z->fed = 0;
	z->promised = size;
	return 0;
}

unsigned char *tf_zipout_buffer(struct tf_zipout *z)
{
	if (!z->cur && !take_slot(z))
		return NULL;
	return z->cur->in + z->cur->in_len;
}

int tf_zipout_commit(struct tf_zipout *z, size_t n)
{
	struct slot *s = z->cur;

	if (!s || n > TF_ZIPOUT_BLOCK - s->in_len)
		BUG("zipout: commit past the buffer");
	s->in_len += n;
	z->fed += (long long)n;
	if (z->fed > z->promised)
		return -1;
	/* Full: on its way, unless the entry ends here (then it is final). */
	if (s->in_len == TF_ZIPOUT_BLOCK && z->fed < z->promised)
		return submit(z, 0);
	return 0;
}

int tf_zipout_write(struct tf_zipout *z, const void *data, size_t n)
{
	const unsigned char *p = data;

	while (n) {
		unsigned char *buf = tf_zipout_buffer(z);
		size_t room = TF_ZIPOUT_BLOCK - z->cur->in_len, k = n < room ? n : room;

		if (!buf)
			return -1;
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
	if (!z->in_entry || z->fed != z->promised || z->failed)
		return -1;
	z->in_entry = 0;
	if (!z->cur && !take_slot(z))
		return -1;
	return submit(z, 1);
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
	for (i = 0; i < z->nr_workers; i++)
		pthread_join(z->workers[i].thread, NULL);
	z->threaded = 0;
}

int tf_zipout_close(struct tf_zipout *z)
{
	int ret = z->in_entry ? -1 : 0;

	while (!ret && z->drain < z->fill)
		ret = drain_one(z);
	if (!ret && zipClose(z->zf, NULL) != ZIP_OK)
		ret = error("%s: cannot write the central directory", z->context);
	else if (ret)
		zipClose(z->zf, NULL);
	z->zf = NULL;
	tf_zipout_free(z);
	return ret;
}

void tf_zipout_free(struct tf_zipout *z)
{
	size_t i;

	if (!z)
		return;
	stop_workers(z);
	if (z->zf)
		zipClose(z->zf, NULL);
	for (i = 0; i < z->nr_slots; i++) {
		free(z->slots[i].in);
		free(z->slots[i].out);
		free(z->slots[i].name);
	}
	for (i = 0; i < z->nr_workers; i++)
		worker_release(&z->workers[i]);
	pthread_mutex_destroy(&z->lock);
	pthread_cond_destroy(&z->work_cv);
	pthread_cond_destroy(&z->done_cv);
	free(z->slots);
	free(z->workers);
	free(z->context);
	free(z);
}
