#ifndef M1_CUDA_H
#define M1_CUDA_H

/*
 * The m1 operations (relu, add, matmul in float32) as CUDA kernels, on
 * host buffers: each call copies its inputs to the device, launches,
 * and copies the result back. Every call returns 0, or a CUDA runtime
 * error code (cudaError_t) that m1_cuda_error() turns into text.
 *
 * libm1_cuda.so links libcudart.so.13 dynamically (from the index's
 * nvidia-cuda-runtime wheel, never vendored); a wheel's RUNPATH must
 * reach it inside site-packages (nvidia/cu13/lib), which is issue 38's
 * next part: the tests give it -Wl,-rpath to the toolchain's lib/.
 */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The number of CUDA devices, or 0 with *why set to a one-line reason
 * (cudaGetErrorString of cudaGetDeviceCount's error, or "no device" when
 * it counts none): a static string, never freed. Safe on a machine
 * without a GPU or a driver: the plugin says why and registers nothing.
 */
int m1_cuda_available(const char **why);

/* y[i] = max(x[i], 0) for i < n. */
int m1_cuda_relu(const float *x, float *y, size_t n);

/* c[i] = a[i] + b[i] for i < n. */
int m1_cuda_add(const float *a, const float *b, float *c, size_t n);

/* c (m x n) = a (m x k) times b (k x n), all row-major. */
int m1_cuda_matmul(const float *a, const float *b, float *c, int m, int k,
		   int n);

/*
 * The matmul kernel alone on device buffers (for timing it beside
 * cuBLAS, bench/gpu/): launched on the default stream, not waited for;
 * returns the launch's error.
 */
int m1_cuda_matmul_device(const float *a, const float *b, float *c, int m,
			  int k, int n);

/*
 * Device memory for a caller that keeps its arrays on the device (the
 * PJRT plugin, gpu/pjrt_cuda_m1): n bytes on device number dev, their
 * pointer in *p (NULL when n is 0); freed by m1_cuda_free (NULL is
 * fine). The copies are synchronous; n may be 0.
 */
int m1_cuda_malloc(int dev, void **p, size_t n);
int m1_cuda_free(void *p);
int m1_cuda_to_device(void *dst, const void *src, size_t n);
int m1_cuda_to_host(void *dst, const void *src, size_t n);

/* The text of an error those calls return (cudaGetErrorString). */
const char *m1_cuda_error(int err);

#ifdef __cplusplus
}
#endif

#endif
