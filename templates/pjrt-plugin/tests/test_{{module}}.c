/*
 * The {{name}} plugin through its C API alone, as JAX drives it:
 *   test_{{module}} PLUGIN
 * (built with -I for the PJRT header and for slots.h, the list
 * gen-slots.sh makes of it). GetPjrtApi gives the header's version;
 * every slot is set, and each one the plugin does not implement answers
 * UNIMPLEMENTED naming itself; a client has one device with one memory;
 * float32 arrays go there and come back, a strided one too; another
 * element type is refused. Prints "ok ..." lines; exits 1 at the first
 * failure.
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

/* A zeroed argument struct of type, its struct_size set. */
#define ARGS(type, name)                \
	type##_Args name;               \
	memset(&name, 0, sizeof(name)); \
	name.struct_size = type##_Args_STRUCT_SIZE

/* The error's message and code, and the error destroyed; "" for none. */
static const char *message(PJRT_Error *err, PJRT_Error_Code *code)
{
	static char buf[600];

	buf[0] = '\0';
	if (!err)
		return buf;
	ARGS(PJRT_Error_Message, m);
	m.error = err;
	api->PJRT_Error_Message(&m);
	snprintf(buf, sizeof(buf), "%.*s", (int)m.message_size, m.message);
	if (code) {
		ARGS(PJRT_Error_GetCode, c);
		c.error = err;
		CHECK(!api->PJRT_Error_GetCode(&c), "PJRT_Error_GetCode");
		*code = c.code;
	}
	ARGS(PJRT_Error_Destroy, d);
	d.error = err;
	api->PJRT_Error_Destroy(&d);
	return buf;
}

