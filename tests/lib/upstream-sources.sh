#!/bin/sh
# upstream-sources.sh DEST RECIPE...
#
# Gets, offline from the internet's point of view, the exact upstream
# release archives that third-party recipes pin, and puts each one at
# DEST/<recipe name>/<upstream file name>, ready to be served by
# tests/lib/httpd.py as the recipe's `mirror`.
#
# Debian's source packages carry upstream's original release tarball
# (`<pkg>_<version>.orig.tar.*`) unmodified, unless Debian repacked it
# (`+dfsg`, `+ds`: not accepted here). So the archive comes from
# `apt-get source --download-only` (a `deb-src` line for bookworm main
# is set up by ci/install-deps.sh), is renamed to upstream's file name,
# and must hash to the sha256 the recipe pins: if Debian's orig tarball
# is not the bytes upstream released, this fails, loudly.
#
# Each recipe says where its archive comes from in Debian with one
# comment line, next to its source:
#     # debian-source: libzip libzip_1.7.3.orig.tar.xz
# and its source has `url: ${mirror}/FILE` and `sha256: HEX`.
#
# Archives are cached by content under $TFBUILD_TEST_CACHE/upstream
# (default /var/cache/tfbuild-test, or tests/tmp/.cache when that cannot
# be written), so apt is asked once per machine.
set -u

die() { echo "upstream-sources: $*" >&2; exit 1; }

[ $# -ge 2 ] || die "usage: upstream-sources.sh DEST RECIPE..."
dest=$1; shift

cache=${TFBUILD_TEST_CACHE:-/var/cache/tfbuild-test}
if ! mkdir -p "$cache/upstream" 2>/dev/null || [ ! -w "$cache/upstream" ]; then
	cache=$(cd "$(dirname "$0")/.." && pwd)/tmp/.cache
	mkdir -p "$cache/upstream" || die "cannot create a cache directory"
fi
cache=$cache/upstream

# field KEY FILE: the first value of `KEY: value` in a recipe (plain
# scalars only: the recipes this script serves keep these on one line).
field() {
	sed -n "s/^[[:space:]-]*$1:[[:space:]]*\"\{0,1\}\([^\"[:space:]]*\)\"\{0,1\}[[:space:]]*\$/\1/p" "$2" | head -n 1
}

for recipe in "$@"; do
	[ -f "$recipe" ] || die "$recipe: no such recipe"
	name=$(field name "$recipe")
	url=$(field url "$recipe")
	pin=$(field sha256 "$recipe")
	set -- $(sed -n 's/^[[:space:]]*#[[:space:]]*debian-source:[[:space:]]*//p' "$recipe" | head -n 1)
	[ $# = 2 ] || die "$recipe: no '# debian-source: PACKAGE ORIG-FILE' line"
	srcpkg=$1 orig=$2
	# The upstream version in the orig name says whether Debian repacked
	# it: 1.2.13.dfsg, 1.5.4+dfsg2, 2.0+ds1, 3.1+repack, ...
	version=${orig#*_} && version=${version%.orig.*}
	case $version in
	*dfsg* | *[+.~]ds | *[+.~]ds[0-9]* | *repack*)
		die "$recipe: $orig is repacked by Debian, not upstream's release" ;;
	esac
	case $url in
	'${mirror}/'*) file=${url#'${mirror}/'} ;;
	*) die "$recipe: url '$url' is not \${mirror}/FILE" ;;
	esac
	echo "$pin" | grep -Eqx '[0-9a-f]{64}' || die "$recipe: no sha256 pin"
	[ -n "$name" ] || die "$recipe: no name"

	cached=$cache/$pin/$file
	if [ ! -f "$cached" ] || [ "$(sha256sum <"$cached" | cut -d' ' -f1)" != "$pin" ]; then
		tmp=$cache/.tmp.$$
		rm -rf "$tmp" && mkdir -p "$tmp" && chmod 755 "$tmp" || die "cannot create $tmp"
		apt-cache showsrc "$srcpkg" 2>/dev/null | grep -q "^Package: $srcpkg\$" ||
			{ rm -rf "$tmp"; die "$recipe: apt knows no source package '$srcpkg'; add a deb-src line for bookworm main (ci/install-deps.sh does) and run apt-get update"; }
		if ! (cd "$tmp" && apt-get source --download-only -q "$srcpkg") >"$tmp.log" 2>&1; then
			cat "$tmp.log" >&2; rm -rf "$tmp" "$tmp.log"
			die "$recipe: apt-get source --download-only $srcpkg failed"
		fi
		rm -f "$tmp.log"
		[ -f "$tmp/$orig" ] || { ls "$tmp" >&2; rm -rf "$tmp"; die "$recipe: Debian's $srcpkg has no $orig (a new upstream version in Debian? update the recipe)"; }
		got=$(sha256sum <"$tmp/$orig" | cut -d' ' -f1)
		if [ "$got" != "$pin" ]; then
			rm -rf "$tmp"
			die "$recipe: Debian's $orig has sha256 $got, but the recipe pins upstream's $file as $pin: not the same bytes"
		fi
		mkdir -p "$cache/$pin" && mv "$tmp/$orig" "$cached.tmp.$$" && mv "$cached.tmp.$$" "$cached" ||
			{ rm -rf "$tmp"; die "cannot store $cached"; }
		rm -rf "$tmp"
	fi
	mkdir -p "$dest/$name" || die "cannot create $dest/$name"
	ln -f "$cached" "$dest/$name/$file" 2>/dev/null || cp "$cached" "$dest/$name/$file" ||
		die "cannot copy $cached"
	# Checked again where the test reads it: the cache is not trusted.
	[ "$(sha256sum <"$dest/$name/$file" | cut -d' ' -f1)" = "$pin" ] ||
		die "$dest/$name/$file: sha256 differs from the pin $pin"
done
