#include "cmd.h"
#include "log.h"

const char tf_usage_fetch[] = "usage: tfbuild fetch ...\n";

int cmd_fetch(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	error("'fetch' is not implemented yet");
	return TF_EXIT_FAILURE;
}
