/*
 * Tensors in device buffers, and ops run through a backend's kernels.
 * Shapes are checked here, before a plugin sees them.
 */
#include "core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const tfm_op_names[TFM_OP_COUNT] = {
	"add", "mul", "scale", "relu", "sum", "matmul",
};

int tfm_shape_count(size_t rank, const int64_t *dims, size_t *count,
		    struct tfm_err *e)
{
	size_t i, n = 1;

	if (rank > TFM_MAX_RANK)
		return tfm_bad_value(e, "tfmini: rank %zu is over the limit of %d",
				rank, TFM_MAX_RANK);
	for (i = 0; i < rank; i++) {
		if (dims[i] < 0)
			return tfm_bad_value(e, "tfmini: negative dimension %lld",
					(long long)dims[i]);
		if (dims[i] && n > (SIZE_MAX / sizeof(float)) / (size_t)dims[i])
			return tfm_bad_value(e, "tfmini: tensor is too large");
		n *= (size_t)dims[i];
	}
	*count = n;
	return 0;
}

int tfm_tensor_new(struct tfm_device *dev, int index, size_t rank,
		   const int64_t *dims, struct tfm_tensor **out,
		   struct tfm_err *e)
{
	TFM_Buffer_Alloc_Args args = TFM_ARGS(TFM_Buffer_Alloc_Args);
	struct tfm_tensor *t;
	TFM_Error *err;
	size_t count;

	if (tfm_shape_count(rank, dims, &count, e))
		return -1;
	t = calloc(1, sizeof(*t));
	if (!t)
		return tfm_fail(e, "tfmini: out of memory");
	args.device = index;
	args.size = count * sizeof(float);
	if ((err = dev->api->buffer_alloc(&args))) {
		free(t);
		return tfm_plugin_error(dev, err, "buffer_alloc", e);
	}
	t->dev = dev;
	t->index = index;
	t->buf = args.buffer;
	t->rank = rank;
	if (rank)
		memcpy(t->dims, dims, rank * sizeof(*dims));
	t->count = count;
	*out = t;
	return 0;
}

void tfm_tensor_free(struct tfm_tensor *t)
{
	TFM_Buffer_Free_Args args = TFM_ARGS(TFM_Buffer_Free_Args);
	TFM_Error_Destroy_Args x = TFM_ARGS(TFM_Error_Destroy_Args);

	if (!t)
		return;
	args.buffer = t->buf;
	/* Nothing to report a failed free to: drop its error. */
	x.error = t->dev->api->buffer_free(&args);
	if (x.error)
		t->dev->api->error_destroy(&x);
	free(t);
}

int tfm_tensor_write(struct tfm_tensor *t, const float *src,
		     struct tfm_err *e)
{
	TFM_Buffer_CopyFromHost_Args args = TFM_ARGS(TFM_Buffer_CopyFromHost_Args);
	TFM_Error *err;

	args.buffer = t->buf;
	args.src = src;
	args.size = t->count * sizeof(float);
	if ((err = t->dev->api->buffer_copy_from_host(&args)))
		return tfm_plugin_error(t->dev, err, "buffer_copy_from_host", e);
	return 0;
}

int tfm_tensor_read(const struct tfm_tensor *t, float *dst,
		    struct tfm_err *e)
{
	TFM_Buffer_CopyToHost_Args args = TFM_ARGS(TFM_Buffer_CopyToHost_Args);
	TFM_Error *err;

	args.buffer = t->buf;
	args.dst = dst;
	args.size = t->count * sizeof(float);
	if ((err = t->dev->api->buffer_copy_to_host(&args)))
		return tfm_plugin_error(t->dev, err, "buffer_copy_to_host", e);
	return 0;
}

int tfm_tensor_to(const struct tfm_tensor *t, struct tfm_device *dev,
		  int index, struct tfm_tensor **out, struct tfm_err *e)
{
	float *host = malloc(t->count ? t->count * sizeof(float) : 1);
	struct tfm_tensor *n = NULL;
	int ret = -1;

	if (!host)
		return tfm_fail(e, "tfmini: out of memory");
	if (tfm_tensor_read(t, host, e) ||
	    tfm_tensor_new(dev, index, t->rank, t->dims, &n, e) ||
	    tfm_tensor_write(n, host, e))
		goto out;
	*out = n;
	n = NULL;
	ret = 0;
out:
	tfm_tensor_free(n);
	free(host);
	return ret;
}

