#!/bin/sh
# Every recipe's wheels, byte for byte, from two checkouts: a change that
# must not change what tfbuild writes (a restructuring, a speed-up) is
# shown to leave every recipe's output identical.
#
# usage: sh bench/same-wheels.sh OLD NEW
#
# OLD and NEW are checkout directories or git revisions of this
# repository; a revision is checked out in a temporary `git worktree`,
# removed at exit. tfbuild is built in each (make -j2, its objects and
# binary in the scratch directory, not in the checkout); then every
# recipes/*.yaml of NEW runs with each binary from its own checkout
# (`cd CHECKOUT && tfbuild recipe --target all recipes/NAME.yaml`, so the
# provenance names the same recipe path), each binary with a fresh build
# tree, download cache and output folder of its own and TFBUILD_STORE=0:
# nothing one builds is restored by the other. Every file each run writes
# to its output folder (wheels, SHA256SUMS, provenance) is compared with
# cmp. One line per recipe:
#
#   same: recipes/NAME.yaml (N files)
#   DIFFERENT: recipes/NAME.yaml: WHAT (then `tfbuild diff` of the first
#              differing wheel, or a diff of the file)
#   FAILED: recipes/NAME.yaml: BINARY exit N (then its log's last lines)
#
# and exits 1 if any recipe differs or fails, 2 on a usage or setup error.
# Then the same for each template of `tfbuild new` (`same: template
# NAME`), each side writing the project with its own binary:
# SAME_WHEELS_TEMPLATES="c-library ..." names some, "none" none;
# SAME_WHEELS_RECIPES="jax-m1 ..." names some recipes (by the name of
# their recipes/NAME.yaml), "none" leaves them out.
#
# What the recipes fetch is prepared once and shared by both runs, as
# `make demo` and the t13 tests prepare it: recipes/mirror.sh makes the
# local mirror (greet, tfmini, m1-plugin: --set mirror=file://...), and
# tests/lib/upstream-sources.sh takes each third-party recipe's upstream
# release tarball (libzip, serd, spng: a `# debian-source:` line) from
# Debian's source package (apt-get source --download-only, cached in
# /var/cache/tfbuild-test), served as file://.../NAME. The aarch64 target
# roots (`target-packages`: Debian's arm64 packages, the target's /usr)
# are shared too, in TF_SYSROOT_CACHE (default the tests',
# /var/tmp/tfbuild-test-cache/target-roots). torch-m1 needs Debian's
# python3-torch and libtorch-dev installed (its native target).
#
# Scratch in a new directory under TMPDIR (default /var/tmp), removed at
# exit unless SAME_WHEELS_KEEP=1. The checkouts are only read. On 2
# cores, with the upstream tarballs and target roots already cached, the
# whole run (two builds of tfbuild, 7 recipes twice) takes 1-2 minutes.
set -u

die() { echo "same-wheels: $*" >&2; exit 2; }
say() { echo "same-wheels: $*" >&2; }

