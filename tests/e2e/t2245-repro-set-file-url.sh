#!/bin/sh
# Issue 39, a new user's point 7: a `--set` variable that is a file URL
# is recorded in the provenance's externalParameters.variables in one
# form, whatever way it was written: file:PATH, PATH relative to the
# recipe's directory, the form the sources' URIs have. tfbuild reads
# that form back (plan/expand.c), so the recorded variables rerun the
# build from any directory, with the same wheel and provenance.
. "$(dirname "$0")/../lib/test-lib.sh"

mkdir -p mirror/s-1 rec other &&
echo hello >mirror/s-1/a.txt &&
tar -C mirror --sort=name --mtime=@1700000000 --owner=0 --group=0 \
	--numeric-owner -cf - s-1 | gzip -n >mirror/s-1.tar.gz || exit 1
sha=$(sha256sum mirror/s-1.tar.gz | cut -d" " -f1)
cat >rec/r.yaml <<EOF
schema: 1
name: r
version: 1.0.0
variables:
  mirror: https://example.invalid/none
sources:
  - name: s
    url: \${mirror}/s-1.tar.gz
    sha256: $sha
steps:
  - name: one
    source: s
    run: |
      mkdir -p \$STAGE/r && cp s-1/a.txt \$STAGE/r/
wheels:
  - name: r
    version: 1.0.0
    files:
      - from: one
        src: r
        dst: r
EOF

# recorded DIR: the variables and the source URIs of DIR/r.intoto.json.
recorded() {
	"$PYTHON" -c '
import json, sys
d = json.load(open(sys.argv[1] + "/r.intoto.json"))["predicate"]["buildDefinition"]
print("mirror=" + d["externalParameters"]["variables"]["mirror"])
for x in d["resolvedDependencies"]:
    if x["name"].startswith("source"):
        print("uri=" + x["uri"])
' "$1"
}

expect_success 'an absolute file URL is recorded relative to the recipe, as the source is' '
	"$TFBUILD" recipe --cache c1 --build-dir b1 --out o1 --set mirror="file://$TRASH/mirror" rec/r.yaml 2>err &&
	recorded o1 >got &&
	printf "mirror=file:../mirror\nuri=file:../mirror/s-1.tar.gz\n" >expect &&
	compare expect got
'

expect_success 'written with ./, .. and a trailing slash it is recorded the same' '
	"$TFBUILD" recipe --cache c2 --build-dir b2 --out o2 --set mirror="file://$TRASH/./rec/../mirror/" rec/r.yaml 2>err &&
	cmp o1/r.intoto.json o2/r.intoto.json
'

expect_success 'the recorded value reruns the build from another directory: same bytes' '
	m=$(sed -n "s/^mirror=//p" got) &&
	(cd other && "$TFBUILD" recipe --cache ../c3 --build-dir ../b3 --out ../o3 --set mirror="$m" ../rec/r.yaml 2>../err) &&
	grep "fetching file:../mirror/s-1.tar.gz" err &&
	cmp o1/r-1.0.0-py3-none-any.whl o3/r-1.0.0-py3-none-any.whl &&
	recorded o3 >got3 &&
	compare expect got3
'

expect_success 'file:PATH is relative to the recipe, not to the working directory' '
	(cd rec && expect_code 4 "$TFBUILD" recipe --cache ../c4 --build-dir ../b4 --out ../o4 --set mirror=file:mirror r.yaml 2>../err) &&
	grep "file:mirror/s-1.tar.gz" err &&
	(cd rec && "$TFBUILD" recipe --cache ../c5 --build-dir ../b5 --out ../o5 --set mirror=file:../mirror r.yaml 2>../err) &&
	recorded o5 >got5 &&
	compare expect got5
'

test_done
