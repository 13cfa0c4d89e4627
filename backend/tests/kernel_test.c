/*
 * `make check`: every kernel table this CPU runs against the scalar one,
 * on lengths 0..67 (so every tail is taken) and on awkward values
 * (negative zero, infinities, NaN, subnormals), then the plugin API on
 * bad arguments. Prints "ok"/"not ok" lines and exits non-zero on a
 * failure.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tfmini/device_api.h"

#include "kernels.h"

#define ARGS(type) { .struct_size = type##_STRUCT_SIZE }

const TFM_DeviceApi *TFM_GetDeviceApi(void);

static int failures;

static void check(int ok, const char *isa, const char *what, size_t n)
{
	if (!ok) {
		printf("not ok - %s %s n=%zu\n", isa, what, n);
		failures++;
	}
}

static uint32_t rng = 12345;

static float next_value(void)
{
	static const float odd[] = { -0.0f, 0.0f, INFINITY, -INFINITY, NAN,
				     1e-40f, -1e-40f, 3.4e38f, -1.0f, 1.0f };

	rng = rng * 1103515245u + 12345u;
	if ((rng >> 16) % 13 == 0)
		return odd[(rng >> 8) % 10];
	return (float)((int)(rng >> 9) % 20001 - 10000) / 997.0f;
}

/* Same bits, or both NaN (NaN payloads are not part of the contract). */
static int same(const float *x, const float *y, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (memcmp(&x[i], &y[i], sizeof(float)) &&
		    !(isnan(x[i]) && isnan(y[i])))
			return 0;
	return 1;
}

static void finite_only(float *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!isfinite(v[i]) || fabsf(v[i]) > 1e6f)
			v[i] = 0.5f;
}

static void test_elementwise(const struct m1_kernels *k, size_t n,
			     const float *a, const float *b)
{
	const struct m1_kernels *r = &m1_kernels_scalar;
	float want[80], got[80];

	r->add(a, b, want, n);
	k->add(a, b, got, n);
	check(same(want, got, n), k->isa, "add", n);
	r->mul(a, b, want, n);
	k->mul(a, b, got, n);
	check(same(want, got, n), k->isa, "mul", n);
	r->scale(a, -2.75f, want, n);
	k->scale(a, -2.75f, got, n);
	check(same(want, got, n), k->isa, "scale", n);
	r->relu(a, want, n);
	k->relu(a, got, n);
	check(same(want, got, n), k->isa, "relu", n);
}

static void test_reductions(const struct m1_kernels *k, size_t n, float *a,
			    float *b)
{
	const struct m1_kernels *r = &m1_kernels_scalar;
	float want[80], got[80], s_want, s_got;
	double mag = 0.0;
	size_t i, m = n % 5 + 1, kk = n / 5 + 1, nn = n % 7 + 1;

	finite_only(a, n);
	finite_only(b, 80);
	for (i = 0; i < n; i++)
		mag += fabs(a[i]);
	s_want = r->sum(a, n);
	s_got = k->sum(a, n);
	check(fabs((double)s_want - s_got) <= 1e-5 * mag, k->isa, "sum", n);
	if (m * kk > 80 || kk * nn > 80)
		return;
	r->matmul(a, b, want, m, kk, nn);
	k->matmul(a, b, got, m, kk, nn);
	check(same(want, got, m * nn), k->isa, "matmul", n);
}

static void test_table(const struct m1_kernels *k)
{
	float a[80], b[80];
	size_t n, i;

	if (!k->supported()) {
		printf("ok - # SKIP %s: not supported on this CPU\n", k->isa);
		return;
	}
	for (n = 0; n < 68; n++) {
		for (i = 0; i < 80; i++) {
			a[i] = next_value();
			b[i] = next_value();
		}
		test_elementwise(k, n, a, b);
		test_reductions(k, n, a, b);
	}
	printf("%s - %s kernels match scalar\n", failures ? "not ok" : "ok",
	       k->isa);
}

static int fails(const TFM_DeviceApi *api, TFM_Error *err, const char *want)
{
	TFM_Error_Message_Args m = ARGS(TFM_Error_Message_Args);
	TFM_Error_Destroy_Args x = ARGS(TFM_Error_Destroy_Args);
	int ok;

	if (!err)
		return 0;
	m.error = err;
	api->error_message(&m);
	ok = m.message && strstr(m.message, want);
	if (!ok)
		printf("# unexpected message: %s\n", m.message);
	x.error = err;
	api->error_destroy(&x);
	return ok;
}

static void test_api(void)
{
	const TFM_DeviceApi *api = TFM_GetDeviceApi();
	TFM_Plugin_Initialize_Args init = ARGS(TFM_Plugin_Initialize_Args);
	TFM_Buffer_Alloc_Args alloc = ARGS(TFM_Buffer_Alloc_Args);
	TFM_Buffer_CopyToHost_Args get = ARGS(TFM_Buffer_CopyToHost_Args);
	TFM_Kernel_Lookup_Args look = ARGS(TFM_Kernel_Lookup_Args);
	TFM_Buffer_Free_Args fr = ARGS(TFM_Buffer_Free_Args);
	TFM_Device_Count_Args old = { .struct_size = sizeof(size_t) };
	int ok = api->struct_size == TFM_DeviceApi_STRUCT_SIZE &&
		 api->api_version_major == 1 && !api->plugin_initialize(&init);
	float host[4];

	look.op_name = "conv2d";
	ok = ok && fails(api, api->kernel_lookup(&look),
			 "no kernel for op 'conv2d'");
	ok = ok && fails(api, api->device_count(&old), "is too small");
	alloc.size = 8;
	ok = ok && !api->buffer_alloc(&alloc);
	get.buffer = alloc.buffer;
	get.dst = host;
	get.size = 12;
	ok = ok && fails(api, api->buffer_copy_to_host(&get), "overrun");
	fr.buffer = alloc.buffer;
	ok = ok && !api->buffer_free(&fr);
	check(ok, "api", "bad arguments give errors", 0);
	printf("%s - api rejects bad arguments\n", ok ? "ok" : "not ok");
}

#if defined(M1_ONLY)
/* A build of one table: its kernels as m1.c calls them, by name. */
static int only_supported(void)
{
	TFM_Plugin_Initialize_Args init = ARGS(TFM_Plugin_Initialize_Args);

	return !TFM_GetDeviceApi()->plugin_initialize(&init);
}

static const struct m1_kernels only = {
	"m1_only", only_supported, m1_only_add, m1_only_mul, m1_only_scale,
	m1_only_relu, m1_only_sum, m1_only_matmul,
};
#endif

int main(void)
{
	test_table(&m1_kernels_scalar);
#if defined(__x86_64__) && (!defined(M1_ONLY) || defined(M1_ONLY_sse2))
	test_table(&m1_kernels_sse2);
#endif
#if defined(__x86_64__) && (!defined(M1_ONLY) || defined(M1_ONLY_avx2))
	test_table(&m1_kernels_avx2);
#endif
#if defined(__aarch64__)
	test_table(&m1_kernels_neon);
#endif
#if defined(M1_ONLY)
	test_table(&only);
#endif
	test_api();
	printf("# passed %s\n", failures ? "no" : "all");
	return failures != 0;
}