[ $# = 2 ] || die "usage: sh bench/same-wheels.sh OLD NEW (checkout directories or git revisions)"
ROOT=$(cd "$(dirname "$0")/.." && pwd)
umask 022
tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/same-wheels.XXXXXX") || die "no scratch directory"
tmp=$(cd "$tmp" && pwd)
worktrees=""

# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	for w in $worktrees; do
		git -C "$ROOT" worktree remove --force "$w" 2>/dev/null || rm -rf "$w"
	done
	[ -z "$worktrees" ] || git -C "$ROOT" worktree prune
	if [ "${SAME_WHEELS_KEEP:-0}" = 1 ]; then
		say "kept $tmp"
	else
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT
trap 'exit 2' HUP INT TERM

# checkout SIDE ARG: set dir to the checkout ARG: a directory as it is,
# or a revision checked out in $tmp/SIDE.
checkout() {
	if [ -d "$2" ]; then
		dir=$(cd "$2" && pwd)
		return
	fi
	rev=$(git -C "$ROOT" rev-parse --verify -q "$2^{commit}") ||
		die "$2: neither a directory nor a revision of $ROOT"
	worktrees="$worktrees $tmp/$1"
	git -C "$ROOT" worktree add -q --detach "$tmp/$1" "$rev" >&2 ||
		die "cannot check out $2 in $tmp/$1"
	dir=$tmp/$1
}
checkout old "$1" && old=$dir
checkout new "$2" && new=$dir
say "OLD $1: $old"
say "NEW $2: $new"

# build SIDE DIR: tfbuild of checkout DIR as $tmp/tfbuild-SIDE.
build() {
	say "building tfbuild in $2"
	make -C "$2" -j2 O="$tmp/obj-$1" BIN="$tmp/tfbuild-$1" all \
		>"$tmp/make-$1.log" 2>&1 ||
		{ tail -n 20 "$tmp/make-$1.log" >&2; die "make failed in $2"; }
}
build old "$old"
build new "$new"

# The sources, once for both runs, from NEW's own scripts and pins.
say "preparing the mirrors"
sh "$new/recipes/mirror.sh" "$tmp/mirror" >"$tmp/mirror.log" 2>&1 ||
	{ cat "$tmp/mirror.log" >&2; die "recipes/mirror.sh failed"; }
thirdparty=$(grep -l '^[[:space:]]*#[[:space:]]*debian-source:' "$new"/recipes/*.yaml)
if [ -n "$thirdparty" ]; then
	# shellcheck disable=SC2086 # one recipe path per word
	sh "$new/tests/lib/upstream-sources.sh" "$tmp/upstream" $thirdparty ||
		die "tests/lib/upstream-sources.sh failed"
fi

# Nothing from the caller's configuration or caches.
unset TFBUILD_CONFIG TFBUILD_CACHE TFBUILD_REMOTE_CACHE TFBUILD_REMOTE_CACHE_UPLOAD \
	TFBUILD_REMOTE_CACHE_TIMEOUT TFBUILD_TRUST TFBUILD_SIGNING_KEY 2>/dev/null || true
export TFBUILD_STORE=0 XDG_CONFIG_HOME="$tmp/config"
TF_SYSROOT_CACHE=${TF_SYSROOT_CACHE:-/var/tmp/tfbuild-test-cache/target-roots}
export TF_SYSROOT_CACHE

# mirror_of RECIPE: the --set that points RECIPE at the prepared sources.
mirror_of() {
	grep -q '^[[:space:]]*mirror:' "$1" || return 0
	if grep -q '^[[:space:]]*#[[:space:]]*debian-source:' "$1"; then
		name=$(sed -n 's/^name:[[:space:]]*//p' "$1" | head -n 1)
		echo "--set mirror=file://$tmp/upstream/$name"
	else
		echo "--set mirror=file://$tmp/mirror"
	fi
}

# run SIDE DIR RECIPE: run recipes/RECIPE of checkout DIR with SIDE's
# binary; its output in $tmp/run-SIDE/out/RECIPE, its log in
# $tmp/run-SIDE/logs.
run() {
	side=$1 dir=$2 r=$3
	mkdir -p "$tmp/run-$side/out/$r" "$tmp/run-$side/logs"
	# shellcheck disable=SC2046 # mirror_of prints options
	(cd "$dir" && "$tmp/tfbuild-$side" recipe -q --target all -j 2 \
		--build-dir "$tmp/run-$side/build" --cache "$tmp/run-$side/cache" \
		--out "$tmp/run-$side/out/$r" $(mirror_of "recipes/$r.yaml") "recipes/$r.yaml") \
		>"$tmp/run-$side/logs/$r.log" 2>&1
}

# compare RECIPE [LABEL]: print its line (LABEL: how it is named, by
# default recipes/RECIPE.yaml); 0 if every output file is the same.
# When the two sides wrote different files (a target added, say), the
# files both wrote are still compared, and said to be the same or not.
compare() {
	label=${2:-recipes/$1.yaml}
	a=$tmp/run-old/out/$1 b=$tmp/run-new/out/$1
	(cd "$a" && ls -A) >"$tmp/list-old" && (cd "$b" && ls -A) >"$tmp/list-new" ||
		return 1
	lists=same
	if ! cmp -s "$tmp/list-old" "$tmp/list-new"; then
		lists=different
		echo "DIFFERENT: $label: not the same files (- OLD, + NEW)"
		diff "$tmp/list-old" "$tmp/list-new" | sed -n 's/^[<>]/  &/p'
	fi
	comm -12 "$tmp/list-old" "$tmp/list-new" >"$tmp/list-both"
	n=0 differ=""
	while IFS= read -r f; do
		n=$((n + 1))
		cmp -s "$a/$f" "$b/$f" || differ="$differ$f
"
	done <"$tmp/list-both"
	if [ -z "$differ" ]; then
		[ $lists = different ] || { echo "same: $label ($n files)"; return 0; }
		echo "  the $n files both wrote are the same"
		return 1
	fi
	if [ $lists = same ]; then
		echo "DIFFERENT: $label: $(printf '%s' "$differ" | tr '\n' ' ')"
	else
		echo "  of the files both wrote, these differ: $(printf '%s' "$differ" | tr '\n' ' ')"
	fi
	whl=$(printf '%s' "$differ" | grep '\.whl$' | head -n 1)
	if [ -n "$whl" ]; then
		"$tmp/tfbuild-new" diff "$a/$whl" "$b/$whl" 2>&1 | sed 's/^/  /'
	else
		f=$(printf '%s' "$differ" | head -n 1)
		diff -u "$a/$f" "$b/$f" | head -n 40 | sed 's/^/  /'
	fi
	return 1
}

status=0
for recipe in "$new"/recipes/*.yaml; do
	[ "${SAME_WHEELS_RECIPES-all}" != none ] || break
	r=$(basename "$recipe" .yaml)
	case " ${SAME_WHEELS_RECIPES:-$r} " in *" $r "*) ;; *) continue ;; esac
	failed=""
	for side in old new; do
		if [ $side = old ]; then dir=$old; else dir=$new; fi
		if [ ! -f "$dir/recipes/$r.yaml" ]; then
			failed="$failed $side"
			echo "FAILED: recipes/$r.yaml: not in $side ($dir)"
			continue
		fi
		run "$side" "$dir" "$r" && continue
		rc=$?
		failed="$failed $side"
		echo "FAILED: recipes/$r.yaml: $side's tfbuild exit $rc; last lines of its log:"
		tail -n 15 "$tmp/run-$side/logs/$r.log" | sed 's/^/  /'
	done
	if [ -n "$failed" ]; then
		status=1
		continue
	fi
	compare "$r" || status=1
done

# The templates: each side writes the project with its own `tfbuild new`
# (so a template that changed shows), into a folder of the same name
# under its own directory, and builds it from there, as a user would.
# SAME_WHEELS_TEMPLATES names some (default: all of NEW's `new --list`;
# "none" for none). The framework templates fetch their framework's
# wheels into each side's fresh cache: minutes and some 500 MB each.
templates=${SAME_WHEELS_TEMPLATES:-$("$tmp/tfbuild-new" new --list | awk '{ print $1 }')}
[ "$templates" != none ] || templates=""
for t in $templates; do
	failed=""
	for side in old new; do
		d=$tmp/tpl-$side
		mkdir -p "$d" "$tmp/run-$side/out/new-$t" "$tmp/run-$side/logs"
		if ! (cd "$d" && "$tmp/tfbuild-$side" new "$t" "$t" &&
			"$tmp/tfbuild-$side" recipe -q --target all -j 2 \
				--build-dir "$tmp/run-$side/build" --cache "$tmp/run-$side/cache" \
				--out "$tmp/run-$side/out/new-$t" "$t/recipe.yaml") \
			>"$tmp/run-$side/logs/new-$t.log" 2>&1; then
			failed="$failed $side"
			echo "FAILED: template $t: $side's tfbuild; last lines of its log:"
			tail -n 15 "$tmp/run-$side/logs/new-$t.log" | sed 's/^/  /'
		fi
	done
	if [ -n "$failed" ]; then
		status=1
		continue
	fi
	compare "new-$t" "template $t" || status=1
done
exit $status
