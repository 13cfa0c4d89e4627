/*
 * test-cache: let shell tests hold an archive of the local store the
 * way a running build does while it restores from it.
 *
 *   test-cache hold CACHE_DIR SHA256
 *       opens and verifies the archive (tf_store_open_blob, which takes
 *       its shared lock), prints "held" and waits for SIGTERM
 *
 * Exits 0, 1 if the archive cannot be opened, 2 on bad usage.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "log.h"
#include "store.h"

int main(int argc, char **argv)
{
	struct tf_store s = TF_STORE_INIT;
	struct tf_buf why = TF_BUF_INIT;
	int fd = -1;

	if (argc != 4 || strcmp(argv[1], "hold")) {
		fprintf(stderr, "usage: test-cache hold CACHE_DIR SHA256\n");
		return 2;
	}
	if (tf_store_open(&s, argv[2]) ||
	    tf_store_open_blob(&s, argv[3], -1, &fd, &why) != TF_STORE_OK) {
		fprintf(stderr, "test-cache: cannot hold %s: %s\n", argv[3],
			why.buf);
		return 1;
	}
	printf("held\n");
	fflush(stdout);
	for (;;)
		pause();
}
