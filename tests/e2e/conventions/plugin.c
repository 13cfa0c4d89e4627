/* A plugin library for the convention tests: -D selects what it exports
   (SE_INIT, TF_KERNEL, PJRT) and whether it registers kernels (USES_KERNELS). */
#ifdef SE_INIT
void SE_InitPlugin(void *params, void *status) { (void)params; (void)status; }
#endif
#ifdef TF_KERNEL
void TF_InitKernel(void) {}
#endif
#ifdef PJRT
static const int api = 1;
const void *GetPjrtApi(void) { return &api; }
#endif
#ifdef USES_KERNELS
void TF_RegisterKernelBuilder(const char *name, void *builder, void *status);
void register_kernels(void) { TF_RegisterKernelBuilder("m1", 0, 0); }
#endif
int plugin_version(void) { return 1; }
