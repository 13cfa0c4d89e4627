#!/bin/sh
# Secrets stay out of artifacts: a source URL's user:secret@ never
# reaches a file tfbuild writes (wheels, SHA256SUMS, provenance, logs,
# stamps, --json), nor a message. The provenance records sources by
# their canonical URL and digest, without a path of the build machine:
# two checkouts give byte-identical provenance.
. "$(dirname "$0")/../lib/test-lib.sh"

mkdir -p srv tree/src
echo "print(1)" >tree/src/m.py
tar -C tree --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
	-cf srv/src.tar src
sum=$(sha256_of srv/src.tar)
start_httpd "$TRASH/srv" || exit 1
cred_url=$(echo "$HTTP_URL" | sed "s|http://|http://user:tfb-secret-42@|")

# write_recipe DIR URL: a recipe that fetches URL, builds and packs.
write_recipe() {
	mkdir -p "$1"
	cat >"$1/r.yaml" <<-EOF
	schema: 1
	name: r
	version: 1.0.0
	variables:
	  mirror: file://\${recipe_dir}/../mirror
	sources:
	  - name: src
	    url: $2
	    sha256: $sum
	    strip: 1
	steps:
	  - name: lib
	    source: src
	    run: |
	      mkdir -p "\$STAGE/pkg"
	      cp m.py "\$STAGE/pkg/__init__.py"
	wheels:
	  - name: r
	    version: 1.0.0
	    platform: any
	    files:
	      - {from: lib, src: pkg, dst: pkg}
	EOF
}

expect_success 'a URL with user:secret@: no file written holds the secret' '
	write_recipe proj "$cred_url/src.tar" &&
	"$TFBUILD" recipe --json --cache cache --out out proj/r.yaml >events 2>err &&
	grep -q "GET /src.tar" .httpd.log &&
	test -f out/r.intoto.json && test -d proj/build &&
	! grep -r -l -e tfb-secret-42 -e "user:" out proj/build events err &&
	grep -q "\"uri\": \"http://\*\*\*@127.0.0.1:[0-9]*/src.tar\"" out/r.intoto.json
'

expect_success 'a --set value with credentials is not recorded either' '
	write_recipe proj2 "\${mirror}/src.tar" &&
	"$TFBUILD" recipe --cache cache --out out2 --set mirror="$cred_url" \
		proj2/r.yaml >log 2>err &&
	! grep -r -l -e tfb-secret-42 -e "user:" out2 proj2/build log err &&
	grep -q "\"mirror\": \"http://\*\*\*@127.0.0.1:[0-9]*\"" out2/r.intoto.json
'

expect_success 'two checkouts give byte-identical provenance' '
	mkdir -p one/mirror two/mirror &&
	cp srv/src.tar one/mirror/ && cp srv/src.tar two/mirror/ &&
	write_recipe one/recipes "\${mirror}/src.tar" &&
	write_recipe two/recipes "\${mirror}/src.tar" &&
	(cd one && "$TFBUILD" recipe -q --cache ../cache1 --out out recipes/r.yaml) &&
	(cd two && "$TFBUILD" recipe -q --cache ../cache2 --out out recipes/r.yaml) &&
	cmp one/out/r.intoto.json two/out/r.intoto.json &&
	cmp one/out/SHA256SUMS two/out/SHA256SUMS &&
	! grep -q "$TRASH" one/out/r.intoto.json &&
	grep -q "\"uri\": \"file:../mirror/src.tar\"" one/out/r.intoto.json
'

expect_success 'an absolute recipe path is not recorded' '
	(cd one && "$TFBUILD" recipe -q --cache ../cache1 --out out2 "$TRASH/one/recipes/r.yaml") &&
	! grep -q "$TRASH" one/out2/r.intoto.json &&
	grep -q "\"path\": \"r.yaml\"" one/out2/r.intoto.json
'

test_done
