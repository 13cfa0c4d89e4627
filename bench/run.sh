#!/bin/sh
# tfbuild's benchmarks: speed and memory, side by side with the
# primitives other packaging tools run, on generated data.
#
#   sh bench/run.sh                  ~300 MiB of data, 5 runs per command
#   BENCH_MB=50 BENCH_N=3 sh bench/run.sh   a quick run
#
# Cases (each command BENCH_N times, interleaved with its rival; the
# median wall time and the largest peak RSS are reported):
#   1. pack a staged tree into a wheel: tfbuild's writer (test-wheel),
#      `python3 -m wheel pack`, and a whole `tfbuild recipe` run that
#      copies the tree in as a `path:` source and packs it from there
#   2. fetch + verify from 127.0.0.1: `tfbuild fetch` vs curl + sha256sum
#   3. extract a .tar.gz: tfbuild's extractor (test-extract) vs tar -xzf
#   4. rebuild: bench/rebuild.sh recipes/greet.yaml
# All data and output stay in bench/tmp/ (git-ignored). The table is
# printed and kept in bench/tmp/results.md; docs/performance.md explains
# it. Needs `make tfbuild` (make bench does it); builds the test tools.
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"

MB=${BENCH_MB:-300}
D=$B/data
S=$D/stage
ARCHIVE=$D/srv/bench-src.tar.gz
TAG=py3-none-linux_x86_64
TABLE=$B/results.md
export TABLE

