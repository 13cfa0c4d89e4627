/*
 * The client, its devices and their memories. A client has
 * JAX_M1_DEVICES devices (the create option "num_devices", default 1),
 * each with one memory of kind "device", backed by host memory. Each
 * device description carries the instruction set m1's kernels chose on
 * this CPU (attribute "isa": avx2, sse2, neon or scalar).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "pjrt_m1.h"

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

/* The best table this CPU runs: the same choice the tfmini plugin makes. */
const char *m1_isa(void)
{
	size_t i;

	for (i = 0; i < sizeof(all_isas) / sizeof(all_isas[0]); i++)
		if (all_isas[i]->supported())
			return all_isas[i]->isa;
	return "scalar";
}

static void set_string(PJRT_NamedValue *v, const char *name, const char *s)
{
	memset(v, 0, sizeof(*v));
	v->struct_size = PJRT_NamedValue_STRUCT_SIZE;
	v->name = name;
	v->name_size = strlen(name);
	v->type = PJRT_NamedValue_kString;
	v->string_value = s;
	v->value_size = strlen(s);
}

static void set_int(PJRT_NamedValue *v, const char *name, int64_t i)
{
	memset(v, 0, sizeof(*v));
	v->struct_size = PJRT_NamedValue_STRUCT_SIZE;
	v->name = name;
	v->name_size = strlen(name);
	v->type = PJRT_NamedValue_kInt64;
	v->int64_value = i;
	v->value_size = 1;
}

/* The device count: the "num_devices" option, 1 without it. */
static PJRT_Error *num_devices(const PJRT_Client_Create_Args *args, int *n)
{
	size_t i;

	*n = 1;
	for (i = 0; i < args->num_options; i++) {
		const PJRT_NamedValue *o = &args->create_options[i];

		if (o->name_size != strlen("num_devices") ||
		    memcmp(o->name, "num_devices", o->name_size))
			continue;
		if (o->type != PJRT_NamedValue_kInt64 || o->int64_value < 1 ||
		    o->int64_value > M1_MAX_DEVICES)
			return m1_error(
				PJRT_Error_Code_INVALID_ARGUMENT,
				"PJRT_Client_Create: option num_devices "
				"must be an integer from 1 to %d",
				M1_MAX_DEVICES);
		*n = (int)o->int64_value;
	}
	return NULL;
}

static PJRT_Error *m1_Client_Create(PJRT_Client_Create_Args *args)
{
	PJRT_Client *c;
	PJRT_Error *err;
	const char *isa = m1_isa();
	int n, i;

	M1_CHECK_ARGS(args, PJRT_Client_Create);
	if (args->num_options && !args->create_options)
		return m1_error(PJRT_Error_Code_INVALID_ARGUMENT,
				"PJRT_Client_Create: %zu options, but no array",
				args->num_options);
	if ((err = num_devices(args, &n)))
		return err;
	if (!(c = calloc(1, sizeof(*c))))
		return m1_error(PJRT_Error_Code_RESOURCE_EXHAUSTED,
				"PJRT_Client_Create: out of memory");
	c->ndevices = n;
	for (i = 0; i < n; i++) {
		PJRT_Device *d = &c->devices[i];
		PJRT_Memory *m = &d->memory;

		d->client = c;
		d->desc.id = i;
		snprintf(d->desc.debug, sizeof(d->desc.debug), "M1:%d", i);
		snprintf(d->desc.to_string, sizeof(d->desc.to_string),
			 "M1Device(id=%d)", i);
		set_string(&d->desc.attrs[0], "isa", isa);
		set_int(&d->desc.attrs[1], "core_on_chip", 0);
		m->id = i;
		m->device = d;
		m->devices[0] = d;
		snprintf(m->debug, sizeof(m->debug), "M1:%d:device", i);
		snprintf(m->to_string, sizeof(m->to_string),
			 "MEMORY_SPACE(id=%d, kind=device)", i);
		d->memories[0] = m;
		c->device_list[i] = d;
		c->memory_list[i] = m;
	}
	args->client = c;
	return NULL;
}

