/*
 * The kernels of the {{DEVICE}} device, through TensorFlow's kernel C API
 * (tensorflow/c/kernels.h): Relu on float32. An op placed on the device
 * with no kernel here runs on the CPU instead (soft placement), so each
 * op your device should run needs its kernel registered below.
 *
 * The device's memory is host memory, so a kernel reads and writes its
 * tensors' data directly; a real device launches its work on the
 * tensors' device memory instead.
 */
#include <stdio.h>

#include "tensorflow/c/kernels.h"

#include "{{module}}.h"

/* y = max(x, 0), elementwise: what your device computes goes here. */
static void relu_compute(void *kernel, TF_OpKernelContext *ctx)
{
	TF_Status *status = TF_NewStatus();
	TF_Tensor *x = NULL, *y = NULL;
	int64_t dims[8], n, i;
	const float *in;
	float *out;
	int rank, d;

	(void)kernel;
	TF_GetInput(ctx, 0, &x, status);
	if (TF_GetCode(status) != TF_OK)
		goto fail;
	rank = TF_NumDims(x);
	if (rank > 8) {
		TF_SetStatus(status, TF_UNIMPLEMENTED,
			     "{{module}}: Relu takes at most 8 dimensions");
		goto fail;
	}
	for (d = 0; d < rank; d++)
		dims[d] = TF_Dim(x, d);
	n = TF_TensorElementCount(x);
	y = TF_AllocateOutput(ctx, 0, TF_FLOAT, dims, rank,
			      (size_t)n * sizeof(float), status);
	if (TF_GetCode(status) != TF_OK)
		goto fail;
	in = TF_TensorData(x);
	out = TF_TensorData(y);
	for (i = 0; i < n; i++)
		out[i] = in[i] > 0 ? in[i] : 0;
	goto out;
fail:
	TF_OpKernelContext_Failure(ctx, status);
out:
	TF_DeleteTensor(y);
	TF_DeleteTensor(x);
	TF_DeleteStatus(status);
}

/* Registers the kernel of op for float32 ("T") on the device. */
static void add_kernel(const char *op,
		       void (*compute)(void *, TF_OpKernelContext *),
		       TF_Status *status)
{
	TF_KernelBuilder *builder;

	if (TF_GetCode(status) != TF_OK)
		return;
	builder = TF_NewKernelBuilder(op, {{MODULE}}_DEVICE, NULL, compute,
				      NULL);
	TF_KernelBuilder_TypeConstraint(builder, "T", TF_FLOAT, status);
	if (TF_GetCode(status) != TF_OK) {
		TF_DeleteKernelBuilder(builder);
		return;
	}
	TF_RegisterKernelBuilder(op, builder, status);
}

{{MODULE}}_EXPORT void TF_InitKernel(void);

void TF_InitKernel(void)
{
	TF_Status *status = TF_NewStatus();

	/* Outside the window SE_InitPlugin registered no device. */
	if ({{module}}_registered)
		add_kernel("Relu", relu_compute, status);
	if (TF_GetCode(status) != TF_OK)
		fprintf(stderr,
			"{{module}}: cannot register the " {{MODULE}}_DEVICE
			" kernels: %s\n",
			TF_Message(status));
	TF_DeleteStatus(status);
}
