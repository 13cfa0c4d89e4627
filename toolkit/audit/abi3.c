/*
 * The stable ABI table and the lookups on it. The table is data
 * generated from CPython's list (abi3_table.inc says how); it is sorted
 * once, on first use, for bsearch.
 */
#include "abi3.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"

struct group {
	int minor;         /* the 3.X that added these */
	const char *names; /* space-separated */
};

#define ABI3(minor, names) { minor, names },
static const struct group groups[] = {
#include "abi3_table.inc"
};
#undef ABI3

struct entry {
	char *name; /* owned by the table */
	int minor;
};

static struct entry *table;
static size_t table_nr;

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name,
		      ((const struct entry *)b)->name);
}

static void load(void)
{
	size_t i, alloc = 1024;

	if (table)
		return;
	table = tf_calloc(alloc, sizeof(*table));
	for (i = 0; i < sizeof(groups) / sizeof(*groups); i++) {
		const char *p = groups[i].names;

		while (*p) {
			size_t n = strcspn(p, " ");

			if (table_nr == alloc) {
				alloc *= 2;
				table = tf_realloc(table,
						   alloc * sizeof(*table));
			}
			table[table_nr].name = tf_strndup(p, n);
			table[table_nr++].minor = groups[i].minor;
			p += n + (p[n] == ' ');
		}
	}
	qsort(table, table_nr, sizeof(*table), cmp_entry);
}

int tf_abi3_since(const char *symbol)
{
	struct entry key = { (char *)symbol, 0 }, *e;

	load();
	e = bsearch(&key, table, table_nr, sizeof(*table), cmp_entry);
	return e ? e->minor : 0;
}

int tf_abi3_is_python_symbol(const char *symbol)
{
	return !strncmp(symbol, "Py", 2) || !strncmp(symbol, "_Py", 3);
}

int tf_abi3_minor(const char *python, const char *abi)
{
	int lowest = 0;

	if (!python || !abi || strcmp(abi, "abi3"))
		return 0;
	while (*python) {
		size_t n = strcspn(python, ".");
		char *end;
		long minor;

		if (n < 4 || strncmp(python, "cp3", 3))
			return 0;
		minor = strtol(python + 3, &end, 10);
		if (end != python + n || minor < 0 || minor > 99)
			return 0;
		if (!lowest || minor < lowest)
			lowest = (int)minor;
		python += n + (python[n] == '.');
	}
	return lowest;
}
