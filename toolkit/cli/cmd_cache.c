/*
 * tfbuild cache: look after the local store of step outputs
 * (docs/cache.md), and make signing keys for a remote cache.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "base/base.h"
#include "cache/cache.h"
#include "fetch/fetch.h"
#include "opt.h"

const char tf_usage_cache[] =
	"Look after the cache directory, which every recipe and build tree\n"
	"of this machine shares: the local store of step outputs, downloads\n"
	"(sha256/), target roots with their .debs, and target sites:\n"
	"  stats              what each of them holds: count and bytes\n"
	"  gc --max-size SIZE remove the least recently used of all of them,\n"
	"                     in one order, until the cache holds at most\n"
	"                     SIZE (e.g. 10G, 500M, 0); what a running build\n"
	"                     uses is skipped and counted as in use\n"
	"  clear              remove everything in the store\n"
	"  verify             hash every download (sha256/) and archive\n"
	"                     again and check each matches its name, and\n"
	"                     every entry parses; a download that does not\n"
	"                     is removed; exit 1 if one does not\n"
	"  keygen PREFIX      make an Ed25519 key pair for a remote cache:\n"
	"                     PREFIX.key (private, for --signing-key) and\n"
	"                     PREFIX.pub (public, for --trust); or for wheel\n"
	"                     attestations: recipe --attestation-key and\n"
	"                     verify --attestation-trust (docs/publishing.md)\n"
	"Target roots and sites are found as a run finds them: under the\n"
	"cache, or under $TF_SYSROOT_CACHE when that is set.\n";

const struct tf_opt tf_opts_cache[] = {
	TF_OPT_CACHE,
	{ 0, "max-size", TF_OPT_STRING, TF_ARG(max_size), "SIZE",
	  "gc: the most the cache may hold (bytes, or with k, M, G, T)", NULL,
	  0, 0 },
	TF_OPT_END,
};

static char *cache_dir(const struct tf_args *a)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (a->cache_dir)
		return tf_strdup(a->cache_dir);
	if (xdg && *xdg == '/')
		return tf_xstrfmt("%s/tfbuild", xdg);
	return tf_xstrfmt("%s/.cache/tfbuild", home && *home ? home : "/tmp");
}

static int stats(const struct tf_store *s, const struct tf_gc_dirs *d)
{
	struct tf_store_stats st;
	struct tf_gc_count k[TF_GC_KINDS];
	long long total = 0;
	int i;

	if (tf_store_stats(s, &st) || tf_gc_usage(s, d, k))
		return TF_EXIT_FAILURE;
	printf("store: %s\nentries: %zu\narchives: %zu\nbytes: %lld\n", s->dir,
	       st.entries, st.blobs, st.bytes);
	printf("downloads: %zu, %lld bytes (%s/sha256)\n",
	       k[TF_GC_DOWNLOADS].nr, k[TF_GC_DOWNLOADS].bytes, d->cache);
	printf("target roots: %zu, and %zu .debs, %lld bytes (%s)\n",
	       k[TF_GC_ROOTS].nr, k[TF_GC_ROOTS].debs, k[TF_GC_ROOTS].bytes,
	       d->roots);
	printf("target sites: %zu, %lld bytes (%s)\n", k[TF_GC_SITES].nr,
	       k[TF_GC_SITES].bytes, d->sites);
	for (i = 0; i < TF_GC_KINDS; i++)
		total += k[i].bytes;
	printf("total bytes: %lld\n", total);
	return TF_EXIT_OK;
}

static void busy(const struct tf_gc_count *c)
{
	if (c->busy)
		printf(", skipped %zu in use", c->busy);
	printf("\n");
}

static int gc(const struct tf_store *s, const struct tf_gc_dirs *d,
	      const char *max, const struct tf_cmd *c)
{
	long long limit = tf_store_parse_size(max);
	struct tf_gc_report r;
	const struct tf_gc_count *k = r.kind;
	int ret;

	if (!max)
		return tf_usage_error(c, "gc needs --max-size SIZE");
	if (limit < 0)
		return tf_usage_error(
			c,
			"--max-size wants a size such as 500M or 10G, not '%s'",
			max);
	ret = tf_gc_run(s, d, limit, &r);
	printf("evicted %zu archives (%lld bytes)", k[TF_GC_STORE].nr,
	       k[TF_GC_STORE].bytes);
	busy(&k[TF_GC_STORE]);
	printf("removed %zu downloads (%lld bytes)", k[TF_GC_DOWNLOADS].nr,
	       k[TF_GC_DOWNLOADS].bytes);
	busy(&k[TF_GC_DOWNLOADS]);
	printf("removed %zu target roots and %zu .debs (%lld bytes)",
	       k[TF_GC_ROOTS].nr, k[TF_GC_ROOTS].debs, k[TF_GC_ROOTS].bytes);
	busy(&k[TF_GC_ROOTS]);
	printf("removed %zu target sites (%lld bytes)", k[TF_GC_SITES].nr,
	       k[TF_GC_SITES].bytes);
	busy(&k[TF_GC_SITES]);
	printf("removed %zu prepared /etc copies (%lld bytes)", r.etc.nr,
	       r.etc.bytes);
	busy(&r.etc);
	if (r.temps)
		printf("removed %zu temporaries left by killed runs (%lld "
		       "bytes)\n",
		       r.temps, r.temp_bytes);
	printf("the cache holds %lld bytes\n", r.left);
	return ret ? TF_EXIT_FAILURE : TF_EXIT_OK;
}

static int keygen(const char *prefix)
{
	struct tf_buf id = TF_BUF_INIT;
	int ret = tf_sign_keygen(prefix, &id);

	if (!ret)
		printf("key id %s: private key %s.key, public key %s.pub\n",
		       id.buf, prefix, prefix);
	tf_buf_release(&id);
	return ret ? TF_EXIT_FAILURE : TF_EXIT_OK;
}

int cmd_cache(struct tf_args *a)
{
	const struct tf_cmd *c = tf_cmd_find("cache");
	struct tf_store s = TF_STORE_INIT;
	struct tf_gc_dirs d = TF_GC_DIRS_INIT;
	const char *what = a->args.nr ? a->args.v[0] : NULL;
	size_t want = what && !strcmp(what, "keygen") ? 2 : 1;
	char *dir;
	int ret;

	if (!what)
		return tf_usage_error(
			c,
			"missing what to do: stats, gc, clear, verify or keygen");
	if (strcmp(what, "stats") && strcmp(what, "gc") &&
	    strcmp(what, "clear") && strcmp(what, "verify") &&
	    strcmp(what, "keygen"))
		return tf_usage_error(
			c, "'%s' is not stats, gc, clear, verify or keygen",
			what);
	if (a->args.nr != want)
		return tf_usage_error(c,
				      want == 2 ? "keygen needs one PREFIX"
						: "'%s' takes no arguments",
				      what);
	if (want == 2)
		return keygen(a->args.v[1]);
	dir = cache_dir(a);
	if (tf_store_open(&s, dir)) {
		free(dir);
		return TF_EXIT_FAILURE;
	}
	tf_gc_dirs_find(&d, dir);
	if (!strcmp(what, "stats"))
		ret = stats(&s, &d);
	else if (!strcmp(what, "gc"))
		ret = gc(&s, &d, a->max_size, c);
	else if (!strcmp(what, "clear"))
		ret = tf_store_clear(&s) ? TF_EXIT_FAILURE : TF_EXIT_OK;
	else {
		int bad = tf_store_verify(&s), dl = tf_fetch_cache_verify(dir);

		if (bad > 0)
			error("%d corrupt files in %s", bad, s.dir);
		if (dl > 0)
			error("%d corrupt downloads in %s/sha256", dl, dir);
		ret = bad || dl ? TF_EXIT_FAILURE : TF_EXIT_OK;
	}
	tf_gc_dirs_release(&d);
	tf_store_release(&s);
	free(dir);
	return ret;
}
