#include "cmd.h"
#include "log.h"

const char tf_usage_sha256[] = "usage: tfbuild sha256 ...\n";

int cmd_sha256(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	error("'sha256' is not implemented yet");
	return TF_EXIT_FAILURE;
}
