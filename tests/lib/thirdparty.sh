# Shared by the third-party recipe tests (t13xx), sourced after
# test-lib.sh. Builds a recipe of recipes/ from the upstream tarball that
# Debian's source package carries (tests/lib/upstream-sources.sh), served
# from 127.0.0.1, and runs what the wheels hold on both targets: x86-64 in
# a fresh venv, aarch64 in Debian's arm64 CPython under qemu-aarch64.

# The upstream archives, checked against the recipes' pins, and a server.
tp_serve() { # RECIPE...
	for r in "$@"; do set -- "$@" "$SRC_ROOT/recipes/$r.yaml"; shift; done
	sh "$TESTS_DIR/lib/upstream-sources.sh" "$TRASH/mirror" "$@" &&
		start_httpd "$TRASH/mirror"
}

# tp_checkout DIR: what the recipes need, as another clone would have it.
tp_checkout() {
	mkdir -p "$1" &&
	tar -C "$SRC_ROOT" --exclude=build --exclude=__pycache__ -cf - recipes |
		tar -C "$1" -xf -
}

# Target roots (arm64 packages unpacked for the aarch64 builds) are kept
# outside the repository and shared across runs and checkouts, like the
# build machine's own /usr.
TF_SYSROOT_CACHE=${TF_SYSROOT_CACHE:-/var/tmp/tfbuild-test-cache}
export TF_SYSROOT_CACHE

# tp_build ROOT OUT NAME [ARGS...]: run recipe NAME of checkout ROOT for
# every target, fetching from the local server; the build tree and cache
# are inside ROOT (made absolute: steps run elsewhere).
tp_build() {
	root=$1 out=$2 name=$3; shift 3
	case $root in /*) ;; *) root=$TRASH/$root ;; esac
	"$TFBUILD" recipe --target all -j 2 --cache "$root/cache" \
		--build-dir "$root/build" --out "$out" \
		--set mirror="$HTTP_URL/$name" "$@" "$root/recipes/$name.yaml"
}

# The arm64 CPython of t0901 (tests/lib/arm64.sh): py_arm64.
. "$TESTS_DIR/lib/arm64.sh"
tp_sysroot=$arm64_root
tp_arm64_sysroot() { arm64_sysroot; }

# tp_wheel DIR NAME TARGET: the one wheel of distribution NAME for TARGET.
tp_wheel() { ls "$1"/"$2"-*_"$3".whl; }

# tp_install_arm64 DIR WHEEL: pip for aarch64, into a plain directory. pip
# takes --platform tags literally: name the wheel's own.
tp_install_arm64() {
	plats= tags=$(basename "$2" .whl); tags=${tags##*-}
	for t in $(echo "$tags" | tr . " "); do plats="$plats --platform $t"; done
	tools_pip install -q --no-index --no-deps --target "$1" $plats \
		--python-version 3.11 --implementation cp --only-binary=:all: "$2"
}

# tp_check_both OUT NAME: install NAME's wheels and run its check.py, on
# x86-64 from a fresh venv, on aarch64 under qemu.
tp_check_both() {
	out=$1 name=$2 check="$SRC_ROOT/recipes/thirdparty/$2/check.py"
	rm -rf "$TRASH/venv-$name" "$TRASH/site-$name" &&
	"$PYTHON" -m venv --without-pip "$TRASH/venv-$name" &&
	tools_pip --python "$TRASH/venv-$name/bin/python" install -q --no-index --no-deps \
		"$(tp_wheel "$out" "$name" x86_64)" &&
	(cd / && "$TRASH/venv-$name/bin/python" "$check") >"$TRASH/run-x86_64.out" &&
	cat "$TRASH/run-x86_64.out" &&
	grep -q " x86_64 ok" "$TRASH/run-x86_64.out" &&
	tp_arm64_sysroot &&
	tp_install_arm64 "$TRASH/site-$name" "$(tp_wheel "$out" "$name" aarch64)" &&
	(cd / && PYTHONPATH="$TRASH/site-$name" py_arm64 "$check") >"$TRASH/run-aarch64.out" &&
	cat "$TRASH/run-aarch64.out" &&
	grep -q " aarch64 ok" "$TRASH/run-aarch64.out"
}

# tp_no_command_runs ROOT OUT NAME: a second run with nothing changed runs
# no step and rewrites no wheel.
tp_no_command_runs() {
	root=$1 out=$2 name=$3
	for w in "$out"/*.whl; do touch -d @1000000000 "$w"; done &&
	tp_build "$root" "$out" "$name" 2>"$TRASH/rerun.err" >/dev/null &&
	grep -q "^tfbuild: 0 of [0-9]* steps ran, [0-9]* up to date$" "$TRASH/rerun.err" &&
	! grep -q "^tfbuild: building" "$TRASH/rerun.err" &&
	for w in "$out"/*.whl; do test "$(stat -c %Y "$w")" = 1000000000 || return 1; done
}

# tp_same_bytes OUT1 OUT2: byte-identical wheels and SHA256SUMS.
tp_same_bytes() {
	(cd "$1" && ls) >"$TRASH/l1" && (cd "$2" && ls) >"$TRASH/l2" &&
	compare "$TRASH/l1" "$TRASH/l2" &&
	for f in "$1"/*; do
		b=$(basename "$f")
		case "$b" in *.intoto.json) continue ;; esac
		cmp "$f" "$2/$b" || { "$TFBUILD" diff "$f" "$2/$b"; return 1; }
	done
}

# tp_aarch64_tools_only ROOT STEP: the aarch64 log of STEP (its CMake or
# Meson configure output) names aarch64 tools: every line about a
# compiler, linker or binutils names aarch64-linux-gnu-*, and nothing of
# the build machine's (x86_64-linux-gnu paths, bare gcc/cc/ld/ar) appears,
# except on Meson's "... for the build machine:" lines: Meson always
# probes the build machine's compiler too (for native: true targets and
# generators), and names it as such; that is $HOSTCC, not a leak.
tp_aarch64_tools_only() {
	log=$(ls "$1"/build/*/aarch64/logs/"$2".log "$1"/build/aarch64/logs/"$2".log 2>/dev/null | head -n 1)
	[ -n "$log" ] || { echo "no aarch64 log of step $2 under $1/build"; return 1; }
	grep -E "(compiler|linker).*aarch64-linux-gnu-gcc" "$log" ||
		{ echo "$log names no aarch64 compiler"; return 1; }
	if grep -n "x86_64-linux-gnu" "$log" | grep -v "for the build machine:"; then
		echo "$log names the build machine's files or tools (above)"; return 1
	fi
	if grep -inE "compiler|linker|archiver|ranlib|strip|CMAKE_AR|CMAKE_NM" "$log" |
		grep -v "for the build machine:" |
		grep -E "(^|[[:space:]/:=\"'(])(gcc|cc|c\+\+|g\+\+|ld|ar|ranlib|strip|nm)(-12)?([[:space:]\"')]|$)" |
		grep -v "aarch64-linux-gnu-"; then
		echo "$log names a build machine tool (above)"; return 1
	fi
}

