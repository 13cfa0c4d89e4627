/*
 * Buffers: host memory, dense, row-major. BufferFromHostBuffer copies
 * at once (whatever the host buffer semantics ask, a copy satisfies
 * them), honouring byte_strides; ToHostBuffer copies back, row-major.
 * Any other layout, and the sub-byte types (S4, U4, S2, U2, F4E2M1FN),
 * are refused with an error naming them.
 */
#include <stdlib.h>
#include <string.h>

#include "pjrt_m1.h"

static const struct {
	const char *name;
	size_t size; /* bytes per element; 0: refused */
} types[] = {
	[PJRT_Buffer_Type_INVALID] = { "INVALID", 0 },
	[PJRT_Buffer_Type_PRED] = { "PRED", 1 },
	[PJRT_Buffer_Type_S8] = { "S8", 1 },
	[PJRT_Buffer_Type_S16] = { "S16", 2 },
	[PJRT_Buffer_Type_S32] = { "S32", 4 },
	[PJRT_Buffer_Type_S64] = { "S64", 8 },
	[PJRT_Buffer_Type_U8] = { "U8", 1 },
	[PJRT_Buffer_Type_U16] = { "U16", 2 },
	[PJRT_Buffer_Type_U32] = { "U32", 4 },
	[PJRT_Buffer_Type_U64] = { "U64", 8 },
	[PJRT_Buffer_Type_F16] = { "F16", 2 },
	[PJRT_Buffer_Type_F32] = { "F32", 4 },
	[PJRT_Buffer_Type_F64] = { "F64", 8 },
	[PJRT_Buffer_Type_BF16] = { "BF16", 2 },
	[PJRT_Buffer_Type_C64] = { "C64", 8 },
	[PJRT_Buffer_Type_C128] = { "C128", 16 },
	[PJRT_Buffer_Type_F8E5M2] = { "F8E5M2", 1 },
	[PJRT_Buffer_Type_F8E4M3FN] = { "F8E4M3FN", 1 },
	[PJRT_Buffer_Type_F8E4M3B11FNUZ] = { "F8E4M3B11FNUZ", 1 },
	[PJRT_Buffer_Type_F8E5M2FNUZ] = { "F8E5M2FNUZ", 1 },
	[PJRT_Buffer_Type_F8E4M3FNUZ] = { "F8E4M3FNUZ", 1 },
	[PJRT_Buffer_Type_S4] = { "S4", 0 },
	[PJRT_Buffer_Type_U4] = { "U4", 0 },
	[PJRT_Buffer_Type_TOKEN] = { "TOKEN", 0 },
	[PJRT_Buffer_Type_S2] = { "S2", 0 },
	[PJRT_Buffer_Type_U2] = { "U2", 0 },
	[PJRT_Buffer_Type_F8E4M3] = { "F8E4M3", 1 },
	[PJRT_Buffer_Type_F8E3M4] = { "F8E3M4", 1 },
	[PJRT_Buffer_Type_F8E8M0FNU] = { "F8E8M0FNU", 1 },
	[PJRT_Buffer_Type_F4E2M1FN] = { "F4E2M1FN", 0 },
};
#define NR_TYPES (sizeof(types) / sizeof(types[0]))

const char *m1_type_name(PJRT_Buffer_Type type)
{
	if ((size_t)type < NR_TYPES && types[type].name)
		return types[type].name;
	return "unknown";
}

static size_t type_size(PJRT_Buffer_Type type)
{
	return (size_t)type < NR_TYPES ? types[type].size : 0;
}

/* Is this layout dense row-major for ndims dimensions of dims? */
static int layout_is_row_major(const PJRT_Buffer_MemoryLayout *l,
			       const int64_t *dims, size_t ndims, size_t esize)
{
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
	if (l->type == PJRT_Buffer_MemoryLayout_Type_Strides) {
		int64_t want = (int64_t)esize;

		if (l->strides.num_byte_strides != ndims)
			return 0;
		for (i = ndims; i-- > 0;) {
			if (dims[i] > 1 && l->strides.byte_strides[i] != want)
				return 0;
			want *= dims[i];
		}
		return 1;
	}
	return 0;
}

