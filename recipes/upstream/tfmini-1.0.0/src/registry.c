/*
 * The device registry and the plugin loader: dlopen, the version
 * handshake, initialize, attributes. Everything a plugin hands us is
 * checked before use, so a broken plugin gives a message, not a crash.
 */
#include "core.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct tfm_device *registry[TFM_MAX_DEVICE_TYPES];
static size_t registry_nr;

int tfm_fail(struct tfm_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	e->bad_value = 0;
	return -1;
}

int tfm_bad_value(struct tfm_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	e->bad_value = 1;
	return -1;
}

size_t tfm_device_types(void)
{
	return registry_nr;
}

struct tfm_device *tfm_device_at(size_t i)
{
	return i < registry_nr ? registry[i] : NULL;
}

struct tfm_device *tfm_device_find(const char *name)
{
	size_t i;

	for (i = 0; i < registry_nr; i++)
		if (!strcmp(registry[i]->name, name))
			return registry[i];
	return NULL;
}

static struct tfm_device *find_by_path(const char *path)
{
	size_t i;

	for (i = 0; i < registry_nr; i++)
		if (registry[i]->library_path &&
		    !strcmp(registry[i]->library_path, path))
			return registry[i];
	return NULL;
}

static int valid_name(const char *name)
{
	size_t n = strlen(name);

	return n && n <= TFM_MAX_NAME &&
	       strspn(name, "abcdefghijklmnopqrstuvwxyz"
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == n;
}

int tfm_device_parse(const char *spec, struct tfm_device **dev, int *index,
		     struct tfm_err *e)
{
	char name[TFM_MAX_NAME + 1];
	size_t n = strcspn(spec, ":");
	char *end;
	long idx = 0;

	*dev = NULL;
	if (n <= TFM_MAX_NAME) {
		memcpy(name, spec, n);
		name[n] = '\0';
		*dev = tfm_device_find(name);
	}
	if (!*dev)
		return tfm_bad_value(e, "tfmini: unknown device '%s'", spec);
	if (spec[n] == ':') {
		idx = strtol(spec + n + 1, &end, 10);
		if (end == spec + n + 1 || *end || idx < 0)
			return tfm_bad_value(e, "tfmini: bad device '%s'", spec);
	}
	if (idx >= (*dev)->num_devices)
		return tfm_bad_value(e, "tfmini: no device '%s': '%s' has %d",
				spec, (*dev)->name, (*dev)->num_devices);
	*index = (int)idx;
	return 0;
}

/* Copy err's message into out and destroy err. */
static void take_message(const TFM_DeviceApi *api, TFM_Error *err, char *out,
			 size_t n)
{
	TFM_Error_Message_Args m = TFM_ARGS(TFM_Error_Message_Args);
	TFM_Error_Destroy_Args x = TFM_ARGS(TFM_Error_Destroy_Args);

	m.error = err;
	api->error_message(&m);
	snprintf(out, n, "%s", m.message ? m.message : "(no message)");
	x.error = err;
	api->error_destroy(&x);
}

int tfm_plugin_error(struct tfm_device *d, TFM_Error *err, const char *what,
		     struct tfm_err *e)
{
	char msg[512];

	take_message(d->api, err, msg, sizeof(msg));
	return tfm_fail(e, "tfmini: %s: %s: %s", d->name, what, msg);
}

static void device_free(struct tfm_device *d)
{
	if (!d)
		return;
	free(d->library_path);
	free(d->plugin_name);
	free(d->plugin_version);
	free(d->isa);
	free(d->note);
	free(d);
}

/*
 * Name a plugin for messages: "plugin 'm1' (/x/libm1.so)", or
 * "built-in plugin 'm1'". Before a plugin has named itself, its file
 * name stands in for its name.
 */
static void describe(char *out, size_t n, const char *name, const char *path)
{
	if (!name && path)
		name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (path)
		snprintf(out, n, "plugin '%s' (%s)", name, path);
	else
		snprintf(out, n, "built-in plugin '%s'", name ? name : "?");
}

/* The version handshake and the 1.0 table size, before any call. */
static int check_table(const TFM_DeviceApi *api, const char *who,
		       struct tfm_err *e)
{
	size_t need = TFM_STRUCT_SIZE(TFM_DeviceApi, api_version_minor);

	if (!api)
		return tfm_fail(e, "tfmini: %s: %s returned NULL", who,
				TFM_GET_DEVICE_API_SYMBOL);
	if (api->struct_size < need)
		goto too_small;
	if (api->api_version_major != TFM_API_VERSION_MAJOR ||
	    api->api_version_minor < 0 ||
	    api->api_version_minor > TFM_API_MINOR_MAX)
		return tfm_fail(e, "tfmini: %s has device API %d.%d, "
				"this tfmini supports %d.0-%d.%d", who,
				api->api_version_major, api->api_version_minor,
				TFM_API_VERSION_MAJOR, TFM_API_VERSION_MAJOR,
				TFM_API_MINOR_MAX);
	need = TFM_DeviceApi_STRUCT_SIZE;
	if (api->struct_size < need)
		goto too_small;
	return 0;
too_small:
	return tfm_fail(e, "tfmini: %s: device API table is too small "
			"(struct_size %zu, API 1.0 needs %zu)", who,
			api->struct_size, need);
}

#define NEED_FN(field) { offsetof(TFM_DeviceApi, field), #field }

static int check_functions(const TFM_DeviceApi *api, const char *who,
			   struct tfm_err *e)
{
	static const struct { size_t off; const char *name; } fns[] = {
		NEED_FN(error_destroy), NEED_FN(error_message),
		NEED_FN(plugin_initialize),
		NEED_FN(plugin_attributes), NEED_FN(device_count),
		NEED_FN(buffer_alloc), NEED_FN(buffer_free),
		NEED_FN(buffer_copy_from_host),
		NEED_FN(buffer_copy_to_host),
		NEED_FN(kernel_lookup), NEED_FN(kernel_execute),
	};
	size_t i;
	void (*fn)(void);

	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		memcpy(&fn, (const char *)api + fns[i].off, sizeof(fn));
		if (!fn)
			return tfm_fail(e, "tfmini: %s: device API table has "
					"no '%s'", who, fns[i].name);
	}
	return 0;
}

