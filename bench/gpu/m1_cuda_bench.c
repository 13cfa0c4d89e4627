/*
 * m1's CUDA kernels on a GPU (bench/gpu/run.sh): relu, add and a
 * matmul against the CPU's results, then one 4096x4096 matmul timed
 * beside cuBLAS's cublasSgemm, as a table. cuBLAS (libcublas.so.13,
 * from nvidia-cublas) is opened at run time, so the program runs, and
 * says so, where it is missing. Exit 0 when every result matches, 1
 * when one does not, 2 when there is no device.
 */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "m1_cuda.h"

#define BIG 4096
#define RUNS 5

/* The three calls of cuBLAS's v2 API this needs, as its header has them. */
typedef int (*create_fn)(void **handle);
typedef int (*destroy_fn)(void *handle);
typedef int (*sgemm_fn)(void *handle, int ta, int tb, int m, int n, int k,
			const float *alpha, const float *a, int lda,
			const float *b, int ldb, const float *beta, float *c,
			int ldc);

struct cublas {
	void *lib, *handle;
	destroy_fn destroy;
	sgemm_fn sgemm;
};

static float *fill(size_t n, unsigned seed)
{
	float *v = malloc(n * sizeof(*v));

	if (!v) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	srand(seed);
	for (size_t i = 0; i < n; i++)
		v[i] = (float)rand() / (float)RAND_MAX * 2.0f - 1.0f;
	return v;
}

static void cpu_matmul(const float *a, const float *b, float *c, int m, int k,
		       int n)
{
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			double s = 0;

			for (int l = 0; l < k; l++)
				s += (double)a[(size_t)i * k + l] *
				     b[(size_t)l * n + j];
			c[(size_t)i * n + j] = (float)s;
		}
}

static double max_diff(const float *x, const float *y, size_t n)
{
	double d = 0;

	for (size_t i = 0; i < n; i++)
		if (fabs((double)x[i] - y[i]) > d)
			d = fabs((double)x[i] - y[i]);
	return d;
}

static int row(const char *op, const char *size, double diff, double tol)
{
	int ok = diff <= tol;

	printf("| %-6s | %-14s | %-10.3g | %-22s |\n", op, size, diff,
	       ok ? (tol ? "equal within tolerance" : "equal") : "DIFFERS");
	return !ok;
}

/* relu and add on 2^24 elements, a 512x384x256 matmul: vs the CPU. */
static int check_ops(void)
{
	const size_t n = (size_t)1 << 24;
	const int m = 512, k = 384, p = 256;
	float *x = fill(n, 1), *y = fill(n, 2), *g = fill(n, 3),
	      *c = fill(n, 4);
	float *a = fill((size_t)m * k, 5), *b = fill((size_t)k * p, 6);
	int bad = 0, err;

	printf("| op     | size           | max diff   | result                 |\n"
	       "|--------|----------------|------------|------------------------|\n");
	if ((err = m1_cuda_relu(x, g, n)))
		goto fail;
	for (size_t i = 0; i < n; i++)
		c[i] = x[i] > 0 ? x[i] : 0;
	bad |= row("relu", "16777216", max_diff(g, c, n), 0);
	if ((err = m1_cuda_add(x, y, g, n)))
		goto fail;
	for (size_t i = 0; i < n; i++)
		c[i] = x[i] + y[i];
	bad |= row("add", "16777216", max_diff(g, c, n), 0);
	if ((err = m1_cuda_matmul(a, b, g, m, k, p)))
		goto fail;
	cpu_matmul(a, b, c, m, k, p);
	bad |= row("matmul", "512x384x256", max_diff(g, c, (size_t)m * p),
		   1e-3);
	goto out;
fail:
	printf("m1 CUDA failed: %s\n", m1_cuda_error(err));
	bad = 1;
out:
	free(x), free(y), free(g), free(c), free(a), free(b);
	return bad;
}

static int open_cublas(struct cublas *cb)
{
	create_fn create;

	memset(cb, 0, sizeof(*cb));
	cb->lib = dlopen("libcublas.so.13", RTLD_NOW);
	if (!cb->lib) {
		printf("cuBLAS: not loaded: %s\n", dlerror());
		return -1;
	}
	create = (create_fn)dlsym(cb->lib, "cublasCreate_v2");
	cb->destroy = (destroy_fn)dlsym(cb->lib, "cublasDestroy_v2");
	cb->sgemm = (sgemm_fn)dlsym(cb->lib, "cublasSgemm_v2");
	if (!create || !cb->destroy || !cb->sgemm || create(&cb->handle)) {
		printf("cuBLAS: libcublas.so.13 has no usable v2 API\n");
		return -1;
	}
	return 0;
}

