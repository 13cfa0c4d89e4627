/*
 * The {{DEVICE}} platform, through TensorFlow's StreamExecutor C API
 * (tensorflow/c/experimental/stream_executor/stream_executor.h): one
 * device whose memory is host memory, so a copy is a memcpy and every
 * stream is synchronous (its work is done when the call returns).
 *
 * A real device replaces the parts marked "your device": allocate and
 * free its memory, copy to and from it, and make streams and events
 * that wait for it. The rest is what TensorFlow requires of every
 * platform and can stay as it is.
 *
 * SE_InitPlugin checks the ABI window first: the TensorFlow release this
 * library was compiled against ({{MODULE}}_BUILT_FOR, which the Makefile
 * reads from the tensorflow wheel's METADATA) against the running one
 * (TF_Version()). TensorFlow promises plugins no ABI across minor
 * releases (SE_MAJOR is 0), so the window is one major.minor release.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <sys/sysctl.h>
#endif

#include "tensorflow/c/c_api.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

#include "{{module}}.h"

#ifndef {{MODULE}}_BUILT_FOR
#error "{{MODULE}}_BUILT_FOR (the TensorFlow release compiled against) is not set"
#endif

#define ALIGNMENT 64

int {{module}}_registered;

struct SP_Stream_st {
	int unused; /* your device: its queue of work */
};

struct SP_Event_st {
	int unused; /* your device: a marker in a queue */
};

static void ok(TF_Status *status)
{
	TF_SetStatus(status, TF_OK, "");
}

/* ------------------------------------------------- memory: your device */

