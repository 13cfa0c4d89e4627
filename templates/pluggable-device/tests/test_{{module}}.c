/*
 * The {{name}} plugin in TensorFlow's own runtime, through its C API
 * (libtensorflow_cc and libtensorflow_framework from the tensorflow
 * wheel), with no Python:
 *   test_{{module}} PLUGIN
 * TensorFlow loads PLUGIN as `import tensorflow` would (SE_InitPlugin,
 * TF_InitKernel), an eager context lists the {{DEVICE}} device, and Relu
 * placed there runs there, with the right values. Prints "ok ..." lines;
 * exits 1 at the first failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorflow/c/c_api.h"
#include "tensorflow/c/c_api_experimental.h"
#include "tensorflow/c/eager/c_api.h"

#define DEVICE "{{DEVICE}}"

static TF_Status *status;

static void check(int cond, const char *what)
{
	if (cond && TF_GetCode(status) == TF_OK)
		return;
	printf("FAIL %s: %s\n", what,
	       TF_GetCode(status) != TF_OK ? TF_Message(status) : "no");
	exit(1);
}

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

/* The device named ".../device:{{DEVICE}}:0" among the context's. */
static int listed(TFE_Context *ctx)
{
	TF_DeviceList *list = TFE_ContextListDevices(ctx, status);
	int i, n, found = 0;

	check(list != NULL, "TFE_ContextListDevices");
	n = TF_DeviceListCount(list);
	for (i = 0; i < n; i++) {
		const char *name = TF_DeviceListName(list, i, status);

		printf("device %s\n", name);
		if (ends_with(name, "/device:" DEVICE ":0"))
			found = 1;
	}
	TF_DeleteDeviceList(list);
	return found;
}

int main(int argc, char **argv)
{
	static const float in[6] = { -2.5f, -1, 0, 0.5f, 1, 3 };
	static const float want[6] = { 0, 0, 0, 0.5f, 1, 3 };
	const int64_t dims[2] = { 2, 3 };
	TFE_ContextOptions *opts;
	TFE_TensorHandle *x, *y = NULL;
	TFE_Context *ctx;
	TF_Library *lib;
	TF_Tensor *t, *out;
	TFE_Op *op;
	int n = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: test_{{module}} PLUGIN\n");
		return 2;
	}
	status = TF_NewStatus();
	printf("tensorflow %s\n", TF_Version());
	lib = TF_LoadPluggableDeviceLibrary(argv[1], status);
	check(lib != NULL, "TF_LoadPluggableDeviceLibrary");
	printf("ok loaded\n");

	opts = TFE_NewContextOptions();
	ctx = TFE_NewContext(opts, status);
	TFE_DeleteContextOptions(opts);
	check(ctx != NULL, "TFE_NewContext");
	check(listed(ctx), "the " DEVICE " device is listed");
	printf("ok listed " DEVICE "\n");

	t = TF_AllocateTensor(TF_FLOAT, dims, 2, sizeof(in));
	memcpy(TF_TensorData(t), in, sizeof(in));
	x = TFE_NewTensorHandle(t, status);
	TF_DeleteTensor(t);
	check(x != NULL, "TFE_NewTensorHandle");

	/* Relu on the device: the input is copied there, the kernel runs. */
	op = TFE_NewOp(ctx, "Relu", status);
	check(op != NULL, "TFE_NewOp");
	TFE_OpSetDevice(op, "/device:" DEVICE ":0", status);
	check(1, "TFE_OpSetDevice");
	TFE_OpAddInput(op, x, status);
	TFE_OpSetAttrType(op, "T", TF_FLOAT);
	TFE_Execute(op, &y, &n, status);
	check(n == 1, "TFE_Execute Relu");
	printf("ran on %s\n", TFE_TensorHandleBackingDeviceName(y, status));
	check(ends_with(TFE_TensorHandleBackingDeviceName(y, status),
			"/device:" DEVICE ":0"),
	      "Relu's output is on " DEVICE);

	out = TFE_TensorHandleResolve(y, status);
	check(out != NULL, "TFE_TensorHandleResolve");
	check(TF_TensorElementCount(out) == 6 &&
		      !memcmp(TF_TensorData(out), want, sizeof(want)),
	      "Relu's values");
	printf("ok relu on " DEVICE "\n");

	TF_DeleteTensor(out);
	TFE_DeleteTensorHandle(y);
	TFE_DeleteTensorHandle(x);
	TFE_DeleteOp(op);
	TFE_DeleteContext(ctx);
	TF_DeletePluggableDeviceLibraryHandle(lib);
	TF_DeleteStatus(status);
	printf("ok done\n");
	return 0;
}
