#!/bin/sh
# A FIFO where verify reads a file beside a wheel is refused before any
# read, with a message, at once (timeout 5 here; verify hung before): the
# index's {name}-{version}-variants.json, the wheel's .intoto.jsonl
# under --attestation-trust, and a wheel that SHA256SUMS or the
# provenance lists. The same files as regular files pass.
. "$(dirname "$0")/../lib/test-lib.sh"

fix="$SRC_ROOT/tests/fixtures/variants"
plat=py3-none-manylinux_2_5_x86_64.manylinux1_x86_64
v1=dot8-1.0.0-$plat-x86_64_v1.whl

expect_success 'a variants build, signed: verify passes with every file regular' '
	cp -R "$fix" a &&
	sed "s/^targets: .*/targets: [x86_64]/" "$fix/recipe.yaml" >a/recipe.yaml &&
	"$TFBUILD" cache keygen signer >/dev/null &&
	"$TFBUILD" recipe --target x86_64 a/recipe.yaml --out w \
		--attestation-key signer.key 2>err &&
	ls w/$v1.intoto.jsonl &&
	timeout 5 "$TFBUILD" verify --sums w/SHA256SUMS --provenance w/dot8.intoto.json \
		--attestation-trust signer.pub w/$v1
'

expect_success 'a FIFO variants.json beside the wheel: refused at once' '
	mkdir fv &&
	cp w/$v1 fv/ &&
	mkfifo fv/dot8-1.0.0-variants.json &&
	expect_code 6 timeout 5 "$TFBUILD" verify fv/$v1 2>err &&
	grep "^tfbuild: fv/$v1: fv/dot8-1.0.0-variants.json: not a regular file (a FIFO)$" err
'

expect_success 'a FIFO .intoto.jsonl under --attestation-trust: refused at once' '
	mkdir fa &&
	cp w/$v1 fa/ &&
	mkfifo fa/$v1.intoto.jsonl &&
	expect_code 6 timeout 5 "$TFBUILD" verify --attestation-trust signer.pub fa/$v1 2>err &&
	grep "^tfbuild: fa/$v1.intoto.jsonl: not a regular file (a FIFO)$" err
'

expect_success 'a listed wheel that is a FIFO, under --sums and --provenance: refused at once' '
	cp -R w fs &&
	rm fs/$v1 &&
	mkfifo fs/$v1 &&
	expect_code 6 timeout 5 "$TFBUILD" verify --sums fs/SHA256SUMS 2>err &&
	grep "^tfbuild: fs/$v1: not a regular file$" err &&
	expect_code 6 timeout 5 "$TFBUILD" verify --provenance fs/dot8.intoto.json 2>err &&
	grep "^tfbuild: fs/$v1: not a regular file$" err &&
	expect_code 6 timeout 5 "$TFBUILD" verify --attestation-trust signer.pub fs/$v1 2>err &&
	grep "^tfbuild: fs/$v1: not a regular file$" err
'

test_done
