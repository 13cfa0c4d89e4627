/* AArch64 kernels: Advanced SIMD (NEON) is part of every AArch64 CPU. */
#include "kernels.h"

#if defined(__aarch64__)
#include <arm_neon.h>

static void add_neon(const float *a, const float *b, float *out, size_t n)
{
	size_t i;

	for (i = 0; i + 4 <= n; i += 4)
		vst1q_f32(out + i, vaddq_f32(vld1q_f32(a + i), vld1q_f32(b + i)));
	m1_add_scalar(a + i, b + i, out + i, n - i);
}

static void mul_neon(const float *a, const float *b, float *out, size_t n)
{
	size_t i;

	for (i = 0; i + 4 <= n; i += 4)
		vst1q_f32(out + i, vmulq_f32(vld1q_f32(a + i), vld1q_f32(b + i)));
	m1_mul_scalar(a + i, b + i, out + i, n - i);
}

static void scale_neon(const float *a, float s, float *out, size_t n)
{
	size_t i;

	for (i = 0; i + 4 <= n; i += 4)
		vst1q_f32(out + i, vmulq_n_f32(vld1q_f32(a + i), s));
	m1_scale_scalar(a + i, s, out + i, n - i);
}

/* x & (x > 0), not vmaxq_f32, which would let NaN through. */
static void relu_neon(const float *a, float *out, size_t n)
{
	float32x4_t zero = vdupq_n_f32(0.0f);
	size_t i;

	for (i = 0; i + 4 <= n; i += 4) {
		float32x4_t x = vld1q_f32(a + i);
		uint32x4_t keep = vcgtq_f32(x, zero);

		vst1q_f32(out + i, vreinterpretq_f32_u32(
			vandq_u32(vreinterpretq_u32_f32(x), keep)));
	}
	m1_relu_scalar(a + i, out + i, n - i);
}

static float sum_neon(const float *a, size_t n)
{
	float64x2_t lo = vdupq_n_f64(0.0), hi = vdupq_n_f64(0.0);
	double acc;
	size_t i;

	for (i = 0; i + 4 <= n; i += 4) {
		float32x4_t x = vld1q_f32(a + i);

		lo = vaddq_f64(lo, vcvt_f64_f32(vget_low_f32(x)));
		hi = vaddq_f64(hi, vcvt_high_f64_f32(x));
	}
	acc = vaddvq_f64(vaddq_f64(lo, hi));
	for (; i < n; i++)
		acc += a[i];
	return (float)acc;
}

/* Two columns at a time; fma is exact here (see kernels.h). */
static void matmul_neon(const float *a, const float *b, float *c, size_t m,
			size_t k, size_t n)
{
	size_t i, j, p;

	for (i = 0; i < m; i++) {
		const float *row = a + i * k;

		for (j = 0; j + 2 <= n; j += 2) {
			float64x2_t acc = vdupq_n_f64(0.0);

			for (p = 0; p < k; p++) {
				float32x2_t bv = vld1_f32(b + p * n + j);

				acc = vfmaq_f64(acc, vdupq_n_f64(row[p]),
						vcvt_f64_f32(bv));
			}
			vst1_f32(c + i * n + j, vcvt_f32_f64(acc));
		}
		for (; j < n; j++)
			c[i * n + j] = m1_dot_scalar(row, b, j, k, n);
	}
}

static int always(void)
{
	return 1;
}

const struct m1_kernels m1_kernels_neon = {
	"neon", always, add_neon, mul_neon, scale_neon, relu_neon,
	sum_neon, matmul_neon,
};

#if defined(M1_ONLY_neon)
M1_ONLY_ALIASES(add_neon, mul_neon, scale_neon, relu_neon, sum_neon,
		matmul_neon);
#endif

#endif
