#!/bin/sh
# Extract: tar.gz, tar.xz, tar.bz2 and zip give the same tree with strip=1,
# modes reduced to 0755/0644, symlinks kept, nothing stripped away left.
. "$(dirname "$0")/../lib/test-lib.sh"

# A listing with modes, file sizes and link targets, sorted.
list() {
	(cd "$1" && find . -mindepth 1 \
		\( -type d -printf '%p %M\n' \) -o \
		\( -type l -printf '%p %M -> %l\n' \) -o \
		-printf '%p %M %s\n' | sort)
}

expect_success 'set up a source tree and archives of it' '
	mkdir -p src/pkg-1.0/sub/deep &&
	echo hello >src/pkg-1.0/README &&
	printf "#!/bin/sh\necho hi\n" >src/pkg-1.0/sub/run.sh &&
	echo deep >src/pkg-1.0/sub/deep/f.txt &&
	echo secret >src/pkg-1.0/private &&
	ln -s ../README src/pkg-1.0/sub/readme-link &&
	chmod 4750 src/pkg-1.0/sub/run.sh &&
	chmod 0600 src/pkg-1.0/private &&
	chmod 0700 src/pkg-1.0/sub/deep &&
	tar -C src -cf pkg.tar pkg-1.0 &&
	gzip -n -k pkg.tar &&
	"$PYTHON" -c "
import bz2, lzma
data = open(\"pkg.tar\", \"rb\").read()
open(\"pkg.tar.bz2\", \"wb\").write(bz2.compress(data))
open(\"pkg.tar.xz\", \"wb\").write(lzma.compress(data))
" &&
	(cd src && "$PYTHON" -c "
import os, zipfile
z = zipfile.ZipFile(\"../pkg.zip\", \"w\", zipfile.ZIP_DEFLATED)
for root, dirs, files in sorted(os.walk(\"pkg-1.0\")):
    z.write(root)
    for f in sorted(files):
        p = os.path.join(root, f)
        if os.path.islink(p):
            i = zipfile.ZipInfo(p)
            i.create_system = 3
            i.external_attr = 0o120777 << 16
            z.writestr(i, os.readlink(p))
        else:
            z.write(p)
z.close()
")
'

cat >expect <<'EOF_LIST'
./README -rw-r--r-- 6
./private -rw-r--r-- 7
./sub drwxr-xr-x
./sub/deep drwxr-xr-x
./sub/deep/f.txt -rw-r--r-- 5
./sub/readme-link lrwxrwxrwx -> ../README
./sub/run.sh -rwxr-xr-x 18
EOF_LIST

for a in pkg.tar.gz pkg.tar.xz pkg.tar.bz2 pkg.zip; do
	expect_success "$a extracts with strip=1" "
		mkdir out-$a &&
		\"\$TOOL_DIR/test-extract\" extract $a out-$a 1 &&
		list out-$a >actual-$a &&
		compare expect actual-$a
	"
done

expect_success 'strip=0 keeps the top directory' '
	mkdir out0 &&
	"$TOOL_DIR/test-extract" extract pkg.tar.gz out0 0 &&
	test -f out0/pkg-1.0/README &&
	test -x out0/pkg-1.0/sub/run.sh
'

expect_success 'strip=2 drops members left with nothing' '
	tar -C src -czf nolink.tar.gz --exclude=readme-link pkg-1.0 &&
	mkdir out2 &&
	"$TOOL_DIR/test-extract" extract nolink.tar.gz out2 2 &&
	(cd out2 && find . -mindepth 1 | sort) >actual &&
	printf "./deep\n./deep/f.txt\n./run.sh\n" >expect2 &&
	compare expect2 actual
'

expect_success 'a strip that leaves nothing at all is an error' '
	mkdir out9 &&
	expect_code 1 "$TOOL_DIR/test-extract" extract pkg.tar.gz out9 9 2>err &&
	echo "tfbuild: pkg.tar.gz: nothing left to extract with strip 9" >expect9 &&
	compare expect9 err
'

expect_success 'a UTF-8 member name survives in the C locale' '
	"$PYTHON" -c "
import zipfile
z = zipfile.ZipFile(\"u.zip\", \"w\")
z.writestr(\"pkg/caf\u00e9.txt\", \"x\")
z.close()
" &&
	mkdir outu &&
	LC_ALL=C "$TOOL_DIR/test-extract" extract u.zip outu 1 &&
	test -f "$(printf "outu/caf\303\251.txt")"
'

test_done
