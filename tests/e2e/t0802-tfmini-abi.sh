#!/bin/sh
# The device API handshake, against the stock tfmini wheel built by
# tfbuild from recipes/tfmini.yaml and fake plugins compiled from
# tests/fixtures/plugins/ against the header that wheel's build installed:
# API 2.0 is refused naming both versions; API 1.1, whose table has an
# appended field, loads and works; a plugin without the symbol, with a
# NULL table or with a short table, a missing file and a taken name all
# give one clean message, never a crash.
. "$(dirname "$0")/../lib/test-lib.sh"
unset TFMINI_M1_ISA SMOKE_DEVICES SMOKE_DEVICE SMOKE_ISA SMOKE_KIND

sh "$SRC_ROOT/recipes/mirror.sh" "$TRASH/mirror" >/dev/null || exit 1
start_httpd "$TRASH/mirror" || exit 1

arch=$(uname -m)
fixtures="$SRC_ROOT/tests/fixtures/plugins"
stage="$TRASH/build/tfmini/$arch/stage/framework"
q="'" # for expected messages, which quote names

# probe: import tfmini; print its warnings and devices.
cat >probe.py <<'EOF'
import warnings

with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import tfmini
for w in caught:
    print("%s: %s" % (w.category.__name__, w.message))
print(",".join(tfmini.devices()))
EOF
# load NAME PATH: tfmini.load_plugin(); print the registered name or the error.
cat >load.py <<'EOF'
import sys

import tfmini

try:
    print("loaded " + tfmini.load_plugin(sys.argv[1] or None, sys.argv[2]))
except tfmini.PluginError as e:
    print("%s: %s" % (type(e).__name__, e))
print(",".join(tfmini.devices()))
EOF
py() { "$TRASH/venv/bin/python" "$@"; }

# fixture NAME SOURCE [CFLAGS...]: build lib<NAME>.so like a plugin author.
fixture() {
	name=$1 src=$2
	shift 2
	cc -std=c11 -Wall -Wextra -Werror -shared -fPIC "$@" \
		-I"$stage/include" -o "$TRASH/lib$name.so" "$fixtures/$src"
}

expect_success 'the tfmini recipe builds; the wheel installs in a fresh venv' '
	"$TFBUILD" recipe --cache "$TRASH/cache" --build-dir "$TRASH/build" \
		--set mirror="$HTTP_URL" --out "$TRASH/wheels" \
		"$SRC_ROOT/recipes/tfmini.yaml" >out &&
	"$PYTHON" -m venv "$TRASH/venv" &&
	"$TRASH/venv/bin/pip" install -q --disable-pip-version-check \
		--no-index --no-deps "$TRASH"/wheels/tfmini-1.0.0-*.whl
'

expect_success 'the fixtures build against the installed device API header' '
	test -f "$stage/include/tfmini/device_api.h" &&
	fixture api_v2 api_v2.c &&
	fixture api_v1_1 api_v1_1.c &&
	fixture nosym broken.c -DBROKEN_NO_SYMBOL &&
	fixture null broken.c -DBROKEN_NULL &&
	fixture short broken.c -DBROKEN_SHORT
'

expect_success 'API 2.0: load_plugin raises, naming both versions' '
	py load.py v2 "$TRASH/libapi_v2.so" >actual &&
	cat >expect <<-EOF &&
	PluginError: tfmini: plugin ${q}v2${q} ($TRASH/libapi_v2.so) has device API 2.0, this tfmini supports 1.0-1.9
	cpu:0
	EOF
	compare expect actual
'

expect_success 'API 2.0 from TFMINI_PLUGINS: a warning, and tfmini still imports' '
	TFMINI_PLUGINS="v2:$TRASH/libapi_v2.so" py probe.py >actual &&
	cat >expect <<-EOF &&
	PluginWarning: tfmini: plugin ${q}v2${q} ($TRASH/libapi_v2.so) has device API 2.0, this tfmini supports 1.0-1.9
	cpu:0
	EOF
	compare expect actual
