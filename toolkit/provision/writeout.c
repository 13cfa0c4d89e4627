/* Writing a generated file only when its content changes (write.h). */
#include "write.h"

#include <string.h>
#include <sys/stat.h>

#include "base/base.h"

int tf_write_if_changed(const char *path, const char *data, size_t len,
			unsigned mode)
{
	struct tf_buf old = TF_BUF_INIT;
	struct stat st;
	int same = 0;

	if (!mode)
		mode = 0644;
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    (st.st_mode & 07777) == mode && (size_t)st.st_size == len) {
		old.cap = len + 1;
		same = tf_read_file(path, &old) == 0 && old.len == len &&
		       !memcmp(old.buf, data, len);
	}
	tf_buf_release(&old);
	if (same)
		return 0;
	return tf_write_file_atomic(path, data, len, mode);
}
