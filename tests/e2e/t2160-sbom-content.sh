#!/bin/sh
# Every wheel carries its SBOM (PEP 770, issue 27 point 2): greet's and
# m1-plugin's are valid CycloneDX 1.6 for cyclonedx-python-lib's strict
# validator, list the package as primary component, each source with its
# URL as the recipe pins it (not the --set mirror it came from), sha256,
# version and license, the patches with their sha256, the compiler, the
# target packages declared static-libraries; two checkouts give the same
# bytes. tfbuild verify refuses an SBOM that names another package.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/checkers.sh"

checkout() {
	mkdir -p "$1" &&
	tar -C "$SRC_ROOT" --exclude=build --exclude=__pycache__ --exclude='*.o' \
		--exclude='*.so' --exclude='*.a' -cf - recipes patches backend |
		tar -C "$1" -xf -
}
checkout one && checkout other/checkout || exit 1
sh "$SRC_ROOT/recipes/mirror.sh" "$TRASH/mirror" >/dev/null || exit 1
# greet with a version and license for its source, as a recipe may say.
for c in one other/checkout; do
	sed -i 's|^    sha256: 5f42|    version: 1.0.0\n    license: MIT\n    sha256: 5f42|' $c/recipes/greet.yaml || exit 1
done

build() { # ROOT OUT
	for r in greet.yaml m1-plugin.yaml; do
		"$TFBUILD" -q recipe --target all --out "$2" --cache "$1/cache" \
			--set mirror="file://$TRASH/mirror" "$1/recipes/$r" || return 1
	done
}

# sbom_query WHEEL EXPR: a Python expression over the SBOM `d`, printed.
sbom_query() {
	sbom_json "$1" >q.json && "$PYTHON" -c "
import json
d = json.load(open('q.json'))
c = {x['bom-ref']: x for x in d['components']}
deps = {x['ref']: x.get('dependsOn', []) for x in d['dependencies']}
print($2)"
}

