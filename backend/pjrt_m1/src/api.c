/*
 * GetPjrtApi, errors and events. Every slot of PJRT_Api is filled: the
 * ones m1 implements by client.c and buffer.c, every other one by a stub
 * that returns UNIMPLEMENTED naming the function. The list of slots,
 * slots.h, is generated from the header at build time (gen-slots.sh), so
 * a header with more functions gets stubs for them too.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pjrt_m1.h"

#define M1_EXPORT __attribute__((visibility("default")))

static PJRT_Error oom_error = { PJRT_Error_Code_RESOURCE_EXHAUSTED,
				"m1: out of memory" };

PJRT_Error *m1_error(PJRT_Error_Code code, const char *fmt, ...)
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

PJRT_Error *m1_error_copy(const PJRT_Error *err)
{
	return err ? m1_error(err->code, "%s", err->msg) : NULL;
}

void m1_error_free(PJRT_Error *err)
{
	if (err && err != &oom_error) {
		free(err->msg);
		free(err);
	}
}

static void m1_Error_Destroy(PJRT_Error_Destroy_Args *args)
{
	if (args && args->struct_size >= PJRT_Error_Destroy_Args_STRUCT_SIZE)
		m1_error_free(args->error);
}

static void m1_Error_Message(PJRT_Error_Message_Args *args)
{
	if (!args || args->struct_size < PJRT_Error_Message_Args_STRUCT_SIZE ||
	    !args->error)
		return;
	args->message = args->error->msg;
	args->message_size = strlen(args->error->msg);
}

static PJRT_Error *m1_Error_GetCode(PJRT_Error_GetCode_Args *args)
{
	M1_CHECK_ARGS(args, PJRT_Error_GetCode);
	args->code = args->error ? args->error->code : PJRT_Error_Code_OK;
	return NULL;
}

/* Events: ready when made; NULL only when out of memory. */
PJRT_Event *m1_event_ready(PJRT_Error *error)
{
	PJRT_Event *ev = malloc(sizeof(*ev));

	if (!ev) {
		m1_error_free(error);
		return NULL;
	}
	ev->error = error;
	return ev;
}

#define M1_CHECK_EVENT(args, type)                                        \
	do {                                                              \
		M1_CHECK_ARGS(args, type);                                \
		if (!(args)->event)                                       \
			return m1_error(PJRT_Error_Code_INVALID_ARGUMENT, \
					#type ": no event");              \
	} while (0)

static PJRT_Error *m1_Event_Destroy(PJRT_Event_Destroy_Args *args)
{
	M1_CHECK_EVENT(args, PJRT_Event_Destroy);
	m1_error_free(args->event->error);
	free(args->event);
	return NULL;
}

static PJRT_Error *m1_Event_IsReady(PJRT_Event_IsReady_Args *args)
{
	M1_CHECK_EVENT(args, PJRT_Event_IsReady);
	args->is_ready = true;
	return NULL;
}

static PJRT_Error *m1_Event_Error(PJRT_Event_Error_Args *args)
{
	M1_CHECK_EVENT(args, PJRT_Event_Error);
	return m1_error_copy(args->event->error);
}

static PJRT_Error *m1_Event_Await(PJRT_Event_Await_Args *args)
{
	M1_CHECK_EVENT(args, PJRT_Event_Await);
	return m1_error_copy(args->event->error);
}

/* Ready already: the callback runs now and owns the error it is given. */
static PJRT_Error *m1_Event_OnReady(PJRT_Event_OnReady_Args *args)
{
	M1_CHECK_EVENT(args, PJRT_Event_OnReady);
	if (!args->callback)
		return m1_error(PJRT_Error_Code_INVALID_ARGUMENT,
				"PJRT_Event_OnReady: no callback");
	args->callback(m1_error_copy(args->event->error), args->user_arg);
	return NULL;
}

static PJRT_Error *m1_Plugin_Initialize(PJRT_Plugin_Initialize_Args *args)
{
	M1_CHECK_ARGS(args, PJRT_Plugin_Initialize);
	return NULL;
}

static const PJRT_NamedValue plugin_attrs[] = {
	{ .struct_size = PJRT_NamedValue_STRUCT_SIZE,
	  .name = "m1_platform_version",
	  .name_size = sizeof("m1_platform_version") - 1,
	  .type = PJRT_NamedValue_kString,
	  .string_value = M1_PLATFORM_VERSION,
	  .value_size = sizeof(M1_PLATFORM_VERSION) - 1 },
};

static PJRT_Error *m1_Plugin_Attributes(PJRT_Plugin_Attributes_Args *args)
{
	M1_CHECK_ARGS(args, PJRT_Plugin_Attributes);
	args->attributes = plugin_attrs;
	args->num_attributes = sizeof(plugin_attrs) / sizeof(plugin_attrs[0]);
	return NULL;
}

/* One stub per slot; the ones returning void (the error functions) are
 * implemented above, and m1_fill checks that every slot is set. */
static PJRT_Error *unimplemented(const char *name)
{
	if (!strcmp(name, "PJRT_Client_Compile") ||
	    !strcmp(name, "PJRT_Compile"))
		return m1_error(PJRT_Error_Code_UNIMPLEMENTED,
				"%s: the m1 plugin cannot compile StableHLO "
				"(it only holds arrays: device_put and "
				"transfers back to the host)",
				name);
	return m1_error(PJRT_Error_Code_UNIMPLEMENTED,
			"%s: not implemented by the m1 plugin (it only holds "
			"arrays: device_put and transfers back to the host)",
			name);
}

#define M1_SLOT(name)                                     \
	static PJRT_Error *stub_##name(name##_Args *args) \
	{                                                 \
		(void)args;                               \
		return unimplemented(#name);              \
	}
#define M1_VOID_SLOT(name)
#include "slots.h"
#undef M1_SLOT
#undef M1_VOID_SLOT

static PJRT_Api api;

/* At load time, before any caller can ask: no lock (nor libpthread's
 * GLIBC_2.34 symbols) needed. */
__attribute__((constructor)) static void m1_fill(void)
{
	api.struct_size = PJRT_Api_STRUCT_SIZE;
	api.extension_start = NULL;
	api.pjrt_api_version.struct_size = PJRT_Api_Version_STRUCT_SIZE;
	api.pjrt_api_version.extension_start = NULL;
	api.pjrt_api_version.major_version = PJRT_API_MAJOR;
	api.pjrt_api_version.minor_version = PJRT_API_MINOR;

#define M1_SLOT(name) api.name = stub_##name;
#define M1_VOID_SLOT(name)
#include "slots.h"
#undef M1_SLOT
#undef M1_VOID_SLOT

	api.PJRT_Error_Destroy = m1_Error_Destroy;
	api.PJRT_Error_Message = m1_Error_Message;
	api.PJRT_Error_GetCode = m1_Error_GetCode;
	api.PJRT_Plugin_Initialize = m1_Plugin_Initialize;
	api.PJRT_Plugin_Attributes = m1_Plugin_Attributes;
	api.PJRT_Event_Destroy = m1_Event_Destroy;
	api.PJRT_Event_IsReady = m1_Event_IsReady;
	api.PJRT_Event_Error = m1_Event_Error;
	api.PJRT_Event_Await = m1_Event_Await;
	api.PJRT_Event_OnReady = m1_Event_OnReady;
	m1_fill_client(&api);
	m1_fill_buffer(&api);
}

M1_EXPORT const PJRT_Api *GetPjrtApi(void)
{
	return &api;
}