/* Initialize the plugin, then read what it says about itself. */
static int start_plugin(struct tfm_device *d, const char *who,
			struct tfm_err *e)
{
	TFM_Plugin_Initialize_Args init = TFM_ARGS(TFM_Plugin_Initialize_Args);
	TFM_Plugin_Attributes_Args attr = TFM_ARGS(TFM_Plugin_Attributes_Args);
	TFM_Device_Count_Args count = TFM_ARGS(TFM_Device_Count_Args);
	TFM_Error *err;
	char msg[512];

	if ((err = d->api->plugin_initialize(&init)) ||
	    (err = d->api->plugin_attributes(&attr)) ||
	    (err = d->api->device_count(&count))) {
		take_message(d->api, err, msg, sizeof(msg));
		return tfm_fail(e, "tfmini: %s: cannot start: %s", who, msg);
	}
	if (!attr.name || !attr.isa || count.num_devices < 0)
		return tfm_fail(e, "tfmini: %s: attributes give no name or isa",
				who);
	d->plugin_name = strdup(attr.name);
	d->plugin_version = strdup(attr.version ? attr.version : "");
	d->isa = strdup(attr.isa);
	d->note = attr.note ? strdup(attr.note) : NULL;
	if (!d->plugin_name || !d->plugin_version || !d->isa ||
	    (attr.note && !d->note))
		return tfm_fail(e, "tfmini: %s: out of memory", who);
	d->num_devices = count.num_devices;
	if (!d->name[0]) {
		if (!valid_name(attr.name))
			return tfm_fail(e, "tfmini: %s: bad device name '%s'",
					who, attr.name);
		strcpy(d->name, attr.name);
	}
	return 0;
}

