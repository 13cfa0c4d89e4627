#!/bin/sh
# Extract: members that would write outside dest, or that are not plain
# files, directories or links, are refused with the archive and the member
# named exactly, and nothing lands outside dest.
. "$(dirname "$0")/../lib/test-lib.sh"

cat >mk.py <<'EOF_PY'
import io, sys, tarfile
outside = sys.argv[1]

def member(t, name, kind="file", target="", data=b"x\n"):
    ti = tarfile.TarInfo(name)
    ti.mode = 0o755 if kind == "dir" else 0o644
    ti.type = {"file": tarfile.REGTYPE, "dir": tarfile.DIRTYPE,
               "sym": tarfile.SYMTYPE, "hard": tarfile.LNKTYPE,
               "chr": tarfile.CHRTYPE, "fifo": tarfile.FIFOTYPE}[kind]
    ti.linkname = target
    if kind == "chr":
        ti.devmajor, ti.devminor = 1, 3
    if kind == "file":
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
    else:
        t.addfile(ti)

archives = {
    "dotdot": [("pkg/ok.txt",), ("../escape.txt",)],
    "dotdot-mid": [("pkg/a/../../escape.txt",)],
    "abs": [(outside + "/abs.txt",)],
    "sym-tmp": [("pkg/link", "sym", "/tmp"),
                ("pkg/link/tfbuild-t0302-sentinel",)],
    "sym-rel": [("pkg/sub/link", "sym", "../../outside"),
                ("pkg/sub/link/x",)],
    "sym-inside": [("pkg/d/", "dir"), ("pkg/link", "sym", "d"),
                   ("pkg/link/x",)],
    "sym-dotdot": [("pkg/a/b", "sym", ".."), ("pkg/c", "sym", "a/b/..")],
    "sym-strip": [("pkg/README",), ("pkg/sub/up", "sym", "../README")],
    "hard-rel": [("pkg/h", "hard", "../outside/secret")],
    "hard-abs": [("pkg/h", "hard", outside + "/secret")],
    "hard-sym": [("pkg/a/b/l", "sym", "../.."), ("pkg/l2", "hard", "pkg/a/b/l")],
    "dev": [("pkg/dev/null", "chr")],
    "fifo": [("pkg/fifo", "fifo")],
}
for name, members in archives.items():
    with tarfile.open(name + ".tar.gz", "w:gz") as t:
        for m in members:
            member(t, *m)
EOF_PY

# refuse NAME STRIP MESSAGE: extraction into x-NAME/dest fails with MESSAGE.
refuse() {
	mkdir -p "x-$1/dest" &&
	expect_code 1 "$TOOL_DIR/test-extract" extract "$1.tar.gz" "x-$1/dest" "$2" 2>err &&
	echo "tfbuild: $1.tar.gz: $3" >expect &&
	compare expect err
}

# Beside dest and in outside/, nothing new.
nothing_outside() {
	(cd "x-$1" && find . -maxdepth 1 | sort) >actual-outside &&
	(cd outside && find . | sort) >>actual-outside &&
	printf ".\n./dest\n.\n./secret\n" >expect-outside &&
	compare expect-outside actual-outside
}

expect_success 'set up the archives' '
	mkdir outside &&
	echo secret >outside/secret &&
	"$PYTHON" mk.py "$TRASH/outside" &&
	rm -f /tmp/tfbuild-t0302-sentinel
'

expect_success 'a member with ".." is refused, nothing written' '
	refuse dotdot 1 "member '\''../escape.txt'\'': path escapes the extraction directory" &&
	nothing_outside dotdot
'

expect_success 'a ".." in the middle of a name is refused' '
	refuse dotdot-mid 1 "member '\''pkg/a/../../escape.txt'\'': path escapes the extraction directory" &&
	nothing_outside dotdot-mid
'

expect_success 'an absolute member is refused' '
	refuse abs 0 "member '\''$TRASH/outside/abs.txt'\'': absolute path is not allowed" &&
	nothing_outside abs
'

expect_success 'a symlink to /tmp is refused before a file goes through it' '
	refuse sym-tmp 1 "member '\''pkg/link'\'': symlink target '\''/tmp'\'' points outside the tree" &&
	test ! -e /tmp/tfbuild-t0302-sentinel &&
	nothing_outside sym-tmp
'

expect_success 'a relative symlink climbing out is refused' '
	refuse sym-rel 1 "member '\''pkg/sub/link'\'': symlink target '\''../../outside'\'' points outside the tree" &&
	nothing_outside sym-rel
'

expect_success 'writing through a symlink inside the tree is refused too' '
	refuse sym-inside 1 "member '\''pkg/link/x'\'': Cannot extract through symlink link/x" &&
	test ! -e x-sym-inside/dest/d/x &&
	nothing_outside sym-inside
'

expect_success 'a symlink target with ".." after a name is refused' '
	refuse sym-dotdot 1 "member '\''pkg/c'\'': symlink target '\''a/b/..'\'' has '\''..'\'' after a name" &&
	nothing_outside sym-dotdot
'

expect_success 'a link inside at strip=1 is outside at strip=2' '
	mkdir -p x-ok/dest &&
	"$TOOL_DIR/test-extract" extract sym-strip.tar.gz x-ok/dest 1 &&
	test "$(cat x-ok/dest/sub/up)" = "x" &&
	refuse sym-strip 2 "member '\''pkg/sub/up'\'': symlink target '\''../README'\'' points outside the tree"
'

expect_success 'a hardlink to a file outside is refused' '
	refuse hard-rel 1 "member '\''pkg/h'\'': hardlink target '\''../outside/secret'\'' points outside the tree" &&
	refuse hard-abs 1 "member '\''pkg/h'\'': hardlink target '\''$TRASH/outside/secret'\'' points outside the tree" &&
	test "$(stat -c %h outside/secret)" = 1 &&
	nothing_outside hard-rel &&
	nothing_outside hard-abs
'

expect_success 'a hardlink to a symlink is refused' '
	refuse hard-sym 1 "member '\''pkg/l2'\'': hardlink target '\''pkg/a/b/l'\'' is a symlink" &&
	test ! -e x-hard-sym/dest/l2
'

expect_success 'a device node is refused' '
	refuse dev 1 "member '\''pkg/dev/null'\'': device nodes are not allowed" &&
	test ! -e x-dev/dest/dev/null
'

expect_success 'a FIFO is refused' '
	refuse fifo 1 "member '\''pkg/fifo'\'': FIFOs are not allowed" &&
	test ! -e x-fifo/dest/fifo
'

test_done
