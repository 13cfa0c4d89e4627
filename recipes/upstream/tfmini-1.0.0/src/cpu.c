/*
 * The reference CPU backend. It goes through the same device API as any
 * plugin, so the core has one code path, and its plain scalar kernels
 * define the results every other backend is compared with:
 * add, mul, scale and relu bit for bit; sum and matmul accumulate in
 * double, in index order, and round once.
 */
#include "core.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct TFM_Error {
	char *msg; /* owned, unless this is the static out-of-memory error */
};

struct TFM_Buffer {
	size_t size;
	float *data; /* owned; size bytes */
};

struct TFM_Kernel {
	enum tfm_op op;
};

static TFM_Error oom_error = { "out of memory" };

static TFM_Error *cpu_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static TFM_Error *cpu_error(const char *fmt, ...)
{
	TFM_Error *err = malloc(sizeof(*err));
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!err || !(err->msg = strdup(msg))) {
		free(err);
		return &oom_error;
	}
	return err;
}

static void cpu_error_destroy(TFM_Error_Destroy_Args *args)
{
	if (args->error && args->error != &oom_error) {
		free(args->error->msg);
		free(args->error);
	}
}

static void cpu_error_message(TFM_Error_Message_Args *args)
{
	args->message = args->error->msg;
	args->message_size = strlen(args->error->msg);
}

static TFM_Error *cpu_initialize(TFM_Plugin_Initialize_Args *args)
{
	(void)args;
	return NULL;
}

static TFM_Error *cpu_attributes(TFM_Plugin_Attributes_Args *args)
{
	args->name = "cpu";
	args->version = "1.0.0";
	args->isa = "scalar";
	args->note = NULL;
	return NULL;
}

static TFM_Error *cpu_device_count(TFM_Device_Count_Args *args)
{
	args->num_devices = 1;
	return NULL;
}

static TFM_Error *cpu_buffer_alloc(TFM_Buffer_Alloc_Args *args)
{
	TFM_Buffer *b = malloc(sizeof(*b));

	if (!b || !(b->data = malloc(args->size ? args->size : 1))) {
		free(b);
		return cpu_error("cannot allocate %zu bytes", args->size);
	}
	b->size = args->size;
	args->buffer = b;
	return NULL;
}

static TFM_Error *cpu_buffer_free(TFM_Buffer_Free_Args *args)
{
	if (args->buffer) {
		free(args->buffer->data);
		free(args->buffer);
	}
	return NULL;
}

static TFM_Error *cpu_copy_from_host(TFM_Buffer_CopyFromHost_Args *args)
{
	if (args->offset > args->buffer->size ||
	    args->size > args->buffer->size - args->offset)
		return cpu_error("copy of %zu bytes at %zu overruns a buffer "
				 "of %zu", args->size, args->offset,
				 args->buffer->size);
	if (args->size)
		memcpy((char *)args->buffer->data + args->offset, args->src,
		       args->size);
	return NULL;
}

static TFM_Error *cpu_copy_to_host(TFM_Buffer_CopyToHost_Args *args)
{
	if (args->offset > args->buffer->size ||
	    args->size > args->buffer->size - args->offset)
		return cpu_error("copy of %zu bytes at %zu overruns a buffer "
				 "of %zu", args->size, args->offset,
				 args->buffer->size);
	if (args->size)
		memcpy(args->dst, (const char *)args->buffer->data + args->offset,
		       args->size);
	return NULL;
}

static TFM_Kernel kernels[TFM_OP_COUNT] = {
	{ TFM_OP_ADD }, { TFM_OP_MUL }, { TFM_OP_SCALE },
	{ TFM_OP_RELU }, { TFM_OP_SUM }, { TFM_OP_MATMUL },
};

static TFM_Error *cpu_kernel_lookup(TFM_Kernel_Lookup_Args *args)
{
	int i;

	for (i = 0; i < TFM_OP_COUNT; i++)
		if (!strcmp(args->op_name, tfm_op_names[i])) {
			args->kernel = &kernels[i];
			return NULL;
		}
	return cpu_error("no kernel for op '%s'", args->op_name);
}

