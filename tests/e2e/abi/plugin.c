/*
 * A PluggableDevice (SE_InitPlugin, TF_InitKernel; NO_SE leaves out the
 * first) calling its framework, or a PJRT plugin (-DPJRT: GetPjrtApi;
 * NO_API leaves it out).
 */
#ifdef PJRT
#ifndef NO_API
const void *GetPjrtApi(void)
{
	static const int api = 90;

	return &api;
}
#endif
int pjrt_m1_devices(void)
{
	return 1;
}
#else
typedef struct TF_Status TF_Status;
TF_Status *TF_NewStatus(void);

#ifndef NO_SE
void SE_InitPlugin(void *params, TF_Status *status)
{
	(void)params;
	(void)status;
	TF_NewStatus();
}
#endif
void TF_InitKernel(void)
{
	TF_NewStatus();
}
#endif