# Keep the data (slow to make) and the results; drop the outputs.
cleanup() {
	stop_httpd
	for d in pack-tf pack-py pack-rc fetch-curl fetch-tf x-tar x-tf; do
		if [ -e "$B/$d" ]; then
			fresh "$B/$d"
			rmdir "$B/$d"
		fi
	done
	empty_trash
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The staged tree and the archive made from it; kept while BENCH_MB is
# the same (generating them takes a while at full size).
make_data() {
	if [ "$(cat "$D/mb" 2>/dev/null)" = "$MB" ]; then
		return 0
	fi
	if [ -e "$D" ]; then
		mkdir -p "$B/trash"
		mv "$D" "$B/trash/data.$$"
		empty_trash
	fi
	mkdir -p "$D/srv"
	echo "bench: generating $MB MiB of data" >&2
	"$PY" "$BENCH_DIR/gen.py" "$S" "$MB" >"$D/gen.txt"
	# Deterministic, as recipes/mirror.sh makes release archives.
	tar --sort=name --format=gnu --mtime=@1700000000 --owner=0 --group=0 \
		--numeric-owner --transform 's,^stage,bench-src,' \
		-C "$D" -cf - stage | gzip -n -6 >"$ARCHIVE.tmp"
	mv "$ARCHIVE.tmp" "$ARCHIVE"
	echo "$MB" >"$D/mb"
}

# FILE=DST arguments for test-wheel: every file but the .dist-info,
# which tfbuild writes itself.
wheel_args() {
	(cd "$S" && find benchpkg -type f | sort) |
		while read -r f; do echo "$S/$f=$f"; done >"$D/wheel-args"
}

# The same tree through a recipe: a `path:` source, copied into the
# build tree, packed from there (files `from:` the source), checked.
pack_recipe() {
	cp "$BENCH_DIR/benchpkg.yaml" "$D/pack.yaml"
}

# The two wheels must hold the same files (tfbuild writes its own
# METADATA; the sizes of the rest must match).
check_wheels() {
	"$PY" - "$1" "$2" <<'EOF' || die "pack: the wheels differ"
import sys, zipfile
def files(p):
    with zipfile.ZipFile(p) as z:
        return {i.filename: i.file_size for i in z.infolist()
                if ".dist-info/" not in i.filename}
a, b = files(sys.argv[1]), files(sys.argv[2])
sys.exit(a != b or not a)
EOF
}

case_pack() {
	wheel_args
	pack_recipe
	IFS='
'
	set -f
	# shellcheck disable=SC2046
	set -- $(cat "$D/wheel-args")
	set +f
	unset IFS
	i=0
	while [ $i -lt "$BENCH_N" ]; do
		i=$((i + 1))
		sample pack.tfbuild "fresh '$B/pack-tf'" \
			"$TOOL_DIR/test-wheel" pack "$B/pack-tf" --name benchpkg \
			--version 1.0 --tag "$TAG" --epoch 1700000000 --level 6 "$@"
		sample pack.wheel "fresh '$B/pack-py'" \
			"$PY" -m wheel pack "$S" -d "$B/pack-py"
		sample pack.recipe "fresh '$B/pack-rc'" \
			"$TFBUILD" recipe --cache "$B/pack-rc/cache" \
			--build-dir "$B/pack-rc/build" --out "$B/pack-rc/wheels" \
			--jobs 2 "$D/pack.yaml"
	done
	whl=benchpkg-1.0-$TAG.whl
	check_wheels "$B/pack-tf/$whl" "$B/pack-py/$whl"
	check_wheels "$B/pack-tf/$whl" "$B/pack-rc/wheels/$whl"
	c=$(awk '{ printf "1. pack (%d files, %d MiB)", $1, $3 / 1048576 }' "$D/gen.txt")
	row "$c" "python3 -m wheel pack" pack.wheel "" "$(wc -c <"$B/pack-py/$whl")"
	row "$c" "tfbuild wheel writer (test-wheel)" pack.tfbuild pack.wheel \
		"$(wc -c <"$B/pack-tf/$whl")"
	row "$c" "tfbuild recipe: copy in, pack from the source tree, check" \
		pack.recipe pack.wheel "$(wc -c <"$B/pack-rc/wheels/$whl")"
}

case_fetch() {
	sum=$(sha256sum "$ARCHIVE" | cut -d' ' -f1)
	start_httpd "$D/srv"
	url=$HTTP_URL/bench-src.tar.gz
	cat >"$D/fetch.yaml" <<EOF
schema: 1
name: benchfetch
version: "1.0"
sources:
  - name: src
    url: $url
    sha256: $sum
EOF
	i=0
	while [ $i -lt "$BENCH_N" ]; do
		i=$((i + 1))
		# shellcheck disable=SC2016 # $1 and $2 are the inner sh's
		sample fetch.curl "fresh '$B/fetch-curl'" \
			sh -c 'curl -s -o "$1" "$2" && sha256sum "$1"' sh \
			"$B/fetch-curl/src.tar.gz" "$url"
		got=$(cut -d' ' -f1 "$B/cmd.out")
		[ "$got" = "$sum" ] || die "fetch: curl got $got, not $sum"
		sample fetch.tfbuild "fresh '$B/fetch-tf'" \
			"$TFBUILD" fetch --cache "$B/fetch-tf" "$D/fetch.yaml"
		cmp -s "$ARCHIVE" "$B/fetch-tf/sha256/$sum" ||
			die "fetch: tfbuild's cached copy differs"
	done
	stop_httpd
	c="2. fetch + sha256 over HTTP on 127.0.0.1"
	row "$c" "curl -s -o F URL && sha256sum F" fetch.curl "" "$(wc -c <"$ARCHIVE")"
	row "$c" "tfbuild fetch (fresh --cache)" fetch.tfbuild fetch.curl \
		"$(wc -c <"$ARCHIVE")"
}

case_extract() {
	i=0
	while [ $i -lt "$BENCH_N" ]; do
		i=$((i + 1))
		sample extract.tar "fresh '$B/x-tar'" \
			tar -xzf "$ARCHIVE" -C "$B/x-tar" --strip-components=1
		sample extract.tfbuild "fresh '$B/x-tf'" \
			"$TOOL_DIR/test-extract" extract "$ARCHIVE" "$B/x-tf" 1
	done
	diff -r "$B/x-tar" "$B/x-tf" >/dev/null || die "extract: the trees differ"
	bytes=$(du -sb "$B/x-tf" | cut -f1)
	c="3. extract .tar.gz ($(($(wc -c <"$ARCHIVE") / 1048576)) MiB)"
	row "$c" "tar -xzf (GNU tar, gzip in a 2nd process)" extract.tar "" "$bytes"
	row "$c" "tfbuild extract (test-extract)" extract.tfbuild extract.tar "$bytes"
}

machine() {
	echo "load average: at start $load0; at end $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "machine: $(nproc) CPUs, $(lscpu | sed -n 's/^Model name: *//p'), $(free -g | awk '/^Mem:/ { print $2 }') GiB RAM"
	echo "data: BENCH_MB=$MB ($(cat "$D/gen.txt")), BENCH_N=$BENCH_N"
	echo "tfbuild $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'); $(curl --version | head -n 1 | cut -d' ' -f1-2); $(tar --version | head -n 1); wheel $("$PY" -c 'import wheel; print(wheel.__version__)'); $("$PY" --version)"
}

bench_setup
if [ "$TOOL_DIR" = "$ROOT/obj/tool" ]; then
	make -s -C "$ROOT" obj/tool/test-wheel obj/tool/test-extract >/dev/null ||
		die "cannot build the test tools"
fi
load0=$(cut -d' ' -f1-3 /proc/loadavg)
rm -rf "$RES" "$B/over-32mib"
mkdir -p "$RES"
make_data
table_header
for c in pack fetch extract; do
	settle
	echo "bench: case $c" >&2
	"case_$c"
	# The earlier runs' outputs; the last one's go at exit.
	empty_trash
done
settle
echo "bench: case rebuild" >&2
sh "$BENCH_DIR/rebuild.sh" "$ROOT/recipes/greet.yaml"
{
	echo
	machine
	if [ -f "$B/over-32mib" ]; then
		echo "tfbuild's own peak RSS: OVER 32 MiB in: $(cut -d' ' -f1 "$B/over-32mib" | tr '\n' ' ')"
	else
		echo "tfbuild's own peak RSS: under 32 MiB in every case"
	fi
} >>"$TABLE"
cat "$TABLE"
