#ifndef TF_CUDAARCH_H
#define TF_CUDAARCH_H

/*
 * CUDA architecture names, as nvcc's -gencode and cuobjdump write them:
 * "sm_80" (SASS: machine code for that GPU generation) and "compute_90"
 * (PTX: compiled by the driver for it and newer), 2 or 3 digits, with
 * an "a" or "f" suffix where NVIDIA names one ("sm_90a", "sm_100f").
 * Pure functions: the recipe's cuda-archs key and verify's audit share
 * them (docs/frameworks.md#the-architecture-audit).
 */

/* 1 if name is such an architecture name, else 0. */
int tf_cuda_arch_is_valid(const char *name);

/*
 * The one order of architecture lists (what pack writes, what verify
 * prints), for qsort() over an array of const char *: SASS before PTX,
 * then by number (sm_75 before sm_100), then by name (sm_90 before
 * sm_90a). Every name must be valid.
 */
int tf_cuda_arch_cmp(const void *a, const void *b);

#endif
