/* The field tables of a recipe's top level, its sources and its steps. */
#include "recipe_internal.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "base/base.h"
#include "env/env.h"
#include "metadata/metadata.h"
#include "recipe.h"

/* Steps in one recipe (docs/security.md#limits). */
#define MAX_STEPS 4096

static int check_name(struct loader *l, const struct tf_str *s,
		      const char *what)
{
	const char *p;

	for (p = s->s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' ||
		      *p == '-'))
			break;
	if (*s->s && !*p && *s->s != '.')
		return 0;
	l->errors++;
	/* Names become directory names; hidden ones are tfbuild's own. */
	if (*s->s && !*p)
		return tf_error_at(&s->pos, "%s '%s' cannot start with '.'",
				   what, s->s);
	return tf_error_at(
		&s->pos,
		"%s '%s' may only use letters, digits, '.', '_' and '-'", what,
		s->s);
}

/* ---- sources ---- */

STR_FIELD(tf_source, name, "name")
STR_FIELD(tf_source, url, "url")
STR_FIELD(tf_source, sha256, "sha256")
STR_FIELD(tf_source, path, "path")
STR_FIELD(tf_source, version, "version")
STR_FIELD(tf_source, license, "license")

static int parse_source_mirrors(struct loader *l, yaml_node_t *v, void *obj,
				const char *where)
{
	struct tf_source *s = obj;

	return tf_load_str_list(l, "mirrors", v, &s->mirrors, &s->nr_mirrors);
}

static int parse_source_strip(struct loader *l, yaml_node_t *v, void *obj,
			      const char *where)
{
	long long n;

	if (tf_load_int(l, "strip", v, 0, 64, &n))
		return -1;
	((struct tf_source *)obj)->strip = (int)n;
	return 0;
}

/* The download's exact size: bytes, 1 to 1 TiB. */
static int parse_source_size(struct loader *l, yaml_node_t *v, void *obj,
			     const char *where)
{
	long long n;

	(void)where;
	if (tf_load_int(l, "size", v, 1, 1LL << 40, &n))
		return -1;
	((struct tf_source *)obj)->size = n;
	return 0;
}

static int parse_patch_strip(struct loader *l, yaml_node_t *v, void *obj,
			     const char *where)
{
	long long n;

	if (tf_load_int(l, "strip", v, 0, 64, &n))
		return -1;
	((struct tf_source *)obj)->patch_strip = (int)n;
	return 0;
}

static int parse_patch_series(struct loader *l, yaml_node_t *v, void *obj,
			      const char *where)
{
	struct tf_source *s = obj;

	return tf_load_str_list(l, "series", v, &s->patches, &s->nr_patches);
}

static const struct field patch_fields[] = {
	{ "strip", 1, parse_patch_strip },
	{ "series", 1, parse_patch_series },
	{ NULL, 0, NULL },
};

static int parse_source_patches(struct loader *l, yaml_node_t *v, void *obj,
				const char *where)
{
	struct tf_buf w = TF_BUF_INIT;
	int ret;

	tf_buf_addf(&w, "%s.patches", where);
	((struct tf_source *)obj)->has_patches = 1;
	ret = tf_load_map(l, v, patch_fields, obj, w.buf);
	tf_buf_release(&w);
	return ret;
}

static const struct field source_fields[] = {
	{ "name", 1, parse_tf_source_name },
	{ "url", 0, parse_tf_source_url },
	{ "mirrors", 0, parse_source_mirrors },
	{ "sha256", 0, parse_tf_source_sha256 },
	{ "size", 0, parse_source_size },
	{ "strip", 0, parse_source_strip },
	{ "path", 0, parse_tf_source_path },
	{ "patches", 0, parse_source_patches },
	{ "version", 0, parse_tf_source_version },
	{ "license", 0, parse_tf_source_license },
	{ NULL, 0, NULL },
};