expect_success 'greet and m1-plugin build in two checkouts' '
	build "$TRASH/one" out1 && build "$TRASH/other/checkout" out2 &&
	test $(ls out1/*.whl | wc -l) = 6
'

expect_success 'every wheel has its SBOM in RECORD, valid for cyclonedx-python-lib' '
	for w in out1/*.whl; do
		unzip -p "$w" "*.dist-info/RECORD" | grep -q "\.dist-info/sboms/tfbuild\.cdx\.json,sha256=" || exit 1
	done &&
	mkdir -p sboms && check_sboms sboms out1/*.whl &&
	for f in sboms/sbom.*; do
		! test -s "$f" || { cat "$f"; exit 1; }
	done &&
	ls sboms/sbom.* | wc -l >n && echo 6 | compare - n
'

w=$(ls out1/greet-*_x86_64*.whl 2>/dev/null)
expect_success 'greet: the package is the primary component, with its license' '
	sbom_query "$w" "d[\"metadata\"][\"component\"][\"purl\"], d[\"metadata\"][\"component\"][\"licenses\"], d[\"specVersion\"], d[\"metadata\"][\"timestamp\"], [t[\"name\"] for t in d[\"metadata\"][\"tools\"][\"components\"]]" >actual &&
	echo "pkg:pypi/greet@1.0.0 [{'"'"'expression'"'"': '"'"'MIT'"'"'}] 1.6 2023-11-14T22:13:20Z ['"'"'tfbuild'"'"']" >expect &&
	compare expect actual
'

expect_success 'greet: its source with the recipe'"'"'s URL, sha256, version, license' '
	sbom_query "$w" "c[\"source:greet\"][\"externalReferences\"][0][\"url\"], c[\"source:greet\"][\"hashes\"][0][\"content\"], c[\"source:greet\"][\"version\"], c[\"source:greet\"][\"licenses\"][0][\"expression\"]" >actual &&
	echo "file:../build/mirror/greet-1.0.0.tar.gz 5f42cabfee912ae371bfb895b60c1c5f56762745c288bc2b3c274c7cc02f8ae5 1.0.0 MIT" >expect &&
	compare expect actual &&
	! grep -q "$TRASH" q.json
'

expect_success 'greet: the patch with its sha256, as pedigree and as a dependency of the source' '
	p=../patches/greet/0001-greeting-from-tfbuild.patch &&
	sum=$(sha256_of "$SRC_ROOT/patches/greet/0001-greeting-from-tfbuild.patch") &&
	sbom_query "$w" "c[\"patch:greet:$p\"][\"hashes\"][0][\"content\"], c[\"source:greet\"][\"pedigree\"][\"patches\"][0][\"diff\"][\"url\"], deps[\"source:greet\"]" >actual &&
	echo "$sum $p ['"'"'patch:greet:$p'"'"']" >expect &&
	compare expect actual
'

expect_success 'greet: the compiler and its version; the primary depends on all' '
	gccv=$(gcc -dumpfullversion) &&
	sbom_query "$w" "c[\"toolchain:x86_64\"][\"name\"], c[\"toolchain:x86_64\"][\"version\"], deps[\"pkg:pypi/greet@1.0.0\"]" >actual &&
	echo "gcc $gccv ['"'"'source:greet'"'"', '"'"'toolchain:x86_64'"'"']" >expect &&
	compare expect actual
'

expect_success 'm1-plugin: both wheels list tfmini'"'"'s source and the aarch64 one its cross compiler' '
	for x in out1/tfmini_m1_plugin-*.whl; do
		sbom_query "$x" "c[\"source:tfmini\"][\"hashes\"][0][\"alg\"]" >actual &&
		echo SHA-256 >expect && compare expect actual || exit 1
	done &&
	sbom_query out1/tfmini_m1_plugin-*aarch64*.whl "c[\"toolchain:aarch64\"][\"name\"]" >actual &&
	echo aarch64-linux-gnu-gcc >expect && compare expect actual
'

expect_success 'the SBOMs are byte-identical across the two checkouts' '
	for x in out1/*.whl; do
		sbom_json "$x" >a.json && sbom_json out2/$(basename "$x") >b.json &&
		cmp a.json b.json && cmp "$x" out2/$(basename "$x") || exit 1
	done
'

expect_success 'static-libraries: a target package, listed as linked statically' '
	mkdir -p st && cp -R one/recipes one/patches st/ &&
	cat >>st/recipes/greet.yaml <<-\EOF &&
	target-packages: [zlib1g-dev]
	EOF
	sed -i "s|^    requires-python:|    static-libraries: [zlib1g-dev]\n    requires-python:|" st/recipes/greet.yaml &&
	"$TFBUILD" -q recipe --out st-out --set mirror="file://$TRASH/mirror" st/recipes/greet.yaml &&
	sbom_query st-out/greet-*.whl "[(x[\"purl\"], x[\"properties\"]) for x in d[\"components\"] if x[\"bom-ref\"].startswith(\"deb:zlib1g-dev\")]" >actual &&
	grep -q "pkg:deb/debian/zlib1g-dev@.*?arch=amd64.*tfbuild:linkage.*static" actual
'

expect_success 'static-libraries naming no target package is refused at its position' '
	sed -i "s|static-libraries: \[zlib1g-dev\]|static-libraries: [libnope-dev]|" st/recipes/greet.yaml &&
	expect_code 6 "$TFBUILD" -q recipe --out st-out2 --set mirror="file://$TRASH/mirror" st/recipes/greet.yaml 2>err &&
	grep -q "greet.yaml:[0-9]*:[0-9]*: static-libraries: .libnope-dev. is not one of target x86_64.s packages" err
'

# rewrap DIR WHEEL: DIR's files as a wheel, RECORD made again and last.
rewrap() {
	"$PYTHON" - "$1" "$2" <<-\EOF
	import base64, hashlib, os, sys, zipfile
	top, out = sys.argv[1:]
	names = sorted(os.path.relpath(os.path.join(r, n), top)
	               for r, _, fs in os.walk(top) for n in fs)
	record = [n for n in names if n.endswith(".dist-info/RECORD")][0]
	rows = []
	with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
	    for n in names:
	        if n == record:
	            continue
	        b = open(os.path.join(top, n), "rb").read()
	        h = base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode()
	        rows.append("%s,sha256=%s,%d\n" % (n, h, len(b)))
	        z.writestr(n, b)
	    z.writestr(record, "".join(rows) + record + ",,\n")
	EOF
}

expect_success 'verify refuses a wheel whose SBOM names another package' '
	mkdir -p bad && (cd bad && unzip -q "../$w") &&
	f=bad/greet-1.0.0.dist-info/sboms/tfbuild.cdx.json &&
	sed -i "s|\"name\": \"greet\"|\"name\": \"other\"|" $f &&
	rewrap bad "$(basename "$w")" &&
	expect_code 6 "$TFBUILD" verify "$(basename "$w")" 2>err &&
	grep -q "sboms/tfbuild.cdx.json: its primary component is other 1.0.0, not the wheel.s greet 1.0.0" err
'

expect_success 'verify refuses a tfbuild wheel without its SBOM' '
	rm -r bad/greet-1.0.0.dist-info/sboms &&
	rewrap bad "$(basename "$w")" &&
	expect_code 6 "$TFBUILD" verify "$(basename "$w")" 2>err &&
	grep -q "made by tfbuild but has no greet-1.0.0.dist-info/sboms/tfbuild.cdx.json" err
'

test_done
