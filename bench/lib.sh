# Shared by bench/run.sh and bench/rebuild.sh (sourced; POSIX sh).
#
# sample KEY PREP CMD...  runs PREP (untimed; a shell command), then CMD
#                         under /usr/bin/time, and appends "WALL_S
#                         TREE_PEAK_KIB OWN_PEAK_KIB CPU_S" to $RES/KEY. TREE
#                         is /usr/bin/time's %M (the largest process in
#                         the tree); OWN is the peak of tfbuild's own
#                         process (test-wheel, test-extract or tfbuild),
#                         "-" for other tools; CPU is user + system time
#                         of the whole tree.
# row CASE TOOL KEY [BASEKEY [OUTPUT_BYTES]]
#                         appends one result line to $TABLE.
set -eu

BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$BENCH_DIR")
# BENCH_TMP puts the scratch directory elsewhere (e.g. on a tmpfs).
B=${BENCH_TMP:-$BENCH_DIR/tmp}
RES=$B/results
BENCH_N=${BENCH_N:-5}
PY=/usr/bin/python3
TFBUILD=${TFBUILD:-$ROOT/tfbuild}
TOOL_DIR=${TOOL_DIR:-$ROOT/obj/tool}
TIME=/usr/bin/time
# Everything here talks to 127.0.0.1 or to nothing: never to a proxy.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export LC_ALL=C
# Debian's own PATH: /usr/bin/python3, not a pyenv shim (tfbuild asks the
# python3 on PATH for its include directory on every run).
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH

die() {
	echo "bench: $*" >&2
	exit 1
}

# /usr/bin/time is Debian's `time` package; install it if missing.
need_time() {
	[ -x "$TIME" ] && return 0
	[ "$(id -u)" = 0 ] || die "install Debian's 'time' package (/usr/bin/time)"
	while pgrep -x 'apt|apt-get|dpkg' >/dev/null; do
		echo "bench: waiting for another apt/dpkg to finish" >&2
		sleep 5
	done
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null ||
		die "could not install 'time'"
}

bench_setup() {
	need_time
	mkdir -p "$B" "$RES"
	[ -x "$TFBUILD" ] || die "no tfbuild at $TFBUILD (run make)"
	cc -O2 -shared -fPIC -o "$B/hwm.so" "$BENCH_DIR/hwm.c" ||
		die "cannot build hwm.so"
}

