#!/bin/sh
# A TensorFlow plugin installable beside tensorflow-cpu (issue 37): the
# derived requirement names the distribution built against
# (`tensorflow<2.22,>=2.21.0`), so in a tensorflow-cpu==2.21.0 venv pip
# installed the whole `tensorflow` over it. A recipe requires-dist on
# another TensorFlow distribution that ships the same libraries
# (`tensorflow-cpu`) takes the derived one's place, judged against the
# window of the release in the framework's own METADATA; pip and uv,
# offline over small stand-ins, then leave tensorflow out.
. "$(dirname "$0")/../lib/test-lib.sh"

fx=$SRC_ROOT/tests/e2e/abi
tools=${TOOLS_BIN:-/opt/tfbuild-tools/venv/bin}
wheel=tf_m1-0.1.0-py3-none-manylinux_2_5_x86_64.manylinux1_x86_64.whl
se=tensorflow/c/experimental/stream_executor/stream_executor.h
unset PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_FIND_LINKS UV_INDEX_URL
export PIP_CONFIG_FILE=/dev/null PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
SQ="'"

mkdir -p src idx site/tensorflow-2.21.0.dist-info site/tensorflow/include/${se%/*} &&
cp "$fx/plugin.c" src/ &&
printf "Metadata-Version: 2.4\nName: tensorflow\nVersion: 2.21.0\n" >site/tensorflow-2.21.0.dist-info/METADATA &&
printf "#define SE_MAJOR 0\n#define SE_MINOR 0\n#define SE_PATCH 1\n" >site/tensorflow/include/$se &&
cc -shared -fPIC -Wl,-soname,libtensorflow_framework.so.2 \
	-o site/tensorflow/libtensorflow_framework.so.2 "$fx/framework.c" || exit 1

# recipe OUT [REQUIRES-DIST]
recipe() {
	cat >r.yaml <<EOF
schema: 1
name: tf-m1
version: 0.1.0
targets: [x86_64]
sources:
  - {name: src, path: src}
steps:
  - name: plugin
    source: src
    run: \$CC \$CFLAGS -shared -fPIC -o \$STAGE/libtf_m1.so plugin.c -L$TRASH/site/tensorflow -l:libtensorflow_framework.so.2 \$LDFLAGS
wheels:
  - name: tf_m1
    version: \${version}
    python: py3
    abi: none
    license: MIT
    ${2:+requires-dist: [\"$2\"]}
    framework: { name: tensorflow, site-packages: "$TRASH/site" }
    files:
      - { from: plugin, src: libtf_m1.so, dst: tensorflow-plugins }
EOF
	"$TFBUILD" -q recipe --out "$1" r.yaml
}
reqs() { unzip -p "$1/$wheel" tf_m1-0.1.0.dist-info/METADATA | grep "^Requires-Dist"; }
venv() { "$PYTHON" -m venv --without-pip "$1"; }
pipi() { d=$1; shift; "$tools/pip" --python "$d/bin/python" install -q --no-index --find-links "$TRASH/idx" "$@"; }
uvi() { d=$1; shift; "$tools/uv" pip install -q --offline --no-index --find-links "$TRASH/idx" --python "$d/bin/python" "$@"; }
dists() { "$tools/pip" --python "$1/bin/python" list --format=freeze 2>/dev/null | grep -i "^tensorflow" | LC_ALL=C sort | tr "\n" " "; }

for d in tensorflow tensorflow-cpu; do
	"$PYTHON" "$TESTS_DIR/lib/mkwheel.py" idx $d 2.21.0 py3-none-any \
		"tensorflow/__init__.py=__version__ = \"2.21.0\"" >/dev/null || exit 1
done

expect_success 'by default the requirement is the distribution built against' '
	recipe plain &&
	echo "Requires-Dist: tensorflow<2.22,>=2.21.0" >want &&
	reqs plain >got && compare want got
'

expect_success 'without the mechanism: a tensorflow-cpu venv is given tensorflow too' '
	venv v0 && pipi v0 tensorflow-cpu==2.21.0 &&
	pipi v0 "$TRASH/plain/$wheel" &&
	test "$(dists v0)" = "tensorflow-cpu==2.21.0 tensorflow==2.21.0 "
'

expect_success 'a requires-dist on tensorflow-cpu takes the place of the derived one' '
	recipe cpu "tensorflow-cpu<2.22,>=2.21.0" &&
	echo "Requires-Dist: tensorflow-cpu<2.22,>=2.21.0" >want &&
	reqs cpu >got && compare want got &&
	"$TFBUILD" verify cpu/$wheel 2>err &&
	unzip -p cpu/$wheel tf_m1-0.1.0.dist-info/tfbuild/framework.json | grep -q "\"name\": \"tensorflow\""
'

expect_success 'pip and uv: beside tensorflow-cpu 2.21.0 nothing else comes' '
	cp cpu/$wheel idx/ &&
	venv v1 && pipi v1 tensorflow-cpu==2.21.0 &&
	pipi v1 "$TRASH/idx/$wheel" &&
	test "$(dists v1)" = "tensorflow-cpu==2.21.0 " &&
	if [ -x "$tools/uv" ]; then
		venv v2 && uvi v2 tensorflow-cpu==2.21.0 &&
		uvi v2 "$TRASH/idx/$wheel" &&
		test "$(dists v2)" = "tensorflow-cpu==2.21.0 "
	fi
'

expect_success 'its window is still the release'"$SQ"'s: wider or another release is refused' '
	expect_code 6 recipe wide "tensorflow-cpu>=2.21" 2>err &&
	grep -qF "requires-dist: ${SQ}tensorflow-cpu>=2.21${SQ} is wider than the window" err &&
	expect_code 6 recipe other "tensorflow-cpu==2.20.0" 2>err &&
	grep -qF "${SQ}tensorflow-cpu==2.20.0${SQ} excludes 2.21.0" err
'

test_done
