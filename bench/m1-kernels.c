/*
 * The m1 kernels' time per call, for bench/variants.sh. Linked with one
 * build's libtfmini_m1.a (backend/Makefile): a dispatching build calls
 * its kernels through the table chosen once at start, as m1.c does (TABLE
 * names it, else the best this CPU runs); a build of one table (ISA=...,
 * compiled here with the same -DM1_ONLY_<isa>) calls m1_only_<op> by
 * name. Each case is also run through the plugin API (kernel_execute),
 * as tfmini calls it. Prints "BUILD OP SIZE PATH NS" lines: the least
 * thread CPU time per call over TRIALS trials of about SCALE * 2e7
 * element operations each.
 *
 *   m1-kernels BUILD [TABLE] [SCALE]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tfmini/device_api.h"

#include "kernels.h"

#define TRIALS 7
#define ARGS(type)                                \
	{                                         \
		.struct_size = type##_STRUCT_SIZE \
	}

const TFM_DeviceApi *TFM_GetDeviceApi(void);

enum op {
	RELU,
	ADD,
	MATMUL
};
static const char *const op_names[] = { "relu", "add", "matmul" };

struct bench_case {
	enum op op; /* what runs */
	size_t n;   /* elements; for matmul, m = k = n */
};

static const struct bench_case cases[] = {
	{ RELU, 16 },  { RELU, 1024 }, { RELU, 262144 },
	{ ADD, 16 },   { ADD, 1024 },  { ADD, 262144 },
	{ MATMUL, 4 }, { MATMUL, 32 }, { MATMUL, 128 },
};

/* Chosen once at run time and read at every call, as m1.c's `active`. */
static const struct m1_kernels *active;
static float *a, *b, *out;

static const struct m1_kernels *const tables[] = {
#if defined(__x86_64__) && !defined(M1_ONLY)
	&m1_kernels_avx2,
	&m1_kernels_sse2,
#endif
#if defined(__aarch64__) && !defined(M1_ONLY)
	&m1_kernels_neon,
#endif
	&m1_kernels_scalar,
};

static void pick(const char *want)
{
	size_t i;

	for (i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (tables[i]->supported() &&
		    (!want || !strcmp(want, tables[i]->isa))) {
			active = tables[i];
			return;
		}
	fprintf(stderr, "m1-kernels: no table '%s' this CPU runs\n", want);
	exit(2);
}

static void call_kernel(enum op op, size_t n)
{
#if defined(M1_ONLY)
	if (op == RELU)
		m1_only_relu(a, out, n);
	else if (op == ADD)
		m1_only_add(a, b, out, n);
	else
		m1_only_matmul(a, b, out, n, n, n);
#else
	if (op == RELU)
		active->relu(a, out, n);
	else if (op == ADD)
		active->add(a, b, out, n);
	else
		active->matmul(a, b, out, n, n, n);
#endif
}

/* The plugin API's buffers and arguments for one case, set up once. */
struct api_call {
	const TFM_DeviceApi *api;
	TFM_Kernel_Execute_Args run;
	TFM_Tensor t[3];
	const TFM_Tensor *ins[2], *outs[1];
	int64_t dims[2];
};

static TFM_Buffer *api_buffer(const TFM_DeviceApi *api, size_t size,
			      const float *from)
{
	TFM_Buffer_Alloc_Args alloc = ARGS(TFM_Buffer_Alloc_Args);
	TFM_Buffer_CopyFromHost_Args put = ARGS(TFM_Buffer_CopyFromHost_Args);

	alloc.size = size;
	if (api->buffer_alloc(&alloc))
		exit(3);
	put.buffer = alloc.buffer;
	put.src = from;
	put.size = size;
	if (api->buffer_copy_from_host(&put))
		exit(3);
	return alloc.buffer;
}

static void api_setup(struct api_call *c, enum op op, size_t n)
{
	TFM_Kernel_Lookup_Args look = ARGS(TFM_Kernel_Lookup_Args);
	size_t i, rank = op == MATMUL ? 2 : 1;
	size_t size = (op == MATMUL ? n * n : n) * sizeof(float);

	memset(c, 0, sizeof(*c));
	c->api = TFM_GetDeviceApi();
	c->dims[0] = c->dims[1] = (int64_t)n;
	for (i = 0; i < 3; i++) {
		c->t[i].struct_size = TFM_Tensor_STRUCT_SIZE;
		c->t[i].buffer = api_buffer(c->api, size, i == 1 ? b : a);
		c->t[i].dtype = TFM_DTYPE_F32;
		c->t[i].rank = rank;
		c->t[i].dims = c->dims;
	}
	look.op_name = op_names[op];
	if (c->api->kernel_lookup(&look))
		exit(3);
	c->ins[0] = &c->t[0];
	c->ins[1] = &c->t[1];
	c->outs[0] = &c->t[2];
	c->run.struct_size = TFM_Kernel_Execute_Args_STRUCT_SIZE;
	c->run.kernel = look.kernel;
	c->run.inputs = c->ins;
	c->run.num_inputs = op == ADD || op == MATMUL ? 2 : 1;
	c->run.outputs = c->outs;
	c->run.num_outputs = 1;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The least time per call over TRIALS trials of reps calls. */
static double best_ns(const struct bench_case *c, struct api_call *api,
		      long reps)
{
	double best = 0.0;
	int t;

	for (t = 0; t < TRIALS; t++) {
		double t0 = now_ns(), dt;
		long r;

		for (r = 0; r < reps; r++) {
			if (api && api->api->kernel_execute(&api->run))
				exit(3);
			else if (!api)
				call_kernel(c->op, c->n);
			__asm__ volatile("" ::: "memory");
		}
		dt = (now_ns() - t0) / (double)reps;
		if (t == 0 || dt < best)
			best = dt;
	}
	return best;
}

int main(int argc, char **argv)
{
	TFM_Plugin_Initialize_Args init = ARGS(TFM_Plugin_Initialize_Args);
	double scale = argc > 3 ? atof(argv[3]) : 1.0;
	size_t i, max = 262144;

	if (argc < 2) {
		fprintf(stderr, "usage: m1-kernels BUILD [TABLE] [SCALE]\n");
		return 2;
	}
	pick(argc > 2 && *argv[2] ? argv[2] : NULL);
	if (TFM_GetDeviceApi()->plugin_initialize(&init))
		return 3;
	a = aligned_alloc(64, max * sizeof(float));
	b = aligned_alloc(64, max * sizeof(float));
	out = aligned_alloc(64, max * sizeof(float));
	if (!a || !b || !out)
		return 3;
	for (i = 0; i < max; i++) {
		a[i] = (float)((int)(i * 7919 % 2001) - 1000) / 997.0f;
		b[i] = (float)((int)(i * 104729 % 2001) - 1000) / 991.0f;
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bench_case *c = &cases[i];
		double work = c->op == MATMUL ? (double)c->n * c->n * c->n
					      : (double)c->n;
		long reps = (long)(2e7 * scale / work) + 1;
		struct api_call api;

		api_setup(&api, c->op, c->n);
		printf("%s %s %zu %s %.2f\n", argv[1], op_names[c->op], c->n,
#if defined(M1_ONLY)
		       "direct",
#else
		       active->isa,
#endif
		       best_ns(c, NULL, reps));
		printf("%s %s %zu api %.2f\n", argv[1], op_names[c->op], c->n,
		       best_ns(c, &api, reps));
	}
	return 0;
}
