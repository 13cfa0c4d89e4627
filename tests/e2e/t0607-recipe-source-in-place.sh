#!/bin/sh
# A path source that no step uses (only wheels' `files: from:` read it) is
# read where it is, not copied into the build tree: the same wheel, bytes
# for bytes, as from the copy; an edit to it is packed on the next run;
# as soon as a step builds in it, reads it or names it, it is copied
# again, so no step is ever given a path into the user's tree.
. "$(dirname "$0")/../lib/test-lib.sh"

mkdir -p proj/tree/pure/sub
echo 'VALUE = 1' >proj/tree/pure/__init__.py
echo 'X = "abc"' >proj/tree/pure/sub/x.py
printf 'data\n' >proj/tree/pure/sub/data.txt
printf '# pure\n\nread from the tree\n' >proj/tree/README.md
cat >proj/r.yaml <<'EOF2'
schema: 1
name: pure
version: 1.0.0
source-date-epoch: 1700000000
sources:
  - {name: tree, path: tree}
wheels:
  - name: pure
    version: 1.0.0
    readme: ${src.tree}/README.md
    files:
      - {from: tree, src: pure, dst: .}
EOF2
# The same recipe with a step that only names the source's tree.
sed 's/^wheels:/steps:\n  - {name: look, run: "ls ${src.tree} >\/dev\/null; mkdir -p $STAGE"}\nwheels:/' \
	proj/r.yaml >proj/copied.yaml
wheel=pure-1.0.0-py3-none-any.whl
copy=proj/build/r/x86_64/src/tree
run() { "$TFBUILD" recipe --out out "$@" proj/r.yaml; }
packed() { ! grep -q "out/$wheel is up to date$" err; }

expect_success 'a source only wheels read is packed in place, not copied' '
	run -v 2>err >/dev/null && "$TFBUILD" verify "out/$wheel" &&
	grep -q "source .tree. for x86_64 is read in place from $PWD/proj/tree$" err &&
	test ! -e "$copy" && test ! -e proj/build/r/x86_64/stamps/src-tree &&
	unzip -p "out/$wheel" pure/sub/x.py >actual && compare proj/tree/pure/sub/x.py actual
'

expect_success '${src.tree} in a wheel names the tree that is read' '
	unzip -p "out/$wheel" pure-1.0.0.dist-info/METADATA >meta &&
	grep -qx "read from the tree" meta
'

expect_success 'the wheel is byte-identical to the one packed from a copy' '
	"$TFBUILD" recipe --out copied --build-dir cbuild -v proj/copied.yaml 2>err >/dev/null &&
	! grep -q "read in place" err && test -d cbuild/copied/x86_64/src/tree &&
	cmp "out/$wheel" "copied/$wheel"
'

expect_success 'an unchanged second run keeps the wheel' '
	run 2>err >/dev/null && ! packed
'

expect_success 'an edit in the tree (same size, mtime kept) is packed on the next run' '
	touch -r proj/tree/pure/sub/x.py stamp-ref &&
	echo "X = \"xyz\"" >proj/tree/pure/sub/x.py &&
	touch -r stamp-ref proj/tree/pure/sub/x.py &&
	run 2>err >/dev/null && packed &&
	test "$(unzip -p "out/$wheel" pure/sub/x.py)" = "X = \"xyz\""
'

expect_success 'a new file in the tree is packed on the next run' '
	echo "Y = 1" >proj/tree/pure/sub/y.py &&
	run 2>err >/dev/null && packed &&
	unzip -Z1 "out/$wheel" | grep -qx pure/sub/y.py
'

