/*
 * libarchive, loaded on first use (dl.h): a forwarder for each function
 * tfbuild calls, with the prototype of <archive.h> / <archive_entry.h>.
 */
#include "dl.h"

#include <archive.h>
#include <archive_entry.h>

#ifndef TF_ARCHIVE_SONAME
#define TF_ARCHIVE_SONAME "libarchive.so.13"
#endif

typedef struct archive archive_t;
typedef struct archive_entry entry_t;

/*
 * X(return type, name, parameters, arguments); XV for void functions;
 * XA for the many `int f(struct archive *)` (formats, filters, close).
 */
#define TF_ARCHIVE_FUNCS(X, XV, XA)                                           \
	X(archive_t *, archive_read_new, (void), ())                          \
	X(archive_t *, archive_write_new, (void), ())                         \
	X(archive_t *, archive_write_disk_new, (void), ())                    \
	X(entry_t *, archive_entry_new, (void), ())                           \
	XV(archive_entry_free, (entry_t * e), (e))                            \
	X(const char *, archive_error_string, (archive_t * a), (a))           \
	X(int, archive_errno, (archive_t * a), (a))                           \
	XA(archive_read_free)                                                 \
	XA(archive_write_free)                                                \
	XA(archive_write_close)                                               \
	XA(archive_write_finish_entry)                                        \
	XA(archive_read_support_filter_all)                                   \
	XA(archive_read_support_filter_bzip2)                                 \
	XA(archive_read_support_filter_compress)                              \
	XA(archive_read_support_filter_gzip)                                  \
	XA(archive_read_support_filter_lz4)                                   \
	XA(archive_read_support_filter_lzip)                                  \
	XA(archive_read_support_filter_lzma)                                  \
	XA(archive_read_support_filter_xz)                                    \
	XA(archive_read_support_filter_zstd)                                  \
	XA(archive_read_support_format_7zip)                                  \
	XA(archive_read_support_format_all)                                   \
	XA(archive_read_support_format_ar)                                    \
	XA(archive_read_support_format_cab)                                   \
	XA(archive_read_support_format_cpio)                                  \
	XA(archive_read_support_format_iso9660)                               \
	XA(archive_read_support_format_lha)                                   \
	XA(archive_read_support_format_rar)                                   \
	XA(archive_read_support_format_rar5)                                  \
	XA(archive_read_support_format_tar)                                   \
	XA(archive_read_support_format_xar)                                   \
	XA(archive_read_support_format_zip)                                   \
	XA(archive_read_support_format_zip_seekable)                          \
	XA(archive_read_support_format_zip_streamable)                        \
	XA(archive_write_set_format_pax_restricted)                           \
	X(int, archive_read_open_fd, (archive_t * a, int fd, size_t bs),      \
	  (a, fd, bs))                                                        \
	X(int, archive_read_open_filename,                                    \
	  (archive_t * a, const char *name, size_t bs), (a, name, bs))        \
	X(int, archive_read_next_header, (archive_t * a, entry_t * *e),       \
	  (a, e))                                                             \
	X(la_ssize_t, archive_read_data, (archive_t * a, void *p, size_t n),  \
	  (a, p, n))                                                          \
	X(int, archive_read_data_block,                                       \
	  (archive_t * a, const void **p, size_t *n, la_int64_t *off),        \
	  (a, p, n, off))                                                     \
	X(int, archive_write_open_fd, (archive_t * a, int fd), (a, fd))       \
	X(int, archive_write_set_bytes_in_last_block, (archive_t * a, int n), \
	  (a, n))                                                             \
	X(int, archive_write_disk_set_options, (archive_t * a, int flags),    \
	  (a, flags))                                                         \
	X(int, archive_write_header, (archive_t * a, entry_t * e), (a, e))    \
	X(la_ssize_t, archive_write_data,                                     \
	  (archive_t * a, const void *p, size_t n), (a, p, n))                \
	X(la_ssize_t, archive_write_data_block,                               \
	  (archive_t * a, const void *p, size_t n, la_int64_t off),           \
	  (a, p, n, off))                                                     \
	X(__LA_MODE_T, archive_entry_filetype, (entry_t * e), (e))            \
	X(__LA_MODE_T, archive_entry_perm, (entry_t * e), (e))                \
	X(const char *, archive_entry_hardlink, (entry_t * e), (e))           \
	X(const char *, archive_entry_symlink, (entry_t * e), (e))            \
	X(const char *, archive_entry_pathname, (entry_t * e), (e))           \
	X(const char *, archive_entry_pathname_utf8, (entry_t * e), (e))      \
	X(time_t, archive_entry_mtime, (entry_t * e), (e))                    \
	X(la_int64_t, archive_entry_size, (entry_t * e), (e))                 \
	X(int, archive_entry_size_is_set, (entry_t * e), (e))                 \
	XV(archive_entry_set_pathname, (entry_t * e, const char *s), (e, s))  \
	XV(archive_entry_set_hardlink, (entry_t * e, const char *s), (e, s))  \
	XV(archive_entry_set_symlink, (entry_t * e, const char *s), (e, s))   \
	XV(archive_entry_set_mode, (entry_t * e, __LA_MODE_T m), (e, m))      \
	XV(archive_entry_set_perm, (entry_t * e, __LA_MODE_T m), (e, m))      \
	XV(archive_entry_set_mtime, (entry_t * e, time_t t, long ns),         \
	   (e, t, ns))                                                        \
	XV(archive_entry_set_size, (entry_t * e, la_int64_t n), (e, n))       \
	XV(archive_entry_set_uid, (entry_t * e, la_int64_t id), (e, id))      \
	XV(archive_entry_set_gid, (entry_t * e, la_int64_t id), (e, id))

#define POINTER(ret, name, params, args) ret(*name) params;
#define POINTER_V(name, params, args) void(*name) params;
#define POINTER_A(name) int (*name)(archive_t *);
static struct {
	TF_ARCHIVE_FUNCS(POINTER, POINTER_V, POINTER_A)
} fn;

#define SYM(ret, name, params, args) { #name, (void **)&fn.name },
#define SYM_V(name, params, args) { #name, (void **)&fn.name },
#define SYM_A(name) { #name, (void **)&fn.name },
static const struct tf_dl_sym syms[] = { TF_ARCHIVE_FUNCS(SYM, SYM_V, SYM_A) };

static struct tf_dl_lib libarchive = {
	TF_ARCHIVE_SONAME,
	"TFBUILD_DLOPEN_LIBARCHIVE",
	"to read and write archives",
	"libarchive13",
	syms,
	sizeof(syms) / sizeof(syms[0]),
	PTHREAD_ONCE_INIT,
	0,
	"",
};

TF_DL_GLUE(libarchive, tf_dl_archive)
#define FORWARD_A(name)            \
	int name(archive_t *a)     \
	{                          \
		need();            \
		return fn.name(a); \
	}
TF_ARCHIVE_FUNCS(TF_DL_FORWARD, TF_DL_FORWARD_V, FORWARD_A)
