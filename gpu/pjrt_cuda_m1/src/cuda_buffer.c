/*
 * pjrt_cuda_m1: backend/pjrt_m1's PJRT plugin, its device memory CUDA
 * memory. The plugin's own sources (api.c, client.c, buffer.c) are built
 * unchanged, api.c's GetPjrtApi renamed m1_host_GetPjrtApi (-D): this
 * file's GetPjrtApi hands out a copy of that table in which the entry
 * points that touch a buffer's bytes move them to and from the device
 * (gpu/cuda_m1's m1_cuda_* API), and defer to the host functions for
 * everything else: arguments, shapes, layouts, strides and events are
 * checked and made by the same code as on the CPU.
 *
 * A buffer's data is host memory only inside one of these calls: the
 * host function makes or reads it there, and the bytes cross once.
 */
#include <stdlib.h>
#include <string.h>

#include "m1_cuda.h"
#include "pjrt_m1.h"

const PJRT_Api *m1_host_GetPjrtApi(void);
const PJRT_Api *GetPjrtApi(void);

static const PJRT_Api *host;
static PJRT_Api api;

static PJRT_Error *cuda_error(const char *fn, int err)
{
	return m1_error(PJRT_Error_Code_INTERNAL, "%s: CUDA: %s", fn,
			m1_cuda_error(err));
}

/* The host copy of b's device data, swapped in as b->data; NULL data
 * (0 bytes or deleted) stays as it is. */
static PJRT_Error *stage_in(const char *fn, PJRT_Buffer *b, void **device)
{
	void *h;
	int err;

	*device = b->data;
	if (!b->data)
		return NULL;
	if (!(h = aligned_alloc(M1_ALIGN, (b->nbytes + M1_ALIGN - 1) /
						  M1_ALIGN * M1_ALIGN)))
		return m1_error(PJRT_Error_Code_RESOURCE_EXHAUSTED,
				"%s: out of memory for %zu bytes", fn,
				b->nbytes);
	if ((err = m1_cuda_to_host(h, b->data, b->nbytes))) {
		free(h);
		return cuda_error(fn, err);
	}
	b->data = h;
	return NULL;
}

static void stage_out(PJRT_Buffer *b, void *device)
{
	if (b->data != device)
		free(b->data);
	b->data = device;
}

/* A buffer the host functions made, its bytes moved to its device. */
static PJRT_Error *to_device(const char *fn, PJRT_Buffer *b)
{
	void *d;
	int err;

	if (!b->data)
		return NULL;
	err = m1_cuda_malloc(b->device->desc.id, &d, b->nbytes);
	if (!err && (err = m1_cuda_to_device(d, b->data, b->nbytes)))
		m1_cuda_free(d);
	if (err)
		return cuda_error(fn, err);
	free(b->data);
	b->data = d;
	return NULL;
}

static void destroy(PJRT_Buffer *b)
{
	PJRT_Buffer_Destroy_Args d = {
		.struct_size = PJRT_Buffer_Destroy_Args_STRUCT_SIZE,
		.buffer = b,
	};

	host->PJRT_Buffer_Destroy(&d);
}

static void event_destroy(PJRT_Event *ev)
{
	PJRT_Event_Destroy_Args d = {
		.struct_size = PJRT_Event_Destroy_Args_STRUCT_SIZE,
		.event = ev,
	};

	host->PJRT_Event_Destroy(&d);
}

static PJRT_Error *cuda_BufferFromHostBuffer(
	PJRT_Client_BufferFromHostBuffer_Args *args)
{
	PJRT_Error *err = host->PJRT_Client_BufferFromHostBuffer(args);

	if (err)
		return err;
	if ((err = to_device("PJRT_Client_BufferFromHostBuffer",
			     args->buffer))) {
		destroy(args->buffer);
		event_destroy(args->done_with_host_buffer);
		args->buffer = NULL;
		args->done_with_host_buffer = NULL;
	}
	return err;
}

