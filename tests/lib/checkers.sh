# The tools PyPI and its users run on a wheel, run on tfbuild's wheels
# (issue 27). Sourced by a test after test-lib.sh:
#
#   . "$TESTS_DIR/lib/checkers.sh"
#   expect_success 'the wheels pass the checkers' '
#       check_wheels out/*.whl
#   '
#
# check_wheels WHEEL... runs, for each wheel, the pinned tools of the
# tools venv ($TOOLS_BIN, ci/python-tools.txt) and prints one verdict
# line per checker and wheel:
#
#   checker: twine check --strict: greet-1.0.0-py3-none-manylinux_2_17_x86_64.whl: PASSED
#
# and a failing checker's output under its line. It returns non-zero if
# any checker failed. The checkers:
#   twine check --strict   the metadata PyPI's upload takes: METADATA
#                          parses, the description renders, no warning;
#   auditwheel show        the ELF files' symbol versions and libraries
#                          allow a manylinux tag; every platform tag of
#                          the wheel's name must be one auditwheel says
#                          the wheel satisfies (same architecture, glibc
#                          at least its lowest);
#   abi3audit --strict     (abi3 wheels) every extension module uses only
#                          the stable ABI of its declared minimum;
#   pip install/uninstall  pip installs the wheel file alone (--no-index
#                          --no-deps: its framework and dependencies are
#                          not what is judged) into a fresh venv of
#                          Debian's Python, and uninstalls it leaving
#                          site-packages exactly as it was (RECORD lists
#                          everything installed); a wheel for another
#                          architecture is installed with --target and
#                          --platform, as pip can for one;
#   uv pip install/uninstall  the same with uv, another installer with
#                          its own wheel reader; --python-platform for
#                          another architecture;
#   cyclonedx-python-lib   the wheel's SBOM (.dist-info/sboms/
#                          tfbuild.cdx.json, PEP 770) is valid against
#                          the CycloneDX 1.6 JSON schema.
# Nothing reaches the network: the installs read the wheel file only.

: "${TOOLS_BIN:=/opt/tfbuild-tools/venv/bin}"

# checker_verdict NAME WHEEL STATUS OUTPUT-FILE
checker_verdict() {
	echo "checker: $1: $(basename "$2"): $3"
	if [ "$3" = FAILED ] && [ -s "$4" ]; then
		sed 's/^/    /' "$4"
	fi
}

# The machine's architecture as wheel tags spell it.
checker_host_arch() { uname -m; }

# auditwheel's verdict against the wheel's own platform tags.
checker_auditwheel() {
	w=$1 out=$2
	plats=$(basename "$w" .whl | awk -F- '{print $NF}')
	case $plats in
	any) echo "no platform tag (pure): nothing for auditwheel" >"$out"
		return 2 ;;
	esac
	"$TOOLS_BIN/auditwheel" show "$w" >"$out" 2>&1 || return 1
	tr '\n' ' ' <"$out" |
		sed -n 's/.*consistent with the following platform tag: "\([^"]*\)".*/\1/p' >"$out.tag"
	[ -s "$out.tag" ] || return 1
	"$PYTHON" - "$(cat "$out.tag")" "$plats" >>"$out" 2>&1 <<'EOF'
import re, sys
legacy = {"manylinux1": (2, 5), "manylinux2010": (2, 12), "manylinux2014": (2, 17)}
def parse(tag):
    m = re.match(r"(manylinux1|manylinux2010|manylinux2014)_(.+)$", tag)
    if m:
        return legacy[m.group(1)], m.group(2)
    m = re.match(r"manylinux_(\d+)_(\d+)_(.+)$", tag)
    if m:
        return (int(m.group(1)), int(m.group(2))), m.group(3)
    m = re.match(r"linux_(.+)$", tag)
    if m:
        return None, m.group(1)
    sys.exit("unknown platform tag %r" % tag)
low, arch = parse(sys.argv[1])
bad = []
for tag in sys.argv[2].split("."):
    glibc, a = parse(tag)
    if a != arch or (glibc is not None and low is not None and glibc < low):
        bad.append(tag)
if bad:
    print("the wheel's tag(s) %s are not satisfied: auditwheel says %s"
          % (", ".join(bad), sys.argv[1]))
    sys.exit(1)
EOF
}

# site-packages of a venv, listed.
# (a venv made --without-pip may have no site-packages yet: empty).
checker_site() {
	for d in "$1"/lib/python3*/site-packages; do
		[ -d "$d" ] || continue
		(cd "$d" && find . -mindepth 1 | LC_ALL=C sort)
	done
}

