#!/bin/sh
# shell: bash (issue 29 item 5): a step, a test or the whole recipe may
# run its scripts as `bash --noprofile --norc -e -o pipefail -c`, so a
# piped failure fails the step; sh (dash, no pipefail) stays the default
# and its keys are unchanged; an unknown shell is a recipe error at its
# position with the nearest name; the shell is part of the step's key.
. "$(dirname "$0")/../lib/test-lib.sh"

# recipe FILE SHELL-LINE...: a step whose pipe hides a failure.
piped() {
	{
		printf 'schema: 1\nname: p\nversion: "1"\n'
		for l in "$@"; do printf '%s\n' "$l"; done
		printf 'steps:\n  - name: piped\n'
		test -z "$STEP_SHELL" || printf '    shell: %s\n' "$STEP_SHELL"
		printf '    run: |\n      false | tail -1\n      echo after the pipe\n'
	} >r.yaml
}

expect_success 'with shell: bash a failing command before a pipe fails the step' '
	STEP_SHELL=bash piped &&
	expect_code 5 "$TFBUILD" recipe r.yaml 2>err &&
	grep -q "^tfbuild: step .piped. for .* failed with exit status 1" err &&
	! grep -q "after the pipe" build/r/*/logs/piped.log
'

expect_success 'with sh (the default, dash) the same pipe passes, as documented' '
	rm -rf build && STEP_SHELL= piped &&
	"$TFBUILD" -q recipe r.yaml &&
	grep -q "after the pipe" build/r/*/logs/piped.log &&
	! grep -q shell build/r/*/stamps/* &&
	rm -rf build && STEP_SHELL=sh piped &&
	"$TFBUILD" -q recipe r.yaml
'

expect_success 'a recipe-level shell is every step'"'"'s default; a step may say sh' '
	rm -rf build && STEP_SHELL= piped "shell: bash" &&
	expect_code 5 "$TFBUILD" recipe r.yaml 2>err &&
	grep -q "failed with exit status 1" err &&
	STEP_SHELL=sh piped "shell: bash" &&
	"$TFBUILD" -q recipe r.yaml
'

expect_success 'the shell is part of the step'"'"'s key' '
	rm -rf build && STEP_SHELL= piped &&
	"$TFBUILD" -q recipe r.yaml &&
	sed -i "s/false | tail -1/true | tail -1/" r.yaml &&
	"$TFBUILD" -q recipe r.yaml &&
	sed -i "s/^    run:/    shell: bash\n    run:/" r.yaml &&
	"$TFBUILD" explain r.yaml >out &&
	grep -q "piped: will run (shell is new)" out
'

expect_success 'tests take shell too, and fail when a piped test fails' '
	cat >t.yaml <<-\EOT &&
	schema: 1
	name: t
	version: "1"
	tests:
	  - name: check
	    shell: bash
	    baseline: false
	    run: |
	      { echo "FAILED (errors=4)"; exit 1; } | tail -1
	EOT
	expect_code 5 "$TFBUILD" recipe t.yaml 2>err &&
	grep -q "FAILED (errors=4)" err
'

expect_success 'an unknown shell is a recipe error at its position, with the nearest' '
	STEP_SHELL=bsh piped &&
	expect_code 3 "$TFBUILD" recipe r.yaml 2>err &&
	echo "tfbuild: r.yaml:6:12: unknown shell '"'"'bsh'"'"' (valid: sh, bash); did you mean '"'"'sh'"'"'?" >expect &&
	compare expect err &&
	STEP_SHELL= piped "shell: bahs" &&
	expect_code 3 "$TFBUILD" recipe r.yaml 2>err &&
	grep -q "^tfbuild: r.yaml:4:8: unknown shell .bahs. (valid: sh, bash); did you mean .bash.?$" err &&
	STEP_SHELL="[bash]" piped &&
	expect_code 3 "$TFBUILD" recipe r.yaml 2>err &&
	grep -q "^tfbuild: r.yaml:6:12: " err
'

test_done
