/* lib{{module}}: the C library of {{name}}. */
#ifndef {{MODULE}}_H
#define {{MODULE}}_H

/* *sum = a + b; 0, or -1 (*sum untouched) when the sum overflows. */
int {{module}}_add(long a, long b, long *sum);

/* The library's version: "0.1.0". */
const char *{{module}}_version(void);

#endif
