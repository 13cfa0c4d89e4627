#ifndef TF_BASE_DOOR_H
#define TF_BASE_DOOR_H

/*
 * base/: the ground floor, which includes nothing above it: growable
 * buffers and string vectors (buf.h), paths and files (path.h), SHA-256
 * and other digests through OpenSSL (hash.h), child processes and the
 * fixed PATH (run.h), messages and the failure convention (log.h),
 * signals and temporaries (signals.h), size limits (limit.h), a pool
 * of strings that stay put (strpool.h), locks on folders (lock.h),
 * the UTF-8 locale switch (locale.h) and did-you-mean suggestions
 * (words.h).
 */

#include "buf.h"
#include "hash.h"
#include "limit.h"
#include "locale.h"
#include "lock.h"
#include "log.h"
#include "path.h"
#include "run.h"
#include "signals.h"
#include "strpool.h"
#include "words.h"

#endif
