# Shared library for end-to-end tests, in the manner of git's t/test-lib.sh.
# A test script sources it, then calls expect_success, and ends with
# test_done. Each script gets its own scratch directory, $TRASH, and runs
# its test bodies from inside it.
#
#   . "$(dirname "$0")/../lib/test-lib.sh"
#   expect_success 'what it checks' '
#       tfbuild sha256 file >out &&
#       compare expect out
#   '
#   test_done
#
# Every body is one &&-chain: a command that is not the last hands its
# failure on with && (or || exit 1). tests/lib/chainlint.py checks the
# script before its first test (see chain_check below).

set -u
: "${TFBUILD:?set TFBUILD to the tfbuild binary}"
: "${TESTS_DIR:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${SRC_ROOT:=$(dirname "$TESTS_DIR")}"
PYTHON=${PYTHON:-/usr/bin/python3}
# The Python tools from the index that make deps installs
# (ci/install-python-tools.sh): twine, auditwheel, abi3audit, uv, ...
TOOLS_BIN=${TFBUILD_TOOLS:-/opt/tfbuild-tools}/venv/bin
# What tests keep across runs, outside the repository: pip's cache and
# the framework roots they install from the index.
TEST_CACHE=${TFBUILD_TEST_CACHE:-/var/tmp/tfbuild-test-cache}
export TOOLS_BIN TEST_CACHE
test_name=$(basename "$0" .sh)
TRASH="$TESTS_DIR/tmp/$test_name"
rm -rf "$TRASH"
mkdir -p "$TRASH"
# Read before the cd, while $0 may still be a relative path.
chain_report=$("$PYTHON" "$TESTS_DIR/lib/chainlint.py" "$0" 2>&1)
chain_status=$?
cd "$TRASH" || exit 1
export HOME="$TRASH/home" XDG_CACHE_HOME="$TRASH/home/.cache"
mkdir -p "$HOME"
unset TFBUILD_CACHE TFMINI_PLUGINS TFMINI_M1_ISA 2>/dev/null || true
# The build cache (docs/cache.md): no settings from the caller. Tests
# rebuild by removing the build tree, so the local store of step outputs
# is off unless a test turns it on (TFBUILD_STORE=1, or t15xx's own).
unset TFBUILD_CONFIG TFBUILD_REMOTE_CACHE TFBUILD_REMOTE_CACHE_UPLOAD \
	TFBUILD_REMOTE_CACHE_TIMEOUT TFBUILD_TRUST TFBUILD_SIGNING_KEY \
	TFBUILD_ATTESTATION_KEY 2>/dev/null || true
export XDG_CONFIG_HOME="$TRASH/home/.config" TFBUILD_STORE=0
# The recipes tests write (in $TRASH) use sources and patches from all
# over the project. A recipe's tree is its checkout, found by .git
# (docs/security.md#local-paths), and the project need not be one (a
# `git archive` of it, a release tarball): the tests name the tree
# instead, as a user outside a checkout would. Tests of the rule itself
# unset it (t0609).
export TFBUILD_RECIPE_ROOT="$SRC_ROOT"
# Tests talk to 127.0.0.1 only; a proxy from the caller must not intercept.
unset http_proxy https_proxy all_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY \
	no_proxy NO_PROXY 2>/dev/null || true
test_count=0 test_failed=0

# The &&-chain check, in the manner of git's t/chainlint.pl: a body whose
# chain is broken runs on past the break, so a failure before it goes
# unseen. Each such test is one failure of the script, reported here
# before the first test with its name, its line and the break marked
# ?!AMP?!. The tests still run, as later ones may need what they set up.
chain_check() {
	case $chain_status in
	0) return 0 ;;
	1) ;;
	*) chain_report="not ok - chainlint cannot check $0:
$(printf '%s\n' "$chain_report" | sed 's/^/#   /')" ;;
	esac
	printf '%s\n' "$chain_report"
	chain_broken=$(printf '%s\n' "$chain_report" | grep -c '^not ok')
	test_count=$((test_count + chain_broken))
	test_failed=$((test_failed + chain_broken))
}
chain_check

tfbuild() { "$TFBUILD" "$@"; }

# tools_pip ARG...: the tools venv's pinned pip (ci/python-tools.txt), to
# install into a fresh venv made --without-pip (--python VENV/bin/python)
# or into a --target directory. A venv made with its own pip costs 4 s of
# CPU (ensurepip byte-compiles pip); a test that needs the venv's own pip
# (its version, its messages) makes it so.
tools_pip() { "$TOOLS_BIN/python" -m pip --disable-pip-version-check "$@"; }

# at_exit CMD: run CMD when the script ends (stop a server, a background
# job), the last registered first. The commands are kept in a file, not a
# variable: a test body runs in a subshell, which neither runs the
# script's EXIT trap nor hands its variables back, so a server a body
# starts (start_httpd, start_dav) would otherwise outlive the script.
# Whatever a body starts may serve the later bodies too (t1704): it is
# stopped when the script ends, like one started at the top level.
# tests/run.sh fails a script that leaves a process behind.
at_exit_file="$TRASH/.at_exit"
: >"$at_exit_file"
at_exit() {
	{ printf '%s\n' "$1" && cat "$at_exit_file"; } >"$at_exit_file.new" &&
		mv "$at_exit_file.new" "$at_exit_file"
}
run_at_exit() {
	[ -s "$at_exit_file" ] || return 0
	mv "$at_exit_file" "$at_exit_file.run" && . "$at_exit_file.run"
}
trap 'run_at_exit' EXIT
# Killed or interrupted: still stop what was started.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