static PJRT_Error *cuda_Buffer_ToHostBuffer(PJRT_Buffer_ToHostBuffer_Args *args)
{
	static const char fn[] = "PJRT_Buffer_ToHostBuffer";
	PJRT_Error *err;
	void *device;

	M1_CHECK_ARGS(args, PJRT_Buffer_ToHostBuffer);
	if (!args->src || !args->dst)
		return host->PJRT_Buffer_ToHostBuffer(args);
	if ((err = stage_in(fn, args->src, &device)))
		return err;
	err = host->PJRT_Buffer_ToHostBuffer(args);
	stage_out(args->src, device);
	return err;
}

/* CopyToDevice and CopyToMemory: the host copy of the source's bytes,
 * copied by the host function, then to the destination's device. */
static PJRT_Error *copy(const char *fn, PJRT_Buffer *src, PJRT_Buffer **dst,
			PJRT_Error *(*hostfn)(void *), void *args)
{
	PJRT_Error *err;
	void *device;

	if (!src)
		return hostfn(args);
	if ((err = stage_in(fn, src, &device)))
		return err;
	err = hostfn(args);
	stage_out(src, device);
	if (!err && (err = to_device(fn, *dst))) {
		destroy(*dst);
		*dst = NULL;
	}
	return err;
}

static PJRT_Error *host_copy_to_device(void *args)
{
	return host->PJRT_Buffer_CopyToDevice(args);
}

static PJRT_Error *cuda_Buffer_CopyToDevice(PJRT_Buffer_CopyToDevice_Args *args)
{
	M1_CHECK_ARGS(args, PJRT_Buffer_CopyToDevice);
	return copy("PJRT_Buffer_CopyToDevice", args->buffer, &args->dst_buffer,
		    host_copy_to_device, args);
}

static PJRT_Error *host_copy_to_memory(void *args)
{
	return host->PJRT_Buffer_CopyToMemory(args);
}

static PJRT_Error *cuda_Buffer_CopyToMemory(PJRT_Buffer_CopyToMemory_Args *args)
{
	M1_CHECK_ARGS(args, PJRT_Buffer_CopyToMemory);
	return copy("PJRT_Buffer_CopyToMemory", args->buffer, &args->dst_buffer,
		    host_copy_to_memory, args);
}

/* The device data is freed here; the host function frees the rest
 * (its free of the data pointer, now NULL, does nothing). */
static PJRT_Error *cuda_Buffer_Delete(PJRT_Buffer_Delete_Args *args)
{
	M1_CHECK_ARGS(args, PJRT_Buffer_Delete);
	if (args->buffer) {
		m1_cuda_free(args->buffer->data);
		args->buffer->data = NULL;
	}
	return host->PJRT_Buffer_Delete(args);
}

static PJRT_Error *cuda_Buffer_Destroy(PJRT_Buffer_Destroy_Args *args)
{
	M1_CHECK_ARGS(args, PJRT_Buffer_Destroy);
	if (args->buffer) {
		m1_cuda_free(args->buffer->data);
		args->buffer->data = NULL;
	}
	return host->PJRT_Buffer_Destroy(args);
}

static void cuda_fill(void)
{
	host = m1_host_GetPjrtApi();
	api = *host;
	api.PJRT_Client_BufferFromHostBuffer = cuda_BufferFromHostBuffer;
	api.PJRT_Buffer_ToHostBuffer = cuda_Buffer_ToHostBuffer;
	api.PJRT_Buffer_CopyToDevice = cuda_Buffer_CopyToDevice;
	api.PJRT_Buffer_CopyToMemory = cuda_Buffer_CopyToMemory;
	api.PJRT_Buffer_Delete = cuda_Buffer_Delete;
	api.PJRT_Buffer_Destroy = cuda_Buffer_Destroy;
}

/*
 * Filled at the first call, which comes after every constructor of the
 * library (api.c's fills the host table) has run; concurrent first
 * callers wait for the one that fills it. Atomics, not pthread_once, so
 * no GLIBC_2.34 symbol raises the wheel's manylinux tag (as api.c).
 */
__attribute__((visibility("default"))) const PJRT_Api *GetPjrtApi(void)
{
	static int state; /* 0: empty, 1: being filled, 2: filled */
	int empty = 0;

	if (__atomic_compare_exchange_n(&state, &empty, 1, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		cuda_fill();
		__atomic_store_n(&state, 2, __ATOMIC_RELEASE);
	}
	while (__atomic_load_n(&state, __ATOMIC_ACQUIRE) != 2)
		;
	return &api;
}
