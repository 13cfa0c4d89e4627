#ifndef TF_ENV_DOOR_H
#define TF_ENV_DOOR_H

/* env/: DOOR */

#include "probe.h"
#include "target.h"

#endif