# stop_pid PID: stop a process this script started (in a body or not)
# and wait until it is gone, so that nothing outlives the script.
stop_pid() {
	kill "$1" 2>/dev/null || return 0
	wait "$1" 2>/dev/null # reaps it if it is a child of this shell
	stop_i=0
	while kill -0 "$1" 2>/dev/null && [ $stop_i -lt 50 ]; do
		stop_i=$((stop_i + 1))
		sleep 0.1
	done
	kill -9 "$1" 2>/dev/null
	return 0
}

# Under tests/run.sh, TFBUILD_TEST_RUN (inherited by every process the
# script starts) is RUN/SCRIPT; in a body it becomes RUN/SCRIPT#N.
test_mark() {
	[ -n "${TFBUILD_TEST_RUN:-}" ] || return 0
	TFBUILD_TEST_RUN="${TFBUILD_TEST_RUN%%#*}#$test_count"
	export TFBUILD_TEST_RUN
}

# TEST_CASE_TIMES=1: each case also prints its wall time, to find where
# a slow script spends it (this script only: the scripts a test runs
# itself, whose output it compares, do not see it).
case_times=${TEST_CASE_TIMES:-}
unset TEST_CASE_TIMES
expect_success() { # description, body
	test_count=$((test_count + 1))
	[ -z "$case_times" ] || case_t0=$(date +%s.%N)
	# tests/run.sh names the test that left a process behind by this.
	if (test_mark && eval "$2") >"$TRASH/.last.log" 2>&1; then
		echo "ok $test_count - $1"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1"
		sed 's/^/#   /' "$TRASH/.last.log"
	fi
	[ -z "$case_times" ] ||
		awk -v a="$case_t0" -v b="$(date +%s.%N)" -v n="$test_count" \
			'BEGIN { printf "# case %d took %.1f s\n", n, b - a }'
}

# Skip a test with a reason: counted as neither passed nor failed.
skip() { echo "ok - # SKIP $1"; }

# A pure-Python project in proj/: its one wheel, pure, is packed straight
# from the `path:` source proj/tree (read in place) by proj/r.yaml.
pure_project() {
	mkdir -p proj/tree/pure &&
	echo 'VALUE = 1' >proj/tree/pure/__init__.py &&
	cat >proj/r.yaml <<'EOF_PURE'
schema: 1
name: pure
version: 1.0.0
sources:
  - {name: tree, path: tree}
wheels:
  - name: pure
    version: 1.0.0
    files:
      - {from: tree, src: pure, dst: .}
EOF_PURE
}

# compare EXPECTED ACTUAL: like git's test_cmp.
compare() { diff -u "$1" "$2"; }

# expect_code N cmd...: run cmd, fail unless it exits with N.
expect_code() {
	want=$1; shift
	"$@"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "expected exit code $want, got $got from: $*" >&2
		return 1
	fi
}

# Start the test HTTP server on 127.0.0.1 serving DIR; sets HTTP_URL.
start_httpd() {
	dir=$1
	rm -f "$TRASH/.httpd.port"
	"$PYTHON" "$TESTS_DIR/lib/httpd.py" --root "$dir" \
		--port-file "$TRASH/.httpd.port" >"$TRASH/.httpd.log" 2>&1 &
	httpd_pid=$!
	at_exit "stop_pid $httpd_pid"
	i=0
	while [ ! -s "$TRASH/.httpd.port" ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || { echo "httpd did not start" >&2; return 1; }
		sleep 0.1
	done
	HTTP_URL="http://127.0.0.1:$(cat "$TRASH/.httpd.port")"
	export HTTP_URL
}

# start_server LOG PATH FUNCTION: run FUNCTION (which execs a server on
# 127.0.0.1:$PORT) in the background, on a port the kernel called free a
# moment before, until http://127.0.0.1:$PORT/PATH answers. Scripts run
# at the same time: should another process take the port in between,
# the server exits and is started again on another. Sets PORT; the
# server is stopped when the script ends.
start_server() {
	for start_try in 1 2 3 4 5; do
		PORT=$("$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		"$3" >"$1" 2>&1 &
		start_pid=$!
		start_i=0
		while alive "$start_pid" && [ $start_i -lt 100 ]; do
			if curl -sf "http://127.0.0.1:$PORT/$2" >/dev/null && alive "$start_pid"; then
				at_exit "stop_pid $start_pid"
				return 0
			fi
			start_i=$((start_i + 1))
			sleep 0.1
		done
		stop_pid "$start_pid"
	done
	echo "the server did not start:" >&2 && cat "$1" >&2
	return 1
}

alive() { # PID: running, not a zombie
	[ -r "/proc/$1/status" ] && ! grep -q '^State:.*Z' "/proc/$1/status"
}

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# with_lock FILE CMD...: run CMD (a function too) holding an exclusive
# lock on FILE. Scripts run at the same time (tests/run.sh runs several)
# and share the test cache: a fill of a shared directory is done under
# its lock, checking first whether another has made it meanwhile.
with_lock() {
	with_lock_file=$1 && shift &&
	mkdir -p "$(dirname "$with_lock_file")" &&
	{ flock 9 && "$@"; } 9>"$with_lock_file"
}

test_done() {
	echo "# passed $((test_count - test_failed)) failed $test_failed"
	[ "$test_failed" = 0 ]
}
