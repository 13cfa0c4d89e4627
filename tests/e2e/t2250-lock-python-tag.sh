#!/bin/sh
# `tfbuild lock` accepts every recipe `recipe` accepts (issue 37): a
# wheel with `python: ${python_tag}` used to stop lock with "'' is not
# a valid python tag" (exit 3), its unchecked plan not knowing the
# target's Python, while `recipe` and `explain` took the same file.
# Lock now expands it as the build does; a tag `recipe` refuses is
# still refused by lock, at its place.
. "$(dirname "$0")/../lib/test-lib.sh"

unset PIP_INDEX_URL PIP_EXTRA_INDEX_URL TFBUILD_PIP_PYTHON
export PIP_NO_CACHE_DIR=1 PIP_CONFIG_FILE=/dev/null PIP_NO_INDEX=1
export PIP_FIND_LINKS="$TRASH/idx"
SQ="'"
tag=$("$PYTHON" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')

# recipe PYTHON-TAG: a wheel tagged with it, one target wheel to pin
recipe() {
	cat >r.yaml <<EOF
schema: 1
name: r
version: "1.0"
target-wheels: ["goodpkg==1.0"]
steps:
  - name: s
    run: ls \${target_site} >\$STAGE/ls
wheels:
  - name: r
    version: "1.0"
    python: $1
    abi: none
    platform: any
    files:
      - {from: s, src: ls, dst: r/ls}
EOF
}

expect_success 'lock pins the target wheel of a recipe with python: ${python_tag}' '
	mkdir idx &&
	"$PYTHON" "$TESTS_DIR/lib/mkwheel.py" idx goodpkg 1.0 py3-none-any "goodpkg/good.h=#define WHO 1" >/dev/null &&
	recipe "\${python_tag}" &&
	"$TFBUILD" lock r.yaml >out 2>err &&
	grep -q "goodpkg==1.0: pinned goodpkg-1.0-py3-none-any.whl" out &&
	grep -qx "tfbuild: wrote r.lock.json (1 pin)" err
'

expect_success 'recipe builds from that lock, its wheel tagged with the same Python' '
	"$TFBUILD" recipe r.yaml >log 2>&1 &&
	test -f wheels/r-1.0-$tag-none-any.whl
'

expect_success 'a python tag recipe refuses is refused by lock too, at its place' '
	recipe "\"c p\"" &&
	expect_code 3 "$TFBUILD" recipe r.yaml >log 2>err.recipe &&
	expect_code 3 "$TFBUILD" lock r.yaml >out 2>err &&
	echo "tfbuild: r.yaml:11:13: ${SQ}c p${SQ} is not a valid python tag" >expect &&
	compare expect err &&
	grep -qF "r.yaml:11:13: ${SQ}c p${SQ} is not a valid python tag" err.recipe
'

test_done
