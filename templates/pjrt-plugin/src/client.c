/*
 * The client, its one device and the device's one memory, of kind
 * "device" (host memory here). A real plugin finds its devices in
 * PJRT_Client_Create and describes each one below.
 */
#include <stdlib.h>
#include <string.h>

#include "{{module}}.h"

static PJRT_Error *Client_Create(PJRT_Client_Create_Args *args)
{
	PJRT_Client *c;

	CHECK_ARGS(args, PJRT_Client_Create);
	/* Options (args->create_options) would configure your device. */
	if (!(c = calloc(1, sizeof(*c))))
		return plugin_error(PJRT_Error_Code_RESOURCE_EXHAUSTED,
				    "PJRT_Client_Create: out of memory");
	c->device.desc.id = 0;
	c->device.memory.devices[0] = &c->device;
	c->device.memories[0] = &c->device.memory;
	c->devices[0] = &c->device;
	c->memories[0] = &c->device.memory;
	args->client = c;
	return NULL;
}

#define CHECK_CLIENT(args, type)                                              \
	do {                                                                  \
		CHECK_ARGS(args, type);                                       \
		if (!(args)->client)                                          \
			return plugin_error(PJRT_Error_Code_INVALID_ARGUMENT, \
					    #type ": no client");             \
	} while (0)

static PJRT_Error *Client_Destroy(PJRT_Client_Destroy_Args *args)
{
	CHECK_CLIENT(args, PJRT_Client_Destroy);
	free(args->client);
	return NULL;
}

static PJRT_Error *Client_PlatformName(PJRT_Client_PlatformName_Args *args)
{
	CHECK_CLIENT(args, PJRT_Client_PlatformName);
	args->platform_name = PLATFORM;
	args->platform_name_size = strlen(PLATFORM);
	return NULL;
}

static PJRT_Error *Client_PlatformVersion(
	PJRT_Client_PlatformVersion_Args *args)
{
	CHECK_CLIENT(args, PJRT_Client_PlatformVersion);
	args->platform_version = PLATFORM_VERSION;
	args->platform_version_size = strlen(PLATFORM_VERSION);
	return NULL;
}

static PJRT_Error *Client_ProcessIndex(PJRT_Client_ProcessIndex_Args *args)
{
	CHECK_CLIENT(args, PJRT_Client_ProcessIndex);
	args->process_index = 0;
	return NULL;
}

static PJRT_Error *Client_Devices(PJRT_Client_Devices_Args *args)
{
	CHECK_CLIENT(args, PJRT_Client_Devices);
	args->devices = args->client->devices;
	args->num_devices = 1;
	return NULL;
}

static PJRT_Error *Client_AddressableDevices(
	PJRT_Client_AddressableDevices_Args *args)
{
	CHECK_CLIENT(args, PJRT_Client_AddressableDevices);
	args->addressable_devices = args->client->devices;
	args->num_addressable_devices = 1;
	return NULL;
}

static PJRT_Error *Client_LookupDevice(PJRT_Client_LookupDevice_Args *args)
{
	CHECK_CLIENT(args, PJRT_Client_LookupDevice);
	if (args->id != 0)
		return plugin_error(PJRT_Error_Code_INVALID_ARGUMENT,
				    "PJRT_Client_LookupDevice: no device %d "
				    "(there is one, 0)",
				    args->id);
	args->device = &args->client->device;
	return NULL;
}

static PJRT_Error *Client_LookupAddressableDevice(
	PJRT_Client_LookupAddressableDevice_Args *args)
{
	CHECK_CLIENT(args, PJRT_Client_LookupAddressableDevice);
	if (args->local_hardware_id != 0)
		return plugin_error(PJRT_Error_Code_INVALID_ARGUMENT,
				    "PJRT_Client_LookupAddressableDevice: no "
				    "device with local hardware id %d",
				    args->local_hardware_id);
	args->addressable_device = &args->client->device;
	return NULL;
}

static PJRT_Error *Client_AddressableMemories(
	PJRT_Client_AddressableMemories_Args *args)
{
	CHECK_CLIENT(args, PJRT_Client_AddressableMemories);
	args->addressable_memories = args->client->memories;
	args->num_addressable_memories = 1;
	return NULL;
}

/* ------------------------------------------------- device descriptions */

#define CHECK_DESC(args, type)                                                \
	do {                                                                  \
		CHECK_ARGS(args, type);                                       \
		if (!(args)->device_description)                              \
			return plugin_error(PJRT_Error_Code_INVALID_ARGUMENT, \
					    #type ": no device description"); \
	} while (0)

static PJRT_Error *DeviceDescription_Id(PJRT_DeviceDescription_Id_Args *args)
{
	CHECK_DESC(args, PJRT_DeviceDescription_Id);
	args->id = args->device_description->id;
	return NULL;
}

static PJRT_Error *DeviceDescription_ProcessIndex(
	PJRT_DeviceDescription_ProcessIndex_Args *args)
{
	CHECK_DESC(args, PJRT_DeviceDescription_ProcessIndex);
	args->process_index = 0;
	return NULL;
}

/* Attributes JAX shows as the device's (device.NAME): none yet. */
static PJRT_Error *DeviceDescription_Attributes(
	PJRT_DeviceDescription_Attributes_Args *args)
{
	CHECK_DESC(args, PJRT_DeviceDescription_Attributes);
	args->attributes = NULL;
	args->num_attributes = 0;
	return NULL;
}

static PJRT_Error *DeviceDescription_Kind(
	PJRT_DeviceDescription_Kind_Args *args)
{
	CHECK_DESC(args, PJRT_DeviceDescription_Kind);
	args->device_kind = DEVICE_KIND;
	args->device_kind_size = strlen(DEVICE_KIND);
	return NULL;
}

static PJRT_Error *DeviceDescription_DebugString(
	PJRT_DeviceDescription_DebugString_Args *args)
{
	static const char s[] = DEVICE_KIND ":0";

	CHECK_DESC(args, PJRT_DeviceDescription_DebugString);
	args->debug_string = s;
	args->debug_string_size = strlen(s);
	return NULL;
}

static PJRT_Error *DeviceDescription_ToString(
	PJRT_DeviceDescription_ToString_Args *args)
{
	static const char s[] = DEVICE_KIND "Device(id=0)";

	CHECK_DESC(args, PJRT_DeviceDescription_ToString);
	args->to_string = s;
	args->to_string_size = strlen(s);
	return NULL;
}

/* ------------------------------------------------------------- devices */

#define CHECK_DEVICE(args, type)                                              \
	do {                                                                  \
		CHECK_ARGS(args, type);                                       \
		if (!(args)->device)                                          \
			return plugin_error(PJRT_Error_Code_INVALID_ARGUMENT, \
					    #type ": no device");             \
	} while (0)

static PJRT_Error *Device_GetDescription(PJRT_Device_GetDescription_Args *args)
{
	CHECK_DEVICE(args, PJRT_Device_GetDescription);
	args->device_description = &args->device->desc;
	return NULL;
}

static PJRT_Error *Device_IsAddressable(PJRT_Device_IsAddressable_Args *args)
{
	CHECK_DEVICE(args, PJRT_Device_IsAddressable);
	args->is_addressable = true;
	return NULL;
}

static PJRT_Error *Device_LocalHardwareId(
	PJRT_Device_LocalHardwareId_Args *args)
{
	CHECK_DEVICE(args, PJRT_Device_LocalHardwareId);
	args->local_hardware_id = args->device->desc.id;
	return NULL;
}

static PJRT_Error *Device_AddressableMemories(
	PJRT_Device_AddressableMemories_Args *args)
{
	CHECK_DEVICE(args, PJRT_Device_AddressableMemories);
	args->memories = args->device->memories;
	args->num_memories = 1;
	return NULL;
}

static PJRT_Error *Device_DefaultMemory(PJRT_Device_DefaultMemory_Args *args)
{
	CHECK_DEVICE(args, PJRT_Device_DefaultMemory);
	args->memory = &args->device->memory;
	return NULL;
}

/* ------------------------------------------------------------ memories */

#define CHECK_MEMORY(args, type)                                              \
	do {                                                                  \
		CHECK_ARGS(args, type);                                       \
		if (!(args)->memory)                                          \
			return plugin_error(PJRT_Error_Code_INVALID_ARGUMENT, \
					    #type ": no memory");             \
	} while (0)

static PJRT_Error *Memory_Id(PJRT_Memory_Id_Args *args)
{
	CHECK_MEMORY(args, PJRT_Memory_Id);
	args->id = 0;
	return NULL;
}

static PJRT_Error *Memory_Kind(PJRT_Memory_Kind_Args *args)
{
	CHECK_MEMORY(args, PJRT_Memory_Kind);
	args->kind = "device";
	args->kind_size = strlen("device");
	return NULL;
}

static PJRT_Error *Memory_Kind_Id(PJRT_Memory_Kind_Id_Args *args)
{
	CHECK_MEMORY(args, PJRT_Memory_Kind_Id);
	args->kind_id = 0;
	return NULL;
}

static PJRT_Error *Memory_DebugString(PJRT_Memory_DebugString_Args *args)
{
	static const char s[] = DEVICE_KIND ":0:device";

	CHECK_MEMORY(args, PJRT_Memory_DebugString);
	args->debug_string = s;
	args->debug_string_size = strlen(s);
	return NULL;
}

static PJRT_Error *Memory_ToString(PJRT_Memory_ToString_Args *args)
{
	static const char s[] = "MEMORY_SPACE(id=0, kind=device)";

	CHECK_MEMORY(args, PJRT_Memory_ToString);
	args->to_string = s;
	args->to_string_size = strlen(s);
	return NULL;
}

static PJRT_Error *Memory_AddressableByDevices(
	PJRT_Memory_AddressableByDevices_Args *args)
{
	CHECK_MEMORY(args, PJRT_Memory_AddressableByDevices);
	args->devices = args->memory->devices;
	args->num_devices = 1;
	return NULL;
}

void plugin_fill_client(PJRT_Api *api)
{
	api->PJRT_Client_Create = Client_Create;
	api->PJRT_Client_Destroy = Client_Destroy;
	api->PJRT_Client_PlatformName = Client_PlatformName;
	api->PJRT_Client_PlatformVersion = Client_PlatformVersion;
	api->PJRT_Client_ProcessIndex = Client_ProcessIndex;
	api->PJRT_Client_Devices = Client_Devices;
	api->PJRT_Client_AddressableDevices = Client_AddressableDevices;
	api->PJRT_Client_LookupDevice = Client_LookupDevice;
	api->PJRT_Client_LookupAddressableDevice =
		Client_LookupAddressableDevice;
	api->PJRT_Client_AddressableMemories = Client_AddressableMemories;
	api->PJRT_DeviceDescription_Id = DeviceDescription_Id;
	api->PJRT_DeviceDescription_ProcessIndex =
		DeviceDescription_ProcessIndex;
	api->PJRT_DeviceDescription_Attributes = DeviceDescription_Attributes;
	api->PJRT_DeviceDescription_Kind = DeviceDescription_Kind;
	api->PJRT_DeviceDescription_DebugString =
		DeviceDescription_DebugString;
	api->PJRT_DeviceDescription_ToString = DeviceDescription_ToString;
	api->PJRT_Device_GetDescription = Device_GetDescription;
	api->PJRT_Device_IsAddressable = Device_IsAddressable;
	api->PJRT_Device_LocalHardwareId = Device_LocalHardwareId;
	api->PJRT_Device_AddressableMemories = Device_AddressableMemories;
	api->PJRT_Device_DefaultMemory = Device_DefaultMemory;
	api->PJRT_Memory_Id = Memory_Id;
	api->PJRT_Memory_Kind = Memory_Kind;
	api->PJRT_Memory_Kind_Id = Memory_Kind_Id;
	api->PJRT_Memory_DebugString = Memory_DebugString;
	api->PJRT_Memory_ToString = Memory_ToString;
	api->PJRT_Memory_AddressableByDevices = Memory_AddressableByDevices;
}
