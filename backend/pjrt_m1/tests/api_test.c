/*
 * pjrt_m1 through its C API alone, as a framework would drive it:
 *   api_test LIBRARY
 * every slot of PJRT_Api is set; the version is the header's; a client
 * has its devices and memories; buffers of every whole-byte type and of
 * several shapes (a scalar, 0-size, strided) go in and come back bit for
 * bit; refusals and unimplemented functions are errors with messages.
 * Prints "ok ..." lines; exits 1 at the first failure.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xla/pjrt/c/pjrt_c_api.h"

static const PJRT_Api *api;
static int failed;

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

/* The error's message, and the error destroyed; "" for no error. */
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
		CHECK(!api->PJRT_Error_GetCode(&c), "GetCode");
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
	ARGS(PJRT_Event_IsReady, r);
	r.event = ev;
	OK(api->PJRT_Event_IsReady(&r));
	CHECK(r.is_ready, "event not ready");
	ARGS(PJRT_Event_Await, a);
	a.event = ev;
	OK(api->PJRT_Event_Await(&a));
	ARGS(PJRT_Event_Destroy, d);
	d.event = ev;
	OK(api->PJRT_Event_Destroy(&d));
}

static int called;
static void on_ready(PJRT_Error *err, void *arg)
{
	CHECK(!err && arg == &called, "OnReady callback");
	called++;
}

