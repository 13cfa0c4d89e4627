#!/bin/sh
# tfmini and the m1 backend, built by tfbuild from recipes/m1-plugin.yaml
# and recipes/tfmini.yaml with the archive served over HTTP, installed
# with pip into fresh virtual environments:
#   - stock tfmini + the plugin wheel: found by its entry point;
#   - stock tfmini + TFMINI_PLUGINS=m1:PATH, without the plugin wheel;
#   - stock tfmini + the .so dropped into site-packages/tfmini-plugins/;
#   - tfmini 1.0.0+m1 alone: m1 built in;
# and each time the smoke test (tests/smoke/tfmini_smoke.py) compares
# every op on m1 with the reference CPU kernels. Also: the ISA m1 picks
# and TFMINI_M1_ISA, and tfbuild verify on every wheel.
. "$(dirname "$0")/../lib/test-lib.sh"
unset TFMINI_M1_ISA SMOKE_DEVICES SMOKE_DEVICE SMOKE_ISA SMOKE_KIND

sh "$SRC_ROOT/recipes/mirror.sh" "$TRASH/mirror" >/dev/null || exit 1
start_httpd "$TRASH/mirror" || exit 1

smoke="$SRC_ROOT/tests/smoke/tfmini_smoke.py"
arch=$(uname -m)
# The recipes leave the platform out: tfbuild computes the lowest
# manylinux policy the binaries fit (the plugin's newest glibc symbol is
# aligned_alloc@GLIBC_2.16, the framework's dlclose@GLIBC_2.34).
plugin_whl="wheels/tfmini_m1_plugin-1.0.0-py3-none-manylinux_2_17_$arch.manylinux2014_$arch.whl"
custom_whl="wheels/tfmini-1.0.0+m1-cp38-abi3-manylinux_2_34_$arch.whl"
stock_whl="stock/tfmini-1.0.0-cp38-abi3-manylinux_2_34_$arch.whl"
# The ISA m1 should choose by itself, and the others this CPU can run.
case $arch in
aarch64)
	best=neon others=scalar ;;
*)
	if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
		best=avx2
	else
		best=sse2
	fi
	others="sse2 scalar" ;;
esac

q="'" # for expected messages, which quote names

# recipe NAME OUTDIR: run recipes/NAME.yaml against the test server.
recipe() {
	"$TFBUILD" recipe --cache "$TRASH/cache" --build-dir "$TRASH/build-$1" \
		--set mirror="$HTTP_URL" --out "$TRASH/$2" \
		"$SRC_ROOT/recipes/$1.yaml"
}

# new_venv DIR WHEEL...: a fresh virtual environment with the wheels.
new_venv() {
	dir=$1
	shift
	"$PYTHON" -m venv "$TRASH/$dir" &&
	"$TRASH/$dir/bin/pip" install -q --disable-pip-version-check \
		--no-index --no-deps "$@"
}

site_packages() {
	"$TRASH/$1/bin/python" -c \
		'import sysconfig; print(sysconfig.get_paths()["purelib"])'
}

# probe VENV: import tfmini; print its warnings and devices.
cat >probe.py <<'EOF'
import sys
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import tfmini
for w in caught:
    print("%s: %s" % (w.category.__name__, w.message))
print(",".join(tfmini.devices()))
for name in sys.argv[1:]:
    info = tfmini.plugin_info(name)
    print("%s: isa=%s builtin=%s api=%s path=%s note=%s" % (
        name, info["isa"], info["builtin"], info["api_version"],
        info["library_path"], info["note"]))
EOF
probe() {
	venv=$1
	shift
	"$TRASH/$venv/bin/python" "$TRASH/probe.py" "$@"
}

expect_success 'the m1-plugin recipe builds the plugin wheel and tfmini+m1' '
	recipe m1-plugin wheels >out &&
	test -f "$plugin_whl" && test -f "$custom_whl" &&
	test "$(wc -l <wheels/SHA256SUMS)" = 2
'

expect_success 'its kernels test ran every ISA table against the scalar one' '
	log="$TRASH/build-m1-plugin/m1-plugin/$arch/logs/kernels.log" &&
	grep "^ok - $best kernels match scalar\$" "$log" &&
	grep "^# passed all\$" "$log"
'

expect_success 'the tfmini recipe builds the stock tfmini wheel' '
	recipe tfmini stock >out &&
	test -f "$stock_whl" &&
	test "$(wc -l <stock/SHA256SUMS)" = 1
'

expect_success 'the archive was fetched once, over HTTP, into the cache' '
	test "$(grep -c "GET /tfmini-1.0.0.tar.gz" "$TRASH/.httpd.log")" = 1
'

expect_success 'tfbuild verify passes on every wheel' '
	for w in "$plugin_whl" "$custom_whl" "$stock_whl"; do
		"$TFBUILD" verify "$w" || exit 1
	done
'

expect_success 'the plugin wheel declares its entry point and needs tfmini' '
	"$PYTHON" -m zipfile -e "$plugin_whl" plugin-files &&
	"$PYTHON" -c "
