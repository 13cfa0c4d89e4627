/* Links the target's zlib: prints its version and a round trip. */
#include <stdio.h>
#include <string.h>
#include <zlib.h>

int main(void)
{
	const char text[] = "tfbuild target packages";
	unsigned char packed[128], back[128];
	uLongf n = sizeof(packed), m = sizeof(back);

	if (compress(packed, &n, (const Bytef *)text, sizeof(text)) != Z_OK ||
	    uncompress(back, &m, packed, n) != Z_OK || memcmp(back, text, sizeof(text)))
		return 1;
	printf("zlib %s round trip ok\n", zlibVersion());
	return 0;
}
