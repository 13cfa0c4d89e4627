#!/bin/sh
# Compiler launcher benchmark (docs/distributed.md): wall time of
# `tfbuild recipe --target all RECIPE`, each from a fresh checkout (a
# copy of the recipe's folder and what it names) with a fresh build tree:
#
#   fresh              no launcher
#   ccache cold        --launcher ccache, empty local cache, empty Redis
#   ccache warm/redis  --launcher ccache from another fresh checkout with
#                      an EMPTY local cache and the Redis the cold run filled
#   distcc localhost   --launcher distcc to a distccd on 127.0.0.1 (-j = CPUs)
#
# Every run's wheels are compared with the fresh run's (they must be the
# same bytes). Repeated BENCH_N times (default 3), medians reported as a
# Markdown table on stdout. Servers listen on free 127.0.0.1 ports and
# are stopped at the end.
#
# usage: bench/launchers.sh [RECIPE]   (default recipes/m1-plugin.yaml)
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

recipe=${1:-$ROOT/recipes/m1-plugin.yaml}
recipe=$(cd "$(dirname "$recipe")" && pwd)/$(basename "$recipe")
W=$B/launchers
N=${BENCH_N:-3}
for p in ccache redis-server distccd; do
	command -v $p >/dev/null || die "$p is not installed (ci/install-deps.sh installs it)"
done
rm -rf "$W" && mkdir -p "$W/dlog" && chmod 1777 "$W/dlog"
[ -x "$TFBUILD" ] || die "build tfbuild first (make)"
# recipes/m1-plugin.yaml and greet.yaml read their archives from build/mirror.
set --
if grep -q '^  mirror:' "$recipe"; then
	sh "$ROOT/recipes/mirror.sh" "$W/mirror" >/dev/null
	set -- --set "mirror=file://$W/mirror"
fi
export HOME="$W/home" XDG_CACHE_HOME="$W/home/.cache"
mkdir -p "$HOME"

free_port() {
	$PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
rport=$(free_port)
redis-server --bind 127.0.0.1 --port "$rport" --save '' --appendonly no \
	--dir "$W" --logfile "$W/redis.log" &
redis_pid=$!
dport=$(free_port)
: >"$W/dlog/distccd.log" && chmod 666 "$W/dlog/distccd.log"
distccd --daemon --no-detach --allow 127.0.0.1 --listen 127.0.0.1 \
	--port "$dport" --log-file "$W/dlog/distccd.log" &
distccd_pid=$!
trap 'kill $redis_pid $distccd_pid 2>/dev/null' EXIT
sleep 1
cpus=$(nproc)

# The recipe's folder and its siblings it names (../backend, ../patches).
checkout() {
	rm -rf "$1" && mkdir -p "$1"
	src=$(dirname "$(dirname "$recipe")")
	for d in recipes patches backend; do
		[ -d "$src/$d" ] && cp -R "$src/$d" "$1/"
	done
	rm -rf "$1/recipes/build"
}

# run KEY [options]: one timed build from a fresh checkout; seconds to $W/KEY.
run() {
	key=$1
	shift
	co=$W/co-$key
	checkout "$co"
	start=$(date +%s.%N)
	"$TFBUILD" -q recipe --target all --out "$W/out-$key" --cache "$W/cache" \
		"$@" "$co/recipes/$(basename "$recipe")" ||
		die "$key: the build failed"
	end=$(date +%s.%N)
	echo "$start $end" | awk '{ printf "%.1f\n", $2 - $1 }' >>"$W/$key"
	for w in "$W/out-fresh"/*.whl; do
		cmp -s "$w" "$W/out-$key/$(basename "$w")" ||
			die "$key: $(basename "$w") differs from the build without a launcher"
	done
	rm -rf "$W/out-$key" "$co"
}

# Fill the download cache first, untimed.
checkout "$W/co-warmup"
"$TFBUILD" -q fetch --target all --cache "$W/cache" "$@" \
	"$W/co-warmup/recipes/$(basename "$recipe")" >/dev/null 2>&1 || true
i=0
while [ $i -lt "$N" ]; do
	i=$((i + 1))
	mkdir -p "$W/out-fresh" && rm -f "$W/out-fresh"/*
	co=$W/co-fresh
	checkout "$co"
	start=$(date +%s.%N)
	"$TFBUILD" -q recipe --target all --out "$W/out-fresh" --cache "$W/cache" \
		"$@" "$co/recipes/$(basename "$recipe")" || die "fresh: the build failed"
	end=$(date +%s.%N)
	echo "$start $end" | awk '{ printf "%.1f\n", $2 - $1 }' >>"$W/fresh"
	redis-cli -p "$rport" flushall >/dev/null 2>&1 || true
	rm -rf "$W/cc-cold" "$W/cc-warm"
	CCACHE_REMOTE_STORAGE=redis://127.0.0.1:$rport CCACHE_DIR=$W/cc-cold \
		run ccache-cold --launcher ccache "$@"
	CCACHE_REMOTE_STORAGE=redis://127.0.0.1:$rport CCACHE_DIR=$W/cc-warm \
		run ccache-warm --launcher ccache "$@"
	DISTCC_FALLBACK=0 run distcc --launcher distcc \
		--distcc-hosts "127.0.0.1:$dport/$cpus" "$@"
done

median() { sort -n "$W/$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
hits=$(CCACHE_DIR=$W/cc-warm ccache --print-stats | awk '$1 == "remote_storage_hit" { print $2 }')
jobs=$(grep -c COMPILE_OK "$W/dlog/distccd.log" || true)
base=$(median fresh)
echo "Recipe: $(basename "$recipe"), both targets; median of $N runs; $cpus CPUs; $(date -u +%Y-%m-%d)."
echo
echo "| build | wall (s) | vs fresh |"
echo "| --- | ---: | ---: |"
for k in fresh ccache-cold ccache-warm distcc; do
	m=$(median $k)
	case $k in
	fresh) what="fresh checkout, no launcher" ;;
	ccache-cold) what="--launcher ccache, empty local cache and Redis" ;;
	ccache-warm) what="--launcher ccache, fresh checkout, empty local cache, warm Redis ($hits remote hits)" ;;
	distcc) what="--launcher distcc to distccd on 127.0.0.1 ($jobs remote compiles in all)" ;;
	esac
	echo "| $what | $m | $(echo "$m $base" | awk '{ printf "%.2f", $1 / $2 }') |"
done