expect_success 'a step that builds in the source gets a copy; the tree is untouched' '
	cat >proj/r.yaml <<-EOF2 &&
	schema: 1
	name: pure
	version: 1.0.0
	sources:
	  - {name: tree, path: tree}
	steps:
	  - name: b
	    source: tree
	    run: echo made >made.txt && mkdir -p "\$STAGE" && touch "\$SRCDIR/also.txt"
	wheels:
	  - name: pure
	    version: 1.0.0
	    files:
	      - {from: tree, src: pure, dst: .}
	EOF2
	(cd proj/tree && find . | LC_ALL=C sort) >before &&
	run -v 2>err >/dev/null && ! grep -q "read in place" err &&
	test -f "$copy/made.txt" && test -f "$copy/also.txt" &&
	(cd proj/tree && find . | LC_ALL=C sort) >after && compare before after
'

# Without the step sandbox, in which ${src.NAME} is read-only (t2120).
expect_success 'a step writing through ${src.NAME} writes into the copy' '
	export TFBUILD_SANDBOX=off &&
	cat >proj/r.yaml <<-EOF2 &&
	schema: 1
	name: pure
	version: 1.0.0
	sources:
	  - {name: tree, path: tree}
	variables:
	  where: \${src.tree}
	steps:
	  - name: w
	    run: echo x >"\${where}/written.txt" && mkdir -p "\$STAGE"
	wheels:
	  - name: pure
	    version: 1.0.0
	    files:
	      - {from: tree, src: pure, dst: .}
	EOF2
	run -v 2>err >/dev/null && ! grep -q "read in place" err &&
	test -f "$copy/written.txt" && test ! -e proj/tree/written.txt
'

expect_success 'once no step uses it again, the old copy and its stamp go' '
	cp proj/copied.yaml proj/r.yaml && sed -i "/name: look/d; /^steps:/d" proj/r.yaml &&
	run -v 2>err >/dev/null && grep -q "read in place" err &&
	test ! -e "$copy" && test ! -e proj/build/r/x86_64/stamps/src-tree
'

# The first packing reads each file of the tree once: the writer's SHA-256
# of it also serves the tree's digest (the wheel's stamp), taken after.
# The other open is pack.c's 4-byte look at the ELF magic.
expect_success 'a first packing reads each file of the tree once' '
	command -v strace >/dev/null || { echo "strace missing" >&2; false; } &&
	rm -rf out proj/build &&
	(ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	 strace -f -qq -e trace=openat -o trace \
		"$TFBUILD" recipe --out out proj/r.yaml >/dev/null 2>&1) &&
	test -f "out/$wheel" &&
	n=$(grep -c "proj/tree/pure/sub/x.py\"" trace) &&
	{ test "$n" -le 2 || { echo "x.py opened $n times" >&2; false; }; } &&
	run 2>err >/dev/null && ! packed
'

# pack.c's look at the ELF magic is shared by --jobs threads (every jobs-th
# file each) once a wheel has 1024 files or more: a library anywhere in
# the list is found, whichever thread looks at it, and the wheel is the
# same at every thread count.
expect_success 'a library among 1500 files is found at --jobs 1, 3 and 4' '
	mkdir -p proj/many/many &&
	i=0 && while [ $i -lt 1500 ]; do
		echo "N = $i" >"proj/many/many/f$(printf %04d $i).py"; i=$((i + 1))
	done &&
	sh "$SRC_ROOT/tests/fixtures/elf/build.sh" fx x86/libtiny.so &&
	cp fx/x86/libtiny.so proj/many/many/f0777.so &&
	sed -e "s/pure/many/g" -e "s/tree/many/g" -e "/readme:/d" proj/r.yaml \
		>proj/many.yaml &&
	packs() { "$TFBUILD" recipe --jobs "$1" --out "many$1" --build-dir "mb$1" \
		proj/many.yaml >/dev/null 2>&1; } &&
	packs 1 && packs 3 && packs 4 &&
	whl=$(cd many1 && ls *.whl) &&
	case $whl in many-1.0.0-py3-none-manylinux*_x86_64.whl) ;; *) false ;; esac &&
	cmp "many1/$whl" "many3/$whl" && cmp "many1/$whl" "many4/$whl"
'

test_done
