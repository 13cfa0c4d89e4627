/*
 * tfmini device API, version 1.0: the C ABI between tfmini and a device
 * backend (a "plugin"), in the style of the PJRT C API.
 *
 * A plugin is a shared library that exports exactly one symbol:
 *
 *	const TFM_DeviceApi *TFM_GetDeviceApi(void);
 *
 * It returns a pointer to a constant table of function pointers that
 * stays valid for the life of the process. The same table can also be
 * linked into tfmini statically (a "built-in" backend).
 *
 * Versioning rules
 * ----------------
 * - The table carries api_version_major and api_version_minor. This
 *   header describes 1.0 (TFM_API_VERSION_MAJOR/MINOR below).
 * - A new MINOR version only ever APPENDS fields: to the end of the
 *   table and to the end of any struct. Fields are never removed,
 *   reordered, retyped or given a new meaning. Such a change needs a
 *   new MAJOR version, and tfmini refuses a plugin whose major version
 *   differs from its own.
 * - tfmini accepts a plugin whose minor version lies in a declared
 *   window (tfmini 1.0.0: minor 0 to 9). A newer minor loads; tfmini
 *   uses only the fields it knows.
 *
 * The struct_size rule
 * --------------------
 * Every struct, the table and the argument structs alike, begins with
 *
 *	size_t struct_size;  the size of the struct as its WRITER knew it
 *	void *extension;     a chain of TFM_Extension_Base, or NULL
 *
 * The writer (the caller for argument structs, the plugin for the
 * table) sets struct_size to the size its header says. The reader never
 * touches a field that struct_size does not cover: test with
 * TFM_STRUCT_HAS_FIELD(ptr, type, field) before using any field added
 * after 1.0, and refuse a struct smaller than its 1.0 size (the
 * <type>_STRUCT_SIZE constants below). This lets an old tfmini drive a
 * new plugin and a new tfmini drive an old one.
 *
 * Errors and ownership
 * --------------------
 * Functions return NULL on success or a TFM_Error owned by the plugin.
 * The caller reads it with error_message and must release it with
 * error_destroy. Strings a plugin returns (names, messages) are owned by
 * the plugin; names stay valid for the life of the process, an error's
 * message until error_destroy. Buffers are owned by the caller from
 * buffer_alloc to buffer_free. Kernels are owned by the plugin and stay
 * valid for the life of the process.
 *
 * Threads: tfmini calls a plugin from one thread at a time.
 */
#ifndef TFMINI_DEVICE_API_H
#define TFMINI_DEVICE_API_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TFM_API_VERSION_MAJOR 1
#define TFM_API_VERSION_MINOR 0

/* Size of type up to and including field: its size as of that field. */
#define TFM_STRUCT_SIZE(type, field) \
	(offsetof(type, field) + sizeof(((type *)0)->field))

/* Whether the struct at ptr, as its writer sized it, contains field. */
#define TFM_STRUCT_HAS_FIELD(ptr, type, field) \
	((ptr)->struct_size >= TFM_STRUCT_SIZE(type, field))