'

expect_success 'API 2.0 in tfmini-plugins/: refused under its file name' '
	site=$(py -c "import sysconfig; print(sysconfig.get_paths()[\"purelib\"])") &&
	mkdir "$site/tfmini-plugins" &&
	cp "$TRASH/libapi_v2.so" "$site/tfmini-plugins/" &&
	py probe.py >actual &&
	rm -r "$site/tfmini-plugins" &&
	cat >expect <<-EOF &&
	PluginWarning: tfmini: plugin ${q}libapi_v2.so${q} ($site/tfmini-plugins/libapi_v2.so) has device API 2.0, this tfmini supports 1.0-1.9
	cpu:0
	EOF
	compare expect actual
'

expect_success 'API 1.1 with an appended table field: loads as 1.1' '
	TFMINI_PLUGINS="fut:$TRASH/libapi_v1_1.so" py -c "
import tfmini
info = tfmini.plugin_info(\"fut\")
print(tfmini.devices(), info[\"api_version\"], info[\"version\"], info[\"isa\"])
" >actual &&
	echo "[${q}cpu:0${q}, ${q}fut:0${q}] 1.1 1.1.0 scalar" >expect &&
	compare expect actual
'

expect_success 'API 1.1: every op works and matches the cpu kernels' '
	TFMINI_PLUGINS="fut:$TRASH/libapi_v1_1.so" py \
		"$SRC_ROOT/tests/smoke/tfmini_smoke.py" --device fut \
		--devices cpu:0,fut:0 --isa scalar --plugin >out &&
	grep "^OK: " out
'

expect_success 'no TFM_GetDeviceApi, a NULL table, a short table: clean errors' '
	py load.py nosym "$TRASH/libnosym.so" >actual &&
	py load.py null "$TRASH/libnull.so" >>actual &&
	py load.py short "$TRASH/libshort.so" >>actual &&
	cat >expect <<-EOF &&
	PluginError: tfmini: plugin ${q}nosym${q} ($TRASH/libnosym.so): no symbol ${q}TFM_GetDeviceApi${q}
	cpu:0
	PluginError: tfmini: plugin ${q}null${q} ($TRASH/libnull.so): TFM_GetDeviceApi returned NULL
	cpu:0
	PluginError: tfmini: plugin ${q}short${q} ($TRASH/libshort.so): device API table is too small (struct_size 96, API 1.0 needs 112)
	cpu:0
	EOF
	compare expect actual
'

expect_success 'a missing file and a file that is not a library: clean errors' '
	py load.py gone "$TRASH/nonexistent.so" >actual &&
	py load.py text "$TRASH/probe.py" >>actual &&
	cat >expect <<-EOF &&
	PluginError: tfmini: plugin ${q}gone${q} ($TRASH/nonexistent.so): cannot load: No such file or directory
	cpu:0
	PluginError: tfmini: plugin ${q}text${q} ($TRASH/probe.py): cannot load: $TRASH/probe.py: invalid ELF header
	cpu:0
	EOF
	compare expect actual
'

expect_success 'a plugin may not take the name of a built-in device' '
	py load.py cpu "$TRASH/libapi_v1_1.so" >actual &&
	cat >expect <<-EOF &&
	PluginError: tfmini: plugin ${q}cpu${q} ($TRASH/libapi_v1_1.so) skipped: device ${q}cpu${q} is already registered (built-in)
	cpu:0
	EOF
	compare expect actual
'

expect_success 'a malformed TFMINI_PLUGINS entry is a warning' '
	TFMINI_PLUGINS="nocolon" py probe.py >actual &&
	cat >expect <<-EOF &&
	PluginWarning: tfmini: TFMINI_PLUGINS: ${q}nocolon${q} is not name:path
	cpu:0
	EOF
	compare expect actual
'

test_done
