#!/bin/sh
# Signals at random moments (docs/security.md#signals): 50 runs of
# `tfbuild recipe --target all` of a small real recipe (two targets, a
# pinned source fetched, extracted and patched, a C compile per target, a
# script step, packing, verify, SHA256SUMS and provenance), each killed
# with SIGINT or SIGTERM after a seeded random delay over a clean run's
# whole length, every fifth one as tfbuild asks the compiler for its
# identity. After each: tfbuild died of the signal (or finished first),
# no process of the run is alive, the output folder holds only finished
# files identical to a clean run's, no temporary file is left in the
# build tree or the fetch cache; after every two (the first on a fresh
# build tree, the second on what the first left), the next run succeeds
# with the clean run's bytes. tests/hostile/signals.py runs
# them. TFBUILD_SIGNAL_SEED and TFBUILD_SIGNAL_RUNS replay or shorten.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/hostile/lib.sh"

# 130 and 143 are this test's expected ends, not crashes.
HOSTILE_SIGNAL_EXITS=1
SEED=${TFBUILD_SIGNAL_SEED:-1705}
RUNS=${TFBUILD_SIGNAL_RUNS:-50}
echo "# seed $SEED (TFBUILD_SIGNAL_SEED=$SEED to replay), $RUNS runs"

# shim CC: a compiler that, while slow-probe exists, marks that it is
# asked for its identity and sleeps in a child, as a pyenv shim's
# python or a ccache wrapper would be a process tree.
shim() {
	cat >"shim-$1" <<-EOS &&
	#!/bin/sh
	case "\$1" in
	-dumpmachine | --version)
		if [ -e "$TRASH/w/slow-probe" ]; then
			echo \$\$ >"$TRASH/w/in-probe"
			sleep 5
		fi ;;
	esac
	exec $1 "\$@"
	EOS
	chmod +x "shim-$1"
}

expect_success 'a small recipe: fetch, extract, patch, compile, script, pack' '
	mkdir -p w src/sig-1.0 &&
	echo "int sig_answer(void) { return 41; }" >src/sig-1.0/sig.c &&
	tar czf sig-1.0.tar.gz -C src sig-1.0 &&
	cat >fix.patch <<-EOF &&
	--- a/sig.c
	+++ b/sig.c
	@@ -1 +1 @@
	-int sig_answer(void) { return 41; }
	+int sig_answer(void) { return 42; }
	EOF
	shim gcc && shim aarch64-linux-gnu-gcc &&
	cat >r.yaml <<-EOF
	schema: 1
	name: sig
	version: "1.0"
	targets: [x86_64, aarch64]
	toolchains:
	  x86_64:
	    cc: $TRASH/shim-gcc
	  aarch64:
	    cc: $TRASH/shim-aarch64-linux-gnu-gcc
	sources:
	  - name: s
	    url: file://$TRASH/sig-1.0.tar.gz
	    sha256: $(sha256_of sig-1.0.tar.gz)
	    strip: 1
	    patches:
	      strip: 1
	      series: [fix.patch]
	steps:
	  - name: lib
	    source: s
	    run: |
	      \$CC \$CFLAGS -shared -fPIC -o libsig.so sig.c
	      mkdir -p "\$STAGE/sig"
	      cp libsig.so "\$STAGE/sig/"
	  - name: py
	    needs: [lib]
	    run: |
	      mkdir -p "\$STAGE/sig"
	      printf "TARGET = \"%s\"\\\\n" "\${target}" >"\$STAGE/sig/__init__.py"
	wheels:
	  - name: sig
	    version: "1.0"
	    summary: signals at random moments
	    license: MIT
	    platform: linux_\${target}
	    files:
	      - from: lib
	        src: sig
	        dst: sig
	      - from: py
	        src: sig
	        dst: sig
	EOF
'

expect_success "$RUNS runs killed at random moments, and the runs after them" '
	"$PYTHON" "$TESTS_DIR/hostile/signals.py" --tfbuild "$TFBUILD" \
		--recipe "$TRASH/r.yaml" --work "$TRASH/w" --seed "$SEED" \
		--runs "$RUNS" --results "$TRASH/results" \
		--shim "$TRASH/shim-gcc" --shim "$TRASH/shim-aarch64-linux-gnu-gcc" &&
	test -s results
'

expect_success 'the clean run made both wheels, and tfbuild verify passes them' '
	tfbuild verify w/ref/sig-1.0-py3-none-linux_x86_64.whl \
		w/ref/sig-1.0-py3-none-linux_aarch64.whl
'

tab=$(printf "\t")
while IFS=$tab read -r name want rc extra log what; do
	expect_success "$name: $what (exit $rc)" \
		"hostile_judge signals '$name' '$want' '' '$rc' '$log' '${extra#-}'"
done <results 2>/dev/null

test_done