/* Define type_STRUCT_SIZE: the 1.0 size, ending at last_field. */
#define TFM_DEFINE_STRUCT_TRAITS(type, last_field) \
	enum { type##_STRUCT_SIZE = TFM_STRUCT_SIZE(type, last_field) }

/*
 * Extensions: optional, typed structs chained from any struct's
 * extension pointer. 1.0 defines no extension types; a reader skips
 * types it does not know.
 */
typedef struct TFM_Extension_Base {
	size_t struct_size;
	int type;                        /* what this extension is */
	struct TFM_Extension_Base *next; /* next in the chain, or NULL */
} TFM_Extension_Base;
TFM_DEFINE_STRUCT_TRAITS(TFM_Extension_Base, next);

typedef struct TFM_Error TFM_Error;   /* opaque, owned by the plugin */
typedef struct TFM_Buffer TFM_Buffer; /* opaque device memory */
typedef struct TFM_Kernel TFM_Kernel; /* opaque compiled op */

/* Element types. 1.0 has float32 only. */
typedef enum {
	TFM_DTYPE_INVALID = 0,
	TFM_DTYPE_F32 = 1,
} TFM_DType;

/* ---------------------------------------------------------------- errors */

typedef struct {
	size_t struct_size;
	void *extension;
	TFM_Error *error;    /* in */
	const char *message; /* out: NUL-terminated, owned by the error */
	size_t message_size; /* out: strlen(message) */
} TFM_Error_Message_Args;
TFM_DEFINE_STRUCT_TRAITS(TFM_Error_Message_Args, message_size);
typedef void TFM_Error_Message(TFM_Error_Message_Args *args);

typedef struct {
	size_t struct_size;
	void *extension;
	TFM_Error *error; /* in: freed; NULL is allowed */
} TFM_Error_Destroy_Args;
TFM_DEFINE_STRUCT_TRAITS(TFM_Error_Destroy_Args, error);
typedef void TFM_Error_Destroy(TFM_Error_Destroy_Args *args);

/* ---------------------------------------------------------------- plugin */

/* Called once, before anything else but the error functions. */
typedef struct {
	size_t struct_size;
	void *extension;
} TFM_Plugin_Initialize_Args;
TFM_DEFINE_STRUCT_TRAITS(TFM_Plugin_Initialize_Args, extension);
typedef TFM_Error *TFM_Plugin_Initialize(TFM_Plugin_Initialize_Args *args);

/* What the plugin is. Valid after a successful initialize. */
typedef struct {
	size_t struct_size;
	void *extension;
	const char *name;    /* out: device type name, e.g. "m1" */
	const char *version; /* out: the plugin's own version, e.g. "1.0.0" */
	const char *isa;     /* out: instruction set its kernels use:
				"scalar", "sse2", "avx2", "neon", ... */
	const char *note;    /* out: a remark for humans (e.g. why a
				requested ISA was not used), or NULL */
} TFM_Plugin_Attributes_Args;
TFM_DEFINE_STRUCT_TRAITS(TFM_Plugin_Attributes_Args, note);
typedef TFM_Error *TFM_Plugin_Attributes(TFM_Plugin_Attributes_Args *args);

/* ---------------------------------------------------------------- devices */

typedef struct {
	size_t struct_size;
	void *extension;
	int num_devices; /* out: devices are numbered 0 .. num_devices-1 */
} TFM_Device_Count_Args;
TFM_DEFINE_STRUCT_TRAITS(TFM_Device_Count_Args, num_devices);
typedef TFM_Error *TFM_Device_Count(TFM_Device_Count_Args *args);

/* ---------------------------------------------------------------- buffers */

typedef struct {
	size_t struct_size;
	void *extension;
	int device;          /* in */
	size_t size;         /* in: bytes; 0 is allowed */
	TFM_Buffer *buffer;  /* out: owned by the caller until buffer_free */
} TFM_Buffer_Alloc_Args;
TFM_DEFINE_STRUCT_TRAITS(TFM_Buffer_Alloc_Args, buffer);
typedef TFM_Error *TFM_Buffer_Alloc(TFM_Buffer_Alloc_Args *args);

typedef struct {
	size_t struct_size;
	void *extension;
	TFM_Buffer *buffer; /* in: freed; NULL is allowed */
} TFM_Buffer_Free_Args;
TFM_DEFINE_STRUCT_TRAITS(TFM_Buffer_Free_Args, buffer);
typedef TFM_Error *TFM_Buffer_Free(TFM_Buffer_Free_Args *args);

typedef struct {
	size_t struct_size;
	void *extension;
	TFM_Buffer *buffer; /* in: destination */
	size_t offset;      /* in: byte offset into buffer */
	const void *src;    /* in: host memory */
	size_t size;        /* in: bytes; offset + size must fit the buffer */
} TFM_Buffer_CopyFromHost_Args;
TFM_DEFINE_STRUCT_TRAITS(TFM_Buffer_CopyFromHost_Args, size);
typedef TFM_Error *TFM_Buffer_CopyFromHost(TFM_Buffer_CopyFromHost_Args *args);

typedef struct {
	size_t struct_size;
	void *extension;
	const TFM_Buffer *buffer; /* in: source */
	size_t offset;            /* in: byte offset into buffer */
	void *dst;                /* in: host memory */
	size_t size;              /* in: bytes; offset + size must fit */
} TFM_Buffer_CopyToHost_Args;
TFM_DEFINE_STRUCT_TRAITS(TFM_Buffer_CopyToHost_Args, size);
typedef TFM_Error *TFM_Buffer_CopyToHost(TFM_Buffer_CopyToHost_Args *args);

/* ---------------------------------------------------------------- kernels */

/*
 * Ops of 1.0, by name. Shapes are checked by tfmini before execute, and
 * should be checked again by the plugin:
 *   "add", "mul"  out = a op b, elementwise; a, b, out of one shape
 *   "scale"       out = a * scalars[0], elementwise
 *   "relu"        out = a if a > 0 else +0.0 (NaN gives +0.0)
 *   "sum"         out (rank 0, one element) = the sum of all of a
 *   "matmul"      out[m,n] = sum over k of a[m,k] * b[k,n]; rank 2
 * add, mul, scale and relu are exact IEEE float32 operations (no fused
 * multiply-add): every backend must give the same bits as tfmini's
 * reference kernels. sum and matmul may differ by their order of
 * summation; see docs for the tolerance.
 */
typedef struct {
	size_t struct_size;
	void *extension;
	const char *op_name; /* in: e.g. "add" */
	TFM_Kernel *kernel;  /* out: owned by the plugin; an error if the
				op is not supported */
} TFM_Kernel_Lookup_Args;
TFM_DEFINE_STRUCT_TRAITS(TFM_Kernel_Lookup_Args, kernel);
typedef TFM_Error *TFM_Kernel_Lookup(TFM_Kernel_Lookup_Args *args);

/* A tensor argument: a buffer and its layout (contiguous, row-major). */
typedef struct {
	size_t struct_size;
	void *extension;
	TFM_Buffer *buffer;
	TFM_DType dtype;
	size_t rank;          /* 0 for a scalar */
	const int64_t *dims;  /* rank entries, each >= 0 */
} TFM_Tensor;
TFM_DEFINE_STRUCT_TRAITS(TFM_Tensor, dims);

typedef struct {
	size_t struct_size;
	void *extension;
	TFM_Kernel *kernel;                 /* in: from kernel_lookup */
	int device;                         /* in */
	const TFM_Tensor *const *inputs;    /* in */
	size_t num_inputs;
	const TFM_Tensor *const *outputs;   /* in: allocated by the caller */
	size_t num_outputs;
	const float *scalars;               /* in: scalar operands ("scale") */
	size_t num_scalars;
} TFM_Kernel_Execute_Args;
TFM_DEFINE_STRUCT_TRAITS(TFM_Kernel_Execute_Args, num_scalars);
typedef TFM_Error *TFM_Kernel_Execute(TFM_Kernel_Execute_Args *args);

/* ---------------------------------------------------------------- table */

typedef struct TFM_DeviceApi {
	size_t struct_size;
	void *extension;

	int api_version_major; /* the TFM_API_VERSION_MAJOR it was built with */
	int api_version_minor;

	TFM_Error_Destroy *error_destroy;
	TFM_Error_Message *error_message;

	TFM_Plugin_Initialize *plugin_initialize;
	TFM_Plugin_Attributes *plugin_attributes;

	TFM_Device_Count *device_count;

	TFM_Buffer_Alloc *buffer_alloc;
	TFM_Buffer_Free *buffer_free;
	TFM_Buffer_CopyFromHost *buffer_copy_from_host;
	TFM_Buffer_CopyToHost *buffer_copy_to_host;

	TFM_Kernel_Lookup *kernel_lookup;
	TFM_Kernel_Execute *kernel_execute;

	/* 1.0 ends here. Later minor versions append fields below. */
} TFM_DeviceApi;
TFM_DEFINE_STRUCT_TRAITS(TFM_DeviceApi, kernel_execute);

/* The one symbol a plugin exports. */
#if defined(__GNUC__)
#define TFM_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define TFM_PLUGIN_EXPORT
#endif
typedef const TFM_DeviceApi *TFM_GetDeviceApi_Fn(void);
#define TFM_GET_DEVICE_API_SYMBOL "TFM_GetDeviceApi"

#ifdef __cplusplus
}
#endif

#endif
