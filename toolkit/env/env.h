#ifndef TF_ENV_DOOR_H
#define TF_ENV_DOOR_H

/*
 * env/: a target's toolchain on this build machine: the targets and
 * their compilers, flags, emulators and Python headers, the compiler
 * launchers known (target.h), and each tool's identity, asked once and
 * remembered (probe.h).
 */

#include "probe.h"
#include "target.h"

#endif
