/*
 * m1_cuda on this machine: without a GPU (CI's machines), the one line
 * saying why and exit 0, as a plugin must load and say so; with one,
 * relu, add and a small odd-shaped matmul against the CPU's results.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "m1_cuda.h"

#define N 1000
#define M 37
#define K 19
#define P 23

static float a[M * K], b[K * P], c[M * P];
static float x[N], y[N], z[N], out[N];

static int check(const char *what, const float *got, const float *want,
		 size_t n, float tol)
{
	for (size_t i = 0; i < n; i++)
		if (fabsf(got[i] - want[i]) > tol) {
			printf("m1 CUDA: %s differs from the CPU at %zu: %g, "
			       "not %g\n",
			       what, i, got[i], want[i]);
			return 1;
		}
	return 0;
}

static int run_ops(void)
{
	int err, bad = 0;

	for (int i = 0; i < N; i++) {
		x[i] = (float)(i % 17) - 8.5f;
		y[i] = (float)(i % 5) * 0.25f;
	}
	for (int i = 0; i < M * K; i++)
		a[i] = (float)(i % 7) - 3.0f;
	for (int i = 0; i < K * P; i++)
		b[i] = (float)(i % 11) * 0.5f;
	if ((err = m1_cuda_relu(x, out, N)))
		goto fail;
	for (int i = 0; i < N; i++)
		z[i] = x[i] > 0 ? x[i] : 0;
	bad |= check("relu", out, z, N, 0);
	if ((err = m1_cuda_add(x, y, out, N)))
		goto fail;
	for (int i = 0; i < N; i++)
		z[i] = x[i] + y[i];
	bad |= check("add", out, z, N, 0);
	if ((err = m1_cuda_matmul(a, b, c, M, K, P)))
		goto fail;
	for (int i = 0; i < M; i++)
		for (int j = 0; j < P; j++) {
			float s = 0;

			for (int l = 0; l < K; l++)
				s += a[i * K + l] * b[l * P + j];
			z[i * P + j] = s;
		}
	bad |= check("matmul", c, z, M * P, 1e-3f);
	if (!bad)
		printf("m1 CUDA: relu, add and matmul match the CPU\n");
	return bad;
fail:
	printf("m1 CUDA: %s\n", m1_cuda_error(err));
	return 1;
}

int main(void)
{
	const char *why = NULL;
	int n = m1_cuda_available(&why);

	if (!n) {
		printf("no CUDA device: %s\n", why);
		return 0;
	}
	printf("m1 CUDA: %d device%s\n", n, n == 1 ? "" : "s");
	return run_ops();
}
