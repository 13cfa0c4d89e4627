#ifndef TF_ABI3_H
#define TF_ABI3_H

/*
 * The stable ABI (abi3): which Python C API symbols an extension tagged
 * cp3X-abi3 may import, from CPython's published list
 * (toolkit/abi3_table.inc, generated from Misc/stable_abi.toml), as
 * `abi3audit --strict` checks them.
 */

/*
 * The minor version of Python 3 whose stable ABI first has symbol
 * ("PyUnicode_AsUTF8AndSize" -> 10), or 0 if it is not in the stable ABI
 * ("PyUnicode_AsUTF8", "_PyObject_CallNoArg").
 */
int tf_abi3_since(const char *symbol);

/* 1 for a name the audit looks at: one of CPython's ("Py*", "_Py*"). */
int tf_abi3_is_python_symbol(const char *symbol);

/*
 * The X of the lowest cp3X tag when abi is "abi3" and python is a cp3X
 * tag or a compressed set of them ("cp38", "cp38.cp39"); 0 otherwise
 * (no audit: "py3-none", "cp311-cp311").
 */
int tf_abi3_minor(const char *python, const char *abi);

#endif
