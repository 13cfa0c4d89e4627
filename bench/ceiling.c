/*
 * ceiling: how fast can any writer pack this tree with the deflate the
 * wheel writer uses? It does only the work no writer can avoid: read
 * each file and deflate it, as zipout.c does (256 KiB independent
 * pieces; libdeflate 6 for an entry within deflate's 32 KiB window, 7
 * above, which is what tfbuild's level 6 maps to), on JOBS threads that
 * take the pieces in turn, so one big file keeps every thread busy. No
 * zip, no CRC, no SHA-256, no check, no output file. bench/pack.sh
 * prints its time beside the writer's and `wheel pack`'s: the ratio
 * `wheel pack` / ceiling bounds the speed-up any wheel writer built on
 * Debian 12's libdeflate can reach.
 *
 *     ceiling JOBS DIR      prints "SECONDS INPUT_BYTES DEFLATED_BYTES"
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <ftw.h>
#include <libdeflate.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PIECE (256 * 1024)
#define WINDOW (32 * 1024)

/* One piece of work: PIECE bytes (or fewer, at the end) of one file. */
struct piece {
	const char *path;
	off_t off;
	size_t len;
	int window; /* the whole file fits in deflate's window */
};

static struct piece *pieces;
static size_t nr_pieces, alloc_pieces;
static atomic_size_t next_piece;

struct worker {
	pthread_t thread;
	unsigned long long in, out;
	int failed;
};

static int add_file(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	const char *name;
	off_t off = 0;

	(void)ftw;
	if (type != FTW_F)
		return 0;
	if (!(name = strdup(path)))
		return -1;
	do {
		struct piece *p;

		if (nr_pieces == alloc_pieces) {
			alloc_pieces = alloc_pieces ? 2 * alloc_pieces : 4096;
			pieces =
				realloc(pieces, alloc_pieces * sizeof(*pieces));
			if (!pieces)
				return -1;
		}
		p = &pieces[nr_pieces++];
		p->path = name;
		p->off = off;
		p->len = st->st_size - off < PIECE ? (size_t)(st->st_size - off)
						   : PIECE;
		p->window = st->st_size <= WINDOW;
		off += PIECE;
	} while (off < st->st_size);
	return 0;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct libdeflate_compressor *c6 = libdeflate_alloc_compressor(6);
	struct libdeflate_compressor *c7 = libdeflate_alloc_compressor(7);
	size_t room = libdeflate_deflate_compress_bound(c7, PIECE);
	unsigned char *in = malloc(PIECE), *out = malloc(room);
	size_t i;

	if (!c6 || !c7 || !in || !out) {
		w->failed = 1;
		goto done;
	}
	while ((i = atomic_fetch_add(&next_piece, 1)) < nr_pieces) {
		const struct piece *p = &pieces[i];
		int fd = open(p->path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : pread(fd, in, p->len, p->off);

		if (n != (ssize_t)p->len) {
			fprintf(stderr, "ceiling: cannot read %s\n", p->path);
			w->failed = 1;
		} else {
			w->in += p->len;
			w->out += libdeflate_deflate_compress(
				p->window ? c6 : c7, in, p->len, out, room);
		}
		if (fd >= 0)
			close(fd);
		if (w->failed)
			break;
	}
done:
	free(in);
	free(out);
	libdeflate_free_compressor(c6);
	libdeflate_free_compressor(c7);
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker *w;
	struct timespec t0, t1;
	unsigned long long in = 0, out = 0;
	int jobs, i, failed = 0;

	if (argc != 3 || (jobs = atoi(argv[1])) < 1 || jobs > 64) {
		fprintf(stderr, "usage: ceiling JOBS DIR\n");
		return 2;
	}
	if (nftw(argv[2], add_file, 64, FTW_PHYS)) {
		perror(argv[2]);
		return 1;
	}
	w = calloc((size_t)jobs, sizeof(*w));
	if (!w)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < jobs; i++)
		if (pthread_create(&w[i].thread, NULL, work, &w[i])) {
			fprintf(stderr, "ceiling: cannot start a thread\n");
			return 1;
		}
	for (i = 0; i < jobs; i++) {
		pthread_join(w[i].thread, NULL);
		in += w[i].in;
		out += w[i].out;
		failed |= w[i].failed;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("%.3f %llu %llu\n",
	       (double)(t1.tv_sec - t0.tv_sec) +
		       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
	       in, out);
	return failed;
}
