/*
 * The M_ONE platform for TensorFlow's StreamExecutor C API: one device
 * whose "device memory" is host memory, so every copy is a memcpy and
 * every stream is synchronous (work is done when the call returns).
 *
 * SE_InitPlugin first checks the ABI window: the TensorFlow release
 * this library was compiled against (TF_M1_BUILT_FOR, passed by the
 * build from the framework's own metadata) against the running one
 * (TF_Version()). TensorFlow promises no ABI for plugins across minor
 * releases (the header's SE_MAJOR is 0: "doesn't have versioning
 * guarantees yet"), so the window is one major.minor release.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__APPLE__)
#include <sys/sysctl.h>
#endif

#include "tensorflow/c/c_api.h"
#include "tensorflow/c/experimental/stream_executor/stream_executor.h"

#include "tf_m1.h"

#ifndef TF_M1_BUILT_FOR
#error "TF_M1_BUILT_FOR (the TensorFlow release compiled against) is not set"
#endif

#define M1_ALIGN 64

const struct m1_kernels *tf_m1_active;

/* Best first: the first one this CPU runs is the default. */
static const struct m1_kernels *const all_isas[] = {
#if defined(__x86_64__)
	&m1_kernels_avx2,
	&m1_kernels_sse2,
#endif
#if defined(__aarch64__)
	&m1_kernels_neon,
#endif
	&m1_kernels_scalar,
};
#define NR_ISAS (sizeof(all_isas) / sizeof(all_isas[0]))

struct SP_Stream_st {
	int unused; /* streams are synchronous: nothing to keep */
};

struct SP_Event_st {
	int unused; /* every event is complete when recorded */
};

struct SP_Timer_st {
	uint64_t start; /* CLOCK_MONOTONIC, nanoseconds */
	uint64_t stop;
};

static char hardware_name[32]; /* "m1 (avx2)": read by TensorFlow */

/* The requested ISA if this CPU runs it, else the best one; NULL if unknown. */
static const struct m1_kernels *choose_isa(const char *want)
{
	const struct m1_kernels *best = NULL;
	size_t i;

	for (i = 0; i < NR_ISAS; i++) {
		if (!all_isas[i]->supported())
			continue;
		if (!best)
			best = all_isas[i];
		if (want && !strcmp(want, all_isas[i]->isa))
			return all_isas[i];
	}
	if (want && *want && strcmp(want, "scalar") && strcmp(want, "sse2") &&
	    strcmp(want, "avx2") && strcmp(want, "neon"))
		return NULL;
	return best;
}

/* Length of "MAJOR.MINOR" in VERSION, or 0 if it has no such prefix. */
static size_t release_len(const char *version)
{
	const char *dot = strchr(version, '.');
	size_t n;

	if (!dot || dot == version)
		return 0;
	n = strspn(dot + 1, "0123456789");
	return n ? (size_t)(dot + 1 - version) + n : 0;
}