/* Checks that involve more than one key of a source. */
static int check_source(struct loader *l, yaml_node_t *n, struct tf_source *s,
			const char *where)
{
	struct tf_buf why = TF_BUF_INIT;

	if (s->name.s && check_name(l, &s->name, "source name"))
		return -1;
	if (!s->url.s && !s->path.s)
		return tf_load_bad(l, n, "'%s' needs 'url' or 'path'", where);
	if (s->url.s && s->path.s)
		return tf_load_bad(
			l, n, "'%s' has both 'url' and 'path'; use one", where);
	if (s->path.s &&
	    (s->sha256.s || s->nr_mirrors || s->strip || s->size)) {
		const char *k = s->sha256.s     ? "sha256"
				: s->nr_mirrors ? "mirrors"
				: s->size       ? "size"
						: "strip";
		return tf_load_bad(
			l, n,
			"'%s' is a local 'path' source; '%s' applies only to 'url' sources",
			where, k);
	}
	if (s->url.s && !s->sha256.s)
		return tf_load_bad(
			l, n, "missing required key 'sha256' in '%s'", where);
	if (s->license.s && tf_spdx_check(s->license.s, &why)) {
		l->errors++;
		tf_error_at(&s->license.pos,
			    "license '%s' is not a valid SPDX license "
			    "expression: %s",
			    s->license.s, why.buf);
		tf_buf_release(&why);
		return -1;
	}
	if (s->sha256.s && !tf_sha256_is_hex(s->sha256.s)) {
		l->errors++;
		return tf_error_at(
			&s->sha256.pos,
			"'sha256' must be 64 lowercase hex digits, not '%s'",
			s->sha256.s);
	}
	return 0;
}

/* ---- steps ---- */

STR_FIELD(tf_step, name, "name")
STR_FIELD(tf_step, source, "source")
STR_FIELD(tf_step, run, "run")

static int parse_step_needs(struct loader *l, yaml_node_t *v, void *obj,
			    const char *where)
{
	struct tf_step *s = obj;

	return tf_load_str_list(l, "needs", v, &s->needs, &s->nr_needs);
}

