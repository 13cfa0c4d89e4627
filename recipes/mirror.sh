#!/bin/sh
# Build the local mirror of upstream release archives: one
# NAME-VERSION.tar.gz for each directory in recipes/upstream/, made
# deterministically (sorted members, fixed owner, mode and mtime, gzip
# without a name or timestamp) so the bytes, and the sha256 the recipes
# pin, are the same on every machine and in every checkout.
#
# usage: recipes/mirror.sh OUTDIR
set -eu
out=${1:?usage: recipes/mirror.sh OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
for dir in "$here"/upstream/*/; do
	name=$(basename "$dir")
	tmp="$out/.$name.tar.gz.tmp"
	tar --sort=name --format=gnu --mtime=@1700000000 --owner=0 --group=0 \
		--numeric-owner --mode=u+rw,go-w,a+rX --exclude='__pycache__' \
		-C "$here/upstream" -cf - "$name" | gzip -n -9 >"$tmp"
	mv "$tmp" "$out/$name.tar.gz"
done
