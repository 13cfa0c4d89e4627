/*
 * The M_ONE device's kernels, registered with TensorFlow's kernel C API:
 * Relu, AddV2 and MatMul in float32, computed by m1's kernel table
 * (tf_m1_active: AVX2, SSE2, NEON or scalar). Other ops placed there
 * by soft placement run on the CPU; operands these kernels do not
 * handle (AddV2 with broadcasting) fail with a message saying so.
 *
 * m1_tf_kernel_calls() and m1_tf_isa() are exported for tests and for
 * the tf_m1 Python package (ctypes): they prove which kernels ran.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/kernels.h"

#include "tf_m1.h"

static const char *const op_names[TF_M1_NR_OPS] = { "Relu", "AddV2", "MatMul" };

static atomic_ullong calls[TF_M1_NR_OPS];

void tf_m1_count(enum tf_m1_op op)
{
	atomic_fetch_add(&calls[op], 1);
}

TF_M1_EXPORT unsigned long long m1_tf_kernel_calls(const char *op);
TF_M1_EXPORT const char *m1_tf_isa(void);

/* How many times OP ran on m1's kernels; 0 for an op m1 does not have. */
unsigned long long m1_tf_kernel_calls(const char *op)
{
	int i;

	for (i = 0; i < TF_M1_NR_OPS; i++)
		if (op && !strcmp(op, op_names[i]))
			return atomic_load(&calls[i]);
	return 0;
}

/* The kernel table in use, or NULL when the device was not registered. */
const char *m1_tf_isa(void)
{
	return tf_m1_active ? tf_m1_active->isa : NULL;
}

/* Input I as float32, or NULL after failing CTX. */
static TF_Tensor *float_input(TF_OpKernelContext *ctx, int i, TF_Status *status)
{
	TF_Tensor *t = NULL;

	TF_GetInput(ctx, i, &t, status);
	if (TF_GetCode(status) != TF_OK) {
		TF_OpKernelContext_Failure(ctx, status);
		return NULL;
	}
	if (TF_TensorType(t) != TF_FLOAT) {
		TF_SetStatus(status, TF_INVALID_ARGUMENT,
			     "m1: only float32 tensors are supported");
		TF_OpKernelContext_Failure(ctx, status);
		TF_DeleteTensor(t);
		return NULL;
	}
	return t;
}

/* An output of NDIMS DIMS, or NULL after failing CTX. */
static TF_Tensor *float_output(TF_OpKernelContext *ctx, const int64_t *dims,
			       int ndims, size_t count, TF_Status *status)
{
	TF_Tensor *t = TF_AllocateOutput(ctx, 0, TF_FLOAT, dims, ndims,
					 count * sizeof(float), status);

	if (TF_GetCode(status) != TF_OK) {
		TF_OpKernelContext_Failure(ctx, status);
		TF_DeleteTensor(t);
		return NULL;
	}
	return t;
}

static void fail(TF_OpKernelContext *ctx, TF_Status *status, TF_Code code,
		 const char *msg)
{
	TF_SetStatus(status, code, msg);
	TF_OpKernelContext_Failure(ctx, status);
}

/* The shape of T, at most 8 dimensions; its rank, or -1 if deeper. */
static int shape_of(const TF_Tensor *t, int64_t dims[8])
{
	int n = TF_NumDims(t), i;

	if (n > 8)
		return -1;
	for (i = 0; i < n; i++)
		dims[i] = TF_Dim(t, i);
	return n;
}

/* ---------------------------------------------------------------- Relu */

static void relu_compute(void *kernel, TF_OpKernelContext *ctx)
{
	TF_Status *status = TF_NewStatus();
	TF_Tensor *x = NULL, *y = NULL;
	int64_t dims[8];
	int n;

	(void)kernel;
	if (!(x = float_input(ctx, 0, status)))
		goto out;
	if ((n = shape_of(x, dims)) < 0) {
		fail(ctx, status, TF_UNIMPLEMENTED,
		     "m1: Relu takes at most 8 dimensions");
		goto out;
	}
	if (!(y = float_output(ctx, dims, n, TF_TensorElementCount(x), status)))
		goto out;
	tf_m1_active->relu(TF_TensorData(x), TF_TensorData(y),
			   (size_t)TF_TensorElementCount(x));
	tf_m1_count(TF_M1_RELU);
out:
	TF_DeleteTensor(y);
	TF_DeleteTensor(x);
	TF_DeleteStatus(status);
}

/* --------------------------------------------------------------- AddV2 */

static int same_shape(const TF_Tensor *a, const TF_Tensor *b)
{
	int i, n = TF_NumDims(a);

	if (n != TF_NumDims(b))
		return 0;
	for (i = 0; i < n; i++)
		if (TF_Dim(a, i) != TF_Dim(b, i))
			return 0;
	return 1;
}

static void add_compute(void *kernel, TF_OpKernelContext *ctx)
{
	TF_Status *status = TF_NewStatus();
	TF_Tensor *a = NULL, *b = NULL, *z = NULL;
	int64_t dims[8];
	int n;

	(void)kernel;
	if (!(a = float_input(ctx, 0, status)) ||
	    !(b = float_input(ctx, 1, status)))
		goto out;
	if (!same_shape(a, b) || (n = shape_of(a, dims)) < 0) {
		fail(ctx, status, TF_UNIMPLEMENTED,
		     "m1: AddV2 takes two operands of one shape (no "
		     "broadcasting), of at most 8 dimensions");
		goto out;
	}
	if (!(z = float_output(ctx, dims, n, TF_TensorElementCount(a), status)))
		goto out;
	tf_m1_active->add(TF_TensorData(a), TF_TensorData(b), TF_TensorData(z),
			  (size_t)TF_TensorElementCount(a));
	tf_m1_count(TF_M1_ADDV2);
out:
	TF_DeleteTensor(z);
	TF_DeleteTensor(b);
	TF_DeleteTensor(a);
	TF_DeleteStatus(status);
}

