#!/bin/sh
# tfbuild verify: sound wheels pass, whoever made them (tfbuild or
# python3-wheel); each kind of defect, crafted with Python's zipfile, fails
# with one exact message naming the wheel and the entry, and exit 6.
. "$(dirname "$0")/../lib/test-lib.sh"

whl=demo-1.0-py3-none-linux_x86_64.whl
SQ="'"

mkdir -p src/demo &&
printf 'def add(a, b):\n    return a + b\n' >src/demo/__init__.py &&
printf 'VERSION = "1.0"\n' >src/demo/version.py &&
"$TOOL_DIR/test-wheel" pack good --name demo --version 1.0 \
	--tag py3-none-linux_x86_64 --epoch 1700000000 \
	src/demo/__init__.py=demo/__init__.py \
	src/demo/version.py=demo/version.py >/dev/null || exit 1

# Rewrite good/$whl into MODE/$whl with one defect. Where the defect is
# not about RECORD, RECORD is rewritten to match, so that defect is the
# only one.
cat >mkbad.py <<'EOF'
import base64, hashlib, struct, sys, warnings, zipfile

warnings.simplefilter("ignore")  # zipfile warns about duplicate names
mode, src, dst = sys.argv[1:4]
with zipfile.ZipFile(src) as z:
    entries = [(i.filename, z.read(i)) for i in z.infolist()]
record = "demo-1.0.dist-info/RECORD"


ALGO = "sha256"


def digest(data):
    d = hashlib.new(ALGO, data).digest()
    return ALGO + "=" + base64.urlsafe_b64encode(d).rstrip(b"=").decode()


def rerecord(entries):
    rows = ["%s,%s,%d\n" % (n, digest(d), len(d))
            for n, d in entries if n != record]
    text = ("".join(rows) + record + ",,\n").encode()
    return [(n, text if n == record else d) for n, d in entries]


def edit(entries, name, old, new):
    return [(n, d.replace(old, new) if n == name else d) for n, d in entries]


method = zipfile.ZIP_DEFLATED
if mode in ("sha384", "sha512", "sha1", "sha512-tampered"):
    ALGO = mode.split("-")[0]
    entries = rerecord(entries)
if mode == "sha512-tampered":
    method = zipfile.ZIP_STORED
    entries = edit(entries, "demo/__init__.py", b"a + b", b"a - b")
if mode == "tampered":
    method = zipfile.ZIP_STORED
    entries = edit(entries, "demo/__init__.py", b"a + b", b"a - b")
elif mode == "unlisted":
    entries.insert(0, ("demo/extra.py", b"x = 1\n"))
elif mode == "missing":
    entries = [(n, d) for n, d in entries if n != "demo/version.py"]
elif mode == "duplicate":
    entries.insert(1, entries[0])
elif mode == "evil":
    entries = rerecord([("../evil", b"evil\n")] + entries)
elif mode == "version":
    entries = rerecord(edit(entries, "demo-1.0.dist-info/METADATA",
                            b"Version: 1.0", b"Version: 1.1"))
elif mode == "tag":
    entries = rerecord(edit(entries, "demo-1.0.dist-info/WHEEL",
                            b"py3-none-linux_x86_64", b"py3-none-any"))
with zipfile.ZipFile(dst, "w", method) as z:
    for n, d in entries:
        z.writestr(n, d)