# pip: install into a fresh venv, uninstall, nothing left.
checker_pip() {
	w=$1 out=$2 dir=$3
	name=$(basename "$w" | cut -d- -f1)
	arch=$(basename "$w" .whl | awk -F- '{print $NF}')
	rm -rf "$dir" && /usr/bin/python3 -m venv --without-pip "$dir/venv" || return 1
	pip="$TOOLS_BIN/python -m pip --disable-pip-version-check --no-cache-dir"
	case $arch in
	any | *"$(checker_host_arch)"*) ;;
	*)
		set -- --no-deps --no-index --only-binary=:all: --target "$dir/t" \
			--implementation cp --python-version 3.11
		for p in $(echo "$arch" | tr . ' '); do set -- "$@" --platform "$p"; done
		abi=$(basename "$w" .whl | awk -F- '{print $(NF-1)}')
		for a in $(echo "$abi" | tr . ' '); do set -- "$@" --abi "$a"; done
		$pip install -q "$@" "$w" >"$out" 2>&1 || return 1
		ls "$dir/t" | grep -q "\.dist-info$" || return 1
		echo "another architecture: installed with --target, not uninstalled" >>"$out"
		return 3 ;;
	esac
	checker_site "$dir/venv" >"$dir/before" &&
		$pip --python "$dir/venv/bin/python" install -q --no-index --no-deps "$w" >"$out" 2>&1 &&
		$pip --python "$dir/venv/bin/python" show "$name" >>"$out" 2>&1 &&
		$pip --python "$dir/venv/bin/python" uninstall -y -q "$name" >>"$out" 2>&1 &&
		checker_site "$dir/venv" >"$dir/after" &&
		diff -u "$dir/before" "$dir/after" >>"$out"
}

# uv: the same, another venv, --python-platform for another architecture.
checker_uv() {
	w=$1 out=$2 dir=$3
	name=$(basename "$w" | cut -d- -f1)
	arch=$(basename "$w" .whl | awk -F- '{print $NF}')
	rm -rf "$dir" || return 1
	export UV_CACHE_DIR="$dir/cache" UV_NO_PROGRESS=1 UV_PYTHON_DOWNLOADS=never
	"$TOOLS_BIN/uv" venv -q --python /usr/bin/python3 "$dir/venv" >"$out" 2>&1 || return 1
	set --
	case $arch in
	any | *"$(checker_host_arch)"*) ;;
	*)
		m=$(echo "$arch" | tr . '\n' | sed -n 's/^manylinux_2_\([0-9]*\)_.*/\1/p' | sort -n | tail -1)
		# uv knows 2_17, 2_28 and 2_31 on: the lowest that takes the wheel.
		m=${m:-0}
		if [ "$m" -le 17 ]; then m=17; elif [ "$m" -le 28 ]; then m=28; elif [ "$m" -le 31 ]; then m=31; fi
		a=$(echo "$arch" | tr . '\n' | sed 's/^.*linux[0-9]*_//; s/^2_[0-9]*_//' | head -1)
		set -- --python-platform "$a-manylinux_2_$m" ;;
	esac
	checker_site "$dir/venv" >"$dir/before" &&
		"$TOOLS_BIN/uv" pip install -q --offline --no-index --no-deps \
			--python "$dir/venv/bin/python" "$@" "$w" >>"$out" 2>&1 &&
		"$TOOLS_BIN/uv" pip show -q --python "$dir/venv/bin/python" "$name" >>"$out" 2>&1 &&
		"$TOOLS_BIN/uv" pip uninstall -q --python "$dir/venv/bin/python" "$name" >>"$out" 2>&1 &&
		checker_site "$dir/venv" >"$dir/after" &&
		diff -u "$dir/before" "$dir/after" >>"$out"
}

# sbom_json WHEEL: the wheel's SBOM on stdout (Debian's Python reads the zip).
sbom_json() {
	"$PYTHON" - "$1" <<'EOF'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
n = [i for i in z.namelist() if i.endswith(".dist-info/sboms/tfbuild.cdx.json")]
if len(n) != 1:
    sys.exit("%s: no .dist-info/sboms/tfbuild.cdx.json" % sys.argv[1])
sys.stdout.write(z.read(n[0]).decode())
EOF
}

