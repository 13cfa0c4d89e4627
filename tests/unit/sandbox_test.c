#include "unit.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/base.h"
#include "sandbox_root.h"

static char top[] = "/tmp/tf-sandbox-test.XXXXXX";

static void put(const char *rel, const char *text)
{
	struct tf_buf p = TF_BUF_INIT, dir = TF_BUF_INIT;
	FILE *f;

	tf_buf_setf(&p, "%s/%s", top, rel);
	tf_path_dirname(&dir, p.buf);
	tf_mkdir_p(dir.buf);
	f = fopen(p.buf, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	tf_buf_release(&p);
	tf_buf_release(&dir);
}

static void link_to(const char *target, const char *rel)
{
	struct tf_buf p = TF_BUF_INIT;

	tf_buf_setf(&p, "%s/%s", top, rel);
	if (symlink(target, p.buf))
		perror(p.buf);
	tf_buf_release(&p);
}

/* What rel in the prepared dir holds: "f:BYTES", "l:TARGET", "d", or
 * "-" when it is not there. */
static const char *seen(const char *dir, const char *rel)
{
	static struct tf_buf out = TF_BUF_INIT;
	struct tf_buf p = TF_BUF_INIT;
	struct stat st;
	char link[256];
	ssize_t n;

	tf_buf_setf(&p, "%s/%s", dir, rel);
	tf_buf_reset(&out);
	if (lstat(p.buf, &st))
		tf_buf_addstr(&out, "-");
	else if (S_ISLNK(st.st_mode) &&
		 (n = readlink(p.buf, link, sizeof(link) - 1)) > 0)
		tf_buf_addf(&out, "l:%.*s", (int)n, link);
	else if (S_ISDIR(st.st_mode))
		tf_buf_addstr(&out, "d");
	else if (S_ISREG(st.st_mode)) {
		tf_buf_addstr(&out, "f:");
		tf_read_file(p.buf, &out);
	}
	tf_buf_release(&p);
	return out.buf;
}

static ino_t inode(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_ino;
}

/* A machine's /etc: what is copied, kept as a link, left out. */
static void make_root(void)
{
	struct tf_buf p = TF_BUF_INIT;

	put("etc/passwd", "root:x:0:0::/root:/bin/sh\n");
	put("etc/shadow", "root:secret\n");
	put("outside/hosts", "127.0.0.1 localhost\n");
	link_to("../outside/hosts", "etc/hosts");
	link_to("/usr/bin/sh", "etc/localtime");
	link_to("/proc/self/mounts", "etc/mtab");
	put("etc/ssl/certs/ca.pem", "CA\n");
	put("etc/dpkg/a.cfg", "A\n");
	put("etc/dpkg/release.key", "PRIVATE\n");
	link_to("a.cfg", "etc/dpkg/b.cfg");
	link_to("/nowhere/c.cfg", "etc/dpkg/c.cfg");
	link_to("ssl/certs", "etc/alternatives");
	put("etc/python3.11/sitecustomize.py", "pass\n");
	put("etc/resolv.conf", "nameserver 10.0.0.1\n");
	put("etc/krb5.conf", "[libdefaults]\n");
	put("etc/apt/conf.d/x", "x\n");
	tf_buf_setf(&p, "%s/etc/dpkg/fifo", top);
	mkfifo(p.buf, 0600);
	tf_buf_release(&p);
}

static void check_contents(const char *d)
{
	CHECK_STR(seen(d, "passwd"), "f:root:x:0:0::/root:/bin/sh\n");
	/* a link out of /usr and the list: what it names, copied */
	CHECK_STR(seen(d, "hosts"), "f:127.0.0.1 localhost\n");
	CHECK_STR(seen(d, "localtime"), "l:/usr/bin/sh");
	CHECK_STR(seen(d, "mtab"), "l:/proc/self/mounts");
	CHECK_STR(seen(d, "alternatives"), "l:ssl/certs");
	CHECK_STR(seen(d, "ssl"), "d");
	/* bound over it: empty here */
	CHECK_STR(seen(d, "ssl/certs"), "d");
	CHECK_STR(seen(d, "ssl/certs/ca.pem"), "-");
	CHECK_STR(seen(d, "dpkg/a.cfg"), "f:A\n");
	CHECK_STR(seen(d, "dpkg/b.cfg"), "l:a.cfg");
	/* inside a directory, as a bind shows it: dangling in a step too */
	CHECK_STR(seen(d, "dpkg/c.cfg"), "l:/nowhere/c.cfg");
	CHECK_STR(seen(d, "python3.11/sitecustomize.py"), "f:pass\n");
	CHECK_STR(seen(d, "dpkg/release.key"), "-");
	CHECK_STR(seen(d, "dpkg/fifo"), "-");
	CHECK_STR(seen(d, "shadow"), "-");
	CHECK_STR(seen(d, "outside"), "-");
	CHECK_STR(seen(d, "resolv.conf"), "-");
}

/* 1 if the cache's sandbox/ holds only prepared directories. */
static int no_temporaries(const char *cache)
{
	struct tf_buf p = TF_BUF_INIT;
	struct dirent *e;
	DIR *d;
	int clean = 1;

	tf_buf_setf(&p, "%s/sandbox", cache);
	d = opendir(p.buf);
	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    strncmp(e->d_name, "etc-", 4))
			clean = 0;
	if (d)
		closedir(d);
	tf_buf_release(&p);
	return d && clean;
}

static struct tf_buf root = TF_BUF_INIT, cache = TF_BUF_INIT;

