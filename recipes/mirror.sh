#!/bin/sh
# Build the local mirror of upstream release archives: one
# NAME-VERSION.tar.gz for each directory in recipes/upstream/, made
# deterministically (sorted members, fixed owner, mode and mtime, gzip
# without a name or timestamp) so the bytes, and the sha256 the recipes
# pin, are the same on every machine and in every checkout, whatever the
# umask, time zone or locale. Build products left in a tree (build/, *.o,
# *.so, *.a, __pycache__) are not packed. Prints "SHA256  ARCHIVE" for
# each archive, and warns when a recipe names an archive but pins another
# digest.
#
# usage: recipes/mirror.sh OUTDIR
set -eu
out=${1:?usage: recipes/mirror.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
export LC_ALL=C TZ=UTC
mkdir -p "$out"
tmp="$out/.mirror.$$"
trap 'rm -f "$tmp.tar" "$tmp.tar.gz"' EXIT
trap 'exit 1' HUP INT TERM

for dir in "$here"/upstream/*/; do
	name=$(basename "$dir")
	# A file, not a pipe: sh has no pipefail, and a failing tar must fail.
	tar --sort=name --format=gnu --mtime=@1700000000 --owner=0 --group=0 \
		--numeric-owner --mode=u+rw,go-w,a+rX --exclude='__pycache__' \
		--exclude='*.pyc' --exclude=build --exclude='*.o' \
		--exclude='*.so' --exclude='*.a' \
		-C "$here/upstream" -cf "$tmp.tar" "$name"
	gzip -n -9 <"$tmp.tar" >"$tmp.tar.gz"
	mv "$tmp.tar.gz" "$out/$name.tar.gz"
	sum=$(sha256sum "$out/$name.tar.gz" | cut -d' ' -f1)
	echo "$sum  $name.tar.gz"
	for recipe in "$here"/*.yaml; do
		grep -q "/$name\.tar\.gz\$" "$recipe" || continue
		grep -q "sha256: $sum\$" "$recipe" ||
			echo "mirror.sh: warning: $(basename "$recipe") does not pin $sum for $name.tar.gz" >&2
	done
done