/* Copy a strided host array into dense row-major dst. */
static void gather(char *dst, const char *src, const int64_t *dims,
		   const int64_t *strides, size_t ndims, size_t esize,
		   size_t count)
{
	int64_t idx[64] = { 0 };
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
	free(b->data);
	free(b->dims);
	free(b->minor_to_major);
	free(b);
}

/* A new buffer of type on device, its data uninitialised. */
static PJRT_Error *buffer_new(const char *fn, PJRT_Buffer_Type type,
			      const int64_t *dims, size_t ndims,
			      PJRT_Device *device, PJRT_Buffer **out)
{
	size_t esize = type_size(type), count = 1, i;
	PJRT_Buffer *b;

	if (!esize)
		return m1_error(PJRT_Error_Code_UNIMPLEMENTED,
				"%s: the m1 plugin does not hold element type "
				"%s (%d): only whole-byte types",
				fn, m1_type_name(type), (int)type);
	if (ndims > 64)
		return m1_error(PJRT_Error_Code_INVALID_ARGUMENT,
				"%s: %zu dimensions, at most 64", fn, ndims);
	for (i = 0; i < ndims; i++) {
		if (dims[i] < 0)
			return m1_error(PJRT_Error_Code_INVALID_ARGUMENT,
					"%s: dimension %zu is %lld", fn, i,
					(long long)dims[i]);
		if (dims[i] && count > SIZE_MAX / esize / (size_t)dims[i])
			return m1_error(PJRT_Error_Code_RESOURCE_EXHAUSTED,
					"%s: the array is too large", fn);
		count *= (size_t)dims[i];
	}
	if (!(b = calloc(1, sizeof(*b))))
		goto oom;
	b->type = type;
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
	if (b->nbytes &&
	    !(b->data = aligned_alloc(M1_ALIGN, (b->nbytes + M1_ALIGN - 1) /
							M1_ALIGN * M1_ALIGN)))
		goto oom;
	*out = b;
	return NULL;
oom:
	buffer_free(b);
	return m1_error(PJRT_Error_Code_RESOURCE_EXHAUSTED,
			"%s: out of memory for %zu bytes", fn, count * esize);
}

static PJRT_Error *m1_Client_BufferFromHostBuffer(
	PJRT_Client_BufferFromHostBuffer_Args *args)
{
	static const char fn[] = "PJRT_Client_BufferFromHostBuffer";
	PJRT_Device *device;
	PJRT_Buffer *b;
	PJRT_Error *err;
	size_t esize;

	M1_CHECK_ARGS(args, PJRT_Client_BufferFromHostBuffer);
	device = args->memory ? args->memory->device : args->device;
	if (!device && args->client)
		device = &args->client->devices[0];
	if (!device)
		return m1_error(PJRT_Error_Code_INVALID_ARGUMENT,
				"%s: no device, memory or client", fn);
	if (args->num_dims && !args->dims)
		return m1_error(PJRT_Error_Code_INVALID_ARGUMENT,
				"%s: %zu dimensions, but no dims", fn,
				args->num_dims);
	if ((err = buffer_new(fn, args->type, args->dims, args->num_dims,
			      device, &b)))
		return err;
	esize = type_size(args->type);
	err = NULL;
	if (args->device_layout &&
	    !layout_is_row_major(args->device_layout, b->dims, b->ndims, esize))
		err = m1_error(PJRT_Error_Code_UNIMPLEMENTED,
			       "%s: the m1 plugin holds dense row-major arrays "
			       "only; the device layout asked for is another",
			       fn);
	else if (b->nbytes && !args->data)
		err = m1_error(PJRT_Error_Code_INVALID_ARGUMENT,
			       "%s: no host data for %zu bytes", fn, b->nbytes);
	else if (args->byte_strides && args->num_byte_strides &&
		 args->num_byte_strides != b->ndims)
		err = m1_error(PJRT_Error_Code_INVALID_ARGUMENT,
			       "%s: %zu byte strides for %zu dimensions", fn,
			       args->num_byte_strides, b->ndims);
	if (err) {
		buffer_free(b);
		return err;
	}
	if (b->nbytes && args->byte_strides && args->num_byte_strides)
		gather(b->data, args->data, b->dims, args->byte_strides,
		       b->ndims, esize, b->nbytes / esize);
	else if (b->nbytes)
		memcpy(b->data, args->data, b->nbytes);
	args->done_with_host_buffer = m1_event_ready(NULL);
	if (!args->done_with_host_buffer) {
		buffer_free(b);
		return m1_error(PJRT_Error_Code_RESOURCE_EXHAUSTED,
				"%s: out of memory", fn);
	}
	args->buffer = b;
	return NULL;
}

