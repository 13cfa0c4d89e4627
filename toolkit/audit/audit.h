#ifndef TF_AUDIT_DOOR_H
#define TF_AUDIT_DOOR_H

/*
 * audit/: what is checked in every binary that goes into a wheel, and in
 * any wheel `tfbuild verify` is given: ELF reading and the platform
 * checks (elf.h), manylinux policies (manylinux.h), the instruction-level
 * ISA audit (isa.h), libraries outside the wheel and vendoring them in
 * (libs.h, vendor.h), the stable ABI (abi3.h) and Python tags from
 * headers (pytag.h). What a plugin's framework asks is plugin/'s.
 */

#include "abi3.h"
#include "elf.h"
#include "isa.h"
#include "libs.h"
#include "manylinux.h"
#include "pytag.h"
#include "vendor.h"

#endif
