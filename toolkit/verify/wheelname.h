#ifndef TF_WHEELNAME_H
#define TF_WHEELNAME_H

/* A wheel's filename, parsed and checked (verify.h shows it). */

struct tf_buf;

/* The parts of a wheel filename, NAME-VERSION[-BUILD]-PY-ABI-PLAT.whl. */
struct tf_wheel_name {
	char *name;     /* owned; as written (escaped) */
	char *version;  /* owned; as written */
	char *build;    /* owned; NULL when there is no build tag */
	char *python;   /* owned; may be a compressed set, "py2.py3" */
	char *abi;      /* owned */
	char *platform; /* owned */
	char *label;    /* owned; PEP 825 variant label, NULL: none */
};

#define TF_WHEEL_NAME_INIT                               \
	{                                                \
		NULL, NULL, NULL, NULL, NULL, NULL, NULL \
	}

/*
 * Parse a wheel's filename (a directory part is ignored) and check that
 * the name, version, build tag and tags are valid. Returns 0, or -1 with
 * what is wrong appended to why (nothing printed).
 */
int tf_wheel_name_parse(const char *filename, struct tf_wheel_name *wn,
			struct tf_buf *why);
/* Free the parts; safe on NULL and twice. */
void tf_wheel_name_release(struct tf_wheel_name *wn);

#endif
