#!/bin/sh
# Issue 39, a new user's point 3: a cross step that runs a build-machine
# program missing from its allow-list fails with the shell's bare
# "X: command not found" (exit 127); tfbuild then points at the
# recipe's `host-tools` key, at the step's position, naming the program
# and where the build machine has it (build/failure.c, docs/cross.md).
# A program the build machine lacks gets no such hint, and listing the
# program in host-tools is the fix.
. "$(dirname "$0")/../lib/test-lib.sh"

# recipe FILE SHELL PROGRAM [HOST-TOOLS]: one aarch64 step running it.
recipe() {
	cat >"$1" <<-EOF &&
	schema: 1
	name: r
	version: 1.0.0
	targets: [aarch64]
	shell: $2
	${4:+host-tools: [$4]}
	steps:
	  - name: gen
	    run: |
	      $3 version >\$STAGE/out.txt
	wheels:
	  - name: r
	    version: 1.0.0
	    files:
	      - from: gen
	        src: out.txt
	        dst: r/out.txt
	EOF
	sed -i "/^\$/d" "$1"
}

openssl=$(command -v openssl)

expect_success 'sh (dash): "openssl: not found" points at host-tools' '
	recipe r.yaml sh openssl &&
	expect_code 5 "$TFBUILD" recipe --target aarch64 --build-dir b --out o r.yaml 2>err &&
	grep -F ": openssl: not found" err &&
	grep -x "tfbuild: r.yaml:7:5: step '"'"'gen'"'"' for aarch64 ran '"'"'openssl'"'"', a build-machine program ($openssl) that is not on a cross step'"'"'s allow-list: add it to the recipe'"'"'s '"'"'host-tools'"'"' (docs/cross.md#host-tools)" err
'

expect_success 'bash: "openssl: command not found" gets the same hint' '
	recipe rb.yaml bash openssl &&
	expect_code 5 "$TFBUILD" recipe --target aarch64 --build-dir bb --out ob rb.yaml 2>err &&
	grep -F "openssl: command not found" err &&
	grep "^tfbuild: rb.yaml:7:5: step .gen. for aarch64 ran .openssl., a build-machine program ($openssl) .*host-tools" err
'

expect_success 'a program the build machine lacks gets no hint, only the log' '
	recipe rn.yaml sh no-such-tfbuild-tool &&
	expect_code 5 "$TFBUILD" recipe --target aarch64 --build-dir bn --out on rn.yaml 2>err &&
	grep -F "no-such-tfbuild-tool: not found" err &&
	! grep host-tools err
'

expect_success 'the native target runs it on the fixed PATH: no failure' '
	sed "s/\[aarch64\]/[x86_64]/" r.yaml >rx.yaml &&
	"$TFBUILD" recipe --build-dir bx --out ox rx.yaml 2>err &&
	! grep host-tools err
'

expect_success 'listing it in host-tools is the fix' '
	recipe rh.yaml sh openssl openssl &&
	"$TFBUILD" recipe --target aarch64 --build-dir bh --out oh rh.yaml 2>err &&
	grep -q "^OpenSSL" bh/rh/aarch64/stage/gen/out.txt
'

test_done