static int etc(int network, const struct tf_strvec *secrets,
	       const struct tf_strvec *mounts, struct tf_buf *out,
	       struct tf_strvec *binds)
{
	struct tf_sandbox_etc_in in = { .root = root.buf,
					.dir = cache.buf,
					.network = network,
					.secrets = secrets,
					.mounts = mounts };

	return tf_sandbox_etc(&in, out, binds);
}

static void test_etc(void)
{
	struct tf_strvec secrets = TF_STRVEC_INIT, binds = TF_STRVEC_INIT;
	struct tf_strvec mounts = TF_STRVEC_INIT;
	struct tf_buf d = TF_BUF_INIT, again = TF_BUF_INIT, p = TF_BUF_INIT;
	char *key;
	ino_t ino;

	make_root();
	tf_buf_setf(&root, "%s/etc", top);
	tf_buf_setf(&cache, "%s/cache", top);
	tf_buf_setf(&p, "%s/etc/dpkg/release.key", top);
	key = realpath(p.buf, NULL);
	tf_strvec_push(&secrets, key ? key : p.buf);
	free(key);

	CHECK_INT(etc(0, &secrets, NULL, &d, &binds), 0);
	tf_buf_setf(&p, "%s/sandbox/etc-", cache.buf);
	CHECK(!strncmp(d.buf, p.buf, p.len) && d.len == p.len + 64);
	check_contents(d.buf);
	CHECK(no_temporaries(cache.buf));
	/* the link farms are bound (alternatives is a link here: copied) */
	CHECK_INT(binds.nr, 1);
	CHECK_STR(binds.v[0], "ssl/certs");
	tf_strvec_release(&binds);

	/* the same contents: the same directory, used as it is */
	ino = inode(d.buf);
	CHECK_INT(etc(0, &secrets, NULL, &again, NULL), 0);
	CHECK_STR(again.buf, d.buf);
	CHECK(inode(d.buf) == ino);

	/* changed behind tfbuild's back: made again, with the right bytes */
	tf_buf_setf(&p, "%s/passwd", d.buf);
	chmod(p.buf, 0644);
	put(p.buf + strlen(top) + 1, "evil::0:0::/:/bin/sh\n");
	CHECK_STR(seen(d.buf, "passwd"), "f:evil::0:0::/:/bin/sh\n");
	CHECK_INT(etc(0, &secrets, NULL, &again, NULL), 0);
	CHECK_STR(again.buf, d.buf);
	check_contents(d.buf);
	CHECK(no_temporaries(cache.buf));

	/* a FIFO put there hashes as nothing, but is not used either */
	tf_buf_setf(&p, "%s/ld.so.preload", d.buf);
	CHECK_INT(mkfifo(p.buf, 0644), 0);
	CHECK_INT(etc(0, &secrets, NULL, &again, NULL), 0);
	CHECK_STR(again.buf, d.buf);
	CHECK_STR(seen(d.buf, "ld.so.preload"), "-");
	check_contents(d.buf);

	/* with the network, resolv.conf too: another directory */
	CHECK_INT(etc(1, &secrets, NULL, &again, NULL), 0);
	CHECK(strcmp(again.buf, d.buf));
	CHECK_STR(seen(again.buf, "resolv.conf"), "f:nameserver 10.0.0.1\n");

	/* the machine's file changed: another directory, its bytes */
	put("etc/passwd", "root:x:0:0::/root:/bin/bash\n");
	CHECK_INT(etc(0, &secrets, NULL, &again, NULL), 0);
	CHECK(strcmp(again.buf, d.buf));
	CHECK_STR(seen(again.buf, "passwd"), "f:root:x:0:0::/root:/bin/bash\n");

	/* a step's sandbox.read in /etc gets a mount point where the copy
	 * has none; none where it has the file, or the directory is bound */
	tf_strvec_pushv(&mounts,
			(const char *const[]){ "krb5.conf", "apt/conf.d",
					       "dpkg/a.cfg", "ssl/certs/ca.pem",
					       NULL });
	CHECK_INT(etc(0, &secrets, &mounts, &again, NULL), 0);
	CHECK(strcmp(again.buf, d.buf));
	CHECK_STR(seen(again.buf, "krb5.conf"), "f:");
	CHECK_STR(seen(again.buf, "apt"), "d");
	CHECK_STR(seen(again.buf, "apt/conf.d"), "d");
	CHECK_STR(seen(again.buf, "apt/conf.d/x"), "-");
	CHECK_STR(seen(again.buf, "dpkg/a.cfg"), "f:A\n");
	CHECK_STR(seen(again.buf, "ssl/certs/ca.pem"), "-");
	CHECK_INT(etc(0, &secrets, &mounts, &p, NULL), 0);
	CHECK_STR(p.buf, again.buf);
	tf_strvec_release(&mounts);

	/* without the secret named, it is copied: the list is what hides it */
	tf_strvec_release(&secrets);
	CHECK_INT(etc(0, &secrets, NULL, &again, NULL), 0);
	CHECK_STR(seen(again.buf, "dpkg/release.key"), "f:PRIVATE\n");

	tf_buf_release(&root);
	tf_buf_release(&cache);
	tf_buf_release(&d);
	tf_buf_release(&again);
	tf_buf_release(&p);
}

int main(void)
{
	if (!mkdtemp(top)) {
		perror("mkdtemp");
		return 1;
	}
	test_etc();
	tf_rm_rf(top);
	return unit_done();
}
