/*
 * Arrays on the device: float32 (F32), dense and row-major, in host
 * memory. BufferFromHostBuffer copies at once (whatever the host buffer
 * semantics ask, a copy satisfies them), honouring byte_strides;
 * ToHostBuffer copies back. Another element type, or another layout, is
 * refused with an error naming it: add the types your device holds to
 * element_size().
 */
#include <stdlib.h>
#include <string.h>

#include "{{module}}.h"

#define MAX_DIMS 64

/* Bytes per element of type, or 0 if the device does not hold it. */
static size_t element_size(PJRT_Buffer_Type type)
{
	return type == PJRT_Buffer_Type_F32 ? 4 : 0;
}

/* Is this layout dense row-major for dims? */
static int row_major(const PJRT_Buffer_MemoryLayout *l, const int64_t *dims,
		     size_t ndims, size_t esize)
{
	int64_t want = (int64_t)esize;
	size_t i;

	if (l->type == PJRT_Buffer_MemoryLayout_Type_Tiled) {
		if (l->tiled.num_tiles || l->tiled.minor_to_major_size != ndims)
			return 0;
		for (i = 0; i < ndims; i++)
			if (l->tiled.minor_to_major[i] !=
			    (int64_t)(ndims - 1 - i))
				return 0;
		return 1;
	}
	if (l->type != PJRT_Buffer_MemoryLayout_Type_Strides ||
	    l->strides.num_byte_strides != ndims)
		return 0;
	for (i = ndims; i-- > 0;) {
		if (dims[i] > 1 && l->strides.byte_strides[i] != want)
			return 0;
		want *= dims[i];
	}
	return 1;
}

/* Copy a strided host array into dense row-major dst. */
static void gather(char *dst, const char *src, const int64_t *dims,
		   const int64_t *strides, size_t ndims, size_t esize,
		   size_t count)
{
	int64_t idx[MAX_DIMS] = { 0 };
	size_t e, d;

	for (e = 0; e < count; e++) {
		const char *p = src;

		for (d = 0; d < ndims; d++)
			p += idx[d] * strides[d];
		memcpy(dst + e * esize, p, esize);
		for (d = ndims; d-- > 0;) {
			if (++idx[d] < dims[d])
				break;
			idx[d] = 0;
		}
	}
}

static void buffer_free(PJRT_Buffer *b)
{
	if (!b)
		return;
	free(b->data); /* your device: free its memory */
	free(b->dims);
	free(b->minor_to_major);
	free(b);
}

/* A new buffer of dims on device, its data uninitialised. */
static PJRT_Error *buffer_new(const char *fn, PJRT_Buffer_Type type,
			      const int64_t *dims, size_t ndims,
			      PJRT_Device *device, PJRT_Buffer **out)
{
	size_t esize = element_size(type), count = 1, i;
	PJRT_Buffer *b;

	if (!esize)
		return plugin_error(PJRT_Error_Code_UNIMPLEMENTED,
				    "%s: the {{module}} device holds float32 "
				    "(F32) arrays only, not element type %d",
				    fn, (int)type);
	if (ndims > MAX_DIMS)
		return plugin_error(PJRT_Error_Code_INVALID_ARGUMENT,
				    "%s: %zu dimensions, at most %d", fn, ndims,
				    MAX_DIMS);
	for (i = 0; i < ndims; i++) {
		if (dims[i] < 0)
			return plugin_error(PJRT_Error_Code_INVALID_ARGUMENT,
					    "%s: dimension %zu is %lld", fn, i,
					    (long long)dims[i]);
		if (dims[i] && count > SIZE_MAX / esize / (size_t)dims[i])
			return plugin_error(PJRT_Error_Code_RESOURCE_EXHAUSTED,
					    "%s: the array is too large", fn);
		count *= (size_t)dims[i];
	}
	if (!(b = calloc(1, sizeof(*b))))
		goto oom;
	b->ndims = ndims;
	b->nbytes = count * esize;
	b->device = device;
	if (ndims && (!(b->dims = malloc(ndims * sizeof(int64_t))) ||
		      !(b->minor_to_major = malloc(ndims * sizeof(int64_t)))))
		goto oom;
	for (i = 0; i < ndims; i++) {
		b->dims[i] = dims[i];
		b->minor_to_major[i] = (int64_t)(ndims - 1 - i);
	}
	/* Your device: allocate its memory here. */
	if (b->nbytes && !(b->data = malloc(b->nbytes)))
		goto oom;
	*out = b;
	return NULL;
oom:
	buffer_free(b);
	return plugin_error(PJRT_Error_Code_RESOURCE_EXHAUSTED,
			    "%s: out of memory for %zu bytes", fn,
			    count * esize);
}

