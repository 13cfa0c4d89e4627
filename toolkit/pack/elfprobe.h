#ifndef TF_ELFPROBE_H
#define TF_ELFPROBE_H

/*
 * Which of a wheel's files start with the ELF magic, read once before
 * the checks that need it, on up to --jobs threads.
 */

#include <stddef.h>

#include "wheel/wheel.h"

/*
 * Set elf[i] to 1 if v[i].src starts with the ELF magic, else 0; return
 * 1 if any does.
 */
int tf_pack_probe_elf(const struct tf_wheel_file *v, size_t nr,
		      unsigned char *elf, int jobs);

#endif