import configparser, sys
ep = configparser.ConfigParser(delimiters=(\"=\",))
ep.optionxform = str
ep.read(sys.argv[1])
print(dict(ep[\"tfmini.plugins\"]))
" plugin-files/tfmini_m1_plugin-1.0.0.dist-info/entry_points.txt >actual &&
	echo "{${q}m1${q}: ${q}tfmini_m1_plugin:library_path${q}}" >expect &&
	compare expect actual &&
	grep -q "^Requires-Dist: tfmini>=1.0,<2\$" \
		plugin-files/tfmini_m1_plugin-1.0.0.dist-info/METADATA
'

expect_success 'stock tfmini + plugin wheel: m1 is found by its entry point' '
	new_venv plug "$stock_whl" "$plugin_whl" &&
	probe plug m1 >actual &&
	site=$(site_packages plug) &&
	cat >expect <<-EOF &&
	cpu:0,m1:0
	m1: isa=$best builtin=False api=1.0 path=$site/tfmini_m1_plugin/libtfmini_m1.so note=None
	EOF
	compare expect actual
'

expect_success "stock tfmini + plugin wheel: the smoke test passes ($best)" '
	"$TRASH/plug/bin/python" "$smoke" --devices cpu:0,m1:0 --isa $best \
		--plugin >out &&
	grep "^OK: " out
'

for isa in $others; do
	expect_success "TFMINI_M1_ISA=$isa: m1 uses $isa and the smoke test passes" '
		TFMINI_M1_ISA=$isa "$TRASH/plug/bin/python" "$smoke" \
			--devices cpu:0,m1:0 --isa $isa --plugin >out &&
		grep "^OK: " out
	'
done

expect_success 'TFMINI_M1_ISA naming an ISA this CPU lacks: fallback, with a note' '
	case $arch in aarch64) lacking=avx2 ;; *) lacking=neon ;; esac &&
	TFMINI_M1_ISA=$lacking probe plug m1 >actual &&
	site=$(site_packages plug) &&
	cat >expect <<-EOF &&
	cpu:0,m1:0
	m1: isa=$best builtin=False api=1.0 path=$site/tfmini_m1_plugin/libtfmini_m1.so note=TFMINI_M1_ISA=$lacking is not supported on this CPU; using $best
	EOF
	compare expect actual
'

expect_success 'TFMINI_M1_ISA with an unknown value: m1 is left out with a warning' '
	TFMINI_M1_ISA=avx9000 probe plug >actual &&
	site=$(site_packages plug) &&
	cat >expect <<-EOF &&
	PluginWarning: tfmini: plugin ${q}m1${q} ($site/tfmini_m1_plugin/libtfmini_m1.so): cannot start: TFMINI_M1_ISA=${q}avx9000${q} is not one of: scalar, sse2, avx2, neon
	cpu:0
	EOF
	compare expect actual
'

expect_success 'stock tfmini alone: only the cpu device, no warnings' '
	new_venv stock "$stock_whl" &&
	probe stock cpu >actual 2>err &&
	site=$(site_packages stock) &&
	cat >expect <<-EOF &&
	cpu:0
	cpu: isa=scalar builtin=True api=1.0 path=$site/tfmini/_tfmini.abi3.so note=None
	EOF
	compare expect actual &&
	test ! -s err
'

so="$TRASH/plugin-files/tfmini_m1_plugin/libtfmini_m1.so"

expect_success 'stock tfmini + TFMINI_PLUGINS=m1:PATH (no plugin wheel)' '
	TFMINI_PLUGINS="m1:$so" probe stock m1 >actual &&
	cat >expect <<-EOF &&
	cpu:0,m1:0
	m1: isa=$best builtin=False api=1.0 path=$so note=None
	EOF
	compare expect actual &&
	TFMINI_PLUGINS="m1:$so" "$TRASH/stock/bin/python" "$smoke" \
		--devices cpu:0,m1:0 --isa $best --plugin >out &&
	grep "^OK: " out
'

expect_success 'stock tfmini + the .so in site-packages/tfmini-plugins/' '
	site=$(site_packages stock) &&
	mkdir "$site/tfmini-plugins" &&
	cp "$so" "$site/tfmini-plugins/" &&
	probe stock m1 >actual &&
	cat >expect <<-EOF &&
	cpu:0,m1:0
	m1: isa=$best builtin=False api=1.0 path=$site/tfmini-plugins/libtfmini_m1.so note=None
	EOF
	compare expect actual &&
	"$TRASH/stock/bin/python" "$smoke" --devices cpu:0,m1:0 --isa $best \
		--plugin >out &&
	grep "^OK: " out &&
	rm -r "$site/tfmini-plugins"
'

expect_success 'tfmini 1.0.0+m1 alone: m1 is built in' '
	new_venv custom "$custom_whl" &&
	probe custom m1 >actual &&
	site=$(site_packages custom) &&
	cat >expect <<-EOF &&
	cpu:0,m1:0
	m1: isa=$best builtin=True api=1.0 path=$site/tfmini/_tfmini.abi3.so note=None
	EOF
	compare expect actual &&
	"$TRASH/custom/bin/pip" show tfmini >show &&
	grep -q "^Version: 1.0.0+m1\$" show
'

expect_success "tfmini 1.0.0+m1: the smoke test passes ($best, then $others)" '
	"$TRASH/custom/bin/python" "$smoke" --devices cpu:0,m1:0 --isa $best \
		--builtin >out &&
	grep "^OK: " out &&
	for isa in $others; do
		TFMINI_M1_ISA=$isa "$TRASH/custom/bin/python" "$smoke" \
			--isa $isa --builtin >out &&
		grep "^OK: " out || exit 1
	done
'

expect_success 'tfmini 1.0.0+m1 + the plugin wheel: the built-in m1 wins' '
	"$TRASH/custom/bin/pip" install -q --disable-pip-version-check \
		--no-index --no-deps "$plugin_whl" &&
	probe custom m1 >actual &&
	site=$(site_packages custom) &&
	cat >expect <<-EOF &&
	PluginWarning: tfmini: plugin ${q}m1${q} ($site/tfmini_m1_plugin/libtfmini_m1.so) skipped: device ${q}m1${q} is already registered (built-in)
	cpu:0,m1:0
	m1: isa=$best builtin=True api=1.0 path=$site/tfmini/_tfmini.abi3.so note=None
	EOF
	compare expect actual
'

test_done
