#!/bin/sh
# A checkout whose path holds a space, quotes, '%', '#', '?' and a
# non-ASCII byte builds: a file URL made from ${recipe_dir} is
# percent-encoded as it is expanded (fetch/url.h), a part the recipe
# wrote already encoded is not encoded twice, and the whole recipe runs
# there (fetch, extract, a make step with $CFLAGS, whose prefix maps
# name the odd build tree escaped, pack, verify). What it shows and
# records names no checkout path, so its wheels, SHA256SUMS and
# provenance (cache keys too) are byte for byte those of the same recipe
# in a plain path.
. "$(dirname "$0")/../lib/test-lib.sh"

odd="$TRASH/b dir 'q\" %41 #? $(printf '\303\251')/src"
plain="$TRASH/plain/src"

# The upstream archive, made once and copied into both checkouts; its
# name has a space, which the recipe writes percent-encoded.
mkdir -p up/pl-1.0 &&
cat >up/pl-1.0/pl.c <<-'EOF' &&
int pl_answer(void) { return 42; }
EOF
printf 'libpl.so: pl.c\n\t$(CC) $(CFLAGS) -shared -o $@ pl.c\n' >up/pl-1.0/Makefile &&
cat >up/pl-1.0/pl.py <<-'EOF' &&
import ctypes, os
lib = ctypes.CDLL(os.path.join(os.path.dirname(__file__), "libpl.so"))
def answer():
    return lib.pl_answer()
EOF
tar -C up --sort=name --mtime=@1700000000 --owner=0 --group=0 \
	--numeric-owner -cf - pl-1.0 | gzip -n >"up/pl 1.0.tar.gz" || exit 1
sum=$(sha256_of "up/pl 1.0.tar.gz")

# checkout DIR: the recipe and its mirror, as a clone would have them.
checkout() {
	mkdir -p "$1/recipes" "$1/mirror" &&
	cp "up/pl 1.0.tar.gz" "$1/mirror/" &&
	cat >"$1/recipes/pl.yaml" <<-EOF
	schema: 1
	name: pl
	version: 1.0.0
	source-date-epoch: 1700000000
	variables:
	  mirror: file://\${recipe_dir}/../mirror
	sources:
	  - name: pl
	    url: \${mirror}/pl%201.0.tar.gz
	    sha256: $sum
	    strip: 1
	steps:
	  - name: lib
	    source: pl
	    run: |
	      make CC="\$CC" CFLAGS="\$CFLAGS -g"
	      mkdir -p "\$STAGE/pl"
	      cp libpl.so "\$STAGE/pl/"
	      cp pl.py "\$STAGE/pl/__init__.py"
	wheels:
	  - name: pl
	    version: 1.0.0
	    summary: A wheel built in a checkout with an odd path
	    license: MIT
	    requires-python: ">=3.8"
	    files:
	      - {from: lib, src: pl, dst: pl}
	EOF
}

build() { # checkout: build the recipe in it, wheels into its out/
	(cd "$1" && "$TFBUILD" recipe --target x86_64 --cache "$1/../cache" \
		--out out recipes/pl.yaml)
}

expect_success 'the recipe builds in a checkout whose path holds odd bytes' '
	checkout "$odd" &&
	build "$odd" >out 2>err &&
	grep -q "^tfbuild: source .pl.: fetching file:../mirror/pl%201.0.tar.gz$" err &&
	test -n "$(ls "$odd"/out/*.whl)" &&
	"$TFBUILD" verify "$odd"/out/*.whl
'

expect_success 'the same recipe in a plain path gives the same bytes' '
	checkout "$plain" &&
	build "$plain" >/dev/null 2>err2 &&
	ls "$odd/out" >l1 && ls "$plain/out" >l2 && compare l1 l2 &&
	test "$(wc -l <l1)" = 3 &&
	for f in "$odd"/out/*; do
		cmp "$f" "$plain/out/$(basename "$f")" || exit 1
	done
'

expect_success 'no wheel holds the odd path; the Meson file has it as one word' '
	for w in "$odd"/out/*.whl; do
		rm -rf x && mkdir x && (cd x && unzip -q "$w") &&
		! grep -rl -e "$TRASH" -e "b dir" x || exit 1
	done &&
	ODD="$odd" "$PYTHON" - "$odd/recipes/build/pl/x86_64/toolchain/meson-native.ini" <<-\EOF
	import ast, os, sys
	odd = os.environ["ODD"]
	for line in open(sys.argv[1], encoding="utf-8"):
	    if line.startswith("c_args = "):
	        args = ast.literal_eval(line[len("c_args = "):])
	want = "-ffile-prefix-map=%s/recipes/build/pl/x86_64=/tfbuild/x86_64" % odd
	assert want in args, args
	EOF
'

expect_success 'the provenance records the URL relative to the recipe' '
	grep -q "\"uri\": \"file:../mirror/pl%201.0.tar.gz\"" "$odd/out/pl.intoto.json" &&
	! grep -q "$TRASH" "$odd/out/pl.intoto.json" &&
	! grep -q "b dir" "$odd/out/pl.intoto.json"
'

expect_success 'a file URL typed with a space and a non-ASCII byte is escaped, not refused' '
	typed="$TRASH/typed $(printf "\303\251")" &&
	mkdir -p "$typed" && cp "up/pl 1.0.tar.gz" "$typed/" &&
	"$TFBUILD" sha256 "file://$typed/pl 1.0.tar.gz" \
		"file://$typed/pl%201.0.tar.gz" | cut -d" " -f1 >got &&
	printf "%s\n%s\n" "$sum" "$sum" >expect &&
	compare expect got
'

test_done
