/*
 * {{name}}: a TensorFlow PluggableDevice. device.c registers the platform
 * and its device (SE_InitPlugin), kernels.c the kernels that run on it
 * (TF_InitKernel); this header is what they share.
 */
#ifndef {{MODULE}}_H
#define {{MODULE}}_H

/* What TensorFlow looks up with dlsym: everything else stays hidden. */
#define {{MODULE}}_EXPORT __attribute__((visibility("default")))

/*
 * The platform's name and TensorFlow's device type, '/{{DEVICE}}:0'.
 * TensorFlow aborts on a name or type that is not [A-Z][A-Z_]* (no
 * digits): tfbuild new spelled the digits of the project's name out.
 */
#define {{MODULE}}_DEVICE "{{DEVICE}}"

/*
 * Set by SE_InitPlugin when it registered the device; 0 when it refused
 * (another TensorFlow release), and then TF_InitKernel registers nothing.
 */
extern int {{module}}_registered;

#endif