if mode == "corrupt":
    # Flip a byte in the middle of demo/__init__.py's compressed data.
    data = bytearray(open(dst, "rb").read())
    info = zipfile.ZipFile(dst).getinfo("demo/__init__.py")
    name_len, extra_len = struct.unpack(
        "<HH", data[info.header_offset + 26:info.header_offset + 30])
    start = info.header_offset + 30 + name_len + extra_len
    data[start + info.compress_size // 2] ^= 0x01
    open(dst, "wb").write(data)
EOF

bad() { # MODE: craft MODE/$whl
	mkdir -p "$1" && "$PYTHON" mkbad.py "$1" "good/$whl" "$1/$whl"
}

# defect MODE MESSAGE: verify fails on MODE/$whl with exactly
# "tfbuild: MODE/$whl: MESSAGE" and exit 6, printing nothing on stdout.
defect() {
	bad "$1" &&
	printf "tfbuild: %s/%s: %s\n" "$1" "$whl" "$2" >expect &&
	expect_code 6 tfbuild verify "$1/$whl" >out 2>actual &&
	compare expect actual &&
	compare /dev/null out
}

expect_success 'a wheel from tfbuild is sound' '
	echo "ok  good/$whl" >expect &&
	tfbuild verify "good/$whl" >actual 2>err &&
	compare expect actual &&
	compare /dev/null err
'

expect_success 'a wheel from python3 -m wheel pack is sound' '
	mkdir -p tree/demo-1.0/demo-1.0.dist-info wp &&
	cp -R src/demo tree/demo-1.0/ &&
	printf "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n" \
		>tree/demo-1.0/demo-1.0.dist-info/METADATA &&
	printf "Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: false\nTag: py3-none-linux_x86_64\n" \
		>tree/demo-1.0/demo-1.0.dist-info/WHEEL &&
	"$PYTHON" -m wheel pack -d wp tree/demo-1.0 >/dev/null &&
	echo "ok  wp/$whl" >expect &&
	tfbuild verify "wp/$whl" >actual &&
	compare expect actual
'

expect_success 'a plain copy made with zipfile is sound' '
	bad copy &&
	tfbuild -q verify "copy/$whl" >actual &&
	compare /dev/null actual
'

expect_success 'one byte changed in a stored entry: sha256 mismatch' '
	defect tampered "demo/__init__.py: sha256 does not match RECORD"
'

# The cause after "corrupt data:" is libarchive's; the CRCs follow from the
# fixed content and zlib's output for it.
expect_success 'RECORD hashes sha384 and sha512 are accepted and checked' '
	bad sha384 && tfbuild -q verify sha384/$whl &&
	bad sha512 && tfbuild -q verify sha512/$whl &&
	unzip -p sha512/$whl demo-1.0.dist-info/RECORD | grep -q "^demo/version.py,sha512=" &&
	defect sha512-tampered "demo/__init__.py: sha512 does not match RECORD" &&
	defect sha1 "demo-1.0.dist-info/RECORD: line 1: hash of ${SQ}demo/__init__.py${SQ} is not sha256=<urlsafe base64> (or sha384, sha512)"
'

expect_success 'a byte flipped in compressed data: corrupt entry' '
	defect corrupt "demo/__init__.py: corrupt data: ZIP bad CRC: 0xda1df94b should be 0xeef4787b"
'

expect_success 'an entry missing from RECORD' '
	defect unlisted "demo/extra.py: not listed in RECORD"
'

expect_success 'a RECORD line for a file that is not there' '
	defect missing "demo/version.py: listed in RECORD but missing from the archive"
'

expect_success 'a duplicate entry name' '
	defect duplicate "demo/__init__.py: duplicate entry name"
'

expect_success 'a ../ entry name' '
	defect evil "../evil: entry name has a '\''..'\'' component"
'

expect_success 'METADATA Version disagrees with the filename' '
	defect version "demo-1.0.dist-info/METADATA: Version '\''1.1'\'' does not match the filename'\''s '\''1.0'\''"
'

expect_success 'a WHEEL Tag disagrees with the filename' '
	defect tag "demo-1.0.dist-info/WHEEL: Tag '\''py3-none-any'\'' is not in the filename"
'

expect_success 'every wheel is checked; exit 6 if any is bad' '
	printf "ok  good/%s\nok  wp/%s\n" "$whl" "$whl" >expect &&
	printf "tfbuild: evil/%s: ../evil: entry name has a '\''..'\'' component\n" \
		"$whl" >expect_err &&
	expect_code 6 tfbuild verify "good/$whl" "evil/$whl" "wp/$whl" \
		>actual 2>err &&
	compare expect actual &&
	compare expect_err err
'

expect_success 'files that are not wheels' '
	cat >expect <<-EOF &&
	tfbuild: nope.whl: cannot open: No such file or directory
	tfbuild: good: not a regular file
	tfbuild: demo.whl: filename is not NAME-VERSION[-BUILD]-PYTHON-ABI-PLATFORM.whl
	tfbuild: x/demo-1.0-py3-none-any.whl: cannot read the zip archive: Unrecognized archive format
	EOF
	cp src/demo/__init__.py demo.whl &&
	mkdir x && cp src/demo/__init__.py x/demo-1.0-py3-none-any.whl &&
	expect_code 6 tfbuild verify nope.whl good demo.whl \
		x/demo-1.0-py3-none-any.whl 2>actual &&
	compare expect actual
'

expect_success 'usage errors exit 2' '
	expect_code 2 tfbuild verify 2>err &&
	head -n 1 err >actual &&
	echo "tfbuild: no wheel given" >expect &&
	compare expect actual &&
	expect_code 2 tfbuild verify --bogus "good/$whl" 2>err &&
	head -n 1 err >actual &&
	echo "tfbuild: unknown option '\''--bogus'\''" >expect &&
	compare expect actual
'

expect_success '-q after the command, and -- before names' '
	tfbuild verify -q -- "good/$whl" >actual &&
	compare /dev/null actual
'

# glibc re-checks /etc/localtime at every mktime() while TZ is unset, and
# libarchive calls mktime() for every zip header: tfbuild sets TZ for
# itself (run.c), so a 400-entry wheel is not 4,000 stats of the file.
expect_success 'verify looks up the local time zone once, not per entry' '
	command -v strace >/dev/null || { echo "strace missing" >&2; false; } &&
	mkdir -p many/demo &&
	i=0 && while test $i -lt 400; do
		echo "x = $i" >many/demo/m$i.py && i=$((i + 1))
	done &&
	"$TOOL_DIR/test-wheel" pack manyw --name demo --version 1.0 \
		--tag py3-none-linux_x86_64 --epoch 1700000000 \
		$(cd many && for f in demo/*.py; do printf "many/%s=%s " "$f" "$f"; done) \
		>/dev/null &&
	(unset TZ &&
	 ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	 strace -f -qq -e trace=stat,newfstatat,statx,openat -o trace \
		"$TFBUILD" verify -q "manyw/$whl") &&
	n=$(grep -c "/etc/localtime" trace) &&
	test "$n" -le 5 || { echo "/etc/localtime looked up $n times" >&2; false; }
'

test_done
