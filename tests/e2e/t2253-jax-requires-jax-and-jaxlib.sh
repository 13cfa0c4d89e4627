#!/bin/sh
# A JAX (PJRT) plugin requires jax and jaxlib in the same window (issue
# 37): with `jaxlib==0.10.2` alone, pip upgraded jaxlib alone in a venv
# with jax and jaxlib 0.9.2 (exit 0, then `import jax` failed), and a
# fresh venv got jaxlib but not jax. Now Requires-Dist has both; real
# pip and uv, offline, over small stand-ins whose jax pins its jaxlib
# and refuses another at import as the real one does, either move both
# or refuse, and bring both into a fresh venv.
. "$(dirname "$0")/../lib/test-lib.sh"

fx=$SRC_ROOT/tests/e2e/abi
tools=${TOOLS_BIN:-/opt/tfbuild-tools/venv/bin}
wheel=pjrt_m1-0.1.0-py3-none-manylinux_2_5_x86_64.manylinux1_x86_64.whl
hdr=tensorflow/include/xla/pjrt/c/pjrt_c_api.h
unset PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_FIND_LINKS UV_INDEX_URL
export PIP_CONFIG_FILE=/dev/null PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1

mkdir -p src idx site/${hdr%/*} &&
cp "$fx/plugin.c" src/ &&
printf "def initialize():\n    pass\n" >src/__init__.py &&
printf "#define PJRT_API_MAJOR 0\n#define PJRT_API_MINOR 90\n" >site/$hdr &&
cat >r.yaml <<EOF || exit 1
schema: 1
name: pjrt-m1
version: 0.1.0
targets: [x86_64]
sources:
  - {name: src, path: src}
steps:
  - name: plugin
    source: src
    run: |
      \$CC \$CFLAGS -shared -fPIC -DPJRT -o \$STAGE/libm1.so plugin.c \$LDFLAGS
      cp __init__.py \$STAGE/
wheels:
  - name: pjrt_m1
    version: \${version}
    python: py3
    abi: none
    license: MIT
    framework:
      name: jax
      site-packages: $TRASH/site
      pjrt-header: $TRASH/site/$hdr
      version: "0.10.2"
    files:
      - { from: plugin, src: libm1.so, dst: pjrt_m1 }
      - { from: plugin, src: __init__.py, dst: pjrt_m1 }
EOF
for v in 0.9.2 0.10.2; do
	"$PYTHON" "$TESTS_DIR/lib/mkwheel.py" idx jaxlib $v py3-none-any \
		"jaxlib/__init__.py=__version__ = \"$v\"" >/dev/null &&
	"$PYTHON" "$TESTS_DIR/lib/mkwheel.py" idx jax $v py3-none-any \
		"meta:Requires-Dist=jaxlib==$v" \
		"jax/__init__.py=import jaxlib
if jaxlib.__version__ != \"$v\":
    raise ImportError(\"jaxlib version %s is incompatible with jax version $v\" % jaxlib.__version__)
__version__ = \"$v\"" >/dev/null || exit 1
done

# venv DIR: an empty venv; pip and uv install into it from idx/ only.
venv() { "$PYTHON" -m venv --without-pip "$1"; }
pipi() { d=$1; shift; "$tools/pip" --python "$d/bin/python" install -q --no-index --find-links "$TRASH/idx" "$@"; }
uvi() { d=$1; shift; "$tools/uv" pip install -q --offline --no-index --find-links "$TRASH/idx" --python "$d/bin/python" "$@"; }
versions() { "$1/bin/python" -c 'import jax, jaxlib; print(jax.__version__, jaxlib.__version__)'; }

expect_success 'the plugin requires jax and jaxlib, both exactly the release' '
	"$TFBUILD" -q recipe --out out r.yaml &&
	cp out/$wheel idx/ &&
	unzip -p out/$wheel pjrt_m1-0.1.0.dist-info/METADATA | grep "^Requires-Dist" >got &&
	printf "Requires-Dist: jaxlib==0.10.2\nRequires-Dist: jax==0.10.2\n" >want &&
	compare want got &&
	"$TFBUILD" verify out/$wheel 2>err
'

expect_success 'the old requirement, jaxlib==0.10.2 alone: pip moves jaxlib alone, import jax fails' '
	"$PYTHON" "$TESTS_DIR/lib/mkwheel.py" idx oldplug 1.0 py3-none-any \
		"meta:Requires-Dist=jaxlib==0.10.2" "oldplug/__init__.py=" >/dev/null &&
	venv half &&
	pipi half jax==0.9.2 &&
	pipi half oldplug==1.0 &&
	! half/bin/python -c "import jax" 2>err &&
	grep -q "jaxlib version 0.10.2 is incompatible with jax version 0.9.2" err
'

expect_success 'pip: beside jax and jaxlib 0.9.2 the plugin moves both' '
	venv old &&
	pipi old jax==0.9.2 &&
	test "$(versions old)" = "0.9.2 0.9.2" &&
	pipi old "$TRASH/idx/$wheel" &&
	test "$(versions old)" = "0.10.2 0.10.2" &&
	"$tools/pip" --python old/bin/python check
'

expect_success 'pip: with the old jax held, the plugin is refused, nothing moved' '
	venv held &&
	pipi held jax==0.9.2 &&
	echo "jax==0.9.2" >c.txt &&
	! pipi held -c c.txt "$TRASH/idx/$wheel" 2>err &&
	grep -qi "conflict\|ResolutionImpossible\|cannot install" err &&
	test "$(versions held)" = "0.9.2 0.9.2"
'

expect_success 'pip: a fresh venv gets both, and import jax works' '
	venv fresh &&
	pipi fresh "$TRASH/idx/$wheel" &&
	test "$(versions fresh)" = "0.10.2 0.10.2"
'

if [ -x "$tools/uv" ]; then
	expect_success 'uv: beside 0.9.2 both move; a fresh venv gets both; held, refused' '
		venv uold && uvi uold jax==0.9.2 &&
		test "$(versions uold)" = "0.9.2 0.9.2" &&
		uvi uold "$TRASH/idx/$wheel" &&
		test "$(versions uold)" = "0.10.2 0.10.2" &&
		venv ufresh && uvi ufresh "$TRASH/idx/$wheel" &&
		test "$(versions ufresh)" = "0.10.2 0.10.2" &&
		venv uheld && uvi uheld jax==0.9.2 &&
		! uvi uheld -c c.txt "$TRASH/idx/$wheel" 2>err &&
		test "$(versions uheld)" = "0.9.2 0.9.2"
	'
else
	skip "no uv in $tools"
fi

test_done