# check_sboms DIR WHEEL...: each wheel's SBOM valid for
# cyclonedx-python-lib's strict validator against the CycloneDX 1.6 JSON
# schema, in one process (loading the schema is 2 s of CPU): DIR/sbom.K
# holds the K-th wheel's error, empty when it is valid.
check_sboms() {
	ck_sd=$1 && shift &&
		"$TOOLS_BIN/python" - "$ck_sd" "$@" >"$ck_sd/sboms" 2>&1 <<'EOF'
import sys, zipfile
from cyclonedx.schema import SchemaVersion
from cyclonedx.validation.json import JsonStrictValidator
validator = JsonStrictValidator(SchemaVersion.V1_6)
for k, w in enumerate(sys.argv[2:]):
    msg = ""
    try:
        z = zipfile.ZipFile(w)
        n = [i for i in z.namelist() if i.endswith(".dist-info/sboms/tfbuild.cdx.json")]
        if len(n) != 1:
            msg = "%s: no .dist-info/sboms/tfbuild.cdx.json" % w
        else:
            err = validator.validate_str(z.read(n[0]).decode())
            if err:
                msg = "not valid CycloneDX 1.6: %s" % err
    except Exception as e:
        msg = "%s: %s" % (w, e)
    with open("%s/sbom.%d" % (sys.argv[1], k), "w") as f:
        f.write(msg)
EOF
}

# check_wheels WHEEL...: every checker on every wheel; 1 if any failed.
# (sh has no local variables: the helpers above set w, out and dir, so
# this one keeps its own under ck_.)
check_wheels() {
	ck_failed=0 ck_dir=${TRASH:-/tmp}/.checkers
	mkdir -p "$ck_dir" || return 1
	# The checkers that take many wheels run once for all of them (each
	# start is a second or two of CPU); twine again wheel by wheel only
	# when one failed, for its own output under each verdict.
	ck_twine=0
	"$TOOLS_BIN/twine" check --strict "$@" >"$ck_dir/twine" 2>&1 || ck_twine=1
	check_sboms "$ck_dir" "$@" || { cat "$ck_dir/sboms"; return 1; }
	ck_k=0
	for ck_w in "$@"; do
		w=$ck_w
		out=$ck_dir/out
		if [ $ck_twine = 0 ] || "$TOOLS_BIN/twine" check --strict "$w" >"$out" 2>&1; then
			checker_verdict "twine check --strict" "$w" PASSED "$out"
		else
			checker_verdict "twine check --strict" "$w" FAILED "$out"
			ck_failed=1
		fi
		checker_auditwheel "$w" "$out"
		case $? in
		0) checker_verdict "auditwheel show" "$w" "PASSED ($(cat "$out.tag"))" "$out" ;;
		2) checker_verdict "auditwheel show" "$w" "SKIPPED (pure)" "$out" ;;
		*) checker_verdict "auditwheel show" "$w" FAILED "$out"
			ck_failed=1 ;;
		esac
		case $(basename "$w" .whl | awk -F- '{print $(NF-1)}') in
		abi3)
			if "$TOOLS_BIN/abi3audit" --strict --summary "$w" >"$out" 2>&1; then
				checker_verdict "abi3audit --strict" "$w" PASSED "$out"
			else
				checker_verdict "abi3audit --strict" "$w" FAILED "$out"
				ck_failed=1
			fi ;;
		esac
		checker_pip "$w" "$out" "$ck_dir/pip"
		case $? in
		0) checker_verdict "pip install+uninstall" "$w" PASSED "$out" ;;
		3) checker_verdict "pip install --target --platform" "$w" PASSED "$out" ;;
		*) checker_verdict "pip install+uninstall" "$w" FAILED "$out"
			ck_failed=1 ;;
		esac
		if [ ! -s "$ck_dir/sbom.$ck_k" ]; then
			checker_verdict "cyclonedx-python-lib validate (1.6)" "$w" PASSED "$out"
		else
			checker_verdict "cyclonedx-python-lib validate (1.6)" "$w" FAILED "$ck_dir/sbom.$ck_k"
			ck_failed=1
		fi
		ck_k=$((ck_k + 1))
		if checker_uv "$w" "$out" "$ck_dir/uv"; then
			checker_verdict "uv pip install+uninstall" "$w" PASSED "$out"
		else
			checker_verdict "uv pip install+uninstall" "$w" FAILED "$out"
			ck_failed=1
		fi
	done
	rm -rf "$ck_dir"
	return $ck_failed
}
