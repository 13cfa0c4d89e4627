/* Portable kernels: the fallback, and the tails of the vector paths. */
#include "kernels.h"

void m1_add_scalar(const float *a, const float *b, float *out, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = a[i] + b[i];
}

void m1_mul_scalar(const float *a, const float *b, float *out, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = a[i] * b[i];
}

void m1_scale_scalar(const float *a, float s, float *out, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = a[i] * s;
}

void m1_relu_scalar(const float *a, float *out, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = a[i] > 0.0f ? a[i] : 0.0f;
}

static float sum_scalar(const float *a, size_t n)
{
	double acc = 0.0;
	size_t i;

	for (i = 0; i < n; i++)
		acc += a[i];
	return (float)acc;
}

float m1_dot_scalar(const float *a_row, const float *b, size_t j, size_t k,
		    size_t n)
{
	double acc = 0.0;
	size_t p;

	for (p = 0; p < k; p++)
		acc += (double)a_row[p] * (double)b[p * n + j];
	return (float)acc;
}

static void matmul_scalar(const float *a, const float *b, float *c, size_t m,
			  size_t k, size_t n)
{
	size_t i, j;

	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++)
			c[i * n + j] = m1_dot_scalar(a + i * k, b, j, k, n);
}

static int always(void)
{
	return 1;
}

const struct m1_kernels m1_kernels_scalar = {
	"scalar", always, m1_add_scalar, m1_mul_scalar, m1_scale_scalar,
	m1_relu_scalar, sum_scalar, matmul_scalar,
};

#if defined(M1_ONLY_scalar)
M1_ONLY_ALIASES(m1_add_scalar, m1_mul_scalar, m1_scale_scalar,
		m1_relu_scalar, sum_scalar, matmul_scalar);
#endif
