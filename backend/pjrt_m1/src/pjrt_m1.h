/*
 * pjrt_m1: the m1 backend as a PJRT plugin for JAX. Its device memory
 * is host memory: JAX can place arrays on it and read them back, but it
 * compiles nothing, so every PJRT function about programs and
 * executables answers with an UNIMPLEMENTED error naming itself.
 *
 * Built against xla/pjrt/c/pjrt_c_api.h from a released distribution
 * (tensorflow 2.21.0's wheel: PJRT C API 0.90). Every argument struct is
 * checked against the size this header gives before it is read, so an
 * older caller gets an error rather than a read past its struct; a newer
 * caller's larger structs are fine (new fields are appended).
 */
#ifndef PJRT_M1_H
#define PJRT_M1_H

#include <stddef.h>
#include <stdint.h>

#include "xla/pjrt/c/pjrt_c_api.h"

#define M1_PLATFORM "m1"
#define M1_PLATFORM_VERSION "m1 1.0.0"
#define M1_KIND "M1"
#define M1_MAX_DEVICES 64
#define M1_ALIGN 64

struct PJRT_Error {
	PJRT_Error_Code code;
	char *msg; /* owned, except in the static out-of-memory error */
};

/* Every event is ready when made: m1 copies synchronously. */
struct PJRT_Event {
	PJRT_Error *error; /* owned; NULL: succeeded */
};

struct PJRT_DeviceDescription {
	int id;
	char debug[32];     /* "M1:0" */
	char to_string[48]; /* "M1Device(id=0)" */
	PJRT_NamedValue attrs[2];
};

struct PJRT_Memory {
	int id;
	PJRT_Device *device;
	PJRT_Device *devices[1]; /* the one device it is addressable by */
	char debug[32];
	char to_string[48];
};

struct PJRT_Device {
	PJRT_DeviceDescription desc;
	PJRT_Client *client;
	PJRT_Memory memory;
	PJRT_Memory *memories[1];
};

struct PJRT_Client {
	int ndevices;
	PJRT_Device devices[M1_MAX_DEVICES];
	PJRT_Device *device_list[M1_MAX_DEVICES];
	PJRT_Memory *memory_list[M1_MAX_DEVICES];
};

struct PJRT_Buffer {
	PJRT_Buffer_Type type;
	size_t ndims;
	int64_t *dims;           /* ndims entries (NULL for a scalar) */
	int64_t *minor_to_major; /* ndims - 1, ..., 0: row-major */
	size_t nbytes;
	void *data; /* M1_ALIGN-aligned; NULL when nbytes is 0 or deleted */
	int deleted;
	int64_t external_refs;
	PJRT_Device *device;
};

/* errors.c */
PJRT_Error *m1_error(PJRT_Error_Code code, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
PJRT_Error *m1_error_copy(const PJRT_Error *err);
void m1_error_free(PJRT_Error *err);
PJRT_Event *m1_event_ready(PJRT_Error *error);

/* An argument struct too small for this header's fields. */
#define M1_CHECK_ARGS(args, type)                                              \
	do {                                                                   \
		if (!(args))                                                   \
			return m1_error(PJRT_Error_Code_INVALID_ARGUMENT,      \
					#type ": no arguments");               \
		if ((args)->struct_size < type##_Args_STRUCT_SIZE)             \
			return m1_error(PJRT_Error_Code_INVALID_ARGUMENT,      \
					#type ": argument struct_size %zu is " \
					      "smaller than %zu (PJRT %d.%d)", \
					(size_t)(args)->struct_size,           \
					(size_t)type##_Args_STRUCT_SIZE,       \
					PJRT_API_MAJOR, PJRT_API_MINOR);       \
	} while (0)

/* client.c */
void m1_fill_client(PJRT_Api *api);
const char *m1_isa(void);

/* buffer.c */
void m1_fill_buffer(PJRT_Api *api);
const char *m1_type_name(PJRT_Buffer_Type type);

#endif
