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

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

static int hex_value(char c)
{
	return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}

static void add_escaped(struct tf_buf *out, unsigned char c)
{
	tf_buf_addf(out, "%%%02X", c);
}

void tf_url_encode_path(const char *path, struct tf_buf *out)
{
	const unsigned char *p;

	for (p = (const unsigned char *)path; *p; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~/", *p))
			tf_buf_addch(out, (char)*p);
		else
			add_escaped(out, *p);
}

void tf_url_normalize(const char *url, struct tf_buf *out)
{
	const unsigned char *p = (const unsigned char *)url;

	if (!tf_url_scheme_len(url)) {
		tf_buf_addstr(out, url);
		return;
	}
	for (; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || strchr("\"<>\\^`{|}", *p) ||
		    (*p == '%' && !(is_hex((char)p[1]) && is_hex((char)p[2]))))
			add_escaped(out, *p);
		else
			tf_buf_addch(out, (char)*p);
}

/* Append the text [s, s + n) of a URL with every %XX decoded. */
static void decode(const char *s, size_t n, struct tf_buf *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == '%' && i + 2 < n && is_hex(s[i + 1]) &&
		    is_hex(s[i + 2])) {
			tf_buf_addch(out, (char)(hex_value(s[i + 1]) * 16 +
						 hex_value(s[i + 2])));
			i += 2;
		} else {
			tf_buf_addch(out, s[i]);
		}
}

/*
 * Split an absolute path into components, resolving "." and ".."
 * lexically. With url set it is a URL's path: a component is kept as
 * written (percent-encoded) and its decoded form goes to plain, for
 * comparing with a directory's; without, plain gets the same text.
 */
static void components(const char *path, int url, struct tf_strvec *out,
		       struct tf_strvec *plain)
{
	struct tf_buf d = TF_BUF_INIT;

	while (*path) {
		size_t n = strcspn(path, "/");

		tf_buf_reset(&d);
		if (url)
			decode(path, n, &d);
		else
			tf_buf_add(&d, path, n);
		if (!strcmp(d.buf, "..")) {
			if (out->nr) {
				free(out->v[--out->nr]);
				out->v[out->nr] = NULL;
				free(plain->v[--plain->nr]);
				plain->v[plain->nr] = NULL;
			}
		} else if (n && strcmp(d.buf, ".")) {
			tf_strvec_push_take(out, tf_strndup(path, n));
			tf_strvec_push(plain, d.buf);
		}
		path += n + (path[n] == '/');
	}
	tf_buf_release(&d);
}

/* The URL path upath relative to the directory dir, both absolute. */
static void relative(const char *dir, const char *upath, struct tf_buf *out)
{
	struct tf_strvec d = TF_STRVEC_INIT, dd = TF_STRVEC_INIT;
	struct tf_strvec p = TF_STRVEC_INIT, pd = TF_STRVEC_INIT;
	size_t i = 0, j;

	components(dir, 0, &d, &dd);
	components(upath, 1, &p, &pd);
	while (i < d.nr && i < p.nr && !strcmp(d.v[i], pd.v[i]))
		i++;
	for (j = i; j < d.nr; j++)
		tf_buf_addstr(out, "../");
	for (j = i; j < p.nr; j++)
		tf_buf_addf(out, "%s%s", p.v[j], j + 1 < p.nr ? "/" : "");
	tf_strvec_release(&d);
	tf_strvec_release(&dd);
	tf_strvec_release(&p);
	tf_strvec_release(&pd);
}

void tf_url_canonical(const char *url, const char *recipe_dir,
		      struct tf_buf *out)
{
	struct tf_buf norm = TF_BUF_INIT, shown = TF_BUF_INIT;

	tf_url_normalize(url, &norm);
	tf_url_redact(norm.buf, &shown);
	if (!strncmp(shown.buf, "file://", 7) && shown.buf[7] == '/' &&
	    recipe_dir && recipe_dir[0] == '/') {
		const char *path = shown.buf + 7;
		size_t n = strcspn(path, "?#");
		char *upath = tf_strndup(path, n);

		tf_buf_addstr(out, "file:");
		relative(recipe_dir, upath, out);
		tf_buf_addstr(out, path + n);
		free(upath);
	} else {
		tf_buf_addstr(out, shown.buf);
	}
	tf_buf_release(&norm);
	tf_buf_release(&shown);
}
