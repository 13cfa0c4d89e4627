#!/bin/sh
# The third-party recipes fetch real upstream release archives, pinned by
# sha256; tests get the same bytes offline from Debian's source packages
# (tests/lib/upstream-sources.sh), and refuse them unless they hash to
# the pin: Debian's orig tarball must be upstream's, unmodified.
. "$(dirname "$0")/../lib/test-lib.sh"

recipes="spng serd libzip"
src() { sh "$TESTS_DIR/lib/upstream-sources.sh" "$@"; }

expect_success 'each recipe fetches from its upstream release URL by default' '
	for r in $recipes; do
		"$TFBUILD" explain "$SRC_ROOT/recipes/$r.yaml" >/dev/null || exit 1
		m=$(sed -n "s/^  mirror: *//p" "$SRC_ROOT/recipes/$r.yaml") &&
		case $m in
		https://github.com/* | https://libzip.org/* | https://download.drobilla.net*) ;;
		*) echo "$r: mirror $m is not upstream"; exit 1 ;;
		esac
	done
'

expect_success 'Debian source packages give the pinned upstream archives, under upstream names' '
	src mirror $(for r in $recipes; do echo "$SRC_ROOT/recipes/$r.yaml"; done) &&
	(cd mirror && find . -type f | sort) >got &&
	printf "%s\n" ./libzip/libzip-1.7.3.tar.xz ./serd/serd-0.30.16.tar.xz \
		./spng/v0.7.3.tar.gz >want && compare want got &&
	for r in $recipes; do
		pin=$(sed -n "s/^ *sha256: *//p" "$SRC_ROOT/recipes/$r.yaml") &&
		test "$(sha256_of mirror/$r/*)" = "$pin" || exit 1
	done
'

expect_success 'tfbuild fetches them from a local server and checks the pins itself' '
	start_httpd "$TRASH/mirror" &&
	for r in $recipes; do
		"$TFBUILD" fetch --cache cache --set mirror="$HTTP_URL/$r" \
			"$SRC_ROOT/recipes/$r.yaml" || exit 1
	done
'

# A fake apt-get that fails: a second run must not need apt at all.
mkdir -p fakebin && printf "#!/bin/sh\necho apt-get called >&2\nexit 1\n" >fakebin/apt-get &&
	chmod +x fakebin/apt-get && cp fakebin/apt-get fakebin/apt-cache

expect_success 'a second run takes them from the cache, without apt' '
	rm -rf mirror2 &&
	PATH="$TRASH/fakebin:$PATH" src mirror2 "$SRC_ROOT/recipes/serd.yaml" 2>err &&
	! grep -q "apt-get called" err &&
	cmp mirror/serd/serd-0.30.16.tar.xz mirror2/serd/serd-0.30.16.tar.xz
'

expect_success 'an archive whose bytes differ from the pin is refused, naming both hashes' '
	sed "s/^\(    sha256: \).*/\1$(printf "%064d" 0)/" "$SRC_ROOT/recipes/serd.yaml" >serd-bad.yaml &&
	cp -r "$SRC_ROOT/recipes/thirdparty" . &&
	! TFBUILD_TEST_CACHE="$TRASH/fresh-cache" src mirror3 serd-bad.yaml 2>err &&
	cat err &&
	grep -q "serd_0.30.16.orig.tar.xz has sha256 f50f486da519cdd8d03b20c9e42414e459133f5a244411d8e63caef8d9ac9146, but the recipe pins upstream.s serd-0.30.16.tar.xz as 0\{64\}" err &&
	test ! -e mirror3/serd
'

expect_success 'a tarball Debian repacked (+dfsg) is refused before any download' '
	sed "s/^\(  # debian-source:\).*/\1 zlib zlib_1.2.13.dfsg.orig.tar.bz2/" \
		"$SRC_ROOT/recipes/serd.yaml" >repacked.yaml &&
	! PATH="$TRASH/fakebin:$PATH" src mirror4 repacked.yaml 2>err &&
	grep -q "zlib_1.2.13.dfsg.orig.tar.bz2 is repacked by Debian, not upstream.s release" err &&
	! grep -q "apt-get called" err
'

test_done
