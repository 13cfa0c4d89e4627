/*
 * {{name}}: a PJRT plugin for JAX. api.c is GetPjrtApi, errors and
 * events; client.c the client, its device and the device's memory;
 * buffer.c arrays on the device. This header is what they share.
 *
 * The device's memory is host memory: JAX can place arrays on it and
 * read them back, but the plugin compiles nothing, so every PJRT function
 * it does not implement answers with an UNIMPLEMENTED error naming
 * itself (api.c). Each argument struct is checked against the size this
 * header gives before it is read, so an older caller gets an error
 * rather than a read past its struct.
 */
#ifndef {{MODULE}}_H
#define {{MODULE}}_H

#include <stddef.h>
#include <stdint.h>

#include "xla/pjrt/c/pjrt_c_api.h"

#define PLATFORM "{{module}}" /* jax.devices("{{module}}") */
#define PLATFORM_VERSION "{{name}} 0.1.0"
#define DEVICE_KIND "{{MODULE}}"

struct PJRT_Error {
	PJRT_Error_Code code;
	char *msg; /* owned, except in the static out-of-memory error */
};

/* Every event is ready when made: this device copies synchronously. */
struct PJRT_Event {
	PJRT_Error *error; /* owned; NULL: succeeded */
};

struct PJRT_DeviceDescription {
	int id;
};

struct PJRT_Memory {
	PJRT_Device *devices[1]; /* the device it belongs to */
};

/* Your device: its handle, queues and state go here. */
struct PJRT_Device {
	PJRT_DeviceDescription desc;
	PJRT_Memory memory;
	PJRT_Memory *memories[1];
};

struct PJRT_Client {
	PJRT_Device device; /* one device */
	PJRT_Device *devices[1];
	PJRT_Memory *memories[1];
};

/* A float32 array in the device's memory, dense and row-major. */
struct PJRT_Buffer {
	size_t ndims;
	int64_t *dims;           /* ndims entries (NULL for a scalar) */
	int64_t *minor_to_major; /* ndims - 1, ..., 0: row-major */
	size_t nbytes;
	void *data; /* NULL when nbytes is 0, or deleted */
	int deleted;
	PJRT_Device *device;
};

/* api.c: a new error (the message printf-style), events */
PJRT_Error *plugin_error(PJRT_Error_Code code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
PJRT_Event *plugin_event_ready(void);

/* An argument struct missing, or too small for this header's fields. */
#define CHECK_ARGS(args, type)                                                 \
	do {                                                                   \
		if (!(args))                                                   \
			return plugin_error(PJRT_Error_Code_INVALID_ARGUMENT,  \
					    #type ": no arguments");           \
		if ((args)->struct_size < type##_Args_STRUCT_SIZE)             \
			return plugin_error(PJRT_Error_Code_INVALID_ARGUMENT,  \
					    #type ": argument struct_size %zu " \
						  "is smaller than %zu",        \
					    (size_t)(args)->struct_size,       \
					    (size_t)type##_Args_STRUCT_SIZE);  \
	} while (0)

/* client.c, buffer.c: fill in the slots they implement */
void plugin_fill_client(PJRT_Api *api);
void plugin_fill_buffer(PJRT_Api *api);

#endif