static PJRT_Error *
Client_BufferFromHostBuffer(PJRT_Client_BufferFromHostBuffer_Args *args)
{
	static const char fn[] = "PJRT_Client_BufferFromHostBuffer";
	PJRT_Device *device;
	PJRT_Buffer *b = NULL;
	PJRT_Error *err = NULL;

	CHECK_ARGS(args, PJRT_Client_BufferFromHostBuffer);
	device = args->memory ? args->memory->devices[0] : args->device;
	if (!device && args->client)
		device = &args->client->device;
	if (!device)
		return plugin_error(PJRT_Error_Code_INVALID_ARGUMENT,
				    "%s: no device, memory or client", fn);
	if (args->num_dims && !args->dims)
		return plugin_error(PJRT_Error_Code_INVALID_ARGUMENT,
				    "%s: %zu dimensions, but no dims", fn,
				    args->num_dims);
	if ((err = buffer_new(fn, args->type, args->dims, args->num_dims,
			      device, &b)))
		return err;
	if (args->device_layout &&
	    !row_major(args->device_layout, b->dims, b->ndims, 4))
		err = plugin_error(PJRT_Error_Code_UNIMPLEMENTED,
				   "%s: the {{module}} device holds dense "
				   "row-major arrays only",
				   fn);
	else if (b->nbytes && !args->data)
		err = plugin_error(PJRT_Error_Code_INVALID_ARGUMENT,
				   "%s: no host data for %zu bytes", fn,
				   b->nbytes);
	else if (args->num_byte_strides && args->num_byte_strides != b->ndims)
		err = plugin_error(PJRT_Error_Code_INVALID_ARGUMENT,
				   "%s: %zu byte strides for %zu dimensions",
				   fn, args->num_byte_strides, b->ndims);
	else if (!(args->done_with_host_buffer = plugin_event_ready()))
		err = plugin_error(PJRT_Error_Code_RESOURCE_EXHAUSTED,
				   "%s: out of memory", fn);
	if (err) {
		buffer_free(b);
		return err;
	}
	/* Your device: copy the host's array to its memory. */
	if (b->nbytes && args->byte_strides && args->num_byte_strides)
		gather(b->data, args->data, b->dims, args->byte_strides,
		       b->ndims, 4, b->nbytes / 4);
	else if (b->nbytes)
		memcpy(b->data, args->data, b->nbytes);
	args->buffer = b;
	return NULL;
}

static PJRT_Error *Buffer_ToHostBuffer(PJRT_Buffer_ToHostBuffer_Args *args)
{
	static const char fn[] = "PJRT_Buffer_ToHostBuffer";
	PJRT_Buffer *b;

	CHECK_ARGS(args, PJRT_Buffer_ToHostBuffer);
	if (!(b = args->src))
		return plugin_error(PJRT_Error_Code_INVALID_ARGUMENT,
				    "%s: no buffer", fn);
	if (args->host_layout &&
	    !row_major(args->host_layout, b->dims, b->ndims, 4))
		return plugin_error(PJRT_Error_Code_UNIMPLEMENTED,
				    "%s: the {{module}} device copies to dense "
				    "row-major host arrays only",
				    fn);
	if (!args->dst) { /* the caller asks for the size first */
		args->dst_size = b->nbytes;
		return NULL;
	}
	if (b->deleted)
		return plugin_error(PJRT_Error_Code_FAILED_PRECONDITION,
				    "%s: the buffer was deleted", fn);
	if (args->dst_size < b->nbytes)
		return plugin_error(PJRT_Error_Code_INVALID_ARGUMENT,
				    "%s: %zu bytes at dst, the buffer has %zu",
				    fn, args->dst_size, b->nbytes);
	if (!(args->event = plugin_event_ready()))
		return plugin_error(PJRT_Error_Code_RESOURCE_EXHAUSTED,
				    "%s: out of memory", fn);
	/* Your device: copy its memory back to the host. */
	if (b->nbytes)
		memcpy(args->dst, b->data, b->nbytes);
	return NULL;
}

/* ------------------------------------------- what JAX asks of a buffer */

