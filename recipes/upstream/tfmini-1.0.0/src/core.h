/*
 * tfmini core: the device registry, the plugin loader and tensors. Plain
 * C, no Python: module.c turns these into the Python API.
 *
 * Functions return 0 or -1; on -1 they have written one line to the
 * caller's struct tfm_err, starting with "tfmini: ".
 */
#ifndef TFMINI_CORE_H
#define TFMINI_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "tfmini/device_api.h"

#define TFM_MAX_RANK 8
#define TFM_MAX_DEVICE_TYPES 32
#define TFM_MAX_NAME 32
/* Plugins with major TFM_API_VERSION_MAJOR and minor up to this load. */
#define TFM_API_MINOR_MAX 9

struct tfm_err {
	char msg[1024]; /* "tfmini: ...", NUL-terminated */
	int bad_value;  /* 1: the caller's arguments were wrong (ValueError) */
};

/* Fill e->msg like snprintf; returns -1. */
int tfm_fail(struct tfm_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The same, for a wrong argument: sets e->bad_value. */
int tfm_bad_value(struct tfm_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* An argument struct with its struct_size set and everything else zero. */
#define TFM_ARGS(type) { .struct_size = type##_STRUCT_SIZE }

enum tfm_op {
	TFM_OP_ADD,
	TFM_OP_MUL,
	TFM_OP_SCALE,
	TFM_OP_RELU,
	TFM_OP_SUM,
	TFM_OP_MATMUL,
	TFM_OP_COUNT
};

extern const char *const tfm_op_names[TFM_OP_COUNT];

/* One registered backend: a device type with num_devices devices. */
struct tfm_device {
	char name[TFM_MAX_NAME + 1]; /* device type, as in "m1:0" */
	char *library_path;   /* owned; the plugin's real path; NULL: built in */
	void *handle;         /* dlopen handle, NULL if built in */
	const TFM_DeviceApi *api; /* the plugin's table; never freed */
	int api_major;        /* the plugin's API version */
	int api_minor;
	int builtin;          /* 1: linked into tfmini */
	int num_devices;
	char *plugin_name;    /* owned; the name the plugin gives itself */
	char *plugin_version; /* owned */
	char *isa;            /* owned; e.g. "avx2" */
	char *note;           /* owned; NULL if the plugin gave none */
	TFM_Kernel *kernels[TFM_OP_COUNT]; /* looked up on first use */
};

/* The reference CPU backend, always registered first as "cpu". */
const TFM_DeviceApi *tfm_cpu_api(void);

/*
 * Register the built-in backends; called once at import. Fails only if
 * the reference "cpu" backend cannot start. Any other built-in backend
 * that fails is left out, and warn() is called with the reason.
 */
int tfm_registry_init(void (*warn)(const char *msg, void *ctx), void *ctx,
		      struct tfm_err *e);

/*
 * Register the backend whose table is api. path is the plugin's real
 * path (NULL for a built-in one), handle its dlopen handle. Checks the
 * version and struct sizes, initializes the plugin and reads its
 * attributes. name may be NULL: the plugin's own name is used.
 */
int tfm_register(const char *name, const char *path, void *handle,
		 const TFM_DeviceApi *api, struct tfm_err *e);

/*
 * dlopen the plugin at path and register it as name (NULL: its own).
 * If the same library is already registered under that name, does
 * nothing. *registered receives the device type name (borrowed).
 */
int tfm_load_plugin(const char *name, const char *path,
		    const char **registered, struct tfm_err *e);

size_t tfm_device_types(void);
struct tfm_device *tfm_device_at(size_t i);
struct tfm_device *tfm_device_find(const char *name);
/* Parse "m1", "m1:0"; *index receives the ordinal. */
int tfm_device_parse(const char *spec, struct tfm_device **dev, int *index,
		     struct tfm_err *e);

/* Describe a plugin error (destroying it) as "tfmini: NAME: WHAT: MSG". */
int tfm_plugin_error(struct tfm_device *d, TFM_Error *err, const char *what,
		     struct tfm_err *e);

/* A float32 tensor in a device buffer. */
struct tfm_tensor {
	struct tfm_device *dev; /* borrowed from the registry */
	int index;              /* device ordinal */
	TFM_Buffer *buf;        /* owned */
	size_t rank;
	int64_t dims[TFM_MAX_RANK];
	size_t count;           /* number of elements */
};

/* Element count of a shape, or -1 with an error if it overflows. */
int tfm_shape_count(size_t rank, const int64_t *dims, size_t *count,
		    struct tfm_err *e);
/* Allocate an uninitialized tensor; *out is owned by the caller. */
int tfm_tensor_new(struct tfm_device *dev, int index, size_t rank,
		   const int64_t *dims, struct tfm_tensor **out,
		   struct tfm_err *e);
/* Free the buffer and the tensor; accepts NULL. */
void tfm_tensor_free(struct tfm_tensor *t);
int tfm_tensor_write(struct tfm_tensor *t, const float *src,
		     struct tfm_err *e);
int tfm_tensor_read(const struct tfm_tensor *t, float *dst,
		    struct tfm_err *e);
/* A copy of t on another device. */
int tfm_tensor_to(const struct tfm_tensor *t, struct tfm_device *dev,
		  int index, struct tfm_tensor **out, struct tfm_err *e);
/* Run op on the device of the inputs; b is NULL for unary ops. */
int tfm_tensor_op(enum tfm_op op, const struct tfm_tensor *a,
		  const struct tfm_tensor *b, float scalar,
		  struct tfm_tensor **out, struct tfm_err *e);

#endif
