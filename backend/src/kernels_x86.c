/*
 * x86-64 kernels: SSE2 (every x86-64 CPU has it) and AVX2 with FMA,
 * chosen at run time. The target attributes let one build carry both
 * without compiling the whole library for AVX2. A build of one table
 * (M1_ONLY_sse2 or M1_ONLY_avx2, kernels.h) has only that one.
 */
#include "kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define SSE2 __attribute__((target("sse2")))
#define AVX2 __attribute__((target("avx2,fma")))

#if !defined(M1_ONLY) || defined(M1_ONLY_sse2)
/* ------------------------------------------------------------------ SSE2 */

SSE2 static void add_sse2(const float *a, const float *b, float *out, size_t n)
{
	size_t i;

	for (i = 0; i + 4 <= n; i += 4)
		_mm_storeu_ps(out + i, _mm_add_ps(_mm_loadu_ps(a + i),
						  _mm_loadu_ps(b + i)));
	m1_add_scalar(a + i, b + i, out + i, n - i);
}

SSE2 static void mul_sse2(const float *a, const float *b, float *out, size_t n)
{
	size_t i;

	for (i = 0; i + 4 <= n; i += 4)
		_mm_storeu_ps(out + i, _mm_mul_ps(_mm_loadu_ps(a + i),
						  _mm_loadu_ps(b + i)));
	m1_mul_scalar(a + i, b + i, out + i, n - i);
}

SSE2 static void scale_sse2(const float *a, float s, float *out, size_t n)
{
	__m128 vs = _mm_set1_ps(s);
	size_t i;

	for (i = 0; i + 4 <= n; i += 4)
		_mm_storeu_ps(out + i, _mm_mul_ps(_mm_loadu_ps(a + i), vs));
	m1_scale_scalar(a + i, s, out + i, n - i);
}

/* x & (x > 0): +0.0 for negatives, -0.0 and NaN, as the reference. */
SSE2 static void relu_sse2(const float *a, float *out, size_t n)
{
	__m128 zero = _mm_setzero_ps();
	size_t i;

	for (i = 0; i + 4 <= n; i += 4) {
		__m128 x = _mm_loadu_ps(a + i);

		_mm_storeu_ps(out + i, _mm_and_ps(x, _mm_cmpgt_ps(x, zero)));
	}
	m1_relu_scalar(a + i, out + i, n - i);
}

SSE2 static float sum_sse2(const float *a, size_t n)
{
	__m128d lo = _mm_setzero_pd(), hi = _mm_setzero_pd();
	double lanes[2], acc;
	size_t i;

	for (i = 0; i + 4 <= n; i += 4) {
		__m128 x = _mm_loadu_ps(a + i);

		lo = _mm_add_pd(lo, _mm_cvtps_pd(x));
		hi = _mm_add_pd(hi, _mm_cvtps_pd(_mm_movehl_ps(x, x)));
	}
	_mm_storeu_pd(lanes, _mm_add_pd(lo, hi));
	acc = lanes[0] + lanes[1];
	for (; i < n; i++)
		acc += a[i];
	return (float)acc;
}

/* Two columns at a time, each accumulated in double in index order. */
SSE2 static void matmul_sse2(const float *a, const float *b, float *c,
			     size_t m, size_t k, size_t n)
{
	size_t i, j, p;

	for (i = 0; i < m; i++) {
		const float *row = a + i * k;

		for (j = 0; j + 2 <= n; j += 2) {
			__m128d acc = _mm_setzero_pd();

			for (p = 0; p < k; p++) {
				__m128 bv = _mm_loadl_pi(_mm_setzero_ps(),
					(const __m64 *)(b + p * n + j));

				acc = _mm_add_pd(acc, _mm_mul_pd(
					_mm_set1_pd(row[p]), _mm_cvtps_pd(bv)));
			}
			_mm_storel_pi((__m64 *)(c + i * n + j), _mm_cvtpd_ps(acc));
		}
		for (; j < n; j++)
			c[i * n + j] = m1_dot_scalar(row, b, j, k, n);
	}
}

