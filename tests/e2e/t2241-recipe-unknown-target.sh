#!/bin/sh
# A mapping keyed by target (target-wheels, variants, toolchains) names
# an unknown target at its position, with the known ones, each one
# reported in the same words (recipe/recipe_read.c, tf_load_target).
. "$(dirname "$0")/../lib/test-lib.sh"

cat >r.yaml <<'EOF'
schema: 1
name: r
version: 1.0.0
target-wheels:
  sparc: ["foo==1"]
variants:
  mips: []
toolchains:
  ppc: {}
steps:
  - name: one
    run: "true"
wheels:
  - name: r
    version: 1.0.0
EOF

expect_success 'each unknown target key is refused at its position, exit 3' '
	expect_code 3 "$TFBUILD" explain r.yaml 2>err &&
	grep -x "tfbuild: r.yaml:5:3: '"'"'target-wheels'"'"': unknown target '"'"'sparc'"'"' (known: x86_64, aarch64, macos-arm64)" err &&
	grep -x "tfbuild: r.yaml:7:3: '"'"'variants'"'"': unknown target '"'"'mips'"'"' (known: x86_64, aarch64, macos-arm64)" err &&
	grep -x "tfbuild: r.yaml:9:3: '"'"'toolchains'"'"': unknown target '"'"'ppc'"'"' (known: x86_64, aarch64, macos-arm64)" err
'

test_done