static int parse_step_env(struct loader *l, yaml_node_t *v, void *obj,
			  const char *where)
{
	struct tf_step *s = obj;
	size_t i;

	if (tf_load_str_map(l, "env", v, &s->env, &s->nr_env))
		return -1;
	for (i = 0; i < s->nr_env; i++) {
		const char *k = s->env[i].key.s;

		if (!*k ||
		    k[strspn(
			    k,
			    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")] ||
		    (*k >= '0' && *k <= '9')) {
			l->errors++;
			return tf_error_at(
				&s->env[i].key.pos,
				"'%s' is not a valid environment variable name",
				k);
		}
	}
	return 0;
}

long long tf_parse_duration(const char *s)
{
	long long n = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		n = n * 10 + (*p - '0');
		if (n > 1000000000LL)
			return -1;
	}
	if (!strcmp(p, "") || !strcmp(p, "s"))
		return n;
	if (!strcmp(p, "m"))
		return n * 60;
	if (!strcmp(p, "h"))
		return n * 3600;
	return -1;
}

static int parse_step_timeout(struct loader *l, yaml_node_t *v, void *obj,
			      const char *where)
{
	struct tf_step *s = obj;
	struct tf_str t;

	if (tf_load_str(l, "timeout", v, &t))
		return -1;
	s->timeout = tf_parse_duration(t.s);
	s->timeout_pos = t.pos;
	if (s->timeout > 0)
		return 0;
	l->errors++;
	return tf_error_at(
		&t.pos,
		"'timeout' must be a positive duration such as 90s, 30m or 2h, not '%s'",
		t.s);
}

/*
 * `baseline: false` (no run on the baseline CPU) or `baseline: COMMAND`
 * (only COMMAND runs there, in the test's finished work directory).
 */
static int parse_step_baseline(struct loader *l, yaml_node_t *v, void *obj,
			       const char *where)
{
	struct tf_step *s = obj;
	const char *t;

	if (tf_load_str(l, "baseline", v, &s->baseline))
		return -1;
	t = s->baseline.s;
	if (s->baseline.style == TF_STR_PLAIN && !strcmp(t, "false")) {
		s->baseline_off = 1;
		return 0;
	}
	if (t[strspn(t, " \t\n")] &&
	    (s->baseline.style != TF_STR_PLAIN ||
	     (strcmp(t, "true") && strcmp(t, "yes") && strcmp(t, "no") &&
	      strcmp(t, "on") && strcmp(t, "off") && strcmp(t, "null") &&
	      strcmp(t, "~"))))
		return 0;
	l->errors++;
	return tf_error_at(
		&s->baseline.pos,
		"'baseline' must be false (no run on the baseline CPU) or the command to run there, not '%s'",
		t);
}

/* The shells a step may name, NULL-terminated: "sh", "bash". */
static const char *const *tf_shell_choices(void)
{
	static const char *const v[] = { "sh", "bash", NULL };
	return v;
}

/* `shell: sh|bash` into *s and *kind, refused with the nearest name. */
static int load_shell(struct loader *l, yaml_node_t *v, struct tf_str *s,
		      int *kind)
{
	const char *const *c = tf_shell_choices();
	struct tf_buf valid = TF_BUF_INIT;
	const char *near;
	int i, ret;

	if (tf_load_str(l, "shell", v, s))
		return -1;
	for (i = 0; c[i]; i++)
		if (!strcmp(s->s, c[i])) {
			*kind = i == 0 ? TF_SHELL_SH : TF_SHELL_BASH;
			return 0;
		}
	near = tf_words_nearest(s->s, c);
	tf_words_join(c, &valid);
	l->errors++;
	ret = tf_error_at(&s->pos, "unknown shell '%s' (valid: %s)%s%s%s", s->s,
			  valid.buf, near ? "; did you mean '" : "",
			  near ? near : "", near ? "'?" : "");
	tf_buf_release(&valid);
	return ret;
}

static int parse_step_shell(struct loader *l, yaml_node_t *v, void *obj,
			    const char *where)
{
	struct tf_step *s = obj;

	return load_shell(l, v, &s->shell, &s->shell_kind);
}

static int parse_step_per_variant(struct loader *l, yaml_node_t *v, void *obj,
				  const char *where)
{
	struct tf_step *s = obj;
	const char *t = scalar(v);

	(void)where;
	if (v->type == YAML_SCALAR_NODE && !strcmp(t, "true"))
		s->per_variant = 1;
	else if (v->type != YAML_SCALAR_NODE || strcmp(t, "false"))
		return tf_load_bad(
			l, v, "'per-variant' must be true or false, not '%s'",
			t);
	return 0;
}

/*
 * `network: true`: the step's sandbox keeps the network (a step that
 * downloads); `false`, the default, gives it loopback only.
 */
static int parse_step_network(struct loader *l, yaml_node_t *v, void *obj,
			      const char *where)
{
	struct tf_step *s = obj;
	struct tf_str t;

	if (tf_load_str(l, "network", v, &t))
		return -1;
	s->network_pos = t.pos;
	if (t.style == TF_STR_PLAIN &&
	    (!strcmp(t.s, "true") || !strcmp(t.s, "false"))) {
		s->network = !strcmp(t.s, "true");
		return 0;
	}
	l->errors++;
	return tf_error_at(&t.pos, "'network' must be true or false, not '%s'",
			   t.s);
}

/* The capabilities of Linux (capability.h, up to CAP_LAST_CAP in 6.x),
 * by number. */
static const char *const cap_names[] = {
	"CAP_CHOWN",
	"CAP_DAC_OVERRIDE",
	"CAP_DAC_READ_SEARCH",
	"CAP_FOWNER",
	"CAP_FSETID",
	"CAP_KILL",
	"CAP_SETGID",
	"CAP_SETUID",
	"CAP_SETPCAP",
	"CAP_LINUX_IMMUTABLE",
	"CAP_NET_BIND_SERVICE",
	"CAP_NET_BROADCAST",
	"CAP_NET_ADMIN",
	"CAP_NET_RAW",
	"CAP_IPC_LOCK",
	"CAP_IPC_OWNER",
	"CAP_SYS_MODULE",
	"CAP_SYS_RAWIO",
	"CAP_SYS_CHROOT",
	"CAP_SYS_PTRACE",
	"CAP_SYS_PACCT",
	"CAP_SYS_ADMIN",
	"CAP_SYS_BOOT",
	"CAP_SYS_NICE",
	"CAP_SYS_RESOURCE",
	"CAP_SYS_TIME",
	"CAP_SYS_TTY_CONFIG",
	"CAP_MKNOD",
	"CAP_LEASE",
	"CAP_AUDIT_WRITE",
	"CAP_AUDIT_CONTROL",
	"CAP_SETFCAP",
	"CAP_MAC_OVERRIDE",
	"CAP_MAC_ADMIN",
	"CAP_SYSLOG",
	"CAP_WAKE_ALARM",
	"CAP_BLOCK_SUSPEND",
	"CAP_AUDIT_READ",
	"CAP_PERFMON",
	"CAP_BPF",
	"CAP_CHECKPOINT_RESTORE",
};

/* Those that would undo the sandbox itself, with why. */
static const char *cap_refused(const char *name)
{
	if (!strcmp(name, "CAP_SYS_ADMIN"))
		return "it would let the step unmount what hides the "
		       "secrets and the store, and mount what it likes";
	if (!strcmp(name, "CAP_SETPCAP") || !strcmp(name, "CAP_SETFCAP"))
		return "it would let the step give itself or its files "
		       "capabilities it was not given";
	return NULL;
}

/*
 * `capabilities: [CAP_NAME...]`: what a step keeps of root's power,
 * in its own user namespace only (docs/security.md); each name one of
 * the kernel's, and none that undoes the sandbox.
 */
static int parse_step_capabilities(struct loader *l, yaml_node_t *v, void *obj,
				   const char *where)
{
	struct tf_step *s = obj;
	size_t i, j;
	int ret = 0;

	(void)where;
	if (tf_load_str_list(l, "capabilities", v, &s->caps, &s->nr_caps))
		return -1;
	for (i = 0; i < s->nr_caps; i++) {
		const struct tf_str *t = &s->caps[i];
		const char *why = cap_refused(t->s);

		for (j = 0; j < sizeof(cap_names) / sizeof(*cap_names); j++)
			if (!strcmp(t->s, cap_names[j]))
				break;
		if (j == sizeof(cap_names) / sizeof(*cap_names)) {
			l->errors++;
			ret = tf_error_at(&t->pos,
					  "unknown capability '%s' in "
					  "'capabilities' (a name such as "
					  "CAP_SYS_CHROOT: capabilities(7))",
					  t->s);
		} else if (why) {
			l->errors++;
			ret = tf_error_at(
				&t->pos,
				"'capabilities' may not name '%s': "
				"%s (docs/security.md#the-step-sandbox)",
				t->s, why);
		}
	}
	return ret;
}

/*
 * `sandbox: {read: [PATH...]}`: paths a step sees read-only beyond its
 * places (build/sandbox.c checks and binds them, and says so). A path
 * is absolute or relative to the recipe's directory; it may not be
 * empty, hold a newline or be `/` as written (what it names is
 * checked again once resolved: tf_build_check_reads).
 */
static int parse_sandbox_read(struct loader *l, yaml_node_t *v, void *obj,
			      const char *where)
{
	struct tf_sandbox_def *d = obj;
	size_t i;
	int ret = 0;

	(void)where;
	if (tf_load_str_list(l, "read", v, &d->read, &d->nr_read))
		return -1;
	for (i = 0; i < d->nr_read; i++) {
		const struct tf_str *t = &d->read[i];

		if (!*t->s || strchr(t->s, '\n')) {
			l->errors++;
			ret = tf_error_at(
				&t->pos,
				"'sandbox.read' needs a path, not '%s'", t->s);
		} else if (!t->s[strspn(t->s, "/")]) {
			l->errors++;
			ret = tf_error_at(
				&t->pos,
				"'sandbox.read' may not name '/': a step "
				"would see the whole machine "
				"(docs/security.md#the-step-sandbox)");
		}
	}
	return ret;
}

static const struct field sandbox_fields[] = {
	{ "read", 0, parse_sandbox_read },
	{ NULL, 0, NULL },
};

static int load_sandbox(struct loader *l, yaml_node_t *v,
			struct tf_sandbox_def *d)
{
	return tf_load_map(l, v, sandbox_fields, d, "sandbox");
}

static int parse_step_sandbox(struct loader *l, yaml_node_t *v, void *obj,
			      const char *where)
{
	return load_sandbox(l, v, &((struct tf_step *)obj)->sandbox);
}

static int parse_sandbox(struct loader *l, yaml_node_t *v, void *obj,
			 const char *where)
{
	return load_sandbox(l, v, &((struct tf_recipe *)obj)->sandbox);
}

static const struct field step_fields[] = {
	{ "name", 1, parse_tf_step_name },
	{ "source", 0, parse_tf_step_source },
	{ "needs", 0, parse_step_needs },
	{ "env", 0, parse_step_env },
	{ "run", 1, parse_tf_step_run },
	{ "timeout", 0, parse_step_timeout },
	{ "baseline", 0, parse_step_baseline },
	{ "shell", 0, parse_step_shell },
	{ "per-variant", 0, parse_step_per_variant },
	{ "network", 0, parse_step_network },
	{ "capabilities", 0, parse_step_capabilities },
	{ "sandbox", 0, parse_step_sandbox },
	{ NULL, 0, NULL },
};

/* ---- lists of mappings and the top level ---- */

static int check_source_item(struct loader *l, yaml_node_t *n, void *item,
			     const char *where)
{
	struct tf_source *s = item;

	s->pos = pos_of(l, n);
	return check_source(l, n, s, where);
}

static int check_step_item(struct loader *l, yaml_node_t *n, void *item,
			   const char *where)
{
	struct tf_step *s = item;

	s->pos = pos_of(l, n);
	s->source_index = -1;
	return s->name.s ? check_name(l, &s->name, "step name") : 0;
}

static int parse_sources(struct loader *l, yaml_node_t *v, void *obj,
			 const char *where)
{
	struct tf_recipe *r = obj;

	return tf_load_list(l, v, "sources", source_fields, sizeof(*r->sources),
			    (void **)&r->sources, &r->nr_sources,
			    check_source_item);
}

static int parse_steps(struct loader *l, yaml_node_t *v, void *obj,
		       const char *where)
{
	struct tf_recipe *r = obj;

	/* The scheduler is quadratic in steps; no recipe needs this many. */
	if (v->type == YAML_SEQUENCE_NODE &&
	    v->data.sequence.items.top - v->data.sequence.items.start >
		    MAX_STEPS) {
		struct tf_pos p = pos_of(l, v);

		l->errors++;
		return tf_error_at(&p, "more than %d steps", MAX_STEPS);
	}
	return tf_load_list(l, v, "steps", step_fields, sizeof(*r->steps),
			    (void **)&r->steps, &r->nr_steps, check_step_item);
}

static int parse_tests(struct loader *l, yaml_node_t *v, void *obj,
		       const char *where)
{
	struct tf_recipe *r = obj;

	return tf_load_list(l, v, "tests", step_fields, sizeof(*r->tests),
			    (void **)&r->tests, &r->nr_tests, check_step_item);
}

static int parse_schema(struct loader *l, yaml_node_t *v, void *obj,
			const char *where)
{
	long long n;

	if (tf_load_int(l, "schema", v, 0, INT_MAX, &n))
		return -1;
	if (n != 1)
		return tf_load_bad(
			l, v,
			"unsupported schema %lld: this tfbuild reads schema 1",
			n);
	((struct tf_recipe *)obj)->schema = (int)n;
	return 0;
}

STR_FIELD(tf_recipe, name, "name")
STR_FIELD(tf_recipe, version, "version")

static int parse_targets(struct loader *l, yaml_node_t *v, void *obj,
			 const char *where)
{
	struct tf_recipe *r = obj;
	size_t i, j;

	if (tf_load_str_list(l, "targets", v, &r->targets, &r->nr_targets))
		return -1;
	if (!r->nr_targets)
		return tf_load_bad(l, v, "'targets' is empty");
	for (i = 0; i < r->nr_targets; i++) {
		const struct tf_str *t = &r->targets[i];

		if (!tf_target_is_known(t->s)) {
			struct tf_buf known = TF_BUF_INIT;

			l->errors++;
			tf_target_list(&known);
			tf_error_at(&t->pos, "unknown target '%s' (known: %s)",
				    t->s, known.buf);
			tf_buf_release(&known);
			return -1;
		}
		for (j = 0; j < i; j++)
			if (!strcmp(r->targets[j].s, t->s)) {
				l->errors++;
				return tf_error_at(
					&t->pos, "target '%s' is listed twice",
					t->s);
			}
	}
	return 0;
}

static int parse_epoch(struct loader *l, yaml_node_t *v, void *obj,
		       const char *where)
{
	return tf_load_int(l, "source-date-epoch", v, 315532800, 4102444800LL,
			   &((struct tf_recipe *)obj)->source_date_epoch);
}

/*
 * `macos-minimum`: the oldest macOS the macos-arm64 target's binaries
 * load on, "M.m" with M from 11 (below it zig has no headers, and
 * Apple silicon starts at macOS 11).
 */
static int parse_macos_minimum(struct loader *l, yaml_node_t *v, void *obj,
			       const char *where)
{
	struct tf_recipe *r = obj;
	unsigned major, minor;
	const char *s;
	int n = 0;

	(void)where;
	if (tf_load_str(l, "macos-minimum", v, &r->macos_minimum))
		return -1;
	s = r->macos_minimum.s;
	if (strspn(s, "0123456789.") != strlen(s) || *s == '.' ||
	    sscanf(s, "%3u.%3u%n", &major, &minor, &n) != 2 || s[n] ||
	    s[n - 1] == '.')
		return tf_load_bad(
			l, v,
			"'macos-minimum' is '%s', not a macOS version MAJOR.MINOR (\"12.0\")",
			s);
	if (major < 11 || major > 99 || minor > 99)
		return tf_load_bad(
			l, v,
			"'macos-minimum' is '%s': the macos-arm64 target needs macOS 11.0 or later (the first on Apple silicon)",
			s);
	r->macos_version = major << 16 | minor << 8;
	return 0;
}

static int parse_variables(struct loader *l, yaml_node_t *v, void *obj,
			   const char *where)
{
	struct tf_recipe *r = obj;
	size_t i;

	if (tf_load_str_map(l, "variables", v, &r->vars, &r->nr_vars))
		return -1;
	for (i = 0; i < r->nr_vars; i++) {
		const char *k = r->vars[i].key.s;

		if ((*k >= '0' && *k <= '9') || !*k ||
		    k[strspn(
			    k,
			    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")]) {
			l->errors++;
			return tf_error_at(
				&r->vars[i].key.pos,
				"variable name '%s' may only use letters, digits and '_'",
				k);
		}
	}
	return 0;
}

/*
 * A Debian package name, optionally with "=VERSION": what apt accepts,
 * and nothing a shell or apt option could misread.
 */
static int package_ok(const char *s)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789+-.");

	if (n < 2 || s[0] == '-' || s[0] == '.' || s[0] == '+')
		return 0;
	if (!s[n])
		return 1;
	return s[n] == '=' && s[n + 1] &&
	       !s[n + 1 +
		  strspn(s + n + 1,
			 "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.:~")];
}

static int parse_target_packages(struct loader *l, yaml_node_t *v, void *obj,
				 const char *where)
{
	struct tf_recipe *r = obj;
	size_t i;
	int ret = 0;

	if (tf_load_str_list(l, "target-packages", v, &r->target_packages,
			     &r->nr_target_packages))
		return -1;
	for (i = 0; i < r->nr_target_packages; i++) {
		const struct tf_str *p = &r->target_packages[i];

		if (package_ok(p->s))
			continue;
		l->errors++;
		ret = tf_error_at(
			&p->pos,
			"'%s' is not a Debian package name (NAME or NAME=VERSION)",
			p->s);
	}
	return ret;
}

static int parse_host_tools(struct loader *l, yaml_node_t *v, void *obj,
			    const char *where)
{
	struct tf_recipe *r = obj;
	size_t i;
	int ret = 0;

	if (tf_load_str_list(l, "host-tools", v, &r->host_tools,
			     &r->nr_host_tools))
		return -1;
	for (i = 0; i < r->nr_host_tools; i++) {
		const struct tf_str *t = &r->host_tools[i];

		if (*t->s && !strchr(t->s, '/') && strcmp(t->s, ".") &&
		    strcmp(t->s, ".."))
			continue;
		l->errors++;
		ret = tf_error_at(
			&t->pos,
			"host tool '%s' must be a program name, without '/'",
			t->s);
	}
	return ret;
}

static int parse_shell(struct loader *l, yaml_node_t *v, void *obj,
		       const char *where)
{
	struct tf_recipe *r = obj;

	return load_shell(l, v, &r->shell, &r->shell_kind);
}

/* A step or test without `shell` runs in the recipe's. */
static void default_shells(struct tf_recipe *r)
{
	size_t i;

	for (i = 0; r->shell.s && i < r->nr_steps + r->nr_tests; i++) {
		struct tf_step *s = i < r->nr_steps
					    ? &r->steps[i]
					    : &r->tests[i - r->nr_steps];

		if (!s->shell.s) {
			s->shell = r->shell;
			s->shell_kind = r->shell_kind;
		}
	}
}

static const struct field top_fields[] = {
	{ "target-packages", 0, parse_target_packages },
	{ "host-tools", 0, parse_host_tools },
	{ "target-wheels", 0, tf_load_target_wheels },
	{ "host-wheels", 0, tf_load_host_wheels },
	{ "schema", 1, parse_schema },
	{ "name", 1, parse_tf_recipe_name },
	{ "version", 1, parse_tf_recipe_version },
	{ "targets", 0, parse_targets },
	{ "source-date-epoch", 0, parse_epoch },
	{ "macos-minimum", 0, parse_macos_minimum },
	{ "variables", 0, parse_variables },
	{ "sources", 0, parse_sources },
	{ "steps", 0, parse_steps },
	{ "tests", 0, parse_tests },
	{ "wheels", 0, tf_load_wheels },
	{ "toolchains", 0, tf_load_toolchains },
	{ "shell", 0, parse_shell },
	{ "sandbox", 0, parse_sandbox },
	{ "variants", 0, tf_load_variants },
	{ "variant-priorities", 0, tf_load_variant_priorities },
	{ "variant-providers", 0, tf_load_variant_providers },
	{ NULL, 0, NULL },
};

#define DEFAULT_EPOCH 315532800LL

int tf_load_top(struct loader *l, yaml_node_t *root)
{
	l->r->source_date_epoch = DEFAULT_EPOCH;
	/* TensorFlow 2.21's macOS arm64 wheel's own minimum. */
	l->r->macos_minimum.s = "12.0";
	l->r->macos_version = 12u << 16;
	if (tf_load_map(l, root, top_fields, l->r, "recipe"))
		return -1;
	default_shells(l->r);
	if (tf_load_variants_finish(l))
		return -1;
	return check_name(l, &l->r->name, "recipe name");
}
