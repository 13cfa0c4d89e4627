/*
 * pjrt_cuda_m1 through its C API:
 *   probe PLUGIN LIBM1CUDA
 * every slot of PJRT_Api is set and its version is the header's; then a
 * client, and four floats put on its device 0 and read back. Without a
 * GPU (m1_cuda_available() says none, and why), the put must fail with
 * the plugin's CUDA error: the bytes go to CUDA, not to host memory.
 * With one, they must come back equal. Prints "ok ..." lines; exits 1
 * at the first failure.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xla/pjrt/c/pjrt_c_api.h"

static const PJRT_Api *api;

#define CHECK(cond, ...)                                            \
	do {                                                        \
		if (!(cond)) {                                      \
			printf("FAIL %s:%d: ", __FILE__, __LINE__); \
			printf(__VA_ARGS__);                        \
			printf("\n");                               \
			exit(1);                                    \
		}                                                   \
	} while (0)

#define ARGS(type, name)                \
	type##_Args name;               \
	memset(&name, 0, sizeof(name)); \
	name.struct_size = type##_Args_STRUCT_SIZE

/* The error's message, the error destroyed; "" for none. */
static const char *message(PJRT_Error *err)
{
	static char buf[600];

	buf[0] = '\0';
	if (!err)
		return buf;
	ARGS(PJRT_Error_Message, m);
	m.error = err;
	api->PJRT_Error_Message(&m);
	snprintf(buf, sizeof(buf), "%.*s", (int)m.message_size, m.message);
	ARGS(PJRT_Error_Destroy, d);
	d.error = err;
	api->PJRT_Error_Destroy(&d);
	return buf;
}

#define OK(call)                                          \
	do {                                              \
		PJRT_Error *e_ = (call);                  \
		CHECK(!e_, "%s: %s", #call, message(e_)); \
	} while (0)

static void *sym(void *lib, const char *name)
{
	void *p = dlsym(lib, name);

	CHECK(p, "no %s", name);
	return p;
}

static void slots(void)
{
	size_t i = 0;

	CHECK(api->pjrt_api_version.major_version == PJRT_API_MAJOR &&
		      api->pjrt_api_version.minor_version == PJRT_API_MINOR,
	      "version %d.%d", api->pjrt_api_version.major_version,
	      api->pjrt_api_version.minor_version);
#define M1_SLOT(name)                          \
	CHECK(api->name, "%s is NULL", #name); \
	i++;
#define M1_VOID_SLOT(name) M1_SLOT(name)
#include "slots.h"
	printf("ok version %d.%d, all %zu slots set\n", PJRT_API_MAJOR,
	       PJRT_API_MINOR, i);
}

/* Four floats to device 0 and back: NULL, or the put's error. */
static const char *round_trip(PJRT_Client *c)
{
	float x[4] = { 1.5f, -2.0f, 0.0f, 3.25f }, y[4] = { 0 };
	int64_t dims[1] = { 4 };
	PJRT_Error *err;

	ARGS(PJRT_Client_BufferFromHostBuffer, p);
	p.client = c;
	p.data = x;
	p.type = PJRT_Buffer_Type_F32;
	p.dims = dims;
	p.num_dims = 1;
	p.host_buffer_semantics =
		PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
	if ((err = api->PJRT_Client_BufferFromHostBuffer(&p)))
		return message(err);
	ARGS(PJRT_Buffer_ToHostBuffer, t);
	t.src = p.buffer;
	t.dst = y;
	t.dst_size = sizeof(y);
	OK(api->PJRT_Buffer_ToHostBuffer(&t));
	CHECK(!memcmp(x, y, sizeof(x)), "the floats came back changed");
	ARGS(PJRT_Buffer_Destroy, d);
	d.buffer = p.buffer;
	OK(api->PJRT_Buffer_Destroy(&d));
	return NULL;
}

int main(int argc, char **argv)
{
	int (*available)(const char **);
	const PJRT_Api *(*get_api)(void);
	const char *why = NULL, *err;
	void *m1, *lib;
	int n;

	CHECK(argc == 3, "usage: probe PLUGIN LIBM1CUDA");
	CHECK((m1 = dlopen(argv[2], RTLD_NOW)), "dlopen: %s", dlerror());
	*(void **)&available = sym(m1, "m1_cuda_available");
	n = available(&why);
	CHECK((lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)), "dlopen: %s",
	      dlerror());
	*(void **)&get_api = sym(lib, "GetPjrtApi");
	api = get_api();
	slots();
	ARGS(PJRT_Client_Create, cc);
	OK(api->PJRT_Client_Create(&cc));
	err = round_trip(cc.client);
	if (n) {
		CHECK(!err, "put: %s", err);
		printf("ok %d CUDA device(s): four floats round trip\n", n);
	} else {
		static const char want[] =
			"PJRT_Client_BufferFromHostBuffer: CUDA: ";

		CHECK(err && !strncmp(err, want, strlen(want)),
		      "no device (%s), yet the put says '%s'", why,
		      err ? err : "nothing");
		printf("ok no CUDA device (%s): the put says '%s'\n", why, err);
	}
	ARGS(PJRT_Client_Destroy, cd);
	cd.client = cc.client;
	OK(api->PJRT_Client_Destroy(&cd));
	return 0;
}
