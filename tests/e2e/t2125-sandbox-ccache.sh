#!/bin/sh
# Nothing writable is shared between recipes (issue 35, item 3): with
# --launcher ccache each recipe and target has a ccache directory of its
# own below the caller's CCACHE_DIR, and it is the only one a step may
# write. Recipe "attacker" appends `prefix_command = evil.sh` to the
# ccache.conf of every ccache directory it finds; recipe "victim",
# built after it, compiles no injected code. With --sandbox=off the
# attacker reaches the victim's directory and the victim's object holds
# the injected string (the attack is real). A recipe's
# `env: {CCACHE_DIR: ${recipe_dir}}` makes nothing writable, with or
# without a launcher.
. "$(dirname "$0")/../lib/test-lib.sh"

command -v bwrap >/dev/null || { skip "bwrap (bubblewrap) is not installed"; test_done; exit 0; }
command -v ccache >/dev/null || { echo "ccache is not installed (ci/install-deps.sh installs it)"; exit 1; }

export CCACHE_DIR=$TRASH/ccache
mkdir -p attacker victim envdir || exit 1
printf '#!/bin/sh\nexec "$@" -DINJECTED\n' >evil.sh && chmod 755 evil.sh || exit 1

cat >attacker/r.yaml <<EOF
schema: 1
name: attacker
version: 1.0.0
steps:
  - name: poison
    run: |
      echo "mine: \$CCACHE_DIR"
      for d in "\$CCACHE_DIR" "\$CCACHE_DIR"/../*; do
        if echo "prefix_command = $TRASH/evil.sh" >>"\$d/ccache.conf" 2>/dev/null; then echo "wrote \$d"; else echo "refused \$d"; fi
      done
EOF

cat >victim/r.yaml <<EOF
schema: 1
name: victim
version: 1.0.0
steps:
  - name: lib
    run: |
      # a new string each run: every compile misses the cache
      printf '#ifdef INJECTED\nconst char *mark = "injected-$$";\n#endif\nconst char *run = "%s";\n' "\$(cat /proc/sys/kernel/random/uuid)" >v.c
      gcc -c v.c -o "\$STAGE/v.o"
      echo "cc: \$CCACHE_DIR"
EOF

cat >envdir/r.yaml <<EOF
schema: 1
name: envdir
version: 1.0.0
steps:
  - name: s
    env:
      CCACHE_DIR: \${recipe_dir}
    run: |
      if echo "# pwned" >>\${recipe_dir}/r.yaml; then echo wrote; else echo refused; fi
EOF

injected() { grep -q "injected-$$" victim/build/r/x86_64/stage/lib/v.o; }

expect_success 'the victim first: its ccache directory is its own, below CCACHE_DIR' '
	(cd victim && "$TFBUILD" recipe --launcher ccache r.yaml 2>err) &&
	d=$(sed -n "s/^cc: //p" victim/build/r/x86_64/logs/lib.log) &&
	case "$d" in "$CCACHE_DIR"/tfbuild/victim-x86_64-*) ;; *) false ;; esac &&
	test -d "$d" && ! injected
'

expect_success 'the attacker cannot write the victim'"'"'s ccache; the victim compiles clean' '
	(cd attacker && "$TFBUILD" recipe --launcher ccache r.yaml 2>err) &&
	L=attacker/build/r/x86_64/logs/poison.log && cat $L &&
	grep -q "^refused .*victim-x86_64-" $L &&
	! grep -q "victim" "$CCACHE_DIR"/tfbuild/victim-*/ccache.conf 2>/dev/null &&
	! grep -rq evil.sh "$CCACHE_DIR"/tfbuild/victim-* &&
	(cd victim && "$TFBUILD" recipe --force --launcher ccache r.yaml 2>err) &&
	! injected
'

expect_success '--sandbox=off: the attacker poisons the victim'"'"'s ccache and its object' '
	(cd attacker && "$TFBUILD" recipe --sandbox=off --force --launcher ccache r.yaml 2>err) &&
	grep -q evil.sh "$CCACHE_DIR"/tfbuild/victim-*/ccache.conf &&
	(cd victim && "$TFBUILD" recipe --force --launcher ccache r.yaml 2>err) &&
	injected
'

expect_success 'env: CCACHE_DIR: ${recipe_dir} does not make the recipe'"'"'s directory writable' '
	(cd envdir && "$TFBUILD" recipe r.yaml 2>err) &&
	grep -qx refused envdir/build/r/x86_64/logs/s.log &&
	(cd envdir && "$TFBUILD" recipe --force --launcher ccache r.yaml 2>err) &&
	grep -qx refused envdir/build/r/x86_64/logs/s.log &&
	! grep -qx "# pwned" envdir/r.yaml
'

test_done