/* "(2, 3)", "(3,)" or "()", as Python writes a shape. */
static const char *shape_str(const struct tfm_tensor *t, char *buf, size_t n)
{
	size_t i, len = 0;

	len += snprintf(buf, n, "(");
	for (i = 0; i < t->rank && len < n; i++)
		len += snprintf(buf + len, n - len, "%s%lld", i ? ", " : "",
				(long long)t->dims[i]);
	if (len < n)
		snprintf(buf + len, n - len, t->rank == 1 ? ",)" : ")");
	return buf;
}

static int same_shape(const struct tfm_tensor *a, const struct tfm_tensor *b)
{
	return a->rank == b->rank &&
	       !memcmp(a->dims, b->dims, a->rank * sizeof(a->dims[0]));
}

/* Check the operands of op and work out the shape of its result. */
static int out_shape(enum tfm_op op, const struct tfm_tensor *a,
		     const struct tfm_tensor *b, size_t *rank, int64_t *dims,
		     struct tfm_err *e)
{
	char sa[160], sb[160];
	const char *name = tfm_op_names[op];

	*rank = a->rank;
	memcpy(dims, a->dims, sizeof(a->dims));
	if (op == TFM_OP_SUM)
		*rank = 0;
	if (!b)
		return 0;
	if (a->dev != b->dev || a->index != b->index)
		return tfm_bad_value(e, "tfmini: %s: inputs are on different "
				     "devices ('%s:%d' and '%s:%d')", name,
				     a->dev->name, a->index, b->dev->name,
				     b->index);
	if (op != TFM_OP_MATMUL) {
		if (!same_shape(a, b))
			return tfm_bad_value(e, "tfmini: %s: shapes %s and "
					     "%s differ", name,
					     shape_str(a, sa, sizeof(sa)),
					shape_str(b, sb, sizeof(sb)));
		return 0;
	}
	if (a->rank != 2 || b->rank != 2 || a->dims[1] != b->dims[0])
		return tfm_bad_value(e, "tfmini: matmul: shapes %s and %s do not "
				"match (need (m, k) and (k, n))",
				shape_str(a, sa, sizeof(sa)),
				shape_str(b, sb, sizeof(sb)));
	dims[1] = b->dims[1];
	return 0;
}

static int kernel_for(struct tfm_device *d, enum tfm_op op, TFM_Kernel **k,
		      struct tfm_err *e)
{
	TFM_Kernel_Lookup_Args args = TFM_ARGS(TFM_Kernel_Lookup_Args);
	TFM_Error *err;

	if (!d->kernels[op]) {
		args.op_name = tfm_op_names[op];
		if ((err = d->api->kernel_lookup(&args)))
			return tfm_plugin_error(d, err, "kernel_lookup", e);
		if (!args.kernel)
			return tfm_fail(e, "tfmini: %s: no kernel for '%s'",
					d->name, args.op_name);
		d->kernels[op] = args.kernel;
	}
	*k = d->kernels[op];
	return 0;
}

static void describe_tensor(const struct tfm_tensor *t, TFM_Tensor *out)
{
	memset(out, 0, sizeof(*out));
	out->struct_size = TFM_Tensor_STRUCT_SIZE;
	out->buffer = t->buf;
	out->dtype = TFM_DTYPE_F32;
	out->rank = t->rank;
	out->dims = t->dims;
}

int tfm_tensor_op(enum tfm_op op, const struct tfm_tensor *a,
		  const struct tfm_tensor *b, float scalar,
		  struct tfm_tensor **out, struct tfm_err *e)
{
	TFM_Kernel_Execute_Args args = TFM_ARGS(TFM_Kernel_Execute_Args);
	TFM_Tensor in[2], res;
	const TFM_Tensor *inp[2] = { &in[0], &in[1] }, *outp[1] = { &res };
	struct tfm_tensor *r = NULL;
	int64_t dims[TFM_MAX_RANK];
	size_t rank;
	TFM_Error *err;

	if (out_shape(op, a, b, &rank, dims, e) ||
	    kernel_for(a->dev, op, &args.kernel, e) ||
	    tfm_tensor_new(a->dev, a->index, rank, dims, &r, e))
		return -1;
	describe_tensor(a, &in[0]);
	if (b)
		describe_tensor(b, &in[1]);
	describe_tensor(r, &res);
	args.device = a->index;
	args.inputs = inp;
	args.num_inputs = b ? 2 : 1;
	args.outputs = outp;
	args.num_outputs = 1;
	args.scalars = &scalar;
	args.num_scalars = op == TFM_OP_SCALE;
	if ((err = a->dev->api->kernel_execute(&args))) {
		tfm_tensor_free(r);
		return tfm_plugin_error(a->dev, err, tfm_op_names[op], e);
	}
	*out = r;
	return 0;
}
