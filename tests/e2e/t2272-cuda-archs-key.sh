#!/bin/sh
# The wheel key cuda-archs (issue 38, item 3): parsed with its errors at
# FILE:LINE:COL (another form, twice, empty), written by pack to
# .dist-info/tfbuild/cuda-archs in one order whatever the recipe's, and
# recorded in the SBOM as the package's tfbuild:cuda-archs property. A
# wheel without the key has neither. No CUDA needed: the GPU code itself
# is audited in t2273.
. "$(dirname "$0")/../lib/test-lib.sh"

# recipe ARCHS: p/r.yaml, a wheel of one text file, with `cuda-archs:
# ARCHS` on line 10 (none when ARCHS is empty).
recipe() {
	mkdir -p p && {
		cat <<-\EOF
		schema: 1
		name: r
		version: 1.0.0
		steps:
		  - name: s
		    run: echo hi >"$STAGE/hi.txt"
		wheels:
		  - name: r
		    version: 1.0.0
		EOF
		test -z "$1" || echo "    cuda-archs: $1"
		cat <<-\EOF
		    files:
		      - {from: s, src: hi.txt, dst: r}
		EOF
	} >p/r.yaml
}

whl=r-1.0.0-py3-none-any.whl
SQ="'"
info=r-1.0.0.dist-info

expect_success 'the declaration is written one a line, SASS then PTX, by number' '
	recipe "[compute_90, sm_100, sm_90a, sm_80, sm_90]" &&
	"$TFBUILD" -q recipe --out w1 p/r.yaml &&
	unzip -p w1/$whl $info/tfbuild/cuda-archs >actual &&
	printf "sm_80\nsm_90\nsm_90a\nsm_100\ncompute_90\n" >expect &&
	compare expect actual &&
	unzip -Z1 w1/$whl >entries &&
	grep -qx "$info/tfbuild/cuda-archs" entries &&
	unzip -p w1/$whl $info/RECORD >record &&
	grep -q "^$info/tfbuild/cuda-archs,sha256=" record &&
	"$TFBUILD" verify w1/$whl
'

expect_success 'the SBOM lists them as the package'"'"'s tfbuild:cuda-archs' '
	unzip -p w1/$whl $info/sboms/tfbuild.cdx.json >sbom.json &&
	"$PYTHON" -c "
import json
c = json.load(open(\"sbom.json\"))[\"metadata\"][\"component\"]
print([p[\"value\"] for p in c[\"properties\"] if p[\"name\"] == \"tfbuild:cuda-archs\"])
" >actual &&
	echo "[${SQ}sm_80 sm_90 sm_90a sm_100 compute_90${SQ}]" >expect &&
	compare expect actual
'

expect_success 'another order in the recipe gives the same record and SBOM' '
	recipe "[sm_80, sm_90, sm_90a, sm_100, compute_90]" &&
	"$TFBUILD" -q recipe --out w2 p/r.yaml &&
	unzip -p w2/$whl $info/tfbuild/cuda-archs >second &&
	unzip -p w1/$whl $info/tfbuild/cuda-archs >first &&
	compare first second &&
	unzip -p w2/$whl $info/sboms/tfbuild.cdx.json >sbom2.json &&
	compare sbom.json sbom2.json
'

expect_success 'without the key: no record, no property' '
	recipe "" &&
	"$TFBUILD" -q recipe --out w3 p/r.yaml &&
	unzip -Z1 w3/$whl >entries &&
	! grep -q cuda entries &&
	unzip -p w3/$whl $info/sboms/tfbuild.cdx.json >sbom3.json &&
	! grep -q cuda-archs sbom3.json
'

# refused ARCHS MESSAGE: the recipe with ARCHS fails to load (exit 3)
# with MESSAGE, and nothing runs.
refused() {
	recipe "$1" &&
	rm -rf p/build &&
	expect_code 3 "$TFBUILD" recipe --out w4 p/r.yaml 2>actual &&
	echo "tfbuild: p/r.yaml:$2" >expect &&
	compare expect actual &&
	test ! -e p/build/r/x86_64/logs/s.log
}

expect_success 'a name of another form is refused at its position' '
	refused "[sm_80, sm80]" "10:25: ${SQ}sm80${SQ} in ${SQ}cuda-archs${SQ} is not a CUDA architecture (sm_NN or compute_NN, with an optional a or f: sm_90a)" &&
	refused "[sm_1000]" "10:18: ${SQ}sm_1000${SQ} in ${SQ}cuda-archs${SQ} is not a CUDA architecture (sm_NN or compute_NN, with an optional a or f: sm_90a)"
'

expect_success 'one given twice is refused, naming both places' '
	refused "[sm_80, compute_90, sm_80]" "10:37: ${SQ}sm_80${SQ} is in ${SQ}cuda-archs${SQ} twice: also at p/r.yaml:10:18"
'

expect_success 'an empty list and a scalar are refused' '
	refused "[]" "10:17: ${SQ}cuda-archs${SQ} in ${SQ}wheels[0]${SQ} is empty (name the GPU architectures its CUDA code carries: [sm_80, compute_90])" &&
	refused "sm_80" "10:17: ${SQ}cuda-archs${SQ} must be a list of strings, not a scalar"
'

test_done
