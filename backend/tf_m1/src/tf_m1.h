/*
 * tf_m1: the m1 backend as a TensorFlow PluggableDevice. device.c
 * registers the platform (SE_InitPlugin), ops.c the kernels
 * (TF_InitKernel); this header is what they share.
 */
#ifndef TF_M1_H
#define TF_M1_H

#include "kernels.h"

/* What TensorFlow looks up (the version script lists the same names). */
#define TF_M1_EXPORT __attribute__((visibility("default")))

/*
 * The platform's name and TensorFlow's device type: '/M_ONE:0'.
 * TensorFlow refuses a PluggableDevice whose name or type does not
 * match [A-Z][A-Z_]* (a fatal check), so it cannot be "M1".
 */
#define TF_M1_DEVICE "M_ONE"

/*
 * The kernel table SE_InitPlugin chose (TF_M1_ISA=scalar|sse2|avx2|neon
 * overrides the best one this CPU runs); NULL until then, and when the
 * plugin refused to register.
 */
extern const struct m1_kernels *tf_m1_active;

/* The ops ops.c registers, for the counters. */
enum tf_m1_op {
	TF_M1_RELU,
	TF_M1_ADDV2,
	TF_M1_MATMUL,
	TF_M1_NR_OPS
};

/* Counts one run of OP on m1's kernels. */
void tf_m1_count(enum tf_m1_op op);

#endif