/* -------------------------------------------------------------- MatMul */

struct matmul {
	TF_Bool transpose_a; /* the op's attributes, read at construction */
	TF_Bool transpose_b;
};

static void *matmul_create(TF_OpKernelConstruction *ctx)
{
	struct matmul *mm = calloc(1, sizeof(*mm));
	TF_Status *status = TF_NewStatus();

	if (!mm) {
		TF_SetStatus(status, TF_RESOURCE_EXHAUSTED,
			     "m1: out of memory");
		TF_OpKernelConstruction_Failure(ctx, status);
		goto out;
	}
	TF_OpKernelConstruction_GetAttrBool(ctx, "transpose_a",
					    &mm->transpose_a, status);
	if (TF_GetCode(status) == TF_OK)
		TF_OpKernelConstruction_GetAttrBool(ctx, "transpose_b",
						    &mm->transpose_b, status);
	if (TF_GetCode(status) != TF_OK)
		TF_OpKernelConstruction_Failure(ctx, status);
out:
	TF_DeleteStatus(status);
	return mm;
}

static void matmul_delete(void *kernel)
{
	free(kernel);
}

/* The ROWS x COLS matrix SRC, transposed into a new buffer (or NULL). */
static float *transposed(const float *src, size_t rows, size_t cols)
{
	size_t count = rows * cols > 0 ? rows * cols : 1;
	float *dst = malloc(count * sizeof(*dst));
	size_t i, j;

	if (!dst)
		return NULL;
	for (i = 0; i < rows; i++)
		for (j = 0; j < cols; j++)
			dst[j * rows + i] = src[i * cols + j];
	return dst;
}

static void matmul_compute(void *kernel, TF_OpKernelContext *ctx)
{
	const struct matmul *mm = kernel;
	TF_Status *status = TF_NewStatus();
	TF_Tensor *a = NULL, *b = NULL, *c = NULL;
	float *ta = NULL, *tb = NULL;
	const float *pa, *pb;
	int64_t m, k, k2, n, dims[2];
	char msg[160];

	if (!(a = float_input(ctx, 0, status)) ||
	    !(b = float_input(ctx, 1, status)))
		goto out;
	if (TF_NumDims(a) != 2 || TF_NumDims(b) != 2) {
		fail(ctx, status, TF_INVALID_ARGUMENT,
		     "m1: MatMul takes two matrices");
		goto out;
	}
	m = TF_Dim(a, mm->transpose_a ? 1 : 0);
	k = TF_Dim(a, mm->transpose_a ? 0 : 1);
	k2 = TF_Dim(b, mm->transpose_b ? 1 : 0);
	n = TF_Dim(b, mm->transpose_b ? 0 : 1);
	if (k != k2) {
		snprintf(msg, sizeof(msg),
			 "m1: MatMul: inner dimensions differ (%lld and %lld)",
			 (long long)k, (long long)k2);
		fail(ctx, status, TF_INVALID_ARGUMENT, msg);
		goto out;
	}
	pa = TF_TensorData(a);
	pb = TF_TensorData(b);
	/* m1's matmul is row-major a[m][k] @ b[k][n]: transpose into copies. */
	if (mm->transpose_a && !(pa = ta = transposed(pa, k, m)))
		goto oom;
	if (mm->transpose_b && !(pb = tb = transposed(pb, n, k)))
		goto oom;
	dims[0] = m;
	dims[1] = n;
	if (!(c = float_output(ctx, dims, 2, (size_t)(m * n), status)))
		goto out;
	tf_m1_active->matmul(pa, pb, TF_TensorData(c), m, k, n);
	tf_m1_count(TF_M1_MATMUL);
	goto out;
oom:
	fail(ctx, status, TF_RESOURCE_EXHAUSTED, "m1: out of memory");
out:
	free(tb);
	free(ta);
	TF_DeleteTensor(c);
	TF_DeleteTensor(b);
	TF_DeleteTensor(a);
	TF_DeleteStatus(status);
}

/* ---------------------------------------------------------- registration */

static void add_kernel(const char *op,
		       void *(*create)(TF_OpKernelConstruction *),
		       void (*compute)(void *, TF_OpKernelContext *),
		       void (*destroy)(void *), TF_Status *status)
{
	TF_KernelBuilder *builder;

	if (TF_GetCode(status) != TF_OK)
		return;
	builder =
		TF_NewKernelBuilder(op, TF_M1_DEVICE, create, compute, destroy);
	TF_KernelBuilder_TypeConstraint(builder, "T", TF_FLOAT, status);
	if (TF_GetCode(status) != TF_OK) {
		TF_DeleteKernelBuilder(builder);
		return;
	}
	TF_RegisterKernelBuilder(op, builder, status);
}

TF_M1_EXPORT void TF_InitKernel(void);

TF_M1_EXPORT void TF_InitKernel(void)
{
	TF_Status *status = TF_NewStatus();

	/* SE_InitPlugin refused (outside the ABI window): register nothing. */
	if (!tf_m1_active)
		goto out;
	add_kernel("Relu", NULL, relu_compute, NULL, status);
	add_kernel("AddV2", NULL, add_compute, NULL, status);
	add_kernel("MatMul", matmul_create, matmul_compute, matmul_delete,
		   status);
	if (TF_GetCode(status) != TF_OK)
		fprintf(stderr,
			"tf_m1: cannot register the " TF_M1_DEVICE
			" kernels: %s\n",
			TF_Message(status));
out:
	TF_DeleteStatus(status);
}