static size_t count_of(const TFM_Tensor *t)
{
	size_t i, n = 1;

	for (i = 0; i < t->rank; i++)
		n *= (size_t)t->dims[i];
	return n;
}

static void ref_matmul(const float *a, const float *b, float *c, size_t m,
		       size_t k, size_t n)
{
	size_t i, j, p;

	for (i = 0; i < m; i++)
		for (j = 0; j < n; j++) {
			double acc = 0.0;

			for (p = 0; p < k; p++)
				acc += (double)a[i * k + p] * (double)b[p * n + j];
			c[i * n + j] = (float)acc;
		}
}

static void ref_run(enum tfm_op op, const float *a, const float *b, float s,
		    float *out, size_t n)
{
	size_t i;
	double acc = 0.0;

	switch (op) {
	case TFM_OP_ADD:
		for (i = 0; i < n; i++)
			out[i] = a[i] + b[i];
		break;
	case TFM_OP_MUL:
		for (i = 0; i < n; i++)
			out[i] = a[i] * b[i];
		break;
	case TFM_OP_SCALE:
		for (i = 0; i < n; i++)
			out[i] = a[i] * s;
		break;
	case TFM_OP_RELU:
		for (i = 0; i < n; i++)
			out[i] = a[i] > 0.0f ? a[i] : 0.0f;
		break;
	case TFM_OP_SUM:
		for (i = 0; i < n; i++)
			acc += a[i];
		out[0] = (float)acc;
		break;
	default:
		break;
	}
}

/* The core checked the shapes; only what would corrupt memory is rechecked. */
static TFM_Error *cpu_kernel_execute(TFM_Kernel_Execute_Args *args)
{
	enum tfm_op op = args->kernel->op;
	int binary = op == TFM_OP_ADD || op == TFM_OP_MUL || op == TFM_OP_MATMUL;
	const TFM_Tensor *a, *b, *out;

	if (args->num_inputs != (size_t)(binary ? 2 : 1) ||
	    args->num_outputs != 1 ||
	    (op == TFM_OP_SCALE && args->num_scalars != 1))
		return cpu_error("%s: wrong number of operands",
				 tfm_op_names[op]);
	a = args->inputs[0];
	b = binary ? args->inputs[1] : a;
	out = args->outputs[0];
	if (op == TFM_OP_MATMUL) {
		if (a->rank != 2 || b->rank != 2 || out->rank != 2 ||
		    a->dims[1] != b->dims[0])
			return cpu_error("matmul: bad shapes");
		ref_matmul(a->buffer->data, b->buffer->data, out->buffer->data,
			   (size_t)a->dims[0], (size_t)a->dims[1],
			   (size_t)b->dims[1]);
		return NULL;
	}
	if (count_of(b) != count_of(a) ||
	    count_of(out) != (op == TFM_OP_SUM ? 1 : count_of(a)))
		return cpu_error("%s: bad shapes", tfm_op_names[op]);
	ref_run(op, a->buffer->data, b->buffer->data,
		args->scalars ? args->scalars[0] : 0.0f, out->buffer->data,
		count_of(a));
	return NULL;
}

static const TFM_DeviceApi cpu_api = {
	.struct_size = TFM_DeviceApi_STRUCT_SIZE,
	.extension = NULL,
	.api_version_major = TFM_API_VERSION_MAJOR,
	.api_version_minor = TFM_API_VERSION_MINOR,
	.error_destroy = cpu_error_destroy,
	.error_message = cpu_error_message,
	.plugin_initialize = cpu_initialize,
	.plugin_attributes = cpu_attributes,
	.device_count = cpu_device_count,
	.buffer_alloc = cpu_buffer_alloc,
	.buffer_free = cpu_buffer_free,
	.buffer_copy_from_host = cpu_copy_from_host,
	.buffer_copy_to_host = cpu_copy_to_host,
	.kernel_lookup = cpu_kernel_lookup,
	.kernel_execute = cpu_kernel_execute,
};

const TFM_DeviceApi *tfm_cpu_api(void)
{
	return &cpu_api;
}