#define OK(call)                                                \
	do {                                                    \
		PJRT_Error *e_ = (call);                        \
		CHECK(!e_, "%s: %s", #call, message(e_, NULL)); \
	} while (0)

static void event_done(PJRT_Event *ev)
{
	ARGS(PJRT_Event_Await, a);
	a.event = ev;
	OK(api->PJRT_Event_Await(&a));
	ARGS(PJRT_Event_Destroy, d);
	d.event = ev;
	OK(api->PJRT_Event_Destroy(&d));
}

/* Every slot set; each one called without arguments is an error, and a
 * stub's names itself. Returns how many are stubs. */
static int slots(void)
{
	PJRT_Error_Code code;
	const char *msg;
	char want[160];
	int n = 0, stubs = 0;

#define SLOT(name)                                                      \
	CHECK(api->name, "%s is not set", #name);                       \
	n++;                                                            \
	msg = message(api->name(NULL), &code);                          \
	snprintf(want, sizeof(want), "%s: not implemented", #name);     \
	if (code == PJRT_Error_Code_UNIMPLEMENTED) {                    \
		CHECK(!strncmp(msg, want, strlen(want)), "%s: %s", #name, \
		      msg);                                             \
		stubs++;                                                \
	} else {                                                        \
		CHECK(*msg, "%s(NULL) did not fail", #name);            \
	}
#define VOID_SLOT(name)                           \
	CHECK(api->name, "%s is not set", #name); \
	n++;
#include "slots.h"
#undef SLOT
#undef VOID_SLOT
	printf("ok all %d slots set, %d of them unimplemented\n", n, stubs);
	return stubs;
}

static PJRT_Buffer *put(PJRT_Client *c, PJRT_Device *dev, const void *data,
			const int64_t *dims, size_t nd, const int64_t *strides)
{
	ARGS(PJRT_Client_BufferFromHostBuffer, b);
	b.client = c;
	b.data = data;
	b.type = PJRT_Buffer_Type_F32;
	b.dims = dims;
	b.num_dims = nd;
	b.byte_strides = strides;
	b.num_byte_strides = strides ? nd : 0;
	b.host_buffer_semantics =
		PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
	b.device = dev;
	OK(api->PJRT_Client_BufferFromHostBuffer(&b));
	event_done(b.done_with_host_buffer);
	return b.buffer;
}

static void get(PJRT_Buffer *buf, void *dst, size_t size)
{
	ARGS(PJRT_Buffer_ToHostBuffer, h);
	h.src = buf;
	OK(api->PJRT_Buffer_ToHostBuffer(&h)); /* the size first */
	CHECK(h.dst_size == size, "size %zu, want %zu", h.dst_size, size);
	h.dst = dst;
	OK(api->PJRT_Buffer_ToHostBuffer(&h));
	event_done(h.event);
}

static void destroy(PJRT_Buffer *buf)
{
	ARGS(PJRT_Buffer_Destroy, d);
	d.buffer = buf;
	OK(api->PJRT_Buffer_Destroy(&d));
}

int main(int argc, char **argv)
{
	const PJRT_Api *(*get_api)(void);
	void *lib;

	CHECK(argc == 2, "usage: test_{{module}} PLUGIN");
	lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	CHECK(lib, "dlopen: %s", dlerror());
	*(void **)&get_api = dlsym(lib, "GetPjrtApi");
	CHECK(get_api, "no GetPjrtApi in %s", argv[1]);
	api = get_api();
	CHECK(api->pjrt_api_version.major_version == PJRT_API_MAJOR &&
		      api->pjrt_api_version.minor_version == PJRT_API_MINOR,
	      "version %d.%d", api->pjrt_api_version.major_version,
	      api->pjrt_api_version.minor_version);
	printf("ok PJRT C API %d.%d\n", PJRT_API_MAJOR, PJRT_API_MINOR);
	slots();

	ARGS(PJRT_Plugin_Initialize, init);
	OK(api->PJRT_Plugin_Initialize(&init));
	ARGS(PJRT_Client_Create, cc);
	OK(api->PJRT_Client_Create(&cc));
	PJRT_Client *c = cc.client;
	ARGS(PJRT_Client_PlatformName, pn);
	pn.client = c;
	OK(api->PJRT_Client_PlatformName(&pn));
	CHECK(pn.platform_name_size == strlen("{{module}}") &&
		      !memcmp(pn.platform_name, "{{module}}",
			      pn.platform_name_size),
	      "platform name");
	ARGS(PJRT_Client_AddressableDevices, ad);
	ad.client = c;
	OK(api->PJRT_Client_AddressableDevices(&ad));
	CHECK(ad.num_addressable_devices == 1, "%zu devices",
	      ad.num_addressable_devices);
	PJRT_Device *dev = ad.addressable_devices[0];
	ARGS(PJRT_Device_DefaultMemory, dm);
	dm.device = dev;
	OK(api->PJRT_Device_DefaultMemory(&dm));
	ARGS(PJRT_Memory_Kind, mk);
	mk.memory = dm.memory;
	OK(api->PJRT_Memory_Kind(&mk));
	CHECK(mk.kind_size == 6 && !memcmp(mk.kind, "device", 6), "kind");
	printf("ok platform {{module}}: one device, its memory \"device\"\n");

	{ /* float32 there and back; a transposed (strided) host array */
		const float m[2][3] = { { 1, 2, 3 }, { 4, 5, 6 } };
		float back[2][3], t[3][2];
		int64_t dims[2] = { 2, 3 }, tdims[2] = { 3, 2 };
		int64_t tstrides[2] = { 4, 12 };
		PJRT_Buffer *b = put(c, dev, m, dims, 2, NULL);

		get(b, back, sizeof(back));
		CHECK(!memcmp(m, back, sizeof(m)), "round trip");
		ARGS(PJRT_Buffer_Device, bd);
		bd.buffer = b;
		OK(api->PJRT_Buffer_Device(&bd));
		CHECK(bd.device == dev, "the buffer's device");
		destroy(b);
		b = put(c, dev, m, tdims, 2, tstrides);
		get(b, t, sizeof(t));
		CHECK(t[0][0] == 1 && t[0][1] == 4 && t[2][0] == 3 &&
			      t[2][1] == 6,
		      "strided");
		destroy(b);
	}
	printf("ok float32 arrays round trip, strided too\n");

	{ /* another element type: refused, naming why */
		PJRT_Error_Code code = PJRT_Error_Code_OK;
		int32_t i[2] = { 1, 2 };
		int64_t d1 = 2;
		ARGS(PJRT_Client_BufferFromHostBuffer, b);
		b.client = c;
		b.data = i;
		b.type = PJRT_Buffer_Type_S32;
		b.dims = &d1;
		b.num_dims = 1;
		const char *msg = message(
			api->PJRT_Client_BufferFromHostBuffer(&b), &code);
		CHECK(code == PJRT_Error_Code_UNIMPLEMENTED &&
			      strstr(msg, "float32 (F32) arrays only"),
		      "S32: %s", msg);
		printf("ok refused: %s\n", msg);
	}

	ARGS(PJRT_Client_Destroy, cd);
	cd.client = c;
	OK(api->PJRT_Client_Destroy(&cd));
	printf("ok done\n");
	return 0;
}
