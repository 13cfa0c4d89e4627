/*
 * The build cache's pure logic: action entries (encode, parse, sign,
 * verify), trust files, LRU selection, key relocation, sizes; the
 * local store's keyed entries (store/mac.key).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acentry.h"
#include "buf.h"
#include "cache.h"
#include "path.h"
#include "sign.h"
#include "store.h"
#include "unit.h"

#define K "1111111111111111111111111111111111111111111111111111111111111111"
#define C "2222222222222222222222222222222222222222222222222222222222222222"
#define T "3333333333333333333333333333333333333333333333333333333333333333"

static struct tf_ac_entry entry(void)
{
	struct tf_ac_entry e;

	memset(&e, 0, sizeof(e));
	memcpy(e.key, K, sizeof(e.key));
	memcpy(e.cas, C, sizeof(e.cas));
	memcpy(e.tree, T, sizeof(e.tree));
	e.size = 10240;
	return e;
}

static void test_unsigned(void)
{
	struct tf_ac_entry e = entry(), got;
	struct tf_buf text = TF_BUF_INIT, why = TF_BUF_INIT;

	CHECK(!tf_ac_encode(&e, NULL, &text));
	CHECK_STR(text.buf,
		  "tfbuild-action-cache 1\nkey " K "\ncas " C
		  "\nsize 10240\ntree " T "\nsigner -\nsignature -\n");
	CHECK(!tf_ac_parse(text.buf, text.len, &got, &why));
	CHECK_STR(got.key, K);
	CHECK_STR(got.cas, C);
	CHECK_STR(got.tree, T);
	CHECK_INT(got.size, 10240);
	CHECK_STR(got.signer, "");
	tf_buf_release(&text);
	tf_buf_release(&why);
}

/* Each malformed text is refused with a reason. */
static void test_malformed(void)
{
	static const char *const bad[] = {
		"",
		"tfbuild-action-cache 2\n",
		"tfbuild-action-cache 1\nkey " K "\ncas " C "\nsize 10\ntree " T
		"\nsigner -\n",
		"tfbuild-action-cache 1\nkey " K "\ncas " C "\nsize -1\ntree " T
		"\nsigner -\nsignature -\n",
		"tfbuild-action-cache 1\nkey " K "\ncas " C
		"\nsize 010\ntree " T "\nsigner -\nsignature -\n",
		"tfbuild-action-cache 1\nkey " K "\ncas " C "\nsize 10\ntree " T
		"\nsigner -\nsignature -\nextra\n",
		"tfbuild-action-cache 1\nkey " K "X\ncas " C
		"\nsize 10\ntree " T "\nsigner -\nsignature -\n",
		"tfbuild-action-cache 1\ncas " C "\nkey " K "\nsize 10\ntree " T
		"\nsigner -\nsignature -\n",
		"tfbuild-action-cache 1\nkey " K "\ncas " C "\nsize 10\ntree " T
		"\nsigner abc\nsignature -\n",
		"tfbuild-action-cache 1\nkey " K "\ncas " C "\nsize 10\ntree " T
		"\nsigner 0123456789abcdef\nsignature 00\n",
		NULL,
	};
	struct tf_buf why = TF_BUF_INIT;
	struct tf_ac_entry e;
	size_t i;

	for (i = 0; bad[i]; i++) {
		tf_buf_reset(&why);
		CHECK(tf_ac_parse(bad[i], strlen(bad[i]), &e, &why) < 0);
		CHECK(why.len > 0);
	}
	tf_buf_release(&why);
}

