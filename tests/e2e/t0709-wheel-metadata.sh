#!/bin/sh
# Core metadata: bad values are recipe errors at FILE:LINE:COL before
# anything is fetched (golden files in tests/e2e/metadata/); the demo
# recipes' wheels carry their README and license file, and every
# METADATA field is checked with Debian's python3-packaging and
# python3-license-expression, independently of tfbuild's validators;
# the README renders with Debian's readme_renderer (what `twine check`
# runs); verify refuses wheels carrying bad values.
. "$(dirname "$0")/../lib/test-lib.sh"

golden="$SRC_ROOT/tests/e2e/metadata"
q="'"
mkdir -p proj && echo "# hello" >proj/README.md && echo "MIT" >proj/LICENSE

# A recipe whose source can never be fetched (port 9, discard): a
# metadata error must be reported before any fetch is tried.
bad_recipe() { # name, then the wheel's extra lines on stdin
	{ cat <<-EOF; cat; } >proj/$1.yaml
	schema: 1
	name: bad
	version: 1.0.0
	sources:
	  - name: s
	    url: http://127.0.0.1:9/s.tar.gz
	    sha256: 0000000000000000000000000000000000000000000000000000000000000000
	steps:
	  - name: b
	    source: s
	    run: "true"
	wheels:
	  - name: bad
	    version: 1.0.0
	    files:
	      - { from: b, src: ., dst: bad }
	EOF
}

# check_bad NAME: exit 3, the golden message, and no cache written.
check_bad() {
	(cd proj && expect_code 3 "$TFBUILD" recipe --cache ../cache-$1 \
		--build-dir ../b-$1 --out ../o-$1 $1.yaml) 2>actual &&
	compare "$golden/$1.err" actual &&
	test ! -e cache-$1 && test ! -e b-$1
}

expect_success 'license: MIT License is a recipe error' '
	bad_recipe license <<-EOF &&
	    license: MIT License
	EOF
	check_bad license
'

expect_success 'requires-python: 3.8+ is a recipe error' '
	bad_recipe python <<-EOF &&
	    requires-python: 3.8+
	EOF
	check_bad python
'

expect_success 'requires-dist: numpy >> 1 is a recipe error' '
	bad_recipe dist <<-EOF &&
	    requires-dist: ["numpy>=1", "numpy >> 1"]
	EOF
	check_bad dist
'

expect_success 'a readme that does not exist is a recipe error' '
	bad_recipe readme <<-EOF &&
	    readme: READ.md
	    license-files: [LICENSE, COPYING]
	EOF
	check_bad readme
'

expect_success 'urls, authors, keywords, classifiers are checked' '
	bad_recipe people <<-EOF &&
	    urls: { Source: "ftp://example.org/x" }
	    authors: [{ name: "A, B", email: nobody }]
	    keywords: ["a,b"]
	    classifiers: ["Programming Language C"]
	EOF
	check_bad people
'

cat >check_metadata.py <<'EOF'
# Check a wheel's METADATA with Debian's packaging and license_expression,
# independently of tfbuild: every field parses, README and license files
# are there, the description renders as twine check would render it.
import email.parser, sys, zipfile
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version
from license_expression import get_spdx_licensing
import readme_renderer.markdown, readme_renderer.rst

whl = sys.argv[1]
z = zipfile.ZipFile(whl)
names = z.namelist()
meta_name = [n for n in names if n.endswith(".dist-info/METADATA")][0]
distinfo = meta_name.rsplit("/", 1)[0]
msg = email.parser.Parser().parsestr(z.read(meta_name).decode("utf-8"))
assert msg["Metadata-Version"] in ("2.1", "2.4"), msg["Metadata-Version"]
assert canonicalize_name(msg["Name"]) == canonicalize_name(whl.split("/")[-1].split("-")[0])
Version(msg["Version"])
errors = get_spdx_licensing().validate(msg["License-Expression"]).errors
assert not errors, errors
SpecifierSet(msg["Requires-Python"])
for r in msg.get_all("Requires-Dist") or []:
    Requirement(r)
files = msg.get_all("License-File") or []
assert files, "no License-File"
for f in files:
    assert distinfo + "/licenses/" + f in names, f
body = msg.get_payload()
assert body.strip(), "no description"
ct = msg["Description-Content-Type"]
render = {"text/markdown": readme_renderer.markdown.render,
          "text/x-rst": readme_renderer.rst.render}.get(ct.split(";")[0])
assert render is None or render(body) is not None, "description does not render"
for c in msg.get_all("Classifier") or []:
    assert " :: " in c, c
print("ok", whl.split("/")[-1], len(msg.keys()), "fields")
EOF

