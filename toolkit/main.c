#include <stdio.h>

#include "log.h"

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return TF_EXIT_USAGE;
}
