#ifndef GREET_H
#define GREET_H

int greet_add(int a, int b);
int greet_format(char *buf, int size, const char *name);

#endif