expect_success 'every metadata key reaches METADATA' '
	mkdir -p proj/src && echo "x = 1" >proj/src/good.py &&
	cat >proj/good.yaml <<-EOF &&
	schema: 1
	name: good
	version: 1.0.0
	sources:
	  - name: s
	    path: src
	steps:
	  - name: b
	    source: s
	    run: cp good.py \$STAGE/
	wheels:
	  - name: good
	    version: 1.0.0
	    license: Apache-2.0 OR MIT
	    license-files: [LICENSE]
	    readme: { file: README.md, content-type: "text/markdown; variant=GFM" }
	    requires-python: ">=3.8"
	    requires-dist: ["numpy>=1.20; python_version >= \"3.9\""]
	    urls: { Source: "https://example.org/good", Issues: "https://example.org/good/issues" }
	    authors: [{ name: Ada, email: ada@example.org }, { name: Bob }]
	    maintainers: [{ email: team@example.org }]
	    keywords: [ml, plugin]
	    classifiers: ["License :: OSI Approved :: MIT License"]
	    files:
	      - { from: b, src: good.py, dst: . }
	EOF
	"$TFBUILD" -q recipe --build-dir b-good --out o-good proj/good.yaml &&
	unzip -p o-good/good-1.0.0-py3-none-any.whl good-1.0.0.dist-info/METADATA >actual &&
	cat >expect <<-\EOF &&
	Metadata-Version: 2.4
	Name: good
	Version: 1.0.0
	Description-Content-Type: text/markdown; variant=GFM
	Keywords: ml,plugin
	Author: Bob
	Author-email: Ada <ada@example.org>
	Maintainer-email: team@example.org
	License-Expression: Apache-2.0 OR MIT
	License-File: LICENSE
	Classifier: License :: OSI Approved :: MIT License
	Requires-Python: >=3.8
	Requires-Dist: numpy>=1.20; python_version >= "3.9"
	Project-URL: Source, https://example.org/good
	Project-URL: Issues, https://example.org/good/issues

	# hello
	EOF
	compare expect actual &&
	/usr/bin/python3 check_metadata.py o-good/good-1.0.0-py3-none-any.whl
'

# The demo recipes, built once from the test mirror.
sh "$SRC_ROOT/recipes/mirror.sh" "$TRASH/mirror" >/dev/null || exit 1
for r in greet tfmini m1-plugin; do
	"$TFBUILD" -q recipe --build-dir "$TRASH/build-$r" --out "$TRASH/demo" \
		--set mirror="file://$TRASH/mirror" "$SRC_ROOT/recipes/$r.yaml" ||
		exit 1
done


expect_success 'every demo wheel: metadata valid, README and license file' '
	ls demo/*.whl >wheels && test $(wc -l <wheels) -ge 3 &&
	for w in $(cat wheels); do
		/usr/bin/python3 check_metadata.py $w || return 1
	done
'

expect_success 'the demo wheels verify' '
	"$TFBUILD" -q verify demo/*.whl
'

# retag WHEEL FIELD-REGEX REPLACEMENT: rewrite METADATA (and RECORD).
tamper() {
	/usr/bin/python3 - "$@" <<-\EOF
	import base64, hashlib, re, sys, zipfile
	whl, pat, rep = sys.argv[1:]
	with zipfile.ZipFile(whl) as z:
	    files = {i.filename: z.read(i) for i in z.infolist()}
	meta = [k for k in files if k.endswith(".dist-info/METADATA")][0]
	rec = meta.replace("METADATA", "RECORD")
	files[meta] = re.sub(pat, rep, files[meta].decode(), count=1, flags=re.M).encode()
	rows = ["%s,sha256=%s,%d" % (k, base64.urlsafe_b64encode(hashlib.sha256(v).digest()).rstrip(b"=").decode(), len(v))
	        for k, v in files.items() if k != rec]
	files[rec] = ("\n".join(rows + [rec + ",,"]) + "\n").encode()
	with zipfile.ZipFile(whl, "w", zipfile.ZIP_DEFLATED) as z:
	    for k, v in files.items():
	        z.writestr(k, v)
	EOF
}

expect_success 'verify refuses bad License-Expression, Requires-Python, Requires-Dist' '
	src=$(ls demo/greet-*.whl) && mkdir -p t1 t2 t3 t4 &&
	cp $src t1/ && cp $src t2/ && cp $src t3/ && cp $src t4/ && b=${src#demo/} &&
	tamper t1/$b "^License-Expression: .*" "License-Expression: MIT License" &&
	tamper t2/$b "^Requires-Python: .*" "Requires-Python: 3.8+" &&
	tamper t3/$b "^Requires-Python: .*" "Requires-Python: >=3.8\nRequires-Dist: numpy >> 1" &&
	tamper t4/$b "^License-File: .*" "License-File: COPYING" &&
	expect_code 6 "$TFBUILD" verify t1/$b t2/$b t3/$b t4/$b 2>actual &&
	d=greet-1.0.0.dist-info &&
	cat >expect <<-EOF &&
	tfbuild: t1/$b: $d/METADATA: License-Expression ${q}MIT License${q} is not a valid SPDX license expression: expected AND, OR or WITH, not ${q}License${q}
	tfbuild: t2/$b: $d/METADATA: Requires-Python ${q}3.8+${q} is not a PEP 440 specifier set: ${q}3.8+${q} has no operator (==, !=, <=, >=, <, >, ~=, ===)
	tfbuild: t3/$b: $d/METADATA: Requires-Dist ${q}numpy >> 1${q} is not a PEP 508 requirement: ${q}>> 1${q}: ${q}> 1${q} is not a PEP 440 version
	tfbuild: t4/$b: $d/METADATA: License-File ${q}COPYING${q} is not in the wheel at ${q}$d/licenses/COPYING${q}
	EOF
	compare expect actual
'

test_done
