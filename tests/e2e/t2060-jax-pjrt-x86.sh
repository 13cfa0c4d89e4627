#!/bin/sh
# tier: expensive (JAX; make test QUICK=1 skips it, CI runs it)
# recipes/jax-m1.yaml: the m1 backend as a JAX PJRT plugin (issue 25),
# built by `tfbuild recipe --target all` from the recipe as committed
# (target-wheels pinned by recipes/jax-m1.lock.json), loaded by the
# released jax/jaxlib 0.10.2 from the index, on x86_64.
#   - the py3-none wheels build, x86_64, aarch64 and macOS arm64 (whose
#     tests are skipped); a second run runs nothing; another
#     checkout at another path gives the same bytes; no path of the
#     build machine or the cache is in them;
#   - the plugin exports GetPjrtApi only; entry point "m1" in
#     "jax_plugins"; _build.py records PJRT 0.90 (from the header) and
#     jaxlib 0.10.2 (from its dist-info); the framework record says the
#     same, Requires-Dist is derived from it (jaxlib==0.10.2), and
#     `tfbuild verify` passes both wheels and says what they were built
#     for;
#   - verify refuses a copy whose library lost GetPjrtApi, and one whose
#     Requires-Dist was widened;
#   - the plugin's C API alone: every slot set, buffers round trip;
#   - from a package index on 127.0.0.1 holding the plugin and jax's
#     closure: a fresh venv installs the plugin with jax 0.10.2's
#     closure, every file hash-pinned (--require-hashes); pip resolves
#     unpinned jax to 0.10.2 beside the plugin, and refuses the plugin
#     beside jaxlib 0.9.2;
#   - in that venv: jax lists the m1 devices; arrays of ten dtypes and
#     six shapes (a scalar, 0-size ones, strided) go there and back bit
#     for bit; copies between devices and to the CPU; jit on m1 raises
#     the plugin's message; the CPU stays the default backend;
#   - JAX_PLATFORMS=cpu leaves m1 alone; with ENABLE_PJRT_COMPATIBILITY
#     off (jaxlib then wants its own PJRT 0.112 exactly, and a refused
#     plugin breaks every JAX call) the package says so once and
#     registers nothing, and the CPU still works.
# The target sites and the pinned wheels are kept in the test cache
# (tests/lib/jax.sh); the run's times are printed (no timed assertion).
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/lib/checkers.sh"
. "$TESTS_DIR/lib/jax.sh"

tools=${TOOLS_BIN:-/opt/tfbuild-tools/venv/bin}
check="$SRC_ROOT/backend/pjrt_m1/tests/check_jax.py"
mkdir -p c && cp -R "$SRC_ROOT/recipes" "$SRC_ROOT/backend" c/ || exit 1

start=$(date +%s)
expect_success 'the wheels build: py3-none, one per target (macOS'"'"'s tests skipped)' '
	jax_build c build wheels --target all 2>err &&
	grep -q "^tfbuild: 7 of 9 steps ran, 2 skipped$" err &&
	ls wheels/jax_m1_plugin-1.0.0-py3-none-manylinux_*_x86_64.whl &&
	ls wheels/jax_m1_plugin-1.0.0-py3-none-manylinux_*_aarch64.whl &&
	ls wheels/jax_m1_plugin-1.0.0-py3-none-macosx_12_0_arm64.whl
'
echo "# the first build took $(($(date +%s) - start)) s"

whl=$(ls wheels/jax_m1_plugin-*_x86_64.whl 2>/dev/null)
awhl=$(ls wheels/jax_m1_plugin-*_aarch64.whl 2>/dev/null)
mwhl=$(ls wheels/jax_m1_plugin-*-macosx_12_0_arm64.whl 2>/dev/null)
expect_success 'PyPI'"'"'s checkers pass the Linux wheels (tests/lib/checkers.sh), twine the macOS one' '
	check_wheels "$whl" "$awhl" &&
	"$tools/twine" check --strict "$mwhl"
'