sample() {
	key=$1 prep=$2
	shift 2
	eval "$prep"
	sync # earlier runs' dirty pages must not be written back during this one
	rm -f "$B/hwm.out"
	# Wall time from date: %e has only 10 ms steps, too coarse for a
	# no-op rebuild. It includes starting /usr/bin/time (about 1 ms).
	t0=$(date +%s%N)
	if ! BENCH_HWM_FILE=$B/hwm.out LD_PRELOAD=$B/hwm.so \
		"$TIME" -f '%M %U %S' -o "$B/time.out" "$@" >"$B/cmd.out" 2>"$B/cmd.err"; then
		cat "$B/cmd.err" >&2
		die "$key: command failed: $*"
	fi
	t1=$(date +%s%N)
	touch "$B/hwm.out"
	own=$(awk '$1 ~ /^(tfbuild|test-wheel|test-extract)$/ && $2 > m { m = $2 }
		END { print m ? m : "-" }' "$B/hwm.out")
	tail -n 1 "$B/time.out" | awk -v own="$own" -v ns=$((t1 - t0)) \
		'{ printf "%.3f %s %s %.2f\n", ns / 1e9, $1, own, $2 + $3 }' >>"$RES/$key"
}

# Move $1 out of the way, if it exists, and make it again, empty. Deleting
# is left to empty_trash, between cases: ext4 without a journal (this
# machine's /) will not reuse an inode for 30 s after it was freed, and
# creating files right after thousands were deleted spends most of its
# time in the kernel skipping them (perf: recently_deleted() under
# ext4_create). That made extraction runs 1-4x slower at random.
fresh() {
	if [ -e "$1" ]; then
		mkdir -p "$B/trash"
		trash_n=$((${trash_n:-0} + 1))
		mv "$1" "$B/trash/$trash_n.$$"
	fi
	mkdir -p "$1"
}

empty_trash() {
	[ -e "$B/trash" ] || return 0
	rm -rf "$B/trash"
	sync
	touch "$B/deleted"
}

# Wait until the last big delete is over 30 s old (see fresh).
settle() {
	[ -f "$B/deleted" ] || return 0
	[ "$(stat -f -c %T "$B")" != tmpfs ] || return 0
	age=$(($(date +%s) - $(stat -c %Y "$B/deleted")))
	if [ "$age" -le 31 ]; then
		echo "bench: waiting $((32 - age)) s for freed inodes to age" >&2
		sleep $((32 - age))
	fi
}

# The median of column $2 of file $1 (mean of the middle two if even).
median() {
	sort -n -k "$2,$2" "$1" | awk -v c="$2" '{ v[NR] = $c }
		END { if (NR % 2) print v[(NR + 1) / 2];
		      else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# The largest value of column $2 of file $1, in MiB.
max_mib() {
	awk -v c="$2" '$c != "-" && $c > m { m = $c }
		END { if (m) printf "%.1f\n", m / 1024; else print "-" }' "$1"
}

table_header() {
	cat >"$TABLE" <<EOF
| case | tool | median wall (s) | runs (s) | median CPU (s) | peak RSS, tree (MiB) | tfbuild's own peak (MiB) | output | time ratio | RSS ratio |
| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |
EOF
}

row() {
	case_=$1 tool=$2 key=$3 base=${4:-} bytes=${5:-}
	f=$RES/$key
	med=$(median "$f" 1)
	runs=$(awk '{ printf "%s%s", (NR > 1 ? " " : ""), $1 }' "$f")
	cpu=$(median "$f" 4)
	tree=$(max_mib "$f" 2)
	own=$(max_mib "$f" 3)
	out=-
	[ -n "$bytes" ] && out=$(awk -v b="$bytes" 'BEGIN {
		if (b >= 1048576) printf "%.1f MiB", b / 1048576;
		else printf "%.1f KiB", b / 1024 }')
	tr=- rr=-
	if [ -n "$base" ]; then
		bmed=$(median "$RES/$base" 1)
		tr=$(awk -v a="$med" -v b="$bmed" \
			'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
		rr=$(awk -v a="$(max_mib "$f" 2)" -v b="$(max_mib "$RES/$base" 2)" \
			'BEGIN { printf "%.2f", a / b }')
	fi
	echo "| $case_ | $tool | $med | $runs | $cpu | $tree | $own | $out | $tr | $rr |" >>"$TABLE"
	if [ "$own" != - ] && awk -v m="$own" 'BEGIN { exit !(m >= 32) }'; then
		echo "bench: WARNING: $key: tfbuild's peak RSS $own MiB is not under 32 MiB" >&2
		echo "$key $own" >>"$B/over-32mib"
	fi
	return 0
}

# Start tests/lib/httpd.py serving $1; sets HTTP_URL and HTTPD_PID.
# shellcheck disable=SC2034 # HTTP_URL is for the caller
start_httpd() {
	rm -f "$B/httpd.port"
	"$PY" "$ROOT/tests/lib/httpd.py" --root "$1" --port-file "$B/httpd.port" \
		>"$B/httpd.log" 2>&1 &
	HTTPD_PID=$!
	i=0
	while [ ! -s "$B/httpd.port" ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || die "httpd did not start"
		sleep 0.1
	done
	HTTP_URL="http://127.0.0.1:$(cat "$B/httpd.port")"
}

stop_httpd() {
	if [ -n "${HTTPD_PID:-}" ]; then
		kill "$HTTPD_PID" 2>/dev/null || :
		wait "$HTTPD_PID" 2>/dev/null || :
		HTTPD_PID=
	fi
}