static void *host_alloc(uint64_t size)
{
	uint64_t rounded = (size + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;

	if (rounded < size || rounded > SIZE_MAX)
		return NULL;
	/* aligned_alloc wants a multiple of the alignment, and at least one. */
	return aligned_alloc(ALIGNMENT, rounded ? (size_t)rounded : ALIGNMENT);
}

static void allocate(const SP_Device *device, uint64_t size,
		     int64_t memory_space, SP_DeviceMemoryBase *mem)
{
	(void)device;
	(void)memory_space;
	mem->struct_size = SP_DEVICE_MEMORY_BASE_STRUCT_SIZE;
	mem->opaque = host_alloc(size);
	mem->size = mem->opaque ? size : 0;
	mem->payload = 0;
}

static void deallocate(const SP_Device *device, SP_DeviceMemoryBase *mem)
{
	(void)device;
	free(mem->opaque);
	mem->opaque = NULL;
	mem->size = 0;
}

/* Pinned host memory, for staging copies: ordinary memory here. */
static void *host_memory_allocate(const SP_Device *device, uint64_t size)
{
	(void)device;
	return host_alloc(size);
}

static void host_memory_deallocate(const SP_Device *device, void *mem)
{
	(void)device;
	free(mem);
}

/* TensorFlow asks how much memory the device has before it creates it. */
static TF_Bool device_memory_usage(const SP_Device *device, int64_t *free_b,
				   int64_t *total)
{
	long page = sysconf(_SC_PAGESIZE);
	long pages = sysconf(_SC_PHYS_PAGES);
#if defined(__APPLE__)
	/* macOS's sysconf counts no free pages; its kernel's counter does. */
	unsigned int n = 0;
	size_t len = sizeof(n);
	long avail = sysctlbyname("vm.page_free_count", &n, &len, NULL, 0)
			     ? -1
			     : (long)n;
#else
	long avail = sysconf(_SC_AVPHYS_PAGES);
#endif

	(void)device;
	if (page <= 0 || pages <= 0 || avail < 0)
		return 0;
	*total = (int64_t)pages * page;
	*free_b = (int64_t)avail * page;
	return 1;
}

static TF_Bool get_allocator_stats(const SP_Device *device,
				   SP_AllocatorStats *stats)
{
	(void)device;
	(void)stats;
	return 0; /* none kept */
}

/* ------------------------------------------------- copies: your device */

static void memcpy_dtoh(const SP_Device *device, SP_Stream stream, void *dst,
			const SP_DeviceMemoryBase *src, uint64_t size,
			TF_Status *status)
{
	(void)device;
	(void)stream;
	memcpy(dst, src->opaque, size);
	ok(status);
}

static void memcpy_htod(const SP_Device *device, SP_Stream stream,
			SP_DeviceMemoryBase *dst, const void *src,
			uint64_t size, TF_Status *status)
{
	(void)device;
	(void)stream;
	memcpy(dst->opaque, src, size);
	ok(status);
}

static void memcpy_dtod(const SP_Device *device, SP_Stream stream,
			SP_DeviceMemoryBase *dst,
			const SP_DeviceMemoryBase *src, uint64_t size,
			TF_Status *status)
{
	(void)device;
	(void)stream;
	memmove(dst->opaque, src->opaque, size);
	ok(status);
}

static void sync_memcpy_dtoh(const SP_Device *device, void *dst,
			     const SP_DeviceMemoryBase *src, uint64_t size,
			     TF_Status *status)
{
	memcpy_dtoh(device, NULL, dst, src, size, status);
}

static void sync_memcpy_htod(const SP_Device *device, SP_DeviceMemoryBase *dst,
			     const void *src, uint64_t size, TF_Status *status)
{
	memcpy_htod(device, NULL, dst, src, size, status);
}

static void sync_memcpy_dtod(const SP_Device *device, SP_DeviceMemoryBase *dst,
			     const SP_DeviceMemoryBase *src, uint64_t size,
			     TF_Status *status)
{
	memcpy_dtod(device, NULL, dst, src, size, status);
}

static void mem_zero(const SP_Device *device, SP_Stream stream,
		     SP_DeviceMemoryBase *location, uint64_t size,
		     TF_Status *status)
{
	(void)device;
	(void)stream;
	memset(location->opaque, 0, size);
	ok(status);
}

static void fill8(const SP_Device *device, SP_Stream stream,
		  SP_DeviceMemoryBase *location, uint8_t pattern, uint64_t size,
		  TF_Status *status)
{
	(void)device;
	(void)stream;
	memset(location->opaque, pattern, size);
	ok(status);
}

static void fill32(const SP_Device *device, SP_Stream stream,
		   SP_DeviceMemoryBase *location, uint32_t pattern,
		   uint64_t size, TF_Status *status)
{
	uint32_t *p = location->opaque;
	uint64_t i;

	(void)device;
	(void)stream;
	for (i = 0; i < size / sizeof(*p); i++)
		p[i] = pattern;
	ok(status);
}

/* ---------------------------------------- streams, events: your device */

static void create_stream(const SP_Device *device, SP_Stream *stream,
			  TF_Status *status)
{
	(void)device;
	*stream = calloc(1, sizeof(**stream));
	if (!*stream)
		TF_SetStatus(status, TF_RESOURCE_EXHAUSTED,
			     "{{module}}: out of memory for a stream");
	else
		ok(status);
}

static void destroy_stream(const SP_Device *device, SP_Stream stream)
{
	(void)device;
	free(stream);
}

static void create_event(const SP_Device *device, SP_Event *event,
			 TF_Status *status)
{
	(void)device;
	*event = calloc(1, sizeof(**event));
	if (!*event)
		TF_SetStatus(status, TF_RESOURCE_EXHAUSTED,
			     "{{module}}: out of memory for an event");
	else
		ok(status);
}

static void destroy_event(const SP_Device *device, SP_Event event)
{
	(void)device;
	free(event);
}

/* Synchronous streams: every event is complete, every wait is over. */
static SE_EventStatus event_status(const SP_Device *device, SP_Event event)
{
	(void)device;
	(void)event;
	return SE_EVENT_COMPLETE;
}

static void stream_done(const SP_Device *device, SP_Stream stream,
			TF_Status *status)
{
	(void)device;
	(void)stream;
	ok(status);
}

static void streams_done(const SP_Device *device, SP_Stream a, SP_Stream b,
			 TF_Status *status)
{
	(void)device;
	(void)a;
	(void)b;
	ok(status);
}

static void event_done(const SP_Device *device, SP_Stream stream,
		       SP_Event event, TF_Status *status)
{
	(void)device;
	(void)stream;
	(void)event;
	ok(status);
}

static void block_for_event(const SP_Device *device, SP_Event event,
			    TF_Status *status)
{
	(void)device;
	(void)event;
	ok(status);
}

static void synchronize_all(const SP_Device *device, TF_Status *status)
{
	(void)device;
	ok(status);
}

static TF_Bool host_callback(const SP_Device *device, SP_Stream stream,
			     SE_StatusCallbackFn fn, void *arg)
{
	TF_Status *status = TF_NewStatus();

	(void)device;
	(void)stream;
	if (!status)
		return 0;
	fn(arg, status); /* the stream is idle: its work is already done */
	TF_DeleteStatus(status);
	return 1;
}

/* ------------------------------------------------------------ platform */

static void get_device_count(const SP_Platform *platform, int *count,
			     TF_Status *status)
{
	(void)platform;
	*count = {{module}}_registered ? 1 : 0;
	ok(status);
}

static void create_device(const SP_Platform *platform,
			  SE_CreateDeviceParams *params, TF_Status *status)
{
	SP_Device *device = params->device;

	(void)platform;
	device->struct_size = SP_DEVICE_STRUCT_SIZE;
	device->ext = NULL;
	device->ordinal = params->ordinal;
	device->device_handle = NULL; /* your device: its handle */
	device->hardware_name = "{{name}}";
	device->device_vendor = "{{name}}";
	device->pci_bus_id = NULL;
	ok(status);
}

static void destroy_device(const SP_Platform *platform, SP_Device *device)
{
	(void)platform;
	(void)device;
}

static void create_device_fns(const SP_Platform *platform,
			      SE_CreateDeviceFnsParams *params,
			      TF_Status *status)
{
	(void)platform;
	params->device_fns->struct_size = SP_DEVICE_FNS_STRUCT_SIZE;
	ok(status);
}

static void destroy_device_fns(const SP_Platform *platform,
			       SP_DeviceFns *device_fns)
{
	(void)platform;
	(void)device_fns;
}

static void create_stream_executor(const SP_Platform *platform,
				   SE_CreateStreamExecutorParams *params,
				   TF_Status *status)
{
	SP_StreamExecutor *se = params->stream_executor;

	(void)platform;
	memset(se, 0, SP_STREAMEXECUTOR_STRUCT_SIZE);
	se->struct_size = SP_STREAMEXECUTOR_STRUCT_SIZE;
	se->allocate = allocate;
	se->deallocate = deallocate;
	se->host_memory_allocate = host_memory_allocate;
	se->host_memory_deallocate = host_memory_deallocate;
	se->get_allocator_stats = get_allocator_stats;
	se->device_memory_usage = device_memory_usage;
	se->create_stream = create_stream;
	se->destroy_stream = destroy_stream;
	se->create_stream_dependency = streams_done;
	se->get_stream_status = stream_done;
	se->create_event = create_event;
	se->destroy_event = destroy_event;
	se->get_event_status = event_status;
	se->record_event = event_done;
	se->wait_for_event = event_done;
	se->memcpy_dtoh = memcpy_dtoh;
	se->memcpy_htod = memcpy_htod;
	se->memcpy_dtod = memcpy_dtod;
	se->sync_memcpy_dtoh = sync_memcpy_dtoh;
	se->sync_memcpy_htod = sync_memcpy_htod;
	se->sync_memcpy_dtod = sync_memcpy_dtod;
	se->block_host_for_event = block_for_event;
	se->block_host_until_done = stream_done;
	se->synchronize_all_activity = synchronize_all;
	se->mem_zero = mem_zero;
	se->memset = fill8;
	se->memset32 = fill32;
	se->host_callback = host_callback;
	ok(status);
}

static void destroy_stream_executor(const SP_Platform *platform,
				    SP_StreamExecutor *se)
{
	(void)platform;
	(void)se;
}

static void destroy_platform(SP_Platform *platform)
{
	(void)platform;
}

static void destroy_platform_fns(SP_PlatformFns *fns)
{
	(void)fns;
}

/* ----------------------------------------------------------- the window */

/* Length of "MAJOR.MINOR" at the start of version, or 0. */
static size_t release_len(const char *version)
{
	const char *dot = strchr(version, '.');
	size_t n;

	if (!dot || dot == version)
		return 0;
	n = strspn(dot + 1, "0123456789");
	return n ? (size_t)(dot + 1 - version) + n : 0;
}

/*
 * 1 if running is the release built for. Otherwise one line naming both:
 * a failed status is what the C API offers, but TensorFlow stops the
 * process on it (a CHECK at `import tensorflow`), so the platform is
 * registered with no device instead, and TensorFlow runs on the CPU.
 */
static int in_window(const char *running)
{
	size_t n = release_len({{MODULE}}_BUILT_FOR);

	if (n && n == release_len(running) &&
	    !strncmp({{MODULE}}_BUILT_FOR, running, n))
		return 1;
	fprintf(stderr,
		"{{module}}: built for TensorFlow %s, but this is TensorFlow "
		"%s: the PluggableDevice ABI holds within one major.minor "
		"release only, so the " {{MODULE}}_DEVICE " device is not "
		"registered\n",
		{{MODULE}}_BUILT_FOR, running);
	return 0;
}

{{MODULE}}_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams *params,
				     TF_Status *status);

void SE_InitPlugin(SE_PlatformRegistrationParams *params, TF_Status *status)
{
	SP_PlatformFns *fns = params->platform_fns;

	{{module}}_registered = in_window(TF_Version());
	params->major_version = SE_MAJOR;
	params->minor_version = SE_MINOR;
	params->patch_version = SE_PATCH;
	params->platform->struct_size = SP_PLATFORM_STRUCT_SIZE;
	params->platform->name = {{MODULE}}_DEVICE;
	params->platform->type = {{MODULE}}_DEVICE;
	params->platform->supports_unified_memory = 0;
	params->platform->use_bfc_allocator = 0;
	params->platform->force_memory_growth = 0;

	fns->struct_size = SP_PLATFORM_FNS_STRUCT_SIZE;
	fns->get_device_count = get_device_count;
	fns->create_device = create_device;
	fns->destroy_device = destroy_device;
	fns->create_device_fns = create_device_fns;
	fns->destroy_device_fns = destroy_device_fns;
	fns->create_stream_executor = create_stream_executor;
	fns->destroy_stream_executor = destroy_stream_executor;
	params->destroy_platform = destroy_platform;
	params->destroy_platform_fns = destroy_platform_fns;
	ok(status);
}
