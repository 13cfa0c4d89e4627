#!/bin/sh
# A lock pin names a wheel by requirement, file name and sha256; only
# the bytes prove what it is (issue 35 item 6). A pin with goodpkg's
# requirement and file name but the digest of otherpkg's wheel, already
# in the shared download cache from another recipe, with the index
# down, used to build: ${target_site} held otherpkg's files and the
# provenance said goodpkg. The wheel's METADATA (Name, Version) and the
# pin's file name must be its requirement's, on a cache hit too; the
# refusal names the pin's place in the lock file and both names.
. "$(dirname "$0")/../lib/test-lib.sh"

unset PIP_INDEX_URL PIP_EXTRA_INDEX_URL TFBUILD_PIP_PYTHON
export PIP_NO_CACHE_DIR=1 PIP_CONFIG_FILE=/dev/null PIP_NO_INDEX=1
mkwheel() { "$PYTHON" "$TESTS_DIR/lib/mkwheel.py" idx "$@" >/dev/null; }
SQ="'"

mkdir idx empty &&
mkwheel goodpkg 1.0 py3-none-any 'goodpkg/good.h=#define WHO 1' &&
mkwheel otherpkg 1.0 py3-none-any 'otherpkg/other.h=#define WHO 666' || exit 1
good=$(sha256_of idx/goodpkg-1.0-py3-none-any.whl)
other=$(sha256_of idx/otherpkg-1.0-py3-none-any.whl)

# recipe NAME REQUIREMENT
recipe() {
	cat >"$1.yaml" <<EOF
schema: 1
name: $1
version: "1.0"
target-wheels: ["$2"]
steps:
  - name: s
    run: ls \${target_site} >\$STAGE/ls
EOF
}
# lock NAME REQUIREMENT FILE SHA256: a lock file written by hand
lock() {
	printf '{"pins": [{"file": "%s", "requirement": "%s", "sha256": "%s", "target": "%s"}], "version": 1}\n' \
		"$3" "$2" "$4" "$(uname -m)" >"$1.lock.json"
}

expect_success 'another recipe puts otherpkg into the shared download cache' '
	recipe other otherpkg==1.0 &&
	PIP_FIND_LINKS=$TRASH/idx "$TFBUILD" lock other.yaml >out 2>err &&
	PIP_FIND_LINKS=$TRASH/idx "$TFBUILD" recipe other.yaml >log 2>&1 &&
	test -f home/.cache/tfbuild/sha256/$other
'

expect_success 'a pin of goodpkg with otherpkg'"$SQ"'s digest is refused on the cache hit, index down' '
	recipe victim goodpkg==1.0 &&
	lock victim goodpkg==1.0 goodpkg-1.0-py3-none-any.whl "$other" &&
	expect_code 4 env PIP_FIND_LINKS=$TRASH/empty "$TFBUILD" recipe victim.yaml >log 2>err &&
	echo "tfbuild: victim.lock.json: pin 1: target $(uname -m): wheel ${SQ}goodpkg==1.0${SQ}: the cached ${SQ}goodpkg-1.0-py3-none-any.whl${SQ} (sha256 $other): its METADATA says it is ${SQ}otherpkg${SQ} 1.0, not ${SQ}goodpkg${SQ} 1.0; refused" >expect &&
	compare expect err &&
	test ! -e build/victim/*/stage/s/ls &&
	test $(ls home/.cache/tfbuild/target-sites | wc -l) = 1
'

expect_success 'a pin whose file name is another project'"$SQ"'s is refused at its place' '
	lock victim goodpkg==1.0 otherpkg-1.0-py3-none-any.whl "$other" &&
	expect_code 4 env PIP_FIND_LINKS=$TRASH/empty "$TFBUILD" recipe victim.yaml >log 2>err &&
	echo "tfbuild: victim.lock.json: pin 1: target $(uname -m): wheel ${SQ}goodpkg==1.0${SQ}: the pin names ${SQ}otherpkg-1.0-py3-none-any.whl${SQ}, a wheel of ${SQ}otherpkg${SQ}, not ${SQ}goodpkg${SQ}" >expect &&
	compare expect err &&
	lock victim goodpkg==1.0 goodpkg-2.0-py3-none-any.whl "$good" &&
	expect_code 4 env PIP_FIND_LINKS=$TRASH/empty "$TFBUILD" recipe victim.yaml >log 2>err &&
	grep -qF "pin 1: target $(uname -m): wheel ${SQ}goodpkg==1.0${SQ}: the pin names ${SQ}goodpkg-2.0-py3-none-any.whl${SQ}, version 2.0, not 1.0" err
'

expect_success 'the honest pin builds from the same cache, site holding goodpkg' '
	PIP_FIND_LINKS=$TRASH/idx "$TFBUILD" fetch other.yaml >log 2>&1 &&
	PIP_FIND_LINKS=$TRASH/idx "$TFBUILD" lock --upgrade victim.yaml >out 2>err &&
	grep -q "pinned goodpkg-1.0-py3-none-any.whl (sha256 $good)" out &&
	PIP_FIND_LINKS=$TRASH/empty "$TFBUILD" recipe victim.yaml >log 2>&1 &&
	grep -qx goodpkg build/victim/*/stage/s/ls
'

expect_success 'a wheel on the index whose METADATA is another project is refused by lock' '
	mkdir -p liar/goodpkg-1.0.dist-info &&
	(cd liar && unzip -q "$TRASH/idx/otherpkg-1.0-py3-none-any.whl" &&
	 mv otherpkg-1.0.dist-info/* goodpkg-1.0.dist-info/ &&
	 rmdir otherpkg-1.0.dist-info &&
	 "$PYTHON" -c "import shutil; shutil.make_archive(\"../liar\", \"zip\", \".\")") &&
	mkdir liaridx && mv liar.zip liaridx/goodpkg-1.0-py3-none-any.whl &&
	rm victim.lock.json &&
	expect_code 4 env PIP_FIND_LINKS=$TRASH/liaridx "$TFBUILD" lock victim.yaml >out 2>err &&
	grep -qF "tfbuild: target $(uname -m): wheel ${SQ}goodpkg==1.0${SQ}: the index${SQ}s ${SQ}goodpkg-1.0-py3-none-any.whl${SQ}: its METADATA says it is ${SQ}otherpkg${SQ} 1.0, not ${SQ}goodpkg${SQ} 1.0; refused" err &&
	test ! -e victim.lock.json
'

test_done
