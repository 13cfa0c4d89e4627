#include "url.h"

#include <stdlib.h>
#include <string.h>

#include "fetch.h"

/* Split an absolute path into components, resolving "." and ".." lexically. */
static void components(const char *path, struct tf_strvec *out)
{
	while (*path) {
		size_t n = strcspn(path, "/");

		if (n == 2 && !strncmp(path, "..", 2)) {
			if (out->nr) {
				free(out->v[--out->nr]);
				out->v[out->nr] = NULL;
			}
		} else if (n && !(n == 1 && *path == '.')) {
			tf_strvec_push_take(out, tf_strndup(path, n));
		}
		path += n + (path[n] == '/');
	}
}

/* path relative to dir, both absolute. */
static void relative(const char *dir, const char *path, struct tf_buf *out)
{
	struct tf_strvec d = TF_STRVEC_INIT, p = TF_STRVEC_INIT;
	size_t i = 0, j;

	components(dir, &d);
	components(path, &p);
	while (i < d.nr && i < p.nr && !strcmp(d.v[i], p.v[i]))
		i++;
	for (j = i; j < d.nr; j++)
		tf_buf_addstr(out, "../");
	for (j = i; j < p.nr; j++)
		tf_buf_addf(out, "%s%s", p.v[j], j + 1 < p.nr ? "/" : "");
	tf_strvec_release(&d);
	tf_strvec_release(&p);
}

void tf_url_canonical(const char *url, const char *recipe_dir,
		      struct tf_buf *out)
{
	struct tf_buf shown = TF_BUF_INIT;

	tf_fetch_redact_url(url, &shown);
	if (!strncmp(shown.buf, "file://", 7) && shown.buf[7] == '/' &&
	    recipe_dir && recipe_dir[0] == '/') {
		tf_buf_addstr(out, "file:");
		relative(recipe_dir, shown.buf + 7, out);
	} else {
		tf_buf_addstr(out, shown.buf);
	}
	tf_buf_release(&shown);
}
