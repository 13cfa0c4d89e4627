/*
 * m1: a tfmini device backend. Its "device memory" is host memory, so
 * what it shows is the plugin ABI and run-time kernel selection:
 * scalar, SSE2 or AVX2+FMA on x86-64, NEON on AArch64, chosen at
 * initialize, or forced with TFMINI_M1_ISA=scalar|sse2|avx2|neon. A
 * build of one table (backend/Makefile ISA=..., for a variant wheel)
 * calls its kernels directly and only checks the CPU can run them.
 *
 * Every argument struct is checked against its 1.0 size before use, and
 * every tensor against its buffer, so a confused caller gets an error
 * rather than a corrupted heap.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfmini/device_api.h"

#include "kernels.h"

#define M1_NAME "m1"
#define M1_VERSION "1.0.0"
#define M1_ALIGN 64

struct TFM_Error {
	char *msg; /* owned, except in oom_error */
};

struct TFM_Buffer {
	size_t size; /* bytes asked for */
	float *data; /* owned; M1_ALIGN-aligned */
};

enum m1_op { OP_ADD, OP_MUL, OP_SCALE, OP_RELU, OP_SUM, OP_MATMUL, OP_COUNT };

struct TFM_Kernel {
	enum m1_op op;
	const char *name;
	size_t inputs; /* how many tensors it takes */
};

static const struct TFM_Kernel kernels[OP_COUNT] = {
	{ OP_ADD, "add", 2 },   { OP_MUL, "mul", 2 },   { OP_SCALE, "scale", 1 },
	{ OP_RELU, "relu", 1 }, { OP_SUM, "sum", 1 },   { OP_MATMUL, "matmul", 2 },
};

/* Best first: the first supported one is the default. */
static const struct m1_kernels *const all_isas[] = {
#if defined(M1_ONLY_avx2)
	&m1_kernels_avx2,
#elif defined(M1_ONLY_sse2)
	&m1_kernels_sse2,
#elif defined(M1_ONLY_neon)
	&m1_kernels_neon,
#elif defined(M1_ONLY_scalar)
	&m1_kernels_scalar,
#else
#if defined(__x86_64__)
	&m1_kernels_avx2,
	&m1_kernels_sse2,
#endif
#if defined(__aarch64__)
	&m1_kernels_neon,
#endif
	&m1_kernels_scalar,
#endif
};
#define NR_ISAS (sizeof(all_isas) / sizeof(all_isas[0]))

static const char known_isas[] = "scalar, sse2, avx2, neon";

static const struct m1_kernels *active; /* set by initialize */
static char note[160];                  /* why a requested ISA was not used */

static TFM_Error oom_error = { "out of memory" };

static TFM_Error *m1_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static TFM_Error *m1_error(const char *fmt, ...)
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

