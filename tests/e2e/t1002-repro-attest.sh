#!/bin/sh
# Each run writes SHA256SUMS and an in-toto/SLSA provenance statement;
# verify --sums/--provenance catches swapped, added and missing wheels;
# diff explains how two wheels differ.
. "$(dirname "$0")/../lib/test-lib.sh"

sh "$SRC_ROOT/recipes/mirror.sh" "$TRASH/mirror" || exit 1
recipe="$SRC_ROOT/recipes/greet.yaml"
# No platform in the recipe: the lowest manylinux policy its binary fits.
wheel=greet-1.0.0-py3-none-manylinux_2_5_x86_64.manylinux1_x86_64.whl
"$TFBUILD" -q recipe --cache cache --build-dir build --out out \
	--set mirror="file://$TRASH/mirror" "$recipe" || exit 1
archive_sum=$(sha256_of "$TRASH/mirror/greet-1.0.0.tar.gz")
patch_sum=$(sha256_of "$SRC_ROOT/patches/greet/0001-greeting-from-tfbuild.patch")

expect_success 'the provenance is an in-toto Statement with a SLSA v1 predicate' '
	"$PYTHON" - out/greet.intoto.json "$wheel" "$(sha256_of out/$wheel)" <<-EOF
	import json, sys
	doc = json.load(open(sys.argv[1]))
	assert doc["_type"] == "https://in-toto.io/Statement/v1", doc["_type"]
	assert doc["predicateType"] == "https://slsa.dev/provenance/v1"
	assert doc["subject"] == [{"name": sys.argv[2], "digest": {"sha256": sys.argv[3]}}], doc["subject"]
	bd = doc["predicate"]["buildDefinition"]
	assert bd["externalParameters"]["targets"] == ["x86_64"]
	assert bd["internalParameters"]["sourceDateEpoch"] == 1700000000
	EOF
'

expect_success 'it names the source and the patch with their sha256' '
	"$PYTHON" - out/greet.intoto.json "$archive_sum" "$patch_sum" <<-EOF
	import json, sys
	deps = {d["name"]: d for d in json.load(open(sys.argv[1]))["predicate"]["buildDefinition"]["resolvedDependencies"]}
	src = deps["source:greet"]
	assert src["digest"] == {"sha256": sys.argv[2]}, src
	assert src["uri"].endswith("/greet-1.0.0.tar.gz"), src
	p = deps["patch:greet:../patches/greet/0001-greeting-from-tfbuild.patch"]
	assert p["digest"] == {"sha256": sys.argv[3]}, p
	assert "recipe" in deps and "toolchain:x86_64" in deps
	assert "gcc" in deps["toolchain:x86_64"]["annotations"]["identity"]
	EOF
'

expect_success 'verify --sums --provenance passes on the run'"'"'s output' '
	"$TFBUILD" verify --sums out/SHA256SUMS --provenance out/greet.intoto.json >v.out &&
	echo "ok  out/$wheel" >expect && compare expect v.out
'

expect_success 'a wheel swapped for another build is caught by both lists' '
	cp -r out swapped && rm -rf build2 &&
	"$TFBUILD" -q recipe --cache cache --build-dir build2 --out other \
		--set mirror="file://$TRASH/mirror" "$recipe" 2>/dev/null &&
	"$PYTHON" -c "
import zipfile
src = zipfile.ZipFile(\"other/$wheel\")
dst = zipfile.ZipFile(\"swapped/$wheel\", \"w\", zipfile.ZIP_DEFLATED)
for i in src.infolist():
    dst.writestr(i, src.read(i.filename), compresslevel=1)
" &&
	expect_code 6 "$TFBUILD" verify --sums swapped/SHA256SUMS \
		--provenance swapped/greet.intoto.json 2>err &&
	new=$(sha256_of swapped/$wheel) && old=$(sha256_of out/$wheel) &&
	printf "%s\n" \
	  "tfbuild: swapped/$wheel: sha256 $new differs from $old listed in swapped/SHA256SUMS" \
	  "tfbuild: swapped/$wheel: sha256 $new differs from $old listed in swapped/greet.intoto.json" >expect &&
	compare expect err
'

expect_success 'an unlisted wheel and a missing one are reported' '
	cp -r out extra && cp "out/$wheel" "extra/greet-1.0.0-py3-none-any.whl" &&
	expect_code 6 "$TFBUILD" verify -q --sums extra/SHA256SUMS 2>err &&
	grep -qx "tfbuild: extra/greet-1.0.0-py3-none-any.whl: not listed in extra/SHA256SUMS" err &&
	cp -r out gone && rm "gone/$wheel" &&
	expect_code 6 "$TFBUILD" verify --sums gone/SHA256SUMS 2>err &&
	echo "tfbuild: gone/SHA256SUMS: lists '"'"'$wheel'"'"', which is missing" >expect &&
	compare expect err
'

expect_success 'diff says identical wheels are identical' '
	"$TFBUILD" diff "out/$wheel" "other/$wheel" >d.out &&
	echo "out/$wheel and other/$wheel are identical" >expect && compare expect d.out
'

expect_success 'diff names the container when only compression differs' '
	expect_code 1 "$TFBUILD" diff "out/$wheel" "swapped/$wheel" >d.out &&
	grep -q "^entries agree; the zip containers differ from byte [0-9]*$" d.out
'

expect_success 'diff names entries, order, modes and timestamps that differ' '
	"$PYTHON" -c "
import zipfile
src = zipfile.ZipFile(\"out/$wheel\")
dst = zipfile.ZipFile(\"b.whl\", \"w\", zipfile.ZIP_DEFLATED)
items = src.infolist()
items[0], items[1] = items[1], items[0]
for i in items:
    zi = zipfile.ZipInfo(i.filename, date_time=i.date_time)
    zi.external_attr = i.external_attr
    data = src.read(i.filename)
    if i.filename == \"greet/__init__.py\":
        zi.external_attr = 0o100755 << 16
        zi.date_time = (2020, 1, 1, 0, 0, 0)
        data += b\"# changed\\n\"
    dst.writestr(zi, data)
dst.writestr(\"extra.txt\", \"x\")
" &&
	expect_code 1 "$TFBUILD" diff "out/$wheel" b.whl >d.out &&
	grep -q "^greet/__init__.py: order differs (entry 1 in out/$wheel, 2 in b.whl)$" d.out &&
	grep -q "^greet/__init__.py: content differs (" d.out &&
	grep -q "^greet/__init__.py: permissions differ (0644 vs 0755)$" d.out &&
	grep -q "^greet/__init__.py: timestamp differs (2023-11-14 22:13:20 vs 2020-01-01 00:00:00 UTC)$" d.out &&
	grep -q "^extra.txt: only in b.whl$" d.out
'

expect_success 'diff usage errors exit 2' '
	expect_code 2 "$TFBUILD" diff "out/$wheel" 2>/dev/null
'

test_done
