#ifndef TF_PLUGIN_DOOR_H
#define TF_PLUGIN_DOOR_H

/*
 * plugin/: a wheel as a plugin of an ML framework: the framework it
 * loads into, found from its installation, with every undefined symbol
 * resolved against it and its record in the wheel (framework.h), and the
 * conventions of torch, JAX/PJRT and TensorFlow PluggableDevice plugins,
 * checked in every verify (conventions.h), and the ABI a TensorFlow or
 * JAX plugin was built against: its C API version, the window of
 * releases it holds for, the Requires-Dist derived from it and verify's
 * refusals of a missing or wider one (abi.h).
 */

#include "abi.h"
#include "conventions.h"
#include "framework.h"
#include "fwbuild.h"
#include "install.h"

#endif
