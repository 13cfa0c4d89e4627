#include "unit.h"

#include <sys/sysmacros.h>

#include "lock.h"

/* The holder's pid from /proc/locks text: only a granted (not "->"
   waiting), exclusive flock on exactly that device and inode counts. */
static void test_holder(void)
{
	static const char text[] =
		"1: POSIX  ADVISORY  WRITE 111 fe:00:42 0 EOF\n"
		"2: FLOCK  ADVISORY  READ  222 fe:00:42 0 EOF\n"
		"3: FLOCK  ADVISORY  WRITE 333 fe:01:42 0 EOF\n"
		"4: FLOCK  ADVISORY  WRITE 444 fe:00:4242 0 EOF\n"
		"5: FLOCK  ADVISORY  WRITE 555 fe:00:42 0 EOF\n"
		"5: -> FLOCK  ADVISORY  WRITE 666 fe:00:42 0 EOF\n"
		"6: OFDLCK ADVISORY  WRITE -1 08:02:7 0 EOF\n";
	dev_t dev = makedev(0xfe, 0);

	CHECK_INT(tf_lock_holder_in(text, dev, 42), 555);
	CHECK_INT(tf_lock_holder_in(text, dev, 4242), 444);
	CHECK_INT(tf_lock_holder_in(text, makedev(0xfe, 1), 42), 333);
	CHECK_INT(tf_lock_holder_in(text, dev, 43), 0);
	CHECK_INT(tf_lock_holder_in(text, makedev(8, 2), 7), 0);
	CHECK_INT(tf_lock_holder_in("", dev, 42), 0);
	CHECK_INT(tf_lock_holder_in("garbage\n\n1: FLOCK", dev, 42), 0);
	/* Major and minor numbers are printed in hex, inodes in decimal. */
	CHECK_INT(tf_lock_holder_in(
			  "1: FLOCK ADVISORY WRITE 9 103:0a:11397913 0 EOF",
			  makedev(0x103, 0x0a), 11397913),
		  9);
}

int main(void)
{
	test_holder();
	return unit_done();
}