static int have_sse2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("sse2");
}

const struct m1_kernels m1_kernels_sse2 = {
	"sse2", have_sse2, add_sse2, mul_sse2, scale_sse2, relu_sse2,
	sum_sse2, matmul_sse2,
};

#if defined(M1_ONLY_sse2)
M1_ONLY_ALIASES(add_sse2, mul_sse2, scale_sse2, relu_sse2, sum_sse2,
		matmul_sse2);
#endif
#endif

#if !defined(M1_ONLY) || defined(M1_ONLY_avx2)
/* ------------------------------------------------------------------ AVX2 */

AVX2 static void add_avx2(const float *a, const float *b, float *out, size_t n)
{
	size_t i;

	for (i = 0; i + 8 <= n; i += 8)
		_mm256_storeu_ps(out + i, _mm256_add_ps(_mm256_loadu_ps(a + i),
							_mm256_loadu_ps(b + i)));
	m1_add_scalar(a + i, b + i, out + i, n - i);
}

AVX2 static void mul_avx2(const float *a, const float *b, float *out, size_t n)
{
	size_t i;

	for (i = 0; i + 8 <= n; i += 8)
		_mm256_storeu_ps(out + i, _mm256_mul_ps(_mm256_loadu_ps(a + i),
							_mm256_loadu_ps(b + i)));
	m1_mul_scalar(a + i, b + i, out + i, n - i);
}

AVX2 static void scale_avx2(const float *a, float s, float *out, size_t n)
{
	__m256 vs = _mm256_set1_ps(s);
	size_t i;

	for (i = 0; i + 8 <= n; i += 8)
		_mm256_storeu_ps(out + i,
				 _mm256_mul_ps(_mm256_loadu_ps(a + i), vs));
	m1_scale_scalar(a + i, s, out + i, n - i);
}

AVX2 static void relu_avx2(const float *a, float *out, size_t n)
{
	__m256 zero = _mm256_setzero_ps();
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		__m256 x = _mm256_loadu_ps(a + i);

		_mm256_storeu_ps(out + i, _mm256_and_ps(
			x, _mm256_cmp_ps(x, zero, _CMP_GT_OQ)));
	}
	m1_relu_scalar(a + i, out + i, n - i);
}

AVX2 static float sum_avx2(const float *a, size_t n)
{
	__m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
	double lanes[4], acc;
	size_t i;

	for (i = 0; i + 8 <= n; i += 8) {
		__m256 x = _mm256_loadu_ps(a + i);

		lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(x)));
		hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)));
	}
	_mm256_storeu_pd(lanes, _mm256_add_pd(lo, hi));
	acc = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
	for (; i < n; i++)
		acc += a[i];
	return (float)acc;
}

/* Four columns at a time; fma is exact here (see kernels.h). */
AVX2 static void matmul_avx2(const float *a, const float *b, float *c,
			     size_t m, size_t k, size_t n)
{
	size_t i, j, p;

	for (i = 0; i < m; i++) {
		const float *row = a + i * k;

		for (j = 0; j + 4 <= n; j += 4) {
			__m256d acc = _mm256_setzero_pd();

			for (p = 0; p < k; p++)
				acc = _mm256_fmadd_pd(
					_mm256_set1_pd(row[p]),
					_mm256_cvtps_pd(_mm_loadu_ps(b + p * n + j)),
					acc);
			_mm_storeu_ps(c + i * n + j, _mm256_cvtpd_ps(acc));
		}
		for (; j < n; j++)
			c[i * n + j] = m1_dot_scalar(row, b, j, k, n);
	}
}

static int have_avx2(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

const struct m1_kernels m1_kernels_avx2 = {
	"avx2", have_avx2, add_avx2, mul_avx2, scale_avx2, relu_avx2,
	sum_avx2, matmul_avx2,
};

#if defined(M1_ONLY_avx2)
M1_ONLY_ALIASES(add_avx2, mul_avx2, scale_avx2, relu_avx2, sum_avx2,
		matmul_avx2);
#endif
#endif

#endif
