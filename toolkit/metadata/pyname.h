#ifndef TF_PYNAME_H
#define TF_PYNAME_H

/*
 * Python packaging names and versions: pure functions, no I/O.
 */

struct tf_buf;
struct tf_strvec;

/* PEP 503 normalize ("Foo.Bar_baz" -> "foo-bar-baz"), appended to out. */
void tf_pyname_normalize(const char *name, struct tf_buf *out);
/* Wheel filename form: runs of "-_." become "_", lowercase. */
void tf_pyname_wheel_escape(const char *name, struct tf_buf *out);
/* 1 if name is a valid distribution name (core metadata "Name"). */
int tf_pyname_is_valid(const char *name);

/*
 * Parse a PEP 440 version and append its normalized form to out
 * ("1.0.0-RC1" -> "1.0.0rc1", "1.0+M1" -> "1.0+m1", "v1.0" -> "1.0").
 * Returns 0, or -1 if version is not valid PEP 440 (out unchanged; no
 * message printed: the caller knows where the version came from).
 */
int tf_pep440_normalize(const char *version, struct tf_buf *out);

/*
 * 1 if tag is a valid wheel tag component (python, abi or platform):
 * non-empty, only [A-Za-z0-9_.] and dots separate compressed alternatives.
 */
int tf_wheel_tag_is_valid(const char *tag);

/*
 * Expand compressed tag sets ("py2.py3", "none", "any") into every
 * "PY-ABI-PLATFORM" triple, python outermost, platform innermost, each
 * in the order written, pushed onto out. Returns 0, or -1 (out
 * unchanged) if a tag is not valid.
 */
int tf_wheel_tags_expand(const char *python, const char *abi,
			 const char *platform, struct tf_strvec *out);

#endif
