/*
 * m1's operations as CUDA kernels, with the host-side API of m1_cuda.h.
 * The matmul is the classic shared-memory tiling (TILE x TILE blocks of
 * a and b staged per step): simple, correct for any shape, and a fair
 * first point against cuBLAS in bench/gpu/.
 */
#include "m1_cuda.h"

#include <cuda_runtime.h>

#define TILE 16
#define BLOCK 256

__global__ void m1_relu_kernel(const float *x, float *y, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

__global__ void m1_add_kernel(const float *a, const float *b, float *c,
			      size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		c[i] = a[i] + b[i];
}

__global__ void m1_matmul_kernel(const float *a, const float *b, float *c,
				 int m, int k, int n)
{
	__shared__ float ta[TILE][TILE], tb[TILE][TILE];
	int row = blockIdx.y * TILE + threadIdx.y;
	int col = blockIdx.x * TILE + threadIdx.x;
	float acc = 0.0f;

	for (int t = 0; t < k; t += TILE) {
		int ac = t + threadIdx.x, br = t + threadIdx.y;

		ta[threadIdx.y][threadIdx.x] =
			row < m && ac < k ? a[(size_t)row * k + ac] : 0.0f;
		tb[threadIdx.y][threadIdx.x] =
			br < k && col < n ? b[(size_t)br * n + col] : 0.0f;
		__syncthreads();
		for (int i = 0; i < TILE; i++)
			acc += ta[threadIdx.y][i] * tb[i][threadIdx.x];
		__syncthreads();
	}
	if (row < m && col < n)
		c[(size_t)row * n + col] = acc;
}

extern "C" int m1_cuda_available(const char **why)
{
	int count = 0;
	cudaError_t err = cudaGetDeviceCount(&count);

	if (err != cudaSuccess) {
		*why = cudaGetErrorString(err);
		return 0;
	}
	if (!count)
		*why = "no device";
	return count;
}

extern "C" const char *m1_cuda_error(int err)
{
	return cudaGetErrorString((cudaError_t)err);
}

/* Device copies of n floats from each of in[0..nin), and one of out. */
struct dev {
	float *in[2], *out;
};

static void dev_free(struct dev *d)
{
	cudaFree(d->in[0]);
	cudaFree(d->in[1]);
	cudaFree(d->out);
}

static cudaError_t dev_alloc(struct dev *d, const float *const *in,
			     const size_t *nin, int nr, size_t nout)
{
	cudaError_t err = cudaSuccess;

	d->in[0] = d->in[1] = d->out = NULL;
	for (int i = 0; i < nr && err == cudaSuccess; i++) {
		err = cudaMalloc(&d->in[i], nin[i] * sizeof(float));
		if (err == cudaSuccess)
			err = cudaMemcpy(d->in[i], in[i], nin[i] * sizeof(float),
					 cudaMemcpyHostToDevice);
	}
	if (err == cudaSuccess)
		err = cudaMalloc(&d->out, nout * sizeof(float));
	return err;
}

/* After a launch: its error, else the copy of the result back. */
static int finish(struct dev *d, float *out, size_t n)
{
	cudaError_t err = cudaGetLastError();

	if (err == cudaSuccess)
		err = cudaMemcpy(out, d->out, n * sizeof(float),
				 cudaMemcpyDeviceToHost);
	dev_free(d);
	return (int)err;
}

extern "C" int m1_cuda_relu(const float *x, float *y, size_t n)
{
	struct dev d;
	cudaError_t err = dev_alloc(&d, &x, &n, 1, n);

	if (err != cudaSuccess) {
		dev_free(&d);
		return (int)err;
	}
	if (n)
		m1_relu_kernel<<<(unsigned)((n + BLOCK - 1) / BLOCK), BLOCK>>>(
			d.in[0], d.out, n);
	return finish(&d, y, n);
}

extern "C" int m1_cuda_add(const float *a, const float *b, float *c, size_t n)
{
	const float *in[2] = { a, b };
	const size_t nin[2] = { n, n };
	struct dev d;
	cudaError_t err = dev_alloc(&d, in, nin, 2, n);

	if (err != cudaSuccess) {
		dev_free(&d);
		return (int)err;
	}
	if (n)
		m1_add_kernel<<<(unsigned)((n + BLOCK - 1) / BLOCK), BLOCK>>>(
			d.in[0], d.in[1], d.out, n);
	return finish(&d, c, n);
}

extern "C" int m1_cuda_matmul_device(const float *a, const float *b, float *c,
				     int m, int k, int n)
{
	dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);

	if (m && n)
		m1_matmul_kernel<<<grid, block>>>(a, b, c, m, k, n);
	return (int)cudaGetLastError();
}

extern "C" int m1_cuda_matmul(const float *a, const float *b, float *c, int m,
			      int k, int n)
{
	const float *in[2] = { a, b };
	const size_t nin[2] = { (size_t)m * k, (size_t)k * n };
	struct dev d;
	cudaError_t err = dev_alloc(&d, in, nin, 2, (size_t)m * n);

	if (err != cudaSuccess) {
		dev_free(&d);
		return (int)err;
	}
	m1_cuda_matmul_device(d.in[0], d.in[1], d.out, m, k, n);
	return finish(&d, c, (size_t)m * n);
}

extern "C" int m1_cuda_malloc(int dev, void **p, size_t n)
{
	cudaError_t err = cudaSetDevice(dev);

	*p = NULL;
	if (err == cudaSuccess && n)
		err = cudaMalloc(p, n);
	return (int)err;
}

extern "C" int m1_cuda_free(void *p)
{
	return p ? (int)cudaFree(p) : 0;
}

extern "C" int m1_cuda_to_device(void *dst, const void *src, size_t n)
{
	return n ? (int)cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice) : 0;
}

extern "C" int m1_cuda_to_host(void *dst, const void *src, size_t n)
{
	return n ? (int)cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost) : 0;
}
