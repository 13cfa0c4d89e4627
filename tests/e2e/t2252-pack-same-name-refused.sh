#!/bin/sh
# Two wheels of the same file name from different builds in one --out
# (issue 37): the second used to replace the first, and its provenance,
# silently. Now a wheel another build made, as the provenance in --out
# says (another recipe, or other target wheels: another framework
# release), is never replaced: the run stops before any wheel moves,
# naming both builds. A rerun, an edited recipe rebuilt or another
# --set not changing the target wheels replaces its own.
. "$(dirname "$0")/../lib/test-lib.sh"

SQ="'"
cat >a.yaml <<'EOF'
schema: 1
name: pw
version: "1.0"
variables:
  msg: one
steps:
  - name: s
    run: mkdir -p $STAGE/pw && echo "${msg}" >$STAGE/pw/msg.txt
wheels:
  - name: pw
    version: "1.0"
    files:
      - {from: s, src: pw, dst: pw}
EOF
whl=w/pw-1.0-py3-none-any.whl
msg() { unzip -p $whl pw/pw/msg.txt; }

expect_success 'a first build, and its rerun: the same bytes, a no-op' '
	"$TFBUILD" recipe --out w a.yaml >log 2>&1 &&
	test "$(msg)" = one &&
	sum=$(sha256_of $whl) &&
	"$TFBUILD" recipe --out w a.yaml >log 2>err &&
	grep -q "is up to date" err &&
	test "$(sha256_of $whl)" = "$sum"
'

expect_success 'another recipe of the same wheel name is refused, both named' '
	sed "s/msg: one/msg: two/" a.yaml >b.yaml &&
	cp w/pw.intoto.json prov.before &&
	expect_code 6 "$TFBUILD" recipe --out w b.yaml >log 2>err &&
	echo "tfbuild: $whl: made by another build (w/pw.intoto.json: recipe ${SQ}a.yaml${SQ}), not this one (recipe ${SQ}b.yaml${SQ}); not replaced: remove it, or use another --out" >expect &&
	tail -1 err >last &&
	compare expect last &&
	test "$(msg)" = one &&
	compare prov.before w/pw.intoto.json &&
	test "$(ls w)" = "$(printf "SHA256SUMS\npw-1.0-py3-none-any.whl\npw.intoto.json")"
'

expect_success 'a copy of the recipe is another build, even with the same bytes' '
	cp a.yaml c.yaml &&
	expect_code 6 "$TFBUILD" recipe --out w c.yaml >log 2>err &&
	grep -qF "(w/pw.intoto.json: recipe ${SQ}a.yaml${SQ}), not this one (recipe ${SQ}c.yaml${SQ})" err
'

expect_success 'another --set of the same recipe rebuilds it, replacing its wheel' '
	"$TFBUILD" recipe --out w --set msg=three a.yaml >log 2>&1 &&
	test "$(msg)" = three &&
	"$TFBUILD" recipe --out w a.yaml >log 2>&1 &&
	test "$(msg)" = one
'

expect_success 'the same recipe against another framework release is another build' '
	mkdir idx &&
	for v in 2.20.0 2.21.0; do
		"$PYTHON" "$TESTS_DIR/lib/mkwheel.py" idx fakeflow $v py3-none-any "fakeflow/v.h=$v" >/dev/null || return 1
	done &&
	sed -e "s/^  msg: one/  msg: one\n  tf: 2.20.0/" -e "s/^steps:/target-wheels: [\"fakeflow==\${tf}\"]\nsteps:/" a.yaml >f.yaml &&
	PIP_NO_INDEX=1 PIP_CONFIG_FILE=/dev/null PIP_FIND_LINKS=$TRASH/idx "$TFBUILD" lock f.yaml >log 2>&1 &&
	PIP_NO_INDEX=1 PIP_CONFIG_FILE=/dev/null PIP_FIND_LINKS=$TRASH/idx "$TFBUILD" lock --set tf=2.21.0 f.yaml >log 2>&1 &&
	PIP_NO_INDEX=1 PIP_CONFIG_FILE=/dev/null PIP_FIND_LINKS=$TRASH/idx "$TFBUILD" recipe --out w2 f.yaml >log 2>&1 &&
	expect_code 6 env PIP_NO_INDEX=1 PIP_CONFIG_FILE=/dev/null PIP_FIND_LINKS=$TRASH/idx "$TFBUILD" recipe --out w2 --set tf=2.21.0 f.yaml >log 2>err &&
	grep -qF "(w2/pw.intoto.json: recipe ${SQ}f.yaml${SQ}, against ${SQ}fakeflow==2.20.0${SQ}), not this one (recipe ${SQ}f.yaml${SQ}, against ${SQ}fakeflow==2.21.0${SQ})" err
'

expect_success 'the recipe edited and rebuilt replaces its own wheel' '
	sed "s/echo \"/echo \"new-/" a.yaml >a2 && mv a2 a.yaml &&
	"$TFBUILD" recipe --out w a.yaml >log 2>&1 &&
	test "$(msg)" = new-one
'

expect_success 'with the earlier wheel removed, the other build writes its own' '
	rm $whl &&
	"$TFBUILD" recipe --out w b.yaml >log 2>&1 &&
	test "$(msg)" = two &&
	"$TFBUILD" verify --provenance w/pw.intoto.json $whl >log 2>&1
'

expect_success 'a wheel no provenance names (a stopped run) may be replaced' '
	rm w/pw.intoto.json &&
	"$TFBUILD" recipe --out w a.yaml >log 2>&1 &&
	test "$(msg)" = new-one
'

test_done