#define M1_CHECK_CLIENT(args, type)                                       \
	do {                                                              \
		M1_CHECK_ARGS(args, type);                                \
		if (!(args)->client)                                      \
			return m1_error(PJRT_Error_Code_INVALID_ARGUMENT, \
					#type ": no client");             \
	} while (0)

static PJRT_Error *m1_Client_Destroy(PJRT_Client_Destroy_Args *args)
{
	M1_CHECK_CLIENT(args, PJRT_Client_Destroy);
	free(args->client);
	return NULL;
}

static PJRT_Error *m1_Client_PlatformName(PJRT_Client_PlatformName_Args *args)
{
	M1_CHECK_CLIENT(args, PJRT_Client_PlatformName);
	args->platform_name = M1_PLATFORM;
	args->platform_name_size = strlen(M1_PLATFORM);
	return NULL;
}

static PJRT_Error *m1_Client_PlatformVersion(
	PJRT_Client_PlatformVersion_Args *args)
{
	M1_CHECK_CLIENT(args, PJRT_Client_PlatformVersion);
	args->platform_version = M1_PLATFORM_VERSION;
	args->platform_version_size = strlen(M1_PLATFORM_VERSION);
	return NULL;
}

static PJRT_Error *m1_Client_ProcessIndex(PJRT_Client_ProcessIndex_Args *args)
{
	M1_CHECK_CLIENT(args, PJRT_Client_ProcessIndex);
	args->process_index = 0;
	return NULL;
}

static PJRT_Error *m1_Client_Devices(PJRT_Client_Devices_Args *args)
{
	M1_CHECK_CLIENT(args, PJRT_Client_Devices);
	args->devices = args->client->device_list;
	args->num_devices = (size_t)args->client->ndevices;
	return NULL;
}

static PJRT_Error *m1_Client_AddressableDevices(
	PJRT_Client_AddressableDevices_Args *args)
{
	M1_CHECK_CLIENT(args, PJRT_Client_AddressableDevices);
	args->addressable_devices = args->client->device_list;
	args->num_addressable_devices = (size_t)args->client->ndevices;
	return NULL;
}

static PJRT_Error *m1_Client_LookupDevice(PJRT_Client_LookupDevice_Args *args)
{
	M1_CHECK_CLIENT(args, PJRT_Client_LookupDevice);
	if (args->id < 0 || args->id >= args->client->ndevices)
		return m1_error(PJRT_Error_Code_INVALID_ARGUMENT,
				"PJRT_Client_LookupDevice: no m1 device %d "
				"(there are %d)",
				args->id, args->client->ndevices);
	args->device = &args->client->devices[args->id];
	return NULL;
}

static PJRT_Error *m1_Client_LookupAddressableDevice(
	PJRT_Client_LookupAddressableDevice_Args *args)
{
	int id;

	M1_CHECK_CLIENT(args, PJRT_Client_LookupAddressableDevice);
	id = args->local_hardware_id;
	if (id < 0 || id >= args->client->ndevices)
		return m1_error(PJRT_Error_Code_INVALID_ARGUMENT,
				"PJRT_Client_LookupAddressableDevice: no m1 "
				"device with local hardware id %d (there are "
				"%d)",
				id, args->client->ndevices);
	args->addressable_device = &args->client->devices[id];
	return NULL;
}

static PJRT_Error *m1_Client_AddressableMemories(
	PJRT_Client_AddressableMemories_Args *args)
{
	M1_CHECK_CLIENT(args, PJRT_Client_AddressableMemories);
	args->addressable_memories = args->client->memory_list;
	args->num_addressable_memories = (size_t)args->client->ndevices;
	return NULL;
}

/* Replica r, partition p on device (r * partitions + p) mod devices. */
static PJRT_Error *m1_Client_DefaultDeviceAssignment(
	PJRT_Client_DefaultDeviceAssignment_Args *args)
{
	size_t i, n;

	M1_CHECK_CLIENT(args, PJRT_Client_DefaultDeviceAssignment);
	if (args->num_replicas < 1 || args->num_partitions < 1)
		return m1_error(PJRT_Error_Code_INVALID_ARGUMENT,
				"PJRT_Client_DefaultDeviceAssignment: %d "
				"replicas, %d partitions",
				args->num_replicas, args->num_partitions);
	n = (size_t)args->num_replicas * (size_t)args->num_partitions;
	if (args->default_assignment_size < n || !args->default_assignment)
		return m1_error(PJRT_Error_Code_INVALID_ARGUMENT,
				"PJRT_Client_DefaultDeviceAssignment: room for "
				"%zu devices, %zu needed",
				args->default_assignment_size, n);
	for (i = 0; i < n; i++)
		args->default_assignment[i] =
			(int)(i % (size_t)args->client->ndevices);
	return NULL;
}

#define M1_CHECK_DESC(args, type)                                         \
	do {                                                              \
		M1_CHECK_ARGS(args, type);                                \
		if (!(args)->device_description)                          \
			return m1_error(PJRT_Error_Code_INVALID_ARGUMENT, \
					#type ": no device description"); \
	} while (0)

static PJRT_Error *m1_DeviceDescription_Id(PJRT_DeviceDescription_Id_Args *args)
{
	M1_CHECK_DESC(args, PJRT_DeviceDescription_Id);
	args->id = args->device_description->id;
	return NULL;
}

static PJRT_Error *m1_DeviceDescription_ProcessIndex(
	PJRT_DeviceDescription_ProcessIndex_Args *args)
{
	M1_CHECK_DESC(args, PJRT_DeviceDescription_ProcessIndex);
	args->process_index = 0;
	return NULL;
}

static PJRT_Error *m1_DeviceDescription_Attributes(
	PJRT_DeviceDescription_Attributes_Args *args)
{
	M1_CHECK_DESC(args, PJRT_DeviceDescription_Attributes);
	args->attributes = args->device_description->attrs;
	args->num_attributes = sizeof(args->device_description->attrs) /
			       sizeof(args->device_description->attrs[0]);
	return NULL;
}

static PJRT_Error *m1_DeviceDescription_Kind(
	PJRT_DeviceDescription_Kind_Args *args)
{
	M1_CHECK_DESC(args, PJRT_DeviceDescription_Kind);
	args->device_kind = M1_KIND;
	args->device_kind_size = strlen(M1_KIND);
	return NULL;
}

static PJRT_Error *m1_DeviceDescription_DebugString(
	PJRT_DeviceDescription_DebugString_Args *args)
{
	M1_CHECK_DESC(args, PJRT_DeviceDescription_DebugString);
	args->debug_string = args->device_description->debug;
	args->debug_string_size = strlen(args->device_description->debug);
	return NULL;
}

static PJRT_Error *m1_DeviceDescription_ToString(
	PJRT_DeviceDescription_ToString_Args *args)
{
	M1_CHECK_DESC(args, PJRT_DeviceDescription_ToString);
	args->to_string = args->device_description->to_string;
	args->to_string_size = strlen(args->device_description->to_string);
	return NULL;
}

#define M1_CHECK_DEVICE(args, type)                                       \
	do {                                                              \
		M1_CHECK_ARGS(args, type);                                \
		if (!(args)->device)                                      \
			return m1_error(PJRT_Error_Code_INVALID_ARGUMENT, \
					#type ": no device");             \
	} while (0)

static PJRT_Error *m1_Device_GetDescription(
	PJRT_Device_GetDescription_Args *args)
{
	M1_CHECK_DEVICE(args, PJRT_Device_GetDescription);
	args->device_description = &args->device->desc;
	return NULL;
}

static PJRT_Error *m1_Device_IsAddressable(PJRT_Device_IsAddressable_Args *args)
{
	M1_CHECK_DEVICE(args, PJRT_Device_IsAddressable);
	args->is_addressable = true;
	return NULL;
}

static PJRT_Error *m1_Device_LocalHardwareId(
	PJRT_Device_LocalHardwareId_Args *args)
{
	M1_CHECK_DEVICE(args, PJRT_Device_LocalHardwareId);
	args->local_hardware_id = args->device->desc.id;
	return NULL;
}

static PJRT_Error *m1_Device_AddressableMemories(
	PJRT_Device_AddressableMemories_Args *args)
{
	M1_CHECK_DEVICE(args, PJRT_Device_AddressableMemories);
	args->memories = args->device->memories;
	args->num_memories = 1;
	return NULL;
}

static PJRT_Error *m1_Device_DefaultMemory(PJRT_Device_DefaultMemory_Args *args)
{
	M1_CHECK_DEVICE(args, PJRT_Device_DefaultMemory);
	args->memory = &args->device->memory;
	return NULL;
}

#define M1_CHECK_MEMORY(args, type)                                       \
	do {                                                              \
		M1_CHECK_ARGS(args, type);                                \
		if (!(args)->memory)                                      \
			return m1_error(PJRT_Error_Code_INVALID_ARGUMENT, \
					#type ": no memory");             \
	} while (0)

static PJRT_Error *m1_Memory_Id(PJRT_Memory_Id_Args *args)
{
	M1_CHECK_MEMORY(args, PJRT_Memory_Id);
	args->id = args->memory->id;
	return NULL;
}

static PJRT_Error *m1_Memory_Kind(PJRT_Memory_Kind_Args *args)
{
	M1_CHECK_MEMORY(args, PJRT_Memory_Kind);
	args->kind = "device";
	args->kind_size = strlen("device");
	return NULL;
}

static PJRT_Error *m1_Memory_Kind_Id(PJRT_Memory_Kind_Id_Args *args)
{
	M1_CHECK_MEMORY(args, PJRT_Memory_Kind_Id);
	args->kind_id = 0;
	return NULL;
}

static PJRT_Error *m1_Memory_DebugString(PJRT_Memory_DebugString_Args *args)
{
	M1_CHECK_MEMORY(args, PJRT_Memory_DebugString);
	args->debug_string = args->memory->debug;
	args->debug_string_size = strlen(args->memory->debug);
	return NULL;
}

static PJRT_Error *m1_Memory_ToString(PJRT_Memory_ToString_Args *args)
{
	M1_CHECK_MEMORY(args, PJRT_Memory_ToString);
	args->to_string = args->memory->to_string;
	args->to_string_size = strlen(args->memory->to_string);
	return NULL;
}

static PJRT_Error *m1_Memory_AddressableByDevices(
	PJRT_Memory_AddressableByDevices_Args *args)
{
	M1_CHECK_MEMORY(args, PJRT_Memory_AddressableByDevices);
	args->devices = args->memory->devices;
	args->num_devices = 1;
	return NULL;
}

void m1_fill_client(PJRT_Api *api)
{
	api->PJRT_Client_Create = m1_Client_Create;
	api->PJRT_Client_Destroy = m1_Client_Destroy;
	api->PJRT_Client_PlatformName = m1_Client_PlatformName;
	api->PJRT_Client_PlatformVersion = m1_Client_PlatformVersion;
	api->PJRT_Client_ProcessIndex = m1_Client_ProcessIndex;
	api->PJRT_Client_Devices = m1_Client_Devices;
	api->PJRT_Client_AddressableDevices = m1_Client_AddressableDevices;
	api->PJRT_Client_LookupDevice = m1_Client_LookupDevice;
	api->PJRT_Client_LookupAddressableDevice =
		m1_Client_LookupAddressableDevice;
	api->PJRT_Client_AddressableMemories = m1_Client_AddressableMemories;
	api->PJRT_Client_DefaultDeviceAssignment =
		m1_Client_DefaultDeviceAssignment;
	api->PJRT_DeviceDescription_Id = m1_DeviceDescription_Id;
	api->PJRT_DeviceDescription_ProcessIndex =
		m1_DeviceDescription_ProcessIndex;
	api->PJRT_DeviceDescription_Attributes =
		m1_DeviceDescription_Attributes;
	api->PJRT_DeviceDescription_Kind = m1_DeviceDescription_Kind;
	api->PJRT_DeviceDescription_DebugString =
		m1_DeviceDescription_DebugString;
	api->PJRT_DeviceDescription_ToString = m1_DeviceDescription_ToString;
	api->PJRT_Device_GetDescription = m1_Device_GetDescription;
	api->PJRT_Device_IsAddressable = m1_Device_IsAddressable;
	api->PJRT_Device_LocalHardwareId = m1_Device_LocalHardwareId;
	api->PJRT_Device_AddressableMemories = m1_Device_AddressableMemories;
	api->PJRT_Device_DefaultMemory = m1_Device_DefaultMemory;
	api->PJRT_Memory_Id = m1_Memory_Id;
	api->PJRT_Memory_Kind = m1_Memory_Kind;
	api->PJRT_Memory_Kind_Id = m1_Memory_Kind_Id;
	api->PJRT_Memory_DebugString = m1_Memory_DebugString;
	api->PJRT_Memory_ToString = m1_Memory_ToString;
	api->PJRT_Memory_AddressableByDevices = m1_Memory_AddressableByDevices;
}