static PJRT_Buffer *put(PJRT_Client *c, PJRT_Device *dev, PJRT_Buffer_Type t,
			const void *data, const int64_t *dims, size_t nd,
			const int64_t *strides)
{
	ARGS(PJRT_Client_BufferFromHostBuffer, b);
	b.client = c;
	b.data = data;
	b.type = t;
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

static void get(PJRT_Buffer *buf, void *dst, size_t want)
{
	ARGS(PJRT_Buffer_ToHostBuffer, h);
	h.src = buf;
	OK(api->PJRT_Buffer_ToHostBuffer(&h));
	CHECK(h.dst_size == want, "size query: %zu, want %zu", h.dst_size,
	      want);
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

static const struct {
	PJRT_Buffer_Type type;
	size_t size;
} types[] = {
	{ PJRT_Buffer_Type_PRED, 1 },  { PJRT_Buffer_Type_S8, 1 },
	{ PJRT_Buffer_Type_S16, 2 },   { PJRT_Buffer_Type_S32, 4 },
	{ PJRT_Buffer_Type_S64, 8 },   { PJRT_Buffer_Type_U8, 1 },
	{ PJRT_Buffer_Type_U32, 4 },   { PJRT_Buffer_Type_F16, 2 },
	{ PJRT_Buffer_Type_BF16, 2 },  { PJRT_Buffer_Type_F32, 4 },
	{ PJRT_Buffer_Type_F64, 8 },   { PJRT_Buffer_Type_C64, 8 },
	{ PJRT_Buffer_Type_C128, 16 },
};

int main(int argc, char **argv)
{
	const PJRT_Api *(*get_api)(void);
	void *lib;
	size_t i;

	CHECK(argc == 2, "usage: api_test LIBRARY");
	lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	CHECK(lib, "dlopen: %s", dlerror());
	*(void **)&get_api = dlsym(lib, "GetPjrtApi");
	CHECK(get_api, "no GetPjrtApi");
	api = get_api();
	CHECK(api->struct_size == PJRT_Api_STRUCT_SIZE, "struct_size %zu",
	      api->struct_size);
	CHECK(api->pjrt_api_version.major_version == PJRT_API_MAJOR &&
		      api->pjrt_api_version.minor_version == PJRT_API_MINOR,
	      "version %d.%d", api->pjrt_api_version.major_version,
	      api->pjrt_api_version.minor_version);
	printf("ok version %d.%d\n", PJRT_API_MAJOR, PJRT_API_MINOR);

	i = 0;
#define M1_SLOT(name)                          \
	CHECK(api->name, "%s is NULL", #name); \
	i++;
#define M1_VOID_SLOT(name) M1_SLOT(name)
#include "slots.h"
	printf("ok all %zu slots set\n", i);

	ARGS(PJRT_Plugin_Initialize, init);
	OK(api->PJRT_Plugin_Initialize(&init));

	PJRT_NamedValue opt = { .struct_size = PJRT_NamedValue_STRUCT_SIZE,
				.name = "num_devices",
				.name_size = 11,
				.type = PJRT_NamedValue_kInt64,
				.int64_value = 2,
				.value_size = 1 };
	ARGS(PJRT_Client_Create, cc);
	cc.create_options = &opt;
	cc.num_options = 1;
	OK(api->PJRT_Client_Create(&cc));
	PJRT_Client *c = cc.client;

	ARGS(PJRT_Client_PlatformName, pn);
	pn.client = c;
	OK(api->PJRT_Client_PlatformName(&pn));
	CHECK(pn.platform_name_size == 2 && !memcmp(pn.platform_name, "m1", 2),
	      "platform name");
	ARGS(PJRT_Client_AddressableDevices, ad);
	ad.client = c;
	OK(api->PJRT_Client_AddressableDevices(&ad));
	CHECK(ad.num_addressable_devices == 2, "2 devices");
	for (i = 0; i < 2; i++) {
		PJRT_Device *d = ad.addressable_devices[i];
		ARGS(PJRT_Device_GetDescription, gd);
		gd.device = d;
		OK(api->PJRT_Device_GetDescription(&gd));
		ARGS(PJRT_DeviceDescription_Id, id);
		id.device_description = gd.device_description;
		OK(api->PJRT_DeviceDescription_Id(&id));
		CHECK(id.id == (int)i, "device id");
		ARGS(PJRT_DeviceDescription_Kind, k);
		k.device_description = gd.device_description;
		OK(api->PJRT_DeviceDescription_Kind(&k));
		CHECK(k.device_kind_size == 2 &&
			      !memcmp(k.device_kind, "M1", 2),
		      "kind");
		ARGS(PJRT_DeviceDescription_Attributes, at);
		at.device_description = gd.device_description;
		OK(api->PJRT_DeviceDescription_Attributes(&at));
		CHECK(at.num_attributes >= 1 &&
			      !strcmp(at.attributes[0].name, "isa"),
		      "isa attribute");
		if (!i)
			printf("ok isa %s\n", at.attributes[0].string_value);
		ARGS(PJRT_Device_DefaultMemory, dm);
		dm.device = d;
		OK(api->PJRT_Device_DefaultMemory(&dm));
		ARGS(PJRT_Memory_AddressableByDevices, mb);
		mb.memory = dm.memory;
		OK(api->PJRT_Memory_AddressableByDevices(&mb));
		CHECK(mb.num_devices == 1 && mb.devices[0] == d, "memory");
	}
	printf("ok 2 devices, kind M1, one memory each\n");

	PJRT_Device *dev = ad.addressable_devices[1];
	unsigned char src[16 * 6], back[16 * 6];
	for (i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i * 37 + 11);
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		int64_t dims[2] = { 2, 3 };
		size_t n = 6 * types[i].size;
		PJRT_Buffer *b = put(c, dev, types[i].type, src, dims, 2, NULL);

		memset(back, 0, sizeof(back));
		get(b, back, n);
		CHECK(!memcmp(src, back, n), "type %d round trip",
		      (int)types[i].type);
		ARGS(PJRT_Buffer_ElementType, et);
		et.buffer = b;
		OK(api->PJRT_Buffer_ElementType(&et));
		CHECK(et.type == types[i].type, "element type");
		ARGS(PJRT_Buffer_OnDeviceSizeInBytes, os);
		os.buffer = b;
		OK(api->PJRT_Buffer_OnDeviceSizeInBytes(&os));
		CHECK(os.on_device_size_in_bytes == n, "size");
		ARGS(PJRT_Buffer_Device, bd);
		bd.buffer = b;
		OK(api->PJRT_Buffer_Device(&bd));
		CHECK(bd.device == dev, "buffer device");
		destroy(b);
	}
	printf("ok %zu types round trip\n", sizeof(types) / sizeof(types[0]));

	{ /* a scalar, a 0-size array, a transposed (strided) one */
		float x = 3.5f, y = 0;
		int32_t m[2][3] = { { 1, 2, 3 }, { 4, 5, 6 } }, t[3][2];
		int64_t zd[3] = { 4, 0, 2 }, td[2] = { 3, 2 };
		int64_t ts[2] = { 4, 12 };
		PJRT_Buffer *b =
			put(c, dev, PJRT_Buffer_Type_F32, &x, NULL, 0, NULL);
		get(b, &y, 4);
		CHECK(y == 3.5f, "scalar");
		ARGS(PJRT_Buffer_Dimensions, dd);
		dd.buffer = b;
		OK(api->PJRT_Buffer_Dimensions(&dd));
		CHECK(dd.num_dims == 0, "scalar dims");
		destroy(b);
		b = put(c, dev, PJRT_Buffer_Type_F64, NULL, zd, 3, NULL);
		get(b, &y, 0);
		dd.buffer = b;
		OK(api->PJRT_Buffer_Dimensions(&dd));
		CHECK(dd.num_dims == 3 && dd.dims[1] == 0, "0-size dims");
		destroy(b);
		b = put(c, dev, PJRT_Buffer_Type_S32, m, td, 2, ts);
		get(b, t, sizeof(t));
		CHECK(t[0][0] == 1 && t[0][1] == 4 && t[2][0] == 3 &&
			      t[2][1] == 6,
		      "strided");
		ARGS(PJRT_Buffer_ReadyEvent, re);
		re.buffer = b;
		OK(api->PJRT_Buffer_ReadyEvent(&re));
		ARGS(PJRT_Event_OnReady, on);
		on.event = re.event;
		on.callback = on_ready;
		on.user_arg = &called;
		OK(api->PJRT_Event_OnReady(&on));
		CHECK(called == 1, "OnReady called back");
		event_done(re.event);
		ARGS(PJRT_Buffer_Delete, del);
		del.buffer = b;
		OK(api->PJRT_Buffer_Delete(&del));
		ARGS(PJRT_Buffer_ToHostBuffer, h);
		h.src = b;
		h.dst = t;
		h.dst_size = sizeof(t);
		CHECK(strstr(message(api->PJRT_Buffer_ToHostBuffer(&h), NULL),
			     "deleted"),
		      "deleted buffer");
		destroy(b);
	}
	printf("ok scalar, 0-size, strided, events, delete\n");

	{ /* refusals */
		PJRT_Error_Code code = PJRT_Error_Code_OK;
		int64_t d1 = 4;
		ARGS(PJRT_Client_BufferFromHostBuffer, b);
		b.client = c;
		b.data = src;
		b.type = PJRT_Buffer_Type_S4;
		b.dims = &d1;
		b.num_dims = 1;
		const char *msg = message(
			api->PJRT_Client_BufferFromHostBuffer(&b), &code);
		CHECK(code == PJRT_Error_Code_UNIMPLEMENTED &&
			      strstr(msg, "element type S4"),
		      "S4: %s", msg);
		ARGS(PJRT_Client_Compile, cp);
		cp.client = c;
		msg = message(api->PJRT_Client_Compile(&cp), &code);
		CHECK(code == PJRT_Error_Code_UNIMPLEMENTED &&
			      !strcmp(msg,
				      "PJRT_Client_Compile: the m1 plugin cannot compile StableHLO (it only holds arrays: device_put and transfers back to the host)"),
		      "compile: %s", msg);
		printf("ok refused: %s\n", msg);
		ARGS(PJRT_Client_Devices, small);
		small.struct_size = 8;
		small.client = c;
		msg = message(api->PJRT_Client_Devices(&small), &code);
		CHECK(code == PJRT_Error_Code_INVALID_ARGUMENT &&
			      strstr(msg, "struct_size 8 is smaller"),
		      "small struct: %s", msg);
		printf("ok refused: %s\n", msg);
	}

	ARGS(PJRT_Client_Destroy, cd);
	cd.client = c;
	OK(api->PJRT_Client_Destroy(&cd));
	printf("ok done\n");
	return failed;
}
