#ifndef TF_AUDIT_DOOR_H
#define TF_AUDIT_DOOR_H

/*
 * audit/: what is checked in every binary that goes into a wheel, and in
 * any wheel `tfbuild verify` is given: ELF reading and the platform
 * checks (elf.h), manylinux policies (manylinux.h), the instruction-level
 * ISA audit (isa.h), libraries outside the wheel and vendoring them in
 * (libs.h, vendor.h), the stable ABI (abi3.h), Python tags from headers
 * (pytag.h), the framework a plugin loads into (framework.h) and the
 * plugin conventions of torch, JAX and TensorFlow (conventions.h).
 */

#include "abi3.h"
#include "conventions.h"
#include "elf.h"
#include "framework.h"
#include "isa.h"
#include "libs.h"
#include "manylinux.h"
#include "pytag.h"
#include "vendor.h"

#endif
