#ifndef TF_BASE_DOOR_H
#define TF_BASE_DOOR_H

/* base/: DOOR */

#include "buf.h"
#include "hash.h"
#include "limit.h"
#include "locale.h"
#include "lock.h"
#include "log.h"
#include "path.h"
#include "run.h"
#include "signals.h"
#include "spool.h"
#include "strpool.h"
#include "words.h"
#include "xzmem.h"

#endif