#define CHECK_BUFFER(args, type)                                              \
	do {                                                                  \
		CHECK_ARGS(args, type);                                       \
		if (!(args)->buffer)                                          \
			return plugin_error(PJRT_Error_Code_INVALID_ARGUMENT, \
					    #type ": no buffer");             \
	} while (0)

static PJRT_Error *Buffer_Destroy(PJRT_Buffer_Destroy_Args *args)
{
	CHECK_BUFFER(args, PJRT_Buffer_Destroy);
	buffer_free(args->buffer);
	return NULL;
}

static PJRT_Error *Buffer_Delete(PJRT_Buffer_Delete_Args *args)
{
	CHECK_BUFFER(args, PJRT_Buffer_Delete);
	free(args->buffer->data);
	args->buffer->data = NULL;
	args->buffer->deleted = 1;
	return NULL;
}

static PJRT_Error *Buffer_IsDeleted(PJRT_Buffer_IsDeleted_Args *args)
{
	CHECK_BUFFER(args, PJRT_Buffer_IsDeleted);
	args->is_deleted = args->buffer->deleted;
	return NULL;
}

static PJRT_Error *Buffer_ElementType(PJRT_Buffer_ElementType_Args *args)
{
	CHECK_BUFFER(args, PJRT_Buffer_ElementType);
	args->type = PJRT_Buffer_Type_F32;
	return NULL;
}

static PJRT_Error *Buffer_Dimensions(PJRT_Buffer_Dimensions_Args *args)
{
	CHECK_BUFFER(args, PJRT_Buffer_Dimensions);
	args->dims = args->buffer->dims;
	args->num_dims = args->buffer->ndims;
	return NULL;
}

static PJRT_Error *
Buffer_UnpaddedDimensions(PJRT_Buffer_UnpaddedDimensions_Args *args)
{
	CHECK_BUFFER(args, PJRT_Buffer_UnpaddedDimensions);
	args->unpadded_dims = args->buffer->dims;
	args->num_dims = args->buffer->ndims;
	return NULL;
}

static PJRT_Error *
Buffer_DynamicDimensionIndices(PJRT_Buffer_DynamicDimensionIndices_Args *args)
{
	CHECK_BUFFER(args, PJRT_Buffer_DynamicDimensionIndices);
	args->dynamic_dim_indices = NULL;
	args->num_dynamic_dims = 0;
	return NULL;
}

static PJRT_Error *Buffer_GetMemoryLayout(PJRT_Buffer_GetMemoryLayout_Args *args)
{
	PJRT_Buffer_MemoryLayout *l;

	CHECK_BUFFER(args, PJRT_Buffer_GetMemoryLayout);
	l = &args->layout;
	memset(l, 0, sizeof(*l));
	l->struct_size = PJRT_Buffer_MemoryLayout_STRUCT_SIZE;
	l->type = PJRT_Buffer_MemoryLayout_Type_Tiled;
	l->tiled.struct_size = PJRT_Buffer_MemoryLayout_Tiled_STRUCT_SIZE;
	l->tiled.minor_to_major = args->buffer->minor_to_major;
	l->tiled.minor_to_major_size = args->buffer->ndims;
	return NULL;
}

static PJRT_Error *
Buffer_OnDeviceSizeInBytes(PJRT_Buffer_OnDeviceSizeInBytes_Args *args)
{
	CHECK_BUFFER(args, PJRT_Buffer_OnDeviceSizeInBytes);
	args->on_device_size_in_bytes = args->buffer->nbytes;
	return NULL;
}

static PJRT_Error *Buffer_Device(PJRT_Buffer_Device_Args *args)
{
	CHECK_BUFFER(args, PJRT_Buffer_Device);
	args->device = args->buffer->device;
	return NULL;
}

static PJRT_Error *Buffer_Memory(PJRT_Buffer_Memory_Args *args)
{
	CHECK_BUFFER(args, PJRT_Buffer_Memory);
	args->memory = &args->buffer->device->memory;
	return NULL;
}

/* Host memory here, but to JAX it is a device's: not "on the CPU". */
static PJRT_Error *Buffer_IsOnCpu(PJRT_Buffer_IsOnCpu_Args *args)
{
	CHECK_BUFFER(args, PJRT_Buffer_IsOnCpu);
	args->is_on_cpu = false;
	return NULL;
}

static PJRT_Error *Buffer_ReadyEvent(PJRT_Buffer_ReadyEvent_Args *args)
{
	CHECK_BUFFER(args, PJRT_Buffer_ReadyEvent);
	if (!(args->event = plugin_event_ready()))
		return plugin_error(PJRT_Error_Code_RESOURCE_EXHAUSTED,
				    "PJRT_Buffer_ReadyEvent: out of memory");
	return NULL;
}

void plugin_fill_buffer(PJRT_Api *api)
{
	api->PJRT_Client_BufferFromHostBuffer = Client_BufferFromHostBuffer;
	api->PJRT_Buffer_ToHostBuffer = Buffer_ToHostBuffer;
	api->PJRT_Buffer_Destroy = Buffer_Destroy;
	api->PJRT_Buffer_Delete = Buffer_Delete;
	api->PJRT_Buffer_IsDeleted = Buffer_IsDeleted;
	api->PJRT_Buffer_ElementType = Buffer_ElementType;
	api->PJRT_Buffer_Dimensions = Buffer_Dimensions;
	api->PJRT_Buffer_UnpaddedDimensions = Buffer_UnpaddedDimensions;
	api->PJRT_Buffer_DynamicDimensionIndices =
		Buffer_DynamicDimensionIndices;
	api->PJRT_Buffer_GetMemoryLayout = Buffer_GetMemoryLayout;
	api->PJRT_Buffer_OnDeviceSizeInBytes = Buffer_OnDeviceSizeInBytes;
	api->PJRT_Buffer_Device = Buffer_Device;
	api->PJRT_Buffer_Memory = Buffer_Memory;
	api->PJRT_Buffer_IsOnCpu = Buffer_IsOnCpu;
	api->PJRT_Buffer_ReadyEvent = Buffer_ReadyEvent;
}
