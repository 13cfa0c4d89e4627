/*
 * m1's kernels, one table per instruction set. Every table computes the
 * same thing as tfmini's reference CPU kernels:
 *   add, mul, scale, relu: bit for bit (plain IEEE float32 operations,
 *     no fused multiply-add: the build uses -ffp-contract=off);
 *   matmul: bit for bit too: each output accumulates its k products in
 *     double, in index order, and rounds once. A float product is exact
 *     in double, so fma(a, b, acc) == acc + a * b there;
 *   sum: accumulates in double in several lanes, so its order differs;
 *     the result is within 1e-6 * sum(|a|) of the reference (documented
 *     tolerance: 1e-5 * sum(|a|)).
 */
#ifndef M1_KERNELS_H
#define M1_KERNELS_H

#include <stddef.h>

struct m1_kernels {
	const char *isa; /* "scalar", "sse2", "avx2", "neon" */
	int (*supported)(void); /* 1 if this CPU can run the table */
	void (*add)(const float *a, const float *b, float *out, size_t n);
	void (*mul)(const float *a, const float *b, float *out, size_t n);
	void (*scale)(const float *a, float s, float *out, size_t n);
	void (*relu)(const float *a, float *out, size_t n);
	float (*sum)(const float *a, size_t n);
	/* c[m][n] = a[m][k] @ b[k][n] */
	void (*matmul)(const float *a, const float *b, float *c, size_t m,
		       size_t k, size_t n);
};

/*
 * M1_ONLY_<isa> (backend/Makefile ISA=<isa>): a build with that table
 * alone, for a variant wheel (tfbuild's docs/variants.md). Its kernels
 * are also exported as m1_only_<op> and m1.c calls them by name: no
 * choice at run time, the wheel's label keeps it off CPUs without them.
 */
#if defined(M1_ONLY_scalar) || defined(M1_ONLY_sse2) || \
	defined(M1_ONLY_avx2) || defined(M1_ONLY_neon)
#define M1_ONLY 1
#endif
#if (defined(M1_ONLY_sse2) || defined(M1_ONLY_avx2)) && !defined(__x86_64__)
#error "ISA=sse2 and ISA=avx2 are for x86-64"
#endif
#if defined(M1_ONLY_neon) && !defined(__aarch64__)
#error "ISA=neon is for aarch64"
#endif

extern const struct m1_kernels m1_kernels_scalar;
#if defined(__x86_64__)
extern const struct m1_kernels m1_kernels_sse2;
extern const struct m1_kernels m1_kernels_avx2;
#endif
#if defined(__aarch64__)
extern const struct m1_kernels m1_kernels_neon;
#endif

#if defined(M1_ONLY)
void m1_only_add(const float *a, const float *b, float *out, size_t n);
void m1_only_mul(const float *a, const float *b, float *out, size_t n);
void m1_only_scale(const float *a, float s, float *out, size_t n);
void m1_only_relu(const float *a, float *out, size_t n);
float m1_only_sum(const float *a, size_t n);
void m1_only_matmul(const float *a, const float *b, float *c, size_t m,
		    size_t k, size_t n);
/* The m1_only_<op> names for the six kernels of the file's table. */
#define M1_ONLY_ALIASES(add, mul, scale, relu, sum, matmul)                 \
	void m1_only_add(const float *, const float *, float *, size_t)     \
		__attribute__((alias(#add)));                               \
	void m1_only_mul(const float *, const float *, float *, size_t)     \
		__attribute__((alias(#mul)));                               \
	void m1_only_scale(const float *, float, float *, size_t)           \
		__attribute__((alias(#scale)));                             \
	void m1_only_relu(const float *, float *, size_t)                   \
		__attribute__((alias(#relu)));                              \
	float m1_only_sum(const float *, size_t) __attribute__((alias(#sum))); \
	void m1_only_matmul(const float *, const float *, float *, size_t,  \
			    size_t, size_t) __attribute__((alias(#matmul)))
#endif

/* Scalar tails, shared by the vector paths. */
void m1_add_scalar(const float *a, const float *b, float *out, size_t n);
void m1_mul_scalar(const float *a, const float *b, float *out, size_t n);
void m1_scale_scalar(const float *a, float s, float *out, size_t n);
void m1_relu_scalar(const float *a, float *out, size_t n);
/* One output of matmul: sum over p of a[i][p] * b[p][j], in double. */
float m1_dot_scalar(const float *a_row, const float *b, size_t j, size_t k,
		    size_t n);

#endif
