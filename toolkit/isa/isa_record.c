/* The ISA declarations recorded in a wheel (isa.h, TF_ISA_RECORD). */
#include "isa.h"

#include <string.h>

#include "base/base.h"

void tf_isa_policy_format(const struct tf_isa_policy *p, struct tf_buf *out)
{
	size_t i;

	tf_buf_addstr(out, "Record-Version: 1\n");
	if (p->minimum)
		tf_buf_addf(out, "Minimum: %s\n", p->minimum);
	for (i = 0; i < p->nr_dispatch; i++)
		tf_buf_addf(out, "Dispatch: %s\n", p->dispatch[i]);
}

int tf_isa_policy_parse(char *text, struct tf_isa_policy *p,
			const char ***store, struct tf_buf *why)
{
	enum tf_isa_family fam;
	char *line, *next;
	size_t nr = 0, n = 0;
	int level;

	for (line = text; *line; line++)
		n += *line == '\n';
	*store = tf_calloc(n + 2, sizeof(**store));
	p->dispatch = *store;
	p->nr_dispatch = 0;
	p->minimum = NULL;
	for (line = text; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		nr++;
		if (!strcmp(line, "Record-Version: 1") || !*line)
			continue;
		if (!strncmp(line, "Minimum: ", 9)) {
			p->minimum = line + 9;
			if (tf_isa_level_parse(p->minimum, &fam, &level)) {
				tf_buf_addf(why, "line %zu: unknown level '%s'",
					    nr, p->minimum);
				return -1;
			}
		} else if (!strncmp(line, "Dispatch: ", 10) && line[10]) {
			(*store)[p->nr_dispatch++] = line + 10;
		} else {
			tf_buf_addf(why,
				    "line %zu: not 'Minimum: LEVEL' or "
				    "'Dispatch: GLOB'",
				    nr);
			return -1;
		}
	}
	return 0;
}
