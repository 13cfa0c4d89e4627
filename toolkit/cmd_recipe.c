#include "cmd.h"
#include "log.h"

const char tf_usage_recipe[] = "usage: tfbuild recipe ...\n";

int cmd_recipe(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	error("'recipe' is not implemented yet");
	return TF_EXIT_FAILURE;
}