static void test_signed(const char *dir)
{
	struct tf_buf prefix = TF_BUF_INIT, other = TF_BUF_INIT,
		      id = TF_BUF_INIT, text = TF_BUF_INIT, why = TF_BUF_INIT,
		      path = TF_BUF_INIT;
	struct tf_signer *s, *o;
	struct tf_trust *t = tf_trust_new(), *wrong = tf_trust_new();
	struct tf_ac_entry e = entry(), got;
	char *copy;

	tf_buf_addf(&prefix, "%s/a", dir);
	tf_buf_addf(&other, "%s/b", dir);
	CHECK(!tf_sign_keygen(prefix.buf, &id));
	CHECK_INT(id.len, TF_KEY_ID_LEN);
	tf_buf_reset(&id);
	CHECK(tf_sign_keygen(prefix.buf, &id) < 0); /* never overwrites */
	CHECK(!tf_sign_keygen(other.buf, &id));
	tf_buf_addf(&path, "%s.key", prefix.buf);
	s = tf_signer_load(path.buf);
	tf_buf_reset(&path);
	tf_buf_addf(&path, "%s.key", other.buf);
	o = tf_signer_load(path.buf);
	CHECK(s && o);
	if (!s || !o)
		return;
	tf_buf_reset(&path);
	tf_buf_addf(&path, "%s.pub", prefix.buf);
	CHECK(!tf_trust_add_file(t, path.buf));
	CHECK_INT(tf_trust_count(t), 1);
	tf_trust_add_signer(wrong, o);

	CHECK(!tf_ac_encode(&e, s, &text));
	CHECK_STR(e.signer, tf_signer_id(s));
	CHECK(!tf_ac_verify(text.buf, text.len, K, t, &got, &why));
	CHECK_STR(got.signer, tf_signer_id(s));

	/* Another key asked for: a valid entry of K is not one of C. */
	tf_buf_reset(&why);
	CHECK(tf_ac_verify(text.buf, text.len, C, t, &got, &why) < 0);
	CHECK(strstr(why.buf, "another key") != NULL);
	/* Signed by a key not trusted. */
	tf_buf_reset(&why);
	CHECK(tf_ac_verify(text.buf, text.len, K, wrong, &got, &why) < 0);
	CHECK(strstr(why.buf, "not trusted") != NULL);
	/* One byte changed: the cas digest now names another blob. */
	copy = tf_strdup(text.buf);
	strstr(copy, "cas ")[4] = '4';
	tf_buf_reset(&why);
	CHECK(tf_ac_verify(copy, strlen(copy), K, t, &got, &why) < 0);
	CHECK(strstr(why.buf, "does not verify") != NULL);
	free(copy);
	/* Unsigned. */
	tf_buf_reset(&text);
	tf_ac_encode(&e, NULL, &text);
	tf_buf_reset(&why);
	CHECK(tf_ac_verify(text.buf, text.len, K, t, &got, &why) < 0);
	CHECK(strstr(why.buf, "not signed") != NULL);

	tf_signer_free(s);
	tf_signer_free(o);
	tf_trust_free(t);
	tf_trust_free(wrong);
	tf_buf_release(&prefix);
	tf_buf_release(&other);
	tf_buf_release(&id);
	tf_buf_release(&text);
	tf_buf_release(&why);
	tf_buf_release(&path);
}

static void test_trust_file(const char *dir)
{
	struct tf_buf path = TF_BUF_INIT;
	struct tf_trust *t = tf_trust_new();
	static const char good[] =
		"# the CI key\n"
		"d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a\n";

	tf_buf_addf(&path, "%s/trust", dir);
	CHECK(!tf_write_file_atomic(path.buf, good, strlen(good), 0644));
	CHECK(!tf_trust_add_file(t, path.buf));
	CHECK_INT(tf_trust_count(t), 1);
	CHECK(!tf_write_file_atomic(path.buf, "nothing\n", 8, 0644));
	CHECK(tf_trust_add_file(t, path.buf) < 0);
	CHECK(!tf_write_file_atomic(path.buf, "# only\n", 7, 0644));
	CHECK(tf_trust_add_file(t, path.buf) < 0);
	tf_trust_free(t);
	tf_buf_release(&path);
}

static void test_lru(void)
{
	struct tf_store_blob v[] = {
		{ "c", 100, 30, 0 },
		{ "a", 100, 10, 0 },
		{ "b", 50, 20, 0 },
		{ "d", 10, 20, 5 },
	};

	CHECK_INT(tf_store_lru_pick(v, 4, 1000), 0);
	CHECK_INT(tf_store_lru_pick(v, 4, 260), 0);
	CHECK_INT(tf_store_lru_pick(v, 4, 259), 1);
	CHECK_STR(v[0].hex, "a");
	CHECK_STR(v[1].hex, "b");
	CHECK_STR(v[2].hex, "d");
	CHECK_STR(v[3].hex, "c");
	CHECK_INT(tf_store_lru_pick(v, 4, 110), 2);
	CHECK_INT(tf_store_lru_pick(v, 4, 100), 3);
	CHECK_INT(tf_store_lru_pick(v, 4, 0), 4);
	CHECK_INT(tf_store_lru_pick(v, 0, 0), 0);
}

/* One order across kinds: the clock, then the kind, then the path. */
static void test_gc_order(void)
{
	struct tf_gc_item v[] = {
		{ TF_GC_STORE, 0, "blob", 10, 200, 0 },
		{ TF_GC_SITES, 0, "/s/site", 10, 100, 0 },
		{ TF_GC_ROOTS, 1, "/r/debs/b.deb", 10, 200, 0 },
		{ TF_GC_DOWNLOADS, 0, "/c/sha256/x", 10, 100, 7 },
		{ TF_GC_ROOTS, 1, "/r/debs/a.deb", 10, 200, 0 },
	};

	tf_gc_order(v, 5);
	CHECK_STR(v[0].path, "/s/site");
	CHECK_STR(v[1].path, "/c/sha256/x");
	CHECK_STR(v[2].path, "blob");
	CHECK_STR(v[3].path, "/r/debs/a.deb");
	CHECK_STR(v[4].path, "/r/debs/b.deb");
	tf_gc_order(v, 0);
}