# tp_metadata_ok WHEEL...: each wheel's METADATA checked with Debian's
# python3-packaging and python3-license-expression, not tfbuild's code:
# name and version match the filename, Requires-Python, Requires-Dist and
# License-Expression parse, every License-File is in the wheel, and the
# Description is there when a content type is declared.
tp_metadata_ok() {
	/usr/bin/python3 - "$@" <<'PY'
import email.parser, os, sys, zipfile
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name, parse_wheel_filename
from packaging.version import Version
from license_expression import get_spdx_licensing

spdx = get_spdx_licensing()
for w in sys.argv[1:]:
    name, ver, _, _ = parse_wheel_filename(os.path.basename(w))
    z = zipfile.ZipFile(w)
    names = z.namelist()
    (meta,) = [n for n in names if n.count("/") == 1 and n.endswith(".dist-info/METADATA")]
    m = email.parser.Parser().parsestr(z.read(meta).decode())
    assert canonicalize_name(m["Name"]) == name, (w, m["Name"])
    assert Version(m["Version"]) == ver, (w, m["Version"])
    if m["Requires-Python"]:
        SpecifierSet(m["Requires-Python"])
    for r in m.get_all("Requires-Dist") or []:
        Requirement(r)
    info = spdx.validate(m["License-Expression"])
    assert not info.errors and not info.invalid_symbols, (w, info.errors)
    for lf in m.get_all("License-File") or []:
        assert meta.replace("METADATA", "licenses/" + lf) in names, (w, lf)
    if m["Description-Content-Type"]:
        assert m.get_payload().strip(), (w, "empty Description")
    print("metadata ok:", os.path.basename(w), m["License-Expression"])
PY
}