/* Milliseconds of one run of the matmul (m1's, or cuBLAS's when cb). */
static float time_matmul(const struct cublas *cb, const float *da,
			 const float *db, float *dc)
{
	const float one = 1.0f, zero = 0.0f;
	cudaEvent_t t0, t1;
	float ms = 0, best = 1e30f;

	cudaEventCreate(&t0);
	cudaEventCreate(&t1);
	for (int r = 0; r <= RUNS; r++) { /* run 0: warm-up */
		cudaEventRecord(t0, 0);
		if (cb) /* row-major C = A B is column-major C^T = B^T A^T */
			cb->sgemm(cb->handle, 0, 0, BIG, BIG, BIG, &one, db,
				  BIG, da, BIG, &zero, dc, BIG);
		else
			m1_cuda_matmul_device(da, db, dc, BIG, BIG, BIG);
		cudaEventRecord(t1, 0);
		cudaEventSynchronize(t1);
		cudaEventElapsedTime(&ms, t0, t1);
		if (r && ms < best)
			best = ms;
	}
	cudaEventDestroy(t0);
	cudaEventDestroy(t1);
	return best;
}

/* 64 entries of c against the CPU's dot products: the largest diff. */
static double spot_check(const float *a, const float *b, const float *c)
{
	double d = 0;

	srand(7);
	for (int s = 0; s < 64; s++) {
		int i = rand() % BIG, j = rand() % BIG;
		double sum = 0;

		for (int l = 0; l < BIG; l++)
			sum += (double)a[(size_t)i * BIG + l] *
			       b[(size_t)l * BIG + j];
		if (fabs(sum - c[(size_t)i * BIG + j]) > d)
			d = fabs(sum - c[(size_t)i * BIG + j]);
	}
	return d;
}

static int run_big(const struct cublas *cb)
{
	const size_t n = (size_t)BIG * BIG, bytes = n * sizeof(float);
	float *a = fill(n, 8), *b = fill(n, 9), *c = fill(n, 10);
	float *da, *db, *dc;
	double tflop = 2.0 * BIG * BIG * (double)BIG / 1e12, diff;
	float ms;
	int bad = 0;

	if (cudaMalloc((void **)&da, bytes) ||
	    cudaMalloc((void **)&db, bytes) ||
	    cudaMalloc((void **)&dc, bytes)) {
		printf("cannot allocate 3 x %zu bytes on the device\n", bytes);
		return 1;
	}
	cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice);
	cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice);
	printf("\n| matmul 4096x4096x4096 | best of %d | TFLOP/s | max diff, 64 entries vs CPU |\n"
	       "|-----------------------|-----------|---------|-----------------------------|\n",
	       RUNS);
	for (int lib = 0; lib < 2; lib++) {
		if (lib && !cb)
			break;
		ms = time_matmul(lib ? cb : NULL, da, db, dc);
		cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost);
		diff = spot_check(a, b, c);
		bad |= diff > 1e-2;
		printf("| %-21s | %6.3f ms | %7.2f | %-10.3g %-16s |\n",
		       lib ? "cuBLAS cublasSgemm" : "m1 (tiled, 16x16)", ms,
		       tflop / (ms / 1e3), diff,
		       diff > 1e-2 ? "DIFFERS" : "ok");
	}
	cudaFree(da), cudaFree(db), cudaFree(dc);
	free(a), free(b), free(c);
	return bad;
}

int main(void)
{
	struct cudaDeviceProp prop;
	struct cublas cb;
	const char *why = NULL;
	int rt = 0, drv = 0, bad, have_cb;

	if (!m1_cuda_available(&why)) {
		printf("no CUDA device: %s\n", why);
		return 2;
	}
	cudaGetDeviceProperties(&prop, 0);
	cudaRuntimeGetVersion(&rt);
	cudaDriverGetVersion(&drv);
	printf("device 0: %s, sm_%d%d, %.0f GiB; runtime %d, driver %d\n\n",
	       prop.name, prop.major, prop.minor,
	       (double)prop.totalGlobalMem / (1 << 30), rt, drv);
	bad = check_ops();
	have_cb = !open_cublas(&cb);
	bad |= run_big(have_cb ? &cb : NULL);
	if (have_cb)
		cb.destroy(cb.handle);
	printf("\n%s\n",
	       bad ? "RESULT: a result differs" : "RESULT: all match");
	return bad;
}
