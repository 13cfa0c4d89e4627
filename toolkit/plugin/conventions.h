#ifndef TF_CONVENTIONS_H
#define TF_CONVENTIONS_H

/*
 * The loading conventions of the frameworks tfbuild's users write
 * plugins for, checked statically on a wheel (docs/frameworks.md has
 * each convention and its source):
 *
 *   torch.backends     an entry point in this group names a module the
 *                      wheel ships (torch's device-backend autoloading
 *                      imports it at `import torch`)
 *   torch_xla.plugins  an entry point in this group names a module the
 *                      wheel ships (torch_xla's PJRT device plugins)
 *   jax_plugins        an entry point in this group names a module the
 *                      wheel ships, and the wheel ships a PJRT plugin
 *                      library: one that exports GetPjrtApi
 *   PJRT plugin        a shared library whose name says pjrt, the one
 *                      a framework record names, and one of a
 *                      jax_plugins/NAME/ package export GetPjrtApi
 *                      (the PJRT C API's one entry point)
 *   TensorFlow         a shared library under tensorflow-plugins/
 *   PluggableDevice    exports SE_InitPlugin, and TF_InitKernel when it
 *                      registers kernels (uses TF_RegisterKernelBuilder)
 *
 * tfmini's convention (tfmini.plugins, TFM_GetDeviceApi) stays with the
 * recipe's `exports`, checked before packing (cross.md).
 */

/*
 * Check the wheel at path (already verified as a wheel), and a plugin
 * wheel's Requires-Dist on its framework (abi.h); with report, say what
 * its framework record says. Returns 0, or -1 after printing the first
 * broken convention as
 *   tfbuild: WHEEL: ENTRY: what is wrong (CONVENTION: what it needs)
 */
int tf_conventions_verify(const char *path, int report);
/*
 * 1 if a convention is about the entry of that name: an entry_points.txt
 * or a library checked whatever the entry points say. A wheel without
 * any has nothing tf_conventions_verify would read, and passes it.
 */
int tf_conventions_relevant(const char *name);

#endif