#define M1_CHECK_BUFFER(args, type, field)                                \
	do {                                                              \
		M1_CHECK_ARGS(args, type);                                \
		if (!(args)->field)                                       \
			return m1_error(PJRT_Error_Code_INVALID_ARGUMENT, \
					#type ": no buffer");             \
	} while (0)

static PJRT_Error *deleted(const char *fn)
{
	return m1_error(PJRT_Error_Code_FAILED_PRECONDITION,
			"%s: the buffer was deleted", fn);
}

static PJRT_Error *m1_Buffer_Destroy(PJRT_Buffer_Destroy_Args *args)
{
	M1_CHECK_BUFFER(args, PJRT_Buffer_Destroy, buffer);
	buffer_free(args->buffer);
	return NULL;
}

static PJRT_Error *m1_Buffer_Delete(PJRT_Buffer_Delete_Args *args)
{
	M1_CHECK_BUFFER(args, PJRT_Buffer_Delete, buffer);
	free(args->buffer->data);
	args->buffer->data = NULL;
	args->buffer->deleted = 1;
	return NULL;
}

static PJRT_Error *m1_Buffer_IsDeleted(PJRT_Buffer_IsDeleted_Args *args)
{
	M1_CHECK_BUFFER(args, PJRT_Buffer_IsDeleted, buffer);
	args->is_deleted = args->buffer->deleted;
	return NULL;
}

static PJRT_Error *m1_Buffer_ElementType(PJRT_Buffer_ElementType_Args *args)
{
	M1_CHECK_BUFFER(args, PJRT_Buffer_ElementType, buffer);
	args->type = args->buffer->type;
	return NULL;
}

static PJRT_Error *m1_Buffer_Dimensions(PJRT_Buffer_Dimensions_Args *args)
{
	M1_CHECK_BUFFER(args, PJRT_Buffer_Dimensions, buffer);
	args->dims = args->buffer->dims;
	args->num_dims = args->buffer->ndims;
	return NULL;
}

static PJRT_Error *m1_Buffer_UnpaddedDimensions(
	PJRT_Buffer_UnpaddedDimensions_Args *args)
{
	M1_CHECK_BUFFER(args, PJRT_Buffer_UnpaddedDimensions, buffer);
	args->unpadded_dims = args->buffer->dims;
	args->num_dims = args->buffer->ndims;
	return NULL;
}

static PJRT_Error *m1_Buffer_DynamicDimensionIndices(
	PJRT_Buffer_DynamicDimensionIndices_Args *args)
{
	M1_CHECK_BUFFER(args, PJRT_Buffer_DynamicDimensionIndices, buffer);
	args->dynamic_dim_indices = NULL;
	args->num_dynamic_dims = 0;
	return NULL;
}

static PJRT_Error *m1_Buffer_GetMemoryLayout(
	PJRT_Buffer_GetMemoryLayout_Args *args)
{
	PJRT_Buffer_MemoryLayout *l;

	M1_CHECK_BUFFER(args, PJRT_Buffer_GetMemoryLayout, buffer);
	l = &args->layout;
	memset(l, 0, sizeof(*l));
	l->struct_size = PJRT_Buffer_MemoryLayout_STRUCT_SIZE;
	l->type = PJRT_Buffer_MemoryLayout_Type_Tiled;
	l->tiled.struct_size = PJRT_Buffer_MemoryLayout_Tiled_STRUCT_SIZE;
	l->tiled.minor_to_major = args->buffer->minor_to_major;
	l->tiled.minor_to_major_size = args->buffer->ndims;
	return NULL;
}

static PJRT_Error *m1_Buffer_OnDeviceSizeInBytes(
	PJRT_Buffer_OnDeviceSizeInBytes_Args *args)
{
	M1_CHECK_BUFFER(args, PJRT_Buffer_OnDeviceSizeInBytes, buffer);
	if (args->buffer->deleted)
		return deleted("PJRT_Buffer_OnDeviceSizeInBytes");
	args->on_device_size_in_bytes = args->buffer->nbytes;
	return NULL;
}

static PJRT_Error *m1_Buffer_Device(PJRT_Buffer_Device_Args *args)
{
	M1_CHECK_BUFFER(args, PJRT_Buffer_Device, buffer);
	args->device = args->buffer->device;
	return NULL;
}

static PJRT_Error *m1_Buffer_Memory(PJRT_Buffer_Memory_Args *args)
{
	M1_CHECK_BUFFER(args, PJRT_Buffer_Memory, buffer);
	args->memory = &args->buffer->device->memory;
	return NULL;
}

/* m1's memory is host memory, but to JAX it is a device's: not "CPU". */
static PJRT_Error *m1_Buffer_IsOnCpu(PJRT_Buffer_IsOnCpu_Args *args)
{
	M1_CHECK_BUFFER(args, PJRT_Buffer_IsOnCpu, buffer);
	args->is_on_cpu = false;
	return NULL;
}

static PJRT_Error *m1_Buffer_ReadyEvent(PJRT_Buffer_ReadyEvent_Args *args)
{
	M1_CHECK_BUFFER(args, PJRT_Buffer_ReadyEvent, buffer);
	if (!(args->event = m1_event_ready(NULL)))
		return m1_error(PJRT_Error_Code_RESOURCE_EXHAUSTED,
				"PJRT_Buffer_ReadyEvent: out of memory");
	return NULL;
}

static PJRT_Error *m1_Buffer_ToHostBuffer(PJRT_Buffer_ToHostBuffer_Args *args)
{
	static const char fn[] = "PJRT_Buffer_ToHostBuffer";
	PJRT_Buffer *b;

	M1_CHECK_BUFFER(args, PJRT_Buffer_ToHostBuffer, src);
	b = args->src;
	if (args->host_layout &&
	    !layout_is_row_major(args->host_layout, b->dims, b->ndims,
				 type_size(b->type)))
		return m1_error(PJRT_Error_Code_UNIMPLEMENTED,
				"%s: the m1 plugin copies to dense row-major "
				"host arrays only; the host layout asked for "
				"is another",
				fn);
	if (!args->dst) {
		args->dst_size = b->nbytes;
		return NULL;
	}
	if (b->deleted)
		return deleted(fn);
	if (args->dst_size < b->nbytes)
		return m1_error(PJRT_Error_Code_INVALID_ARGUMENT,
				"%s: %zu bytes at dst, the buffer has %zu", fn,
				args->dst_size, b->nbytes);
	if (b->nbytes)
		memcpy(args->dst, b->data, b->nbytes);
	if (!(args->event = m1_event_ready(NULL)))
		return m1_error(PJRT_Error_Code_RESOURCE_EXHAUSTED,
				"%s: out of memory", fn);
	return NULL;
}

static PJRT_Error *copy_to(const char *fn, PJRT_Buffer *src,
			   PJRT_Device *device, PJRT_Buffer **out)
{
	PJRT_Error *err;

	if (src->deleted)
		return deleted(fn);
	if ((err = buffer_new(fn, src->type, src->dims, src->ndims, device,
			      out)))
		return err;
	if (src->nbytes)
		memcpy((*out)->data, src->data, src->nbytes);
	return NULL;
}

static PJRT_Error *m1_Buffer_CopyToDevice(PJRT_Buffer_CopyToDevice_Args *args)
{
	M1_CHECK_BUFFER(args, PJRT_Buffer_CopyToDevice, buffer);
	if (!args->dst_device)
		return m1_error(PJRT_Error_Code_INVALID_ARGUMENT,
				"PJRT_Buffer_CopyToDevice: no device");
	return copy_to("PJRT_Buffer_CopyToDevice", args->buffer,
		       args->dst_device, &args->dst_buffer);
}

static PJRT_Error *m1_Buffer_CopyToMemory(PJRT_Buffer_CopyToMemory_Args *args)
{
	M1_CHECK_BUFFER(args, PJRT_Buffer_CopyToMemory, buffer);
	if (!args->dst_memory)
		return m1_error(PJRT_Error_Code_INVALID_ARGUMENT,
				"PJRT_Buffer_CopyToMemory: no memory");
	return copy_to("PJRT_Buffer_CopyToMemory", args->buffer,
		       args->dst_memory->device, &args->dst_buffer);
}

static PJRT_Error *m1_Buffer_UnsafePointer(PJRT_Buffer_UnsafePointer_Args *args)
{
	M1_CHECK_BUFFER(args, PJRT_Buffer_UnsafePointer, buffer);
	args->buffer_pointer = (uintptr_t)args->buffer->data;
	return NULL;
}

static PJRT_Error *m1_Buffer_IncreaseExternalReferenceCount(
	PJRT_Buffer_IncreaseExternalReferenceCount_Args *args)
{
	M1_CHECK_BUFFER(args, PJRT_Buffer_IncreaseExternalReferenceCount,
			buffer);
	args->buffer->external_refs++;
	return NULL;
}

static PJRT_Error *m1_Buffer_DecreaseExternalReferenceCount(
	PJRT_Buffer_DecreaseExternalReferenceCount_Args *args)
{
	M1_CHECK_BUFFER(args, PJRT_Buffer_DecreaseExternalReferenceCount,
			buffer);
	if (args->buffer->external_refs <= 0)
		return m1_error(PJRT_Error_Code_FAILED_PRECONDITION,
				"PJRT_Buffer_DecreaseExternalReferenceCount: "
				"no external reference is held");
	args->buffer->external_refs--;
	return NULL;
}

static PJRT_Error *m1_Buffer_OpaqueDeviceMemoryDataPointer(
	PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args *args)
{
	M1_CHECK_BUFFER(args, PJRT_Buffer_OpaqueDeviceMemoryDataPointer,
			buffer);
	args->device_memory_ptr = args->buffer->data;
	return NULL;
}

void m1_fill_buffer(PJRT_Api *api)
{
	api->PJRT_Client_BufferFromHostBuffer = m1_Client_BufferFromHostBuffer;
	api->PJRT_Buffer_Destroy = m1_Buffer_Destroy;
	api->PJRT_Buffer_Delete = m1_Buffer_Delete;
	api->PJRT_Buffer_IsDeleted = m1_Buffer_IsDeleted;
	api->PJRT_Buffer_ElementType = m1_Buffer_ElementType;
	api->PJRT_Buffer_Dimensions = m1_Buffer_Dimensions;
	api->PJRT_Buffer_UnpaddedDimensions = m1_Buffer_UnpaddedDimensions;
	api->PJRT_Buffer_DynamicDimensionIndices =
		m1_Buffer_DynamicDimensionIndices;
	api->PJRT_Buffer_GetMemoryLayout = m1_Buffer_GetMemoryLayout;
	api->PJRT_Buffer_OnDeviceSizeInBytes = m1_Buffer_OnDeviceSizeInBytes;
	api->PJRT_Buffer_Device = m1_Buffer_Device;
	api->PJRT_Buffer_Memory = m1_Buffer_Memory;
	api->PJRT_Buffer_IsOnCpu = m1_Buffer_IsOnCpu;
	api->PJRT_Buffer_ReadyEvent = m1_Buffer_ReadyEvent;
	api->PJRT_Buffer_ToHostBuffer = m1_Buffer_ToHostBuffer;
	api->PJRT_Buffer_CopyToDevice = m1_Buffer_CopyToDevice;
	api->PJRT_Buffer_CopyToMemory = m1_Buffer_CopyToMemory;
	api->PJRT_Buffer_UnsafePointer = m1_Buffer_UnsafePointer;
	api->PJRT_Buffer_IncreaseExternalReferenceCount =
		m1_Buffer_IncreaseExternalReferenceCount;
	api->PJRT_Buffer_DecreaseExternalReferenceCount =
		m1_Buffer_DecreaseExternalReferenceCount;
	api->PJRT_Buffer_OpaqueDeviceMemoryDataPointer =
		m1_Buffer_OpaqueDeviceMemoryDataPointer;
}