/* An argument struct from an older or broken caller. */
#define CHECK_ARGS(args, type)                                            \
	do {                                                              \
		if (!(args) || (args)->struct_size < type##_STRUCT_SIZE)  \
			return m1_error(#type " is too small");           \
	} while (0)

static void m1_error_destroy(TFM_Error_Destroy_Args *args)
{
	if (args && args->struct_size >= TFM_Error_Destroy_Args_STRUCT_SIZE &&
	    args->error && args->error != &oom_error) {
		free(args->error->msg);
		free(args->error);
	}
}

static void m1_error_message(TFM_Error_Message_Args *args)
{
	if (!args || args->struct_size < TFM_Error_Message_Args_STRUCT_SIZE ||
	    !args->error)
		return;
	args->message = args->error->msg;
	args->message_size = strlen(args->error->msg);
}

static int isa_known(const char *name)
{
	return !strcmp(name, "scalar") || !strcmp(name, "sse2") ||
	       !strcmp(name, "avx2") || !strcmp(name, "neon");
}

/* The requested ISA if this build has it and this CPU runs it, else the best. */
static TFM_Error *choose_isa(void)
{
	const char *want = getenv("TFMINI_M1_ISA");
	const struct m1_kernels *best = NULL;
	size_t i;

	note[0] = '\0';
	if (want && *want && !isa_known(want))
		return m1_error("TFMINI_M1_ISA='%s' is not one of: %s", want,
				known_isas);
	for (i = 0; i < NR_ISAS; i++) {
		if (!all_isas[i]->supported())
			continue;
		if (!best)
			best = all_isas[i];
		if (want && !strcmp(want, all_isas[i]->isa)) {
			active = all_isas[i];
			return NULL;
		}
	}
#if defined(M1_ONLY)
	if (!best)
		return m1_error("this m1 build has only the %s kernels, which "
				"this CPU cannot run", all_isas[0]->isa);
#endif
	active = best;
	if (want && *want)
		snprintf(note, sizeof(note), "TFMINI_M1_ISA=%s is not "
			 "supported on this CPU; using %s", want, best->isa);
	return NULL;
}

static TFM_Error *m1_initialize(TFM_Plugin_Initialize_Args *args)
{
	CHECK_ARGS(args, TFM_Plugin_Initialize_Args);
	return choose_isa();
}

static TFM_Error *m1_attributes(TFM_Plugin_Attributes_Args *args)
{
	CHECK_ARGS(args, TFM_Plugin_Attributes_Args);
	if (!active)
		return m1_error("not initialized");
	args->name = M1_NAME;
	args->version = M1_VERSION;
	args->isa = active->isa;
	args->note = note[0] ? note : NULL;
	return NULL;
}

static TFM_Error *m1_device_count(TFM_Device_Count_Args *args)
{
	CHECK_ARGS(args, TFM_Device_Count_Args);
	args->num_devices = 1;
	return NULL;
}

static TFM_Error *m1_buffer_alloc(TFM_Buffer_Alloc_Args *args)
{
	TFM_Buffer *b;
	size_t rounded;

	CHECK_ARGS(args, TFM_Buffer_Alloc_Args);
	if (args->device != 0)
		return m1_error("no device %d", args->device);
	if (args->size > SIZE_MAX - M1_ALIGN)
		return m1_error("cannot allocate %zu bytes", args->size);
	rounded = (args->size + M1_ALIGN - 1) / M1_ALIGN * M1_ALIGN;
	if (!rounded)
		rounded = M1_ALIGN;
	b = malloc(sizeof(*b));
	if (!b || !(b->data = aligned_alloc(M1_ALIGN, rounded))) {
		free(b);
		return m1_error("cannot allocate %zu bytes", args->size);
	}
	b->size = args->size;
	args->buffer = b;
	return NULL;
}

static TFM_Error *m1_buffer_free(TFM_Buffer_Free_Args *args)
{
	CHECK_ARGS(args, TFM_Buffer_Free_Args);
	if (args->buffer) {
		free(args->buffer->data);
		free(args->buffer);
	}
	return NULL;
}

static TFM_Error *check_range(const TFM_Buffer *b, size_t offset, size_t size)
{
	if (!b)
		return m1_error("no buffer");
	if (offset > b->size || size > b->size - offset)
		return m1_error("%zu bytes at offset %zu overrun a buffer of %zu",
				size, offset, b->size);
	return NULL;
}

static TFM_Error *m1_copy_from_host(TFM_Buffer_CopyFromHost_Args *args)
{
	TFM_Error *err;

	CHECK_ARGS(args, TFM_Buffer_CopyFromHost_Args);
	if ((err = check_range(args->buffer, args->offset, args->size)))
		return err;
	if (args->size)
		memcpy((char *)args->buffer->data + args->offset, args->src,
		       args->size);
	return NULL;
}

static TFM_Error *m1_copy_to_host(TFM_Buffer_CopyToHost_Args *args)
{
	TFM_Error *err;

	CHECK_ARGS(args, TFM_Buffer_CopyToHost_Args);
	if ((err = check_range(args->buffer, args->offset, args->size)))
		return err;
	if (args->size)
		memcpy(args->dst,
		       (const char *)args->buffer->data + args->offset,
		       args->size);
	return NULL;
}

static TFM_Error *m1_kernel_lookup(TFM_Kernel_Lookup_Args *args)
{
	int i;

	CHECK_ARGS(args, TFM_Kernel_Lookup_Args);
	for (i = 0; args->op_name && i < OP_COUNT; i++)
		if (!strcmp(args->op_name, kernels[i].name)) {
			args->kernel = (TFM_Kernel *)&kernels[i];
			return NULL;
		}
	return m1_error("no kernel for op '%s'",
			args->op_name ? args->op_name : "(null)");
}

/* The element count of t, checked against its dtype and its buffer. */
static TFM_Error *tensor_count(const TFM_Tensor *t, size_t *count)
{
	size_t i, n = 1;

	if (!t || t->struct_size < TFM_Tensor_STRUCT_SIZE || !t->buffer ||
	    (t->rank && !t->dims))
		return m1_error("malformed tensor argument");
	if (t->dtype != TFM_DTYPE_F32)
		return m1_error("dtype %d is not supported", (int)t->dtype);
	for (i = 0; i < t->rank; i++) {
		if (t->dims[i] < 0 || (t->dims[i] &&
		    n > SIZE_MAX / sizeof(float) / (uint64_t)t->dims[i]))
			return m1_error("bad dimension %lld",
					(long long)t->dims[i]);
		n *= (size_t)t->dims[i];
	}
	if (n * sizeof(float) > t->buffer->size)
		return m1_error("%zu elements do not fit a buffer of %zu bytes",
				n, t->buffer->size);
	*count = n;
	return NULL;
}

static int same_shape(const TFM_Tensor *a, const TFM_Tensor *b)
{
	return a->rank == b->rank &&
	       (!a->rank || !memcmp(a->dims, b->dims, a->rank * sizeof(*a->dims)));
}

static TFM_Error *check_shapes(enum m1_op op, const TFM_Tensor *a,
			       const TFM_Tensor *b, const TFM_Tensor *out,
			       size_t nout)
{
	switch (op) {
	case OP_ADD:
	case OP_MUL:
		if (!same_shape(a, b) || !same_shape(a, out))
			return m1_error("operands differ in shape");
		return NULL;
	case OP_SCALE:
	case OP_RELU:
		return same_shape(a, out) ? NULL :
		       m1_error("output differs in shape");
	case OP_SUM:
		return nout == 1 ? NULL : m1_error("output is not one element");
	case OP_MATMUL:
		if (a->rank != 2 || b->rank != 2 || out->rank != 2 ||
		    a->dims[1] != b->dims[0] || out->dims[0] != a->dims[0] ||
		    out->dims[1] != b->dims[1])
			return m1_error("shapes do not fit (m, k) @ (k, n)");
		return NULL;
	default:
		return m1_error("bad op");
	}
}

static const struct TFM_Kernel *our_kernel(const TFM_Kernel *k)
{
	int i;

	for (i = 0; i < OP_COUNT; i++)
		if (k == &kernels[i])
			return &kernels[i];
	return NULL;
}

/*
 * A kernel of the active table; in a build of one table (kernels.h), a
 * direct call to it.
 */
#if defined(M1_ONLY)
#define KERNEL(op) m1_only_##op
#else
#define KERNEL(op) active->op
#endif

static void run(enum m1_op op, const TFM_Tensor *a, const TFM_Tensor *b,
		const TFM_Tensor *out, float s, size_t n)
{
	const float *x = a->buffer->data, *y = b->buffer->data;
	float *z = out->buffer->data;

	switch (op) {
	case OP_ADD:
		KERNEL(add)(x, y, z, n);
		break;
	case OP_MUL:
		KERNEL(mul)(x, y, z, n);
		break;
	case OP_SCALE:
		KERNEL(scale)(x, s, z, n);
		break;
	case OP_RELU:
		KERNEL(relu)(x, z, n);
		break;
	case OP_SUM:
		z[0] = KERNEL(sum)(x, n);
		break;
	case OP_MATMUL:
		KERNEL(matmul)(x, y, z, (size_t)a->dims[0], (size_t)a->dims[1],
			       (size_t)b->dims[1]);
		break;
	default:
		break;
	}
}

static TFM_Error *m1_kernel_execute(TFM_Kernel_Execute_Args *args)
{
	const struct TFM_Kernel *k;
	const TFM_Tensor *a, *b, *out;
	size_t na, nb, nout;
	TFM_Error *err;

	CHECK_ARGS(args, TFM_Kernel_Execute_Args);
	if (!(k = our_kernel(args->kernel)))
		return m1_error("unknown kernel");
	if (!active)
		return m1_error("not initialized");
	if (args->device != 0)
		return m1_error("no device %d", args->device);
	if (args->num_inputs != k->inputs || args->num_outputs != 1 ||
	    !args->inputs || !args->outputs ||
	    (k->op == OP_SCALE && (args->num_scalars != 1 || !args->scalars)))
		return m1_error("%s: wrong number of operands", k->name);
	a = args->inputs[0];
	b = k->inputs == 2 ? args->inputs[1] : a;
	out = args->outputs[0];
	if ((err = tensor_count(a, &na)) || (err = tensor_count(b, &nb)) ||
	    (err = tensor_count(out, &nout)) ||
	    (err = check_shapes(k->op, a, b, out, nout)))
		return err;
	run(k->op, a, b, out, k->op == OP_SCALE ? args->scalars[0] : 0.0f, na);
	return NULL;
}

static const TFM_DeviceApi m1_api = {
	.struct_size = TFM_DeviceApi_STRUCT_SIZE,
	.extension = NULL,
	.api_version_major = TFM_API_VERSION_MAJOR,
	.api_version_minor = TFM_API_VERSION_MINOR,
	.error_destroy = m1_error_destroy,
	.error_message = m1_error_message,
	.plugin_initialize = m1_initialize,
	.plugin_attributes = m1_attributes,
	.device_count = m1_device_count,
	.buffer_alloc = m1_buffer_alloc,
	.buffer_free = m1_buffer_free,
	.buffer_copy_from_host = m1_copy_from_host,
	.buffer_copy_to_host = m1_copy_to_host,
	.kernel_lookup = m1_kernel_lookup,
	.kernel_execute = m1_kernel_execute,
};

TFM_PLUGIN_EXPORT const TFM_DeviceApi *TFM_GetDeviceApi(void);

TFM_PLUGIN_EXPORT const TFM_DeviceApi *TFM_GetDeviceApi(void)
{
	return &m1_api;
}
