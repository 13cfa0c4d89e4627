#include "limit.h"

#include <errno.h>
#include <stdlib.h>

#include "buf.h"
#include "log.h"

/* A disk of a laptop survives it; LLVM's 2 GiB tree fits 8 times over. */
const struct tf_limit TF_LIMIT_EXTRACT_BYTES = {
	"TFBUILD_EXTRACT_MAX_BYTES",
	(uint64_t)16 << 30,
};
/* Source tarballs expand 4 to 12 times; a bomb of zeros by thousands. */
const struct tf_limit TF_LIMIT_EXTRACT_RATIO = {
	"TFBUILD_EXTRACT_MAX_RATIO",
	100,
};
const struct tf_limit TF_LIMIT_EXTRACT_FLOOR = {
	"TFBUILD_EXTRACT_MIN_BYTES",
	(uint64_t)256 << 20,
};
const struct tf_limit TF_LIMIT_EXTRACT_ENTRIES = {
	"TFBUILD_EXTRACT_MAX_ENTRIES",
	2000000,
};
const struct tf_limit TF_LIMIT_EXTRACT_MEMORY = {
	"TFBUILD_EXTRACT_MAX_MEMORY",
	(uint64_t)1 << 30,
};
const struct tf_limit TF_LIMIT_VERIFY_BYTES = {
	"TFBUILD_VERIFY_MAX_BYTES",
	(uint64_t)16 << 30,
};
const struct tf_limit TF_LIMIT_FETCH_BYTES = {
	"TFBUILD_FETCH_MAX_BYTES",
	(uint64_t)4 << 30,
};
const struct tf_limit TF_LIMIT_STEP_LOG = {
	"TFBUILD_STEP_LOG_MAX",
	(uint64_t)64 << 20,
};

int tf_limit_parse(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	case 't':
	case 'T':
		shift = 40;
		end++;
		break;
	}
	if (*end == 'i' && shift)
		end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || (shift && v > (UINT64_MAX >> shift)))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

int tf_limit_get(const struct tf_limit *l, uint64_t *out)
{
	const char *v = getenv(l->env);

	*out = l->def;
	if (!v || !*v)
		return 0;
	if (tf_limit_parse(v, out) < 0)
		return error(
			"%s: invalid limit '%s' (a number with an optional K, M, G or T suffix)",
			l->env, v);
	return 0;
}

int tf_limit_extract_get(uint64_t archive_size, struct tf_limit_extract *e)
{
	uint64_t ratio, floor, cap;

	*e = (struct tf_limit_extract){ .archive = archive_size };
	if (tf_limit_get(&TF_LIMIT_EXTRACT_BYTES, &e->max_bytes) < 0 ||
	    tf_limit_get(&TF_LIMIT_EXTRACT_ENTRIES, &e->max_entries) < 0 ||
	    tf_limit_get(&TF_LIMIT_EXTRACT_RATIO, &ratio) < 0 ||
	    tf_limit_get(&TF_LIMIT_EXTRACT_FLOOR, &floor) < 0)
		return -1;
	cap = ratio && archive_size > UINT64_MAX / ratio ? UINT64_MAX
							 : archive_size * ratio;
	if (cap < floor)
		cap = floor;
	if (ratio && cap < e->max_bytes) {
		e->max_bytes = cap;
		e->by_ratio = 1;
	}
	return 0;
}

void tf_limit_extract_why(const struct tf_limit_extract *e, struct tf_buf *out)
{
	if (e->by_ratio)
		tf_buf_addf(out, "%s times the archive's %llu bytes: %s, %s",
			    TF_LIMIT_EXTRACT_RATIO.env,
			    (unsigned long long)e->archive,
			    TF_LIMIT_EXTRACT_RATIO.env,
			    TF_LIMIT_EXTRACT_FLOOR.env);
	else
		tf_buf_addstr(out, TF_LIMIT_EXTRACT_BYTES.env);
}
