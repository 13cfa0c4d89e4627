#ifndef TF_SANDBOX_ROOT_H
#define TF_SANDBOX_ROOT_H

/*
 * What a step's sandbox holds, as bwrap options (sandbox.c puts them in
 * order): a minimal root of the machine's system files, the run's
 * places, empty directories of bounded size, and secrets hidden.
 * Private to build/; docs/security.md#the-step-sandbox says it in prose.
 */

#include <stddef.h>

struct tf_buf;
struct tf_plan;
struct tf_strvec;

/* The size of each writable tmpfs a step gets (/tmp, its HOME, TMPDIR). */
#define TF_SANDBOX_TMP_SIZE (1ULL << 30)
/* The size of a tmpfs that only hides a place (the store, a source). */
#define TF_SANDBOX_MASK_SIZE (1ULL << 20)
/* The size of the step's /run. */
#define TF_SANDBOX_RUN_SIZE (16ULL << 20)

/* Bind dir onto itself (read-only unless rw) if it is a directory. */
void tf_sandbox_bind(struct tf_strvec *a, const char *dir, int rw);
/* An empty tmpfs of at most size bytes on dir. */
void tf_sandbox_tmpfs(struct tf_strvec *a, const char *dir,
		      unsigned long long size);

/* What tf_sandbox_etc copies from, and where to. */
struct tf_sandbox_etc_in {
	const char *root; /* the machine's /etc ("/etc" but in tests) */
	const char *dir;  /* the copies live in dir/sandbox/ */
	int network;      /* resolv.conf too */
	const struct tf_strvec *secrets; /* real paths never copied */
	const struct tf_strvec *mounts;  /* names below root a step's
					    `sandbox.read` binds over the
					    copy, made there empty when not
					    copied (a mount point); or NULL */
};

/*
 * The /etc of a step: a directory holding copies of exactly the entries
 * of in->root that compilers, Python, CMake and the loader read
 * (sandbox_etc.c lists them). A link stays a link where it still
 * resolves in a step (into /usr, /proc or the list), else what it names
 * is copied; inside a directory, links are kept as a bind would show
 * them. No secret is copied, nor a FIFO, socket or device. The two
 * directories of hundreds of links (alternatives, ssl/certs) are empty
 * in the copy: their names (below root) are added to binds, to be bound
 * over it. Made once in dir/sandbox/etc-HEX, HEX the SHA-256 of what it
 * holds, through a temporary renamed into place, so never half there;
 * one already there is used while what it holds still hashes to its
 * name, else replaced. Its path into out; 0, or -1 (said).
 */
int tf_sandbox_etc(const struct tf_sandbox_etc_in *in, struct tf_buf *out,
		   struct tf_strvec *binds);

/* An empty tmpfs of at most size bytes on the directory dir, if a bind
 * of a (so far) shows it. */
void tf_sandbox_hide(struct tf_strvec *a, const char *dir,
		     unsigned long long size);

/*
 * The step's /dev, what bwrap's --dev makes but its terminals: a tmpfs
 * of TF_SANDBOX_TMP_SIZE holding the machine's null, zero, full, random,
 * urandom and tty, the links fd, stdin, stdout and stderr into
 * /proc/self, and shm, a directory anyone may write (Python's
 * multiprocessing); no /dev/pts, no /dev/ptmx: a step gets no pseudo
 * terminal (tf_build_terminal_failure says so when one fails for it).
 */
void tf_sandbox_dev(struct tf_strvec *a);

/*
 * The system's part of the root: /usr read-only and the links into it
 * (/bin, /lib, ...) as the machine has them; etc (tf_sandbox_etc) as
 * /etc, one read-only bind, and /etc/NAME for each NAME of etc_binds
 * over it; /dev (tf_sandbox_dev), /proc, an empty /tmp and /run. Nothing else of the
 * machine: no /root, /home, /var, /srv, /mnt, /opt, no /etc/shadow.
 */
void tf_sandbox_system(struct tf_strvec *a, const char *etc,
		       const struct tf_strvec *etc_binds, int network);

/*
 * The places of the run a step reads (into out): the build tree, the
 * recipe's directory and the one above (`path:` sources, tools beside
 * it), what the cache holds but its downloads, store, temporaries and
 * prepared /etc (target roots, launchers' caches), the sysroot, the emulator's root, the
 * target wheels' site (${target_site}), the host wheels' (${host_site}),
 * and the prefixes of the
 * target's tools (the directory above a bin/). Unfiltered.
 */
void tf_sandbox_places(const struct tf_plan *p, const char *cache_dir,
		       struct tf_strvec *out);

/*
 * Bind places read-only, each once (one inside another is not bound
 * again), leaving out those that would bring back the machine: the
 * root, a directory that holds the user's HOME, /tmp, /run or other
 * users' homes. HOME itself is never bound: where a place above it
 * would show it, it is emptied (a tmpfs) and the places below it bound
 * again; else those are bound as they are, on the empty root.
 */
void tf_sandbox_bind_places(struct tf_strvec *a, const struct tf_strvec *places,
			    const char *home);

/*
 * The real paths of the secret files of keys[0..nr) (NULL entries
 * skipped) and of the credentials files below that exist, into out.
 */
void tf_sandbox_secrets(const char *const *keys, size_t nr,
			struct tf_strvec *out);

/*
 * Hide each secret file of keys[0..nr) (NULL entries skipped) and the credentials files tfbuild and pip read (tfbuild's config,
 * pip.conf, netrc) behind /dev/null, by their real paths, wherever a
 * bind of a (so far) shows them. Call after every bind.
 */
void tf_sandbox_mask_secrets(struct tf_strvec *a, const char *const *keys,
			     size_t nr);

/*
 * 1 if a step may not be shown real (a resolved absolute path, from
 * `sandbox.read`), with the reason in why: it is `/`, in /proc or
 * /dev, or is or lies in what steps never see (the keys[0..nr), the
 * credentials files, the cache's downloads, store and temporary files).
 * A directory that holds a secret is not refused: the secret stays
 * hidden (tf_sandbox_mask_secrets runs after every bind). 0 otherwise.
 */
int tf_sandbox_read_refused(const char *real, const char *const *keys,
			    size_t nr, const char *cache_dir,
			    struct tf_buf *why);

/*
 * Clear the set-user-ID and set-group-ID bits of every regular file
 * below dir (links not followed): a step that made a setuid copy of a
 * shell leaves none on the machine. Best effort, silent.
 */
void tf_sandbox_scrub(const char *dir);

#endif
