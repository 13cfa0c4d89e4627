#include "cmd.h"
#include "log.h"

const char tf_usage_verify[] = "usage: tfbuild verify ...\n";

int cmd_verify(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	error("'verify' is not implemented yet");
	return TF_EXIT_FAILURE;
}
