#ifndef TF_AUDIT_DOOR_H
#define TF_AUDIT_DOOR_H

/*
 * audit/: the platform checks of every binary that goes into a wheel,
 * and of any wheel `tfbuild verify` is given: ELF reading and its checks
 * (elf.h), manylinux policies (manylinux.h), macOS wheels' Mach-O files
 * (macos.h, read by macho/), libraries outside the wheel
 * and vendoring them in (libs.h, vendor.h), the stable ABI (abi3.h) and
 * Python tags from headers (pytag.h). The instructions a binary needs
 * are isa/'s; what a plugin's framework asks is plugin/'s.
 */

#include "abi3.h"
#include "elf.h"
#include "libs.h"
#include "macos.h"
#include "manylinux.h"
#include "pytag.h"
#include "vendor.h"

#endif
