#ifndef TF_AUDIT_DOOR_H
#define TF_AUDIT_DOOR_H

/* audit/: DOOR */

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