static int same_release(const char *a, const char *b)
{
	size_t n = release_len(a);

	return n && n == release_len(b) && !strncmp(a, b, n);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void ok(TF_Status *status)
{
	TF_SetStatus(status, TF_OK, "");
}

/* ------------------------------------------------------------ memory */

/* aligned_alloc wants a multiple of the alignment, and at least one. */
static void *host_alloc(uint64_t size)
{
	uint64_t rounded = (size + M1_ALIGN - 1) / M1_ALIGN * M1_ALIGN;

	if (rounded < size || rounded > SIZE_MAX)
		return NULL;
	return aligned_alloc(M1_ALIGN, rounded ? (size_t)rounded : M1_ALIGN);
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

	/* TensorFlow asks before creating the device: it is host memory. */
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
	return 0;
}

/* ----------------------------------------------------- streams, events */

static void create_stream(const SP_Device *device, SP_Stream *stream,
			  TF_Status *status)
{
	(void)device;
	*stream = calloc(1, sizeof(**stream));
	if (!*stream)
		TF_SetStatus(status, TF_RESOURCE_EXHAUSTED,
			     "m1: out of memory for a stream");
	else
		ok(status);
}

static void destroy_stream(const SP_Device *device, SP_Stream stream)
{
	(void)device;
	free(stream);
}

static void stream_noop(const SP_Device *device, SP_Stream a, SP_Stream b,
			TF_Status *status)
{
	(void)device;
	(void)a;
	(void)b;
	ok(status);
}

static void stream_status(const SP_Device *device, SP_Stream stream,
			  TF_Status *status)
{
	(void)device;
	(void)stream;
	ok(status);
}

static void create_event(const SP_Device *device, SP_Event *event,
			 TF_Status *status)
{
	(void)device;
	*event = calloc(1, sizeof(**event));
	if (!*event)
		TF_SetStatus(status, TF_RESOURCE_EXHAUSTED,
			     "m1: out of memory for an event");
	else
		ok(status);
}

static void destroy_event(const SP_Device *device, SP_Event event)
{
	(void)device;
	free(event);
}

static SE_EventStatus event_status(const SP_Device *device, SP_Event event)
{
	(void)device;
	(void)event;
	return SE_EVENT_COMPLETE;
}

static void event_noop(const SP_Device *device, SP_Stream stream,
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

static void block_until_done(const SP_Device *device, SP_Stream stream,
			     TF_Status *status)
{
	(void)device;
	(void)stream;
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

/* ------------------------------------------------------------- timers */

static void create_timer(const SP_Device *device, SP_Timer *timer,
			 TF_Status *status)
{
	(void)device;
	*timer = calloc(1, sizeof(**timer));
	if (!*timer)
		TF_SetStatus(status, TF_RESOURCE_EXHAUSTED,
			     "m1: out of memory for a timer");
	else
		ok(status);
}

static void destroy_timer(const SP_Device *device, SP_Timer timer)
{
	(void)device;
	free(timer);
}

static void start_timer(const SP_Device *device, SP_Stream stream,
			SP_Timer timer, TF_Status *status)
{
	(void)device;
	(void)stream;
	timer->start = timer->stop = now_ns();
	ok(status);
}

static void stop_timer(const SP_Device *device, SP_Stream stream,
		       SP_Timer timer, TF_Status *status)
{
	(void)device;
	(void)stream;
	timer->stop = now_ns();
	ok(status);
}

static uint64_t timer_ns(SP_Timer timer)
{
	return timer->stop - timer->start;
}

/* ------------------------------------------------------------- copies */

static void dtoh(const SP_Device *device, SP_Stream stream, void *dst,
		 const SP_DeviceMemoryBase *src, uint64_t size,
		 TF_Status *status)
{
	(void)device;
	(void)stream;
	memcpy(dst, src->opaque, size);
	ok(status);
}

static void htod(const SP_Device *device, SP_Stream stream,
		 SP_DeviceMemoryBase *dst, const void *src, uint64_t size,
		 TF_Status *status)
{
	(void)device;
	(void)stream;
	memcpy(dst->opaque, src, size);
	ok(status);
}

static void dtod(const SP_Device *device, SP_Stream stream,
		 SP_DeviceMemoryBase *dst, const SP_DeviceMemoryBase *src,
		 uint64_t size, TF_Status *status)
{
	(void)device;
	(void)stream;
	memmove(dst->opaque, src->opaque, size);
	ok(status);
}

static void sync_dtoh(const SP_Device *device, void *dst,
		      const SP_DeviceMemoryBase *src, uint64_t size,
		      TF_Status *status)
{
	dtoh(device, NULL, dst, src, size, status);
}

static void sync_htod(const SP_Device *device, SP_DeviceMemoryBase *dst,
		      const void *src, uint64_t size, TF_Status *status)
{
	htod(device, NULL, dst, src, size, status);
}

static void sync_dtod(const SP_Device *device, SP_DeviceMemoryBase *dst,
		      const SP_DeviceMemoryBase *src, uint64_t size,
		      TF_Status *status)
{
	dtod(device, NULL, dst, src, size, status);
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

/* ----------------------------------------------------------- platform */

static void get_device_count(const SP_Platform *platform, int *count,
			     TF_Status *status)
{
	(void)platform;
	*count = 1;
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
	device->device_handle = NULL;
	device->hardware_name = hardware_name;
	device->device_vendor = "tfbuild";
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
	se->create_stream_dependency = stream_noop;
	se->get_stream_status = stream_status;
	se->create_event = create_event;
	se->destroy_event = destroy_event;
	se->get_event_status = event_status;
	se->record_event = event_noop;
	se->wait_for_event = event_noop;
	se->create_timer = create_timer;
	se->destroy_timer = destroy_timer;
	se->start_timer = start_timer;
	se->stop_timer = stop_timer;
	se->memcpy_dtoh = dtoh;
	se->memcpy_htod = htod;
	se->memcpy_dtod = dtod;
	se->sync_memcpy_dtoh = sync_dtoh;
	se->sync_memcpy_htod = sync_htod;
	se->sync_memcpy_dtod = sync_dtod;
	se->block_host_for_event = block_for_event;
	se->block_host_until_done = block_until_done;
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

static void create_timer_fns(const SP_Platform *platform, SP_TimerFns *fns,
			     TF_Status *status)
{
	(void)platform;
	fns->struct_size = SP_TIMER_FNS_STRUCT_SIZE;
	fns->nanoseconds = timer_ns;
	ok(status);
}

static void destroy_timer_fns(const SP_Platform *platform, SP_TimerFns *fns)
{
	(void)platform;
	(void)fns;
}

static void destroy_platform(SP_Platform *platform)
{
	(void)platform;
}

static void destroy_platform_fns(SP_PlatformFns *fns)
{
	(void)fns;
}

/*
 * Outside the window, say so in one line naming both releases. A failed
 * status is what the C API offers, but TensorFlow (2.21) stops the
 * process on it (a CHECK in TF_LoadPluggableDeviceLibrary, at `import
 * tensorflow`), so by default the platform is registered with no device
 * and no kernel: TensorFlow keeps running on the CPU. TF_M1_STRICT=1
 * returns the failed status instead.
 */
static int outside_window(const char *running, TF_Status *status)
{
	char msg[320];
	const char *strict = getenv("TF_M1_STRICT");

	if (same_release(TF_M1_BUILT_FOR, running))
		return 0;
	snprintf(msg, sizeof(msg),
		 "tf_m1: built for TensorFlow %s, but this is TensorFlow %s: "
		 "the PluggableDevice ABI holds within one major.minor "
		 "release only, so the " TF_M1_DEVICE " device is not "
		 "registered (install the tf-m1 built for %.*s)",
		 TF_M1_BUILT_FOR, running, (int)release_len(running), running);
	if (strict && !strcmp(strict, "1")) {
		TF_SetStatus(status, TF_FAILED_PRECONDITION, msg);
		return -1;
	}
	fprintf(stderr, "%s\n", msg);
	return 1;
}

static void get_no_device(const SP_Platform *platform, int *count,
			  TF_Status *status)
{
	(void)platform;
	*count = 0;
	ok(status);
}

/* Fills PARAMS: the platform, with DEVICES devices (1, or 0 if refused). */
static void register_platform(SE_PlatformRegistrationParams *params,
			      int devices)
{
	SP_PlatformFns *fns = params->platform_fns;

	params->major_version = SE_MAJOR;
	params->minor_version = SE_MINOR;
	params->patch_version = SE_PATCH;
	params->platform->struct_size = SP_PLATFORM_STRUCT_SIZE;
	params->platform->name = TF_M1_DEVICE;
	params->platform->type = TF_M1_DEVICE;
	params->platform->supports_unified_memory = 0;
	params->platform->use_bfc_allocator = 0;
	params->platform->force_memory_growth = 0;

	fns->struct_size = SP_PLATFORM_FNS_STRUCT_SIZE;
	fns->get_device_count = devices ? get_device_count : get_no_device;
	fns->create_device = create_device;
	fns->destroy_device = destroy_device;
	fns->create_device_fns = create_device_fns;
	fns->destroy_device_fns = destroy_device_fns;
	fns->create_stream_executor = create_stream_executor;
	fns->destroy_stream_executor = destroy_stream_executor;
	fns->create_timer_fns = create_timer_fns;
	fns->destroy_timer_fns = destroy_timer_fns;
	params->destroy_platform = destroy_platform;
	params->destroy_platform_fns = destroy_platform_fns;
}

TF_M1_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams *params,
				TF_Status *status);

TF_M1_EXPORT void SE_InitPlugin(SE_PlatformRegistrationParams *params,
				TF_Status *status)
{
	const char *want = getenv("TF_M1_ISA");
	int refused = outside_window(TF_Version(), status);

	if (refused < 0)
		return;
	if (refused) {
		register_platform(params, 0); /* tf_m1_active stays NULL */
		ok(status);
		return;
	}
	tf_m1_active = choose_isa(want);
	if (!tf_m1_active) {
		TF_SetStatus(status, TF_INVALID_ARGUMENT,
			     "tf_m1: TF_M1_ISA is not one of: scalar, sse2, "
			     "avx2, neon");
		return;
	}
	snprintf(hardware_name, sizeof(hardware_name), "m1 (%s)",
		 tf_m1_active->isa);
	register_platform(params, 1);
	ok(status);
}