start=$(date +%s)
expect_success 'a second run runs nothing and writes the same wheels' '
	mkdir -p first && cp wheels/*.whl first/ &&
	jax_build c build wheels --target all 2>err &&
	grep -q "^tfbuild: 0 of 9 steps ran, 7 up to date, 2 skipped$" err &&
	for w in first/*.whl; do cmp "$w" "wheels/${w#first/}" || exit 1; done
'
echo "# the second run took $(($(date +%s) - start)) s"

expect_success 'another checkout at another path: byte-identical wheels' '
	mkdir -p elsewhere/c2 && cp -R "$SRC_ROOT/recipes" "$SRC_ROOT/backend" elsewhere/c2/ &&
	jax_build elsewhere/c2 elsewhere/build elsewhere/wheels --target all 2>err &&
	grep -q "^tfbuild: 7 of 9 steps ran, 2 skipped$" err &&
	for w in wheels/*.whl; do cmp "$w" "elsewhere/$w" || exit 1; done &&
	for w in wheels/*.whl; do
		unzip -p "$w" >all &&
		! grep -a -e "$TRASH" -e "$TF_SYSROOT_CACHE" -e "$jax_cache" all || exit 1
	done
'

expect_success 'the wheel: the library, its entry point, what it was built for' '
	unzip -l "$whl" | grep -q " jax_m1_plugin/libpjrt_m1\.so$" &&
	unzip -p "$whl" "*.dist-info/entry_points.txt" >ep &&
	printf "[jax_plugins]\nm1 = jax_m1_plugin\n\n" >ep.want &&
	compare ep.want ep &&
	unzip -p "$whl" jax_m1_plugin/_build.py >b.py &&
	grep -qx "PJRT_API_VERSION = (0, 90)" b.py &&
	grep -qx "JAXLIB_BUILT_FOR = \"0.10.2\"" b.py &&
	grep -qx "JAXLIB_WINDOW = (\"0.10\", \"0.11\")" b.py &&
	unzip -p "$whl" jax_m1_plugin/libpjrt_m1.so >lib.so &&
	nm -D --defined-only lib.so | grep -v " [AUw] " | sed "s/.* //" >syms &&
	echo GetPjrtApi | compare - syms
'

# The header both targets were built with: tensorflow 2.21.0's, from the
# pinned wheels (the same file on both targets); the provenance names
# every pin of the lock file.
hdr=tensorflow/include/xla/pjrt/c/pjrt_c_api.h
expect_success 'the framework record and the derived Requires-Dist, on every target' '
	for w in "$whl" "$awhl" "$mwhl"; do
		unzip -p "$w" "*.dist-info/METADATA" | grep "^Requires-Dist:" >got &&
		printf "Requires-Dist: jaxlib==0.10.2\nRequires-Dist: jax==0.10.2\n" >want &&
		compare want got &&
		unzip -p "$w" "*.dist-info/tfbuild/framework.json" >got &&
		cat >want <<-EOF &&
		{
		 "framework": {
		  "c-api": {
		   "header": "$hdr",
		   "header-sha256": "b5cdbd8289178466b9e695985fe065fe57c9b57f816c8e02b5f6bcf61c7aec4b",
		   "name": "PJRT C API",
		   "version": "0.90"
		  },
		  "library": "jax_m1_plugin/libpjrt_m1.so",
		  "name": "jaxlib",
		  "requires-dist": "jaxlib==0.10.2",
		  "version": "0.10.2"
		 },
		 "schema": 1
		}
		EOF
		compare want got || exit 1
	done &&
	"$PYTHON" - "$SRC_ROOT/recipes/jax-m1.lock.json" wheels/jax-m1.intoto.json >got <<-\EOF &&
	import json, sys
	pins = json.load(open(sys.argv[1]))["pins"]
	deps = {d["name"]: d for d in json.load(open(sys.argv[2]))["predicate"]["buildDefinition"]["resolvedDependencies"]}
	for p in pins:
	    d = deps["target-wheel:%s:%s" % (p["target"], p["requirement"])]
	    assert d["digest"]["sha256"] == p["sha256"] and d["uri"] == "file:" + p["file"], d
	    print(p["target"], p["requirement"])
	EOF
	printf "%s\n" "aarch64 jaxlib==0.10.2" "aarch64 tensorflow==2.21.0" \
		"macos-arm64 jaxlib==0.10.2" "macos-arm64 tensorflow==2.21.0" \
		"x86_64 jaxlib==0.10.2" "x86_64 tensorflow==2.21.0" >want &&
	compare want got
'

expect_success 'tfbuild verify passes the wheels and names the framework ABI' '
	"$TFBUILD" verify "$whl" "$awhl" "$mwhl" >out 2>err &&
	printf "ok  %s\nok  %s\nok  %s\n" "$whl" "$awhl" "$mwhl" >want &&
	compare want out &&
	grep -qx "tfbuild: $whl: built for jaxlib 0.10.2 (PJRT C API 0.90)" err &&
	grep -qx "tfbuild: $awhl: built for jaxlib 0.10.2 (PJRT C API 0.90)" err &&
	grep -qx "tfbuild: $mwhl: built for jaxlib 0.10.2 (PJRT C API 0.90)" err
'

# Copies of the x86_64 wheel, unpacked and packed again by wheel (which
# writes a new RECORD), each with one thing wrong.
expect_success 'verify refuses a copy whose library lost GetPjrtApi' '
	rm -rf rp && "$tools/wheel" unpack -d rp "$whl" >/dev/null &&
	echo "int m1_other(void) { return 0; }" >other.c &&
	cc -shared -fPIC -o rp/jax_m1_plugin-1.0.0/jax_m1_plugin/libpjrt_m1.so other.c &&
	mkdir -p noapi && "$tools/wheel" pack -d noapi rp/jax_m1_plugin-1.0.0 >/dev/null &&
	expect_code 6 "$TFBUILD" verify noapi/*.whl 2>err &&
	cat err &&
	grep -q "noapi/[^ ]*\.whl: jax_m1_plugin/libpjrt_m1.so: a PJRT plugin library that does not export GetPjrtApi" err
'

expect_success 'verify refuses a copy whose Requires-Dist was widened' '
	rm -rf rp && "$tools/wheel" unpack -d rp "$whl" >/dev/null &&
	sed -i "s/^Requires-Dist: jaxlib==0.10.2$/Requires-Dist: jaxlib<0.11,>=0.10/" \
		rp/jax_m1_plugin-1.0.0/jax_m1_plugin-1.0.0.dist-info/METADATA &&
	grep -qx "Requires-Dist: jaxlib<0.11,>=0.10" rp/jax_m1_plugin-1.0.0/jax_m1_plugin-1.0.0.dist-info/METADATA &&
	mkdir -p wider && "$tools/wheel" pack -d wider rp/jax_m1_plugin-1.0.0 >/dev/null &&
	expect_code 6 "$TFBUILD" verify wider/*.whl 2>err &&
	cat err &&
	grep -q "METADATA: Requires-Dist .jaxlib<0.11,>=0.10. is wider than the window .==0.10.2.: jax_m1_plugin/libpjrt_m1.so (a PJRT plugin) was built against jaxlib 0.10.2" err
'

# The recipe's test (the plugin's C API alone), run on each target: under
# qemu-aarch64 for aarch64, and on the baseline CPU (qemu) as api@baseline.
L=build/jax-m1
expect_success 'the plugin through its C API: every slot, buffers, refusals, each ISA' '
	for l in $L/x86_64/logs/api.log $L/x86_64/logs/api@baseline.log \
		$L/aarch64/logs/api.log; do
		grep -qx "ok version 0.90" $l &&
		grep -qx "ok all 128 slots set" $l &&
		grep -qx "ok 13 types round trip" $l &&
		grep -qx "ok scalar, 0-size, strided, events, delete" $l &&
		grep -qx "ok done" $l || exit 1
	done &&
	grep -qx "ok isa sse2" $L/x86_64/logs/api@baseline.log &&
	grep -qx "ok isa neon" $L/aarch64/logs/api.log
'

# A package index on 127.0.0.1 (pypiserver) holding what a user's index
# would: the plugin, jax 0.10.2's closure, and jaxlib 0.9.2.
if ! [ -x "$tools/pypi-server" ]; then
	skip "no pypi-server in $tools (make deps installs it)"
	test_done
	exit 0
fi
w10=$(jax_wheels "$jax_req/jax-0.10.2.txt" x86_64) &&
	w9=$(jax_wheels "$jax_req/jax-0.9.2.txt" x86_64) &&
	mkdir -p idx && cp "$w10"/*.whl "$w9"/jaxlib-0.9.2-*.whl "$whl" idx/ || exit 1
port=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$tools/pypi-server" run -i 127.0.0.1 -p "$port" --backend simple-dir idx >pypi.log 2>&1 &
pypi_pid=$!
at_exit "stop_pid $pypi_pid"
INDEX=http://127.0.0.1:$port/simple/
i=0
until curl -sf "$INDEX" >/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "pypiserver did not start" >&2; cat pypi.log; exit 1; }
	sleep 0.1
done
ipip() {
	PIP_CONFIG_FILE=/dev/null PIP_FIND_LINKS= PIP_NO_CACHE_DIR=1 \
		"$TRASH/venv/bin/pip" --disable-pip-version-check "$@" --index-url "$INDEX"
}

# The closure's hashes (both platforms') and the plugin's, as a user who
# pins a deployment would write them: pip refuses any file without one.
# --no-compile: byte-compiling the framework is half the install's CPU
# and nothing here reads it (tests/lib/tf.sh).
expect_success 'a fresh venv: the plugin and jax 0.10.2 from the index, every file hash-pinned' '
	"$PYTHON" -m venv venv &&
	cp "$jax_req/jax-0.10.2.txt" req.txt &&
	echo "jax-m1-plugin==1.0.0 --hash=sha256:$(sha256sum "$whl" | cut -c1-64)" >>req.txt &&
	ipip install -q --no-compile --require-hashes -r req.txt &&
	venv/bin/pip --disable-pip-version-check check &&
	venv/bin/python -c "import importlib.metadata as m; print(*(m.version(d) for d in (\"jax\", \"jaxlib\", \"jax_m1_plugin\")))" >out &&
	echo "0.10.2 0.10.2 1.0.0" >want &&
	compare want out
'

# The derived Requires-Dist at work: pip picks jaxlib for the plugin.
expect_success 'pip resolves jax to 0.10.2 beside the plugin, and refuses jaxlib 0.9.2 with it' '
	ipip install -q --dry-run --ignore-installed --report r.json jax jax-m1-plugin &&
	"$PYTHON" -c "import json; print(*sorted(i[\"metadata\"][\"name\"] + \" \" + i[\"metadata\"][\"version\"] for i in json.load(open(\"r.json\"))[\"install\"]), sep=\"\\n\")" >got &&
	grep -qx "jax 0.10.2" got &&
	grep -qx "jaxlib 0.10.2" got &&
	grep -qx "jax_m1_plugin 1.0.0" got &&
	! ipip install --dry-run --ignore-installed jaxlib==0.9.2 jax-m1-plugin >out 2>err &&
	cat out err >both &&
	grep -q "ResolutionImpossible" both &&
	grep -q "jax-m1-plugin 1.0.0 depends on jaxlib==0.10.2" both
'

if grep -qw avx2 /proc/cpuinfo; then native=avx2; else native=sse2; fi
expect_success "jax lists m1's devices; arrays round trip bit for bit; jit is refused ($native)" '
	(cd / && JAX_M1_DEVICES=2 "$TRASH/venv/bin/python" "$check") >out 2>err &&
	grep -qx "from $TRASH/venv/lib/python3.11/site-packages/jax_m1_plugin" out &&
	grep -qx "jax 0.10.2" out &&
	grep -q "^ok devices \[M1Device(id=0), M1Device(id=1)\] kind M1 memory device$" out &&
	grep -qx "ok 60 arrays round trip bit for bit" out &&
	grep -qx "ok strided host array" out &&
	grep -qx "ok copy between m1 devices" out &&
	grep -qx "ok to the cpu and computed there" out &&
	grep -qx "ok jit refused: UNIMPLEMENTED: PJRT_Client_Compile: the m1 plugin cannot compile StableHLO (it only holds arrays: device_put and transfers back to the host)" out &&
	grep -qx "ok delete" out &&
	test "$(tail -n 1 out)" = "isa $native"
'

expect_success 'JAX_PLATFORMS=cpu: m1 is not started, the CPU works' '
	(cd / && JAX_PLATFORMS=cpu "$TRASH/venv/bin/python" -c "
import jax, jax.numpy as jnp
print(jax.devices(), int(jnp.arange(4).sum()))
try:
    jax.devices(\"m1\")
except RuntimeError as e:
    print(\"no m1:\", e)
") >out 2>err &&
	grep -qx "\[CpuDevice(id=0)\] 6" out &&
	grep -q "^no m1: Unknown backend m1" out &&
	! grep -i "m1" err
'

# jaxlib itself, with compatibility off, wants its own version exactly,
# and a plugin it refuses fails every JAX call: the package sees the
# setting first and registers nothing.
expect_success 'ENABLE_PJRT_COMPATIBILITY=false: one message, the CPU works' '
	(cd / && ENABLE_PJRT_COMPATIBILITY=false "$TRASH/venv/bin/python" -c "
import jax, jax.numpy as jnp
print(int(jnp.arange(4).sum()))
try:
    jax.devices(\"m1\")
except RuntimeError as e:
    print(\"no m1:\", e)
") >out 2>err &&
	grep -qx 6 out &&
	grep -q "^no m1: Unknown backend m1" out &&
	echo "jax_m1_plugin 1.0.0 is PJRT C API 0.90, and ENABLE_PJRT_COMPATIBILITY=false makes jaxlib accept only its own PJRT version: the m1 platform is not registered" >want &&
	compare want err
'

test_done