static void test_relocate(void)
{
	static const char *const from[] = { "/b", "/b/tree", "/c", NULL };
	static const char *const to[] = { "@R@", "@B@", "@C@", NULL };
	static const char *const cases[][2] = {
		{ "", "" },
		{ "CFLAGS=-ffile-prefix-map=/b/tree=/x",
		  "CFLAGS=-ffile-prefix-map=@B@=/x" },
		{ "/b/treehouse /b/x /c/sys /d", "@B@house @R@/x @C@/sys /d" },
		{ "no paths", "no paths" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tf_buf out = TF_BUF_INIT;

		tf_cache_relocate(cases[i][0], strlen(cases[i][0]), from, to,
				  &out);
		CHECK_STR(out.buf, cases[i][1]);
		tf_buf_release(&out);
	}
}

static void test_sizes(void)
{
	CHECK_INT(tf_store_parse_size("123"), 123);
	CHECK_INT(tf_store_parse_size("64k"), 65536);
	CHECK_INT(tf_store_parse_size("500M"), 500LL << 20);
	CHECK_INT(tf_store_parse_size("10GiB"), 10LL << 30);
	CHECK_INT(tf_store_parse_size("1T"), 1LL << 40);
	CHECK_INT(tf_store_parse_size(""), -1);
	CHECK_INT(tf_store_parse_size("-1"), -1);
	CHECK_INT(tf_store_parse_size("10X"), -1);
	CHECK_INT(tf_store_parse_size("99999999999999999999"), -1);
}

/* Rewrite the entry file of K in s: without its MAC line (drop_mac), or
 * with one hex digit of its MAC changed (flip). */
static void rewrite(const struct tf_store *s, int drop_mac, int flip)
{
	struct tf_buf path = TF_BUF_INIT, text = TF_BUF_INIT;

	tf_buf_setf(&path, "%s/ac/11/%s", s->dir, K);
	CHECK(!tf_read_file(path.buf, &text));
	if (drop_mac)
		tf_buf_setlen(&text,
			      (size_t)(strstr(text.buf, "mac ") - text.buf));
	if (flip)
		text.buf[text.len - 2] ^= 1; /* a hex digit of the MAC */
	CHECK(!tf_write_file_atomic(path.buf, text.buf, text.len, 0644));
	tf_buf_release(&path);
	tf_buf_release(&text);
}

/* A store entry is taken only with tfbuild's MAC under the store's key. */
static void test_store_mac(const char *dir)
{
	struct tf_store s = TF_STORE_INIT, other = TF_STORE_INIT;
	struct tf_ac_entry e = entry(), got;
	struct tf_buf text = TF_BUF_INIT, why = TF_BUF_INIT, key = TF_BUF_INIT;

	CHECK(!tf_ac_encode(&e, NULL, &text));
	CHECK(!tf_store_open(&s, dir));
	CHECK_INT(s.keyed, 0); /* made by the first put, not by opening */
	CHECK_INT(tf_store_get_ac(&s, K, &got, NULL, &why), TF_STORE_MISSING);
	CHECK(!tf_store_put_ac(&s, K, text.buf, text.len));
	CHECK_INT(s.keyed, 1);
	tf_buf_setf(&key, "%s/store/mac.key", dir);
	CHECK_INT(access(key.buf, R_OK), 0);
	tf_buf_reset(&why);
	CHECK_INT(tf_store_get_ac(&s, K, &got, &key, &why), TF_STORE_OK);
	CHECK_INT((int)key.len, (int)text.len); /* the text, without the MAC */
	/* another tfbuild on the same cache reads the same key */
	CHECK(!tf_store_open(&other, dir));
	CHECK_INT(tf_store_get_ac(&other, K, &got, NULL, &why), TF_STORE_OK);
	rewrite(&s, 0, 1);
	tf_buf_reset(&why);
	CHECK_INT(tf_store_get_ac(&s, K, &got, NULL, &why), TF_STORE_BAD);
	CHECK(strstr(why.buf, "MAC does not match") != NULL);
	rewrite(&s, 1, 0);
	tf_buf_reset(&why);
	CHECK_INT(tf_store_get_ac(&s, K, &got, NULL, &why), TF_STORE_MISSING);
	CHECK(strstr(why.buf, "no MAC") != NULL);
	tf_store_release(&s);
	tf_store_release(&other);
	tf_buf_release(&text);
	tf_buf_release(&why);
	tf_buf_release(&key);
}

int main(void)
{
	char dir[] = "/tmp/tfbuild-cache-test.XXXXXX";

	if (!mkdtemp(dir))
		return 1;
	test_unsigned();
	test_malformed();
	test_signed(dir);
	test_trust_file(dir);
	test_lru();
	test_gc_order();
	test_relocate();
	test_sizes();
	test_store_mac(dir);
	tf_rm_rf(dir);
	return unit_done();
}