static int check_collision(const char *name, const char *who,
			   struct tfm_err *e)
{
	struct tfm_device *old = tfm_device_find(name);

	if (!old)
		return 0;
	if (old->library_path)
		return tfm_fail(e, "tfmini: %s skipped: device '%s' is "
				"already registered by %s", who, name,
				old->library_path);
	return tfm_fail(e, "tfmini: %s skipped: device '%s' is already "
			"registered (built-in)", who, name);
}

/* path is the real path, for the registry; shown is the path as given. */
static int register_as(const char *name, const char *path, const char *shown,
		       void *handle, const TFM_DeviceApi *api,
		       struct tfm_err *e)
{
	struct tfm_device *d;
	char who[PATH_MAX + 64];

	describe(who, sizeof(who), name, shown);
	if (name && !valid_name(name))
		return tfm_fail(e, "tfmini: %s: bad device name", who);
	if (registry_nr == TFM_MAX_DEVICE_TYPES)
		return tfm_fail(e, "tfmini: %s: too many plugins", who);
	if ((name && check_collision(name, who, e)) ||
	    check_table(api, who, e) || check_functions(api, who, e))
		return -1;
	d = calloc(1, sizeof(*d));
	if (!d)
		return tfm_fail(e, "tfmini: %s: out of memory", who);
	if (name)
		strcpy(d->name, name);
	d->api = api;
	d->api_major = api->api_version_major;
	d->api_minor = api->api_version_minor;
	d->builtin = !path;
	d->handle = handle;
	if ((path && !(d->library_path = strdup(path))) ||
	    start_plugin(d, who, e) ||
	    (!name && check_collision(d->name, who, e))) {
		device_free(d);
		return -1;
	}
	registry[registry_nr++] = d;
	return 0;
}

int tfm_register(const char *name, const char *path, void *handle,
		 const TFM_DeviceApi *api, struct tfm_err *e)
{
	return register_as(name, path, path, handle, api, e);
}

int tfm_load_plugin(const char *name, const char *path,
		    const char **registered, struct tfm_err *e)
{
	char real[PATH_MAX], who[PATH_MAX + 64];
	struct tfm_device *old;
	TFM_GetDeviceApi_Fn *get;
	void *handle, *sym;

	describe(who, sizeof(who), name, path);
	if (!realpath(path, real))
		return tfm_fail(e, "tfmini: %s: cannot load: %s", who,
				strerror(errno));
	if ((old = find_by_path(real))) {
		if (name && strcmp(name, old->name))
			return tfm_fail(e, "tfmini: %s skipped: already "
					"registered as device '%s'", who,
					old->name);
		*registered = old->name;
		return 0;
	}
	if (name && check_collision(name, who, e))
		return -1;
	/* A name without a slash would make dlopen search the library path. */
	handle = dlopen(strchr(path, '/') ? path : real, RTLD_NOW | RTLD_LOCAL);
	if (!handle)
		return tfm_fail(e, "tfmini: %s: cannot load: %s", who, dlerror());
	sym = dlsym(handle, TFM_GET_DEVICE_API_SYMBOL);
	if (!sym) {
		tfm_fail(e, "tfmini: %s: no symbol '%s'", who,
			 TFM_GET_DEVICE_API_SYMBOL);
		dlclose(handle);
		return -1;
	}
	memcpy(&get, &sym, sizeof(get));
	if (register_as(name, real, path, handle, get(), e))
		return -1; /* its code may have run: never dlclose it */
	*registered = registry[registry_nr - 1]->name;
	return 0;
}

int tfm_registry_init(void (*warn)(const char *msg, void *ctx), void *ctx,
		      struct tfm_err *e)
{
	(void)warn;
	(void)ctx;
	if (registry_nr)
		return 0; /* a second import after a failed one */
	return tfm_register("cpu", NULL, NULL, tfm_cpu_api(), e);
}
