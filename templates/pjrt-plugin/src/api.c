/*
 * GetPjrtApi, errors and events. Every slot of PJRT_Api is filled: the
 * ones this plugin implements by client.c and buffer.c, every other one
 * by a stub that returns UNIMPLEMENTED naming the function. The list of
 * slots, slots.h, is generated from the header at build time
 * (gen-slots.sh), so a header with more functions gets stubs for them.
 * To implement one, write it and set it in plugin_fill_client or
 * plugin_fill_buffer: those run after the stubs are set.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "{{module}}.h"

#define EXPORT __attribute__((visibility("default")))

static PJRT_Error oom_error = { PJRT_Error_Code_RESOURCE_EXHAUSTED,
				"{{module}}: out of memory" };

PJRT_Error *plugin_error(PJRT_Error_Code code, const char *fmt, ...)
{
	PJRT_Error *err = malloc(sizeof(*err));
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!err || !(err->msg = strdup(msg))) {
		free(err);
		return &oom_error;
	}
	err->code = code;
	return err;
}

static void error_free(PJRT_Error *err)
{
	if (err && err != &oom_error) {
		free(err->msg);
		free(err);
	}
}

static void Error_Destroy(PJRT_Error_Destroy_Args *args)
{
	if (args && args->struct_size >= PJRT_Error_Destroy_Args_STRUCT_SIZE)
		error_free(args->error);
}

static void Error_Message(PJRT_Error_Message_Args *args)
{
	if (!args || args->struct_size < PJRT_Error_Message_Args_STRUCT_SIZE ||
	    !args->error)
		return;
	args->message = args->error->msg;
	args->message_size = strlen(args->error->msg);
}

static PJRT_Error *Error_GetCode(PJRT_Error_GetCode_Args *args)
{
	CHECK_ARGS(args, PJRT_Error_GetCode);
	args->code = args->error ? args->error->code : PJRT_Error_Code_OK;
	return NULL;
}

/* ------------------------------------------------------------- events */

/* A ready event that succeeded; NULL when out of memory. */
PJRT_Event *plugin_event_ready(void)
{
	return calloc(1, sizeof(PJRT_Event));
}

#define CHECK_EVENT(args, type)                                               \
	do {                                                                  \
		CHECK_ARGS(args, type);                                       \
		if (!(args)->event)                                           \
			return plugin_error(PJRT_Error_Code_INVALID_ARGUMENT, \
					    #type ": no event");              \
	} while (0)

static PJRT_Error *error_copy(const PJRT_Error *err)
{
	return err ? plugin_error(err->code, "%s", err->msg) : NULL;
}

static PJRT_Error *Event_Destroy(PJRT_Event_Destroy_Args *args)
{
	CHECK_EVENT(args, PJRT_Event_Destroy);
	error_free(args->event->error);
	free(args->event);
	return NULL;
}

static PJRT_Error *Event_IsReady(PJRT_Event_IsReady_Args *args)
{
	CHECK_EVENT(args, PJRT_Event_IsReady);
	args->is_ready = true;
	return NULL;
}

static PJRT_Error *Event_Error(PJRT_Event_Error_Args *args)
{
	CHECK_EVENT(args, PJRT_Event_Error);
	return error_copy(args->event->error);
}

static PJRT_Error *Event_Await(PJRT_Event_Await_Args *args)
{
	CHECK_EVENT(args, PJRT_Event_Await);
	return error_copy(args->event->error);
}

/* Ready already: the callback runs now and owns the error it is given. */
static PJRT_Error *Event_OnReady(PJRT_Event_OnReady_Args *args)
{
	CHECK_EVENT(args, PJRT_Event_OnReady);
	if (!args->callback)
		return plugin_error(PJRT_Error_Code_INVALID_ARGUMENT,
				    "PJRT_Event_OnReady: no callback");
	args->callback(error_copy(args->event->error), args->user_arg);
	return NULL;
}

/* ------------------------------------------------------------- plugin */

static PJRT_Error *Plugin_Initialize(PJRT_Plugin_Initialize_Args *args)
{
	CHECK_ARGS(args, PJRT_Plugin_Initialize);
	return NULL; /* your device: find and open it here */
}

static PJRT_Error *Plugin_Attributes(PJRT_Plugin_Attributes_Args *args)
{
	CHECK_ARGS(args, PJRT_Plugin_Attributes);
	args->attributes = NULL;
	args->num_attributes = 0;
	return NULL;
}

/* ------------------------------------------------------ every other one */

#define SLOT(name)                                                     \
	static PJRT_Error *stub_##name(name##_Args *args)              \
	{                                                              \
		(void)args;                                            \
		return plugin_error(PJRT_Error_Code_UNIMPLEMENTED,     \
				    #name ": not implemented by the "  \
					  "{{module}} PJRT plugin"); \
	}
#define VOID_SLOT(name) /* the error functions, implemented above */
#include "slots.h"
#undef SLOT
#undef VOID_SLOT

static PJRT_Api api;

/* At load time, before any caller can ask: no lock needed. */
__attribute__((constructor)) static void fill(void)
{
	api.struct_size = PJRT_Api_STRUCT_SIZE;
	api.extension_start = NULL;
	api.pjrt_api_version.struct_size = PJRT_Api_Version_STRUCT_SIZE;
	api.pjrt_api_version.extension_start = NULL;
	api.pjrt_api_version.major_version = PJRT_API_MAJOR;
	api.pjrt_api_version.minor_version = PJRT_API_MINOR;

#define SLOT(name) api.name = stub_##name;
#define VOID_SLOT(name)
#include "slots.h"
#undef SLOT
#undef VOID_SLOT

	api.PJRT_Error_Destroy = Error_Destroy;
	api.PJRT_Error_Message = Error_Message;
	api.PJRT_Error_GetCode = Error_GetCode;
	api.PJRT_Plugin_Initialize = Plugin_Initialize;
	api.PJRT_Plugin_Attributes = Plugin_Attributes;
	api.PJRT_Event_Destroy = Event_Destroy;
	api.PJRT_Event_IsReady = Event_IsReady;
	api.PJRT_Event_Error = Event_Error;
	api.PJRT_Event_Await = Event_Await;
	api.PJRT_Event_OnReady = Event_OnReady;
	plugin_fill_client(&api);
	plugin_fill_buffer(&api);
}

/* What JAX looks up with dlsym: the only symbol the library exports. */
EXPORT const PJRT_Api *GetPjrtApi(void);

const PJRT_Api *GetPjrtApi(void)
{
	return &api;
}
