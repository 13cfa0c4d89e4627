#include "url.h"

#include <stdlib.h>
#include <string.h>

#include "base/base.h"

size_t tf_url_scheme_len(const char *url)
{
	size_t n = 0;

	if (!((url[0] >= 'a' && url[0] <= 'z') ||
	      (url[0] >= 'A' && url[0] <= 'Z')))
		return 0;
	while (url[n] && strchr("abcdefghijklmnopqrstuvwxyz"
				"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.",
				url[n]))
		n++;
	return strncmp(url + n, "://", 3) ? 0 : n + 3;
}

void tf_url_redact(const char *url, struct tf_buf *out)
{
	size_t start = tf_url_scheme_len(url), end, i;
	const char *at = NULL;

	/* The authority runs to the first '/', '?' or '#'; credentials end
	   at its last '@'. Without a scheme it is not a URL: leave it. */
	end = start ? start + strcspn(url + start, "/?#") : 0;
	for (i = start; i < end; i++)
		if (url[i] == '@')
			at = url + i;
	if (!at) {
		tf_buf_addstr(out, url);
		return;
	}
	tf_buf_add(out, url, start);
	tf_buf_addstr(out, "***");
	tf_buf_addstr(out, at);
}

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

	tf_url_redact(url, &shown);
	if (!strncmp(shown.buf, "file://", 7) && shown.buf[7] == '/' &&
	    recipe_dir && recipe_dir[0] == '/') {
		tf_buf_addstr(out, "file:");
		relative(recipe_dir, shown.buf + 7, out);
	} else {
		tf_buf_addstr(out, shown.buf);
	}
	tf_buf_release(&shown);
}
