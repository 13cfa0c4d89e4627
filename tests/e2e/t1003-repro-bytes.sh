#!/bin/sh
# Two builds of the same recipes from two checkouts in different
# directories, with different caches, HOME, umask, TZ and wall-clock
# time, give byte-identical wheels, SHA256SUMS and provenance, and no
# wheel entry contains either build directory's path.
. "$(dirname "$0")/../lib/test-lib.sh"

# checkout DIR: copy what the recipes need, as a second clone would have it.
checkout() {
	mkdir -p "$1" &&
	tar -C "$SRC_ROOT" --exclude=build --exclude=__pycache__ --exclude='*.o' \
		--exclude='*.so' --exclude='*.a' -cf - recipes patches backend |
		tar -C "$1" -xf -
}
checkout "$TRASH/one/tfbuild" && checkout "$TRASH/second-checkout/src" || exit 1
sh "$SRC_ROOT/recipes/mirror.sh" "$TRASH/mirror" >/dev/null || exit 1

# build ROOT OUT: run every recipe of this test in checkout ROOT.
build() {
	root=$1 out=$2; shift 2
	for r in $RECIPES; do
		"$@" "$TFBUILD" -q recipe --out "$out" --cache "$root/cache" \
			--set mirror="file://$TRASH/mirror" $TARGETS "$root/recipes/$r" || return 1
	done
}
RECIPES="greet.yaml m1-plugin.yaml"
TARGETS="--target all"
# faketime preloads itself; under AddressSanitizer (make check) that must
# be allowed explicitly.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export ASAN_OPTIONS

expect_success 'two builds in different places and conditions' '
	(umask 022; HOME="$TRASH/one/home" TZ=UTC \
		build "$TRASH/one/tfbuild" "$TRASH/out1") &&
	sleep 1 &&
	(umask 077; HOME="$TRASH/two-home" TZ=Pacific/Kiritimati LANG=C.UTF-8 \
		build "$TRASH/second-checkout/src" "$TRASH/out2" \
		faketime "2031-06-15 08:30:00")
'

expect_success 'give byte-identical wheels, SHA256SUMS and provenance' '
	ls "$TRASH/out1" >l1 && ls "$TRASH/out2" >l2 && compare l1 l2 &&
	test -n "$(ls "$TRASH/out1"/*.whl)" &&
	for f in "$TRASH/out1"/*; do
		b=$(basename "$f") &&
		case "$b" in *.intoto.json) continue ;; esac &&
		cmp "$f" "$TRASH/out2/$b" || { "$TFBUILD" diff "$f" "$TRASH/out2/$b"; exit 1; }
	done
'

expect_success 'no wheel entry contains a build directory path' '
	for w in "$TRASH/out1"/*.whl "$TRASH/out2"/*.whl; do
		rm -rf x && mkdir x && (cd x && unzip -q "$w") &&
		! grep -rl -e "$TRASH/one" -e "$TRASH/second-checkout" -e "$TRASH" x ||
			{ echo "build path in $w"; exit 1; }
	done
'

# Incremental: in the first checkout, nothing changed means nothing runs;
# editing one backend file re-runs the steps that read it, for each target.
one="$TRASH/one/tfbuild"
rerun() {
	HOME="$TRASH/one/home" "$TFBUILD" recipe --out "$TRASH/out1" \
		--cache "$one/cache" --set mirror="file://$TRASH/mirror" --target all \
		"$one/recipes/m1-plugin.yaml"
}

expect_success 'm1-plugin again with nothing changed: no build command runs' '
	rerun 2>err >/dev/null &&
	grep -q "^tfbuild: 0 of 8 steps ran, 8 up to date$" err &&
	! grep -q "^tfbuild: building" err
'

# Tool identities are remembered (toolkit/env/probe.h): with nothing
# changed the run starts no process at all, even with shims like pyenv's
# (which log every call here) first on PATH.
expect_success 'm1-plugin again with nothing changed: no process is started' '
	mkdir -p shims &&
	for t in python3 gcc aarch64-linux-gnu-gcc cc; do
		printf "#!/bin/sh\necho \"\$0 \$*\" >>\"%s/shim.log\"\nexit 1\n" \
			"$TRASH" >shims/$t && chmod +x shims/$t || return 1
	done &&
	# LeakSanitizer cannot run under ptrace: the sanitizer build (make
	# check) leaves leaks to the other runs of this recipe.
	PATH="$TRASH/shims:$PATH" \
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	strace -f -qq -e trace=execve -o trace \
		sh -c "HOME=\"$TRASH/one/home\" exec \"$TFBUILD\" recipe --out \"$TRASH/out1\" \
		--cache \"$one/cache\" --set mirror=\"file://$TRASH/mirror\" --target all \
		\"$one/recipes/m1-plugin.yaml\"" 2>err >/dev/null &&
	grep -q "^tfbuild: 0 of 8 steps ran, 8 up to date$" err &&
	test ! -e shim.log &&
	grep -v "^[0-9]* +++" trace | grep "execve(" >execs &&
	test "$(wc -l <execs)" = 2 &&
	tail -n 1 execs | grep -q "execve(\"$TFBUILD\""
'

expect_success 'after editing one backend source file, only the backend and what needs it run' '
	# A change that reaches the library (a comment alone would rebuild the
	# backend to identical bytes, and then nothing after it needs to run).
	echo "const char m1_edited[] __attribute__((used)) = \"edited\";" >>"$one/backend/src/m1.c" &&
	HOME="$TRASH/one/home" "$TFBUILD" explain --target all \
		--set mirror="file://$TRASH/mirror" "$one/recipes/m1-plugin.yaml" >explain.out &&
	grep -qx "x86_64 backend: will run (source .backend. changed)" explain.out &&
	grep -qx "aarch64 backend: will run (source .backend. changed)" explain.out &&
	grep -qx "x86_64 framework: will run (needs .backend., which will run)" explain.out &&
	rerun 2>err >/dev/null &&
	grep "^tfbuild: building" err | sed "s/ (.*//" | sort >ran &&
	explained=$(grep -c "will run" explain.out) &&
	test "$(wc -l <ran)" = "$explained" &&
	grep -qx "tfbuild: building backend for x86_64" ran &&
	grep -qx "tfbuild: building backend for aarch64" ran &&
	grep -qx "tfbuild: building framework for x86_64" ran
'

expect_success 'a rebuild whose output is unchanged stops there (early cutoff)' '
	echo "/* only a comment */" >>"$one/backend/src/m1.c" &&
	rerun 2>err >/dev/null &&
	grep -q "building backend for x86_64" err &&
	! grep -q "building framework" err
'

test_done
