#!/bin/sh
# A stage never leaves its tree (issue 26): a symlink a step leaves in
# its stage that leads outside it (absolute, relative, through a chain)
# is refused when packing, naming the link and where it leads, and the
# planted key under $HOME is in no wheel; a `src:` glob that climbs out
# ('.*' matching '..', a directory linked out) is refused;
# `follow-links: true` widens the tree to the target's build tree only;
# a file in the output folder this run did not write is named in a
# warning and never listed in SHA256SUMS.
. "$(dirname "$0")/../lib/test-lib.sh"

mkdir -p "$HOME/.ssh" && echo 'PLANTED-PRIVATE-KEY' >"$HOME/.ssh/id_ed25519"

# recipe NAME SCRIPT SRC [EXTRA]: proj/NAME.yaml, one step, one wheel.
recipe() {
	mkdir -p proj &&
	cat >"proj/$1.yaml" <<EOF
schema: 1
name: st
version: 1.0.0
steps:
  - name: pkg
    run: |
      mkdir -p "\$STAGE/st" && echo "# st" >"\$STAGE/st/__init__.py"
      $2
wheels:
  - name: st
    version: 1.0.0
    files:
      - {from: pkg, src: "$3", dst: .${4:-}}
EOF
}
# packs NAME: tfbuild refuses it with exit 6; the key is nowhere in out.
refused() {
	expect_code 6 "$TFBUILD" recipe -q --out "out-$1" --build-dir b \
		"proj/$1.yaml" 2>err &&
	! grep -r -q PLANTED "out-$1" 2>/dev/null
}

expect_success 'an absolute symlink to ~/.ssh in a stage is refused' '
	recipe abs "ln -s $HOME/.ssh/id_ed25519 \"\$STAGE/st/key\"" st &&
	refused abs &&
	grep "proj/abs.yaml:[0-9]*:[0-9]*: wheel .st.: .*/stage/pkg/st/key. is a symbolic link to .$HOME/.ssh/id_ed25519., which resolves to .$HOME/.ssh/id_ed25519., outside the tree" err
'

expect_success 'a relative link climbing out, and a chain, are refused' '
	recipe rel "ln -s ../../../../../../home/.ssh/id_ed25519 \"\$STAGE/st/key\"" st &&
	refused rel &&
	grep "is a symbolic link to .\.\./\.\./\.\./\.\./\.\./\.\./home/\.ssh/id_ed25519.*outside the tree" err &&
	recipe chain "ln -s $HOME/.ssh \"\$STAGE/hop\" && ln -s ../hop/id_ed25519 \"\$STAGE/st/key\"" st &&
	refused chain &&
	grep "st/key. is a symbolic link to .\.\./hop/id_ed25519., which resolves to .$HOME/.ssh/id_ed25519." err
'

expect_success 'a link inside the stage is packed as its file' '
	recipe inside "echo data >\"\$STAGE/st/real\" && ln -s real \"\$STAGE/st/alias\"" st &&
	"$TFBUILD" recipe -q --out out-inside --build-dir b proj/inside.yaml &&
	unzip -p out-inside/st-1.0.0-py3-none-any.whl st/alias >got &&
	echo data >want && compare want got
'

expect_success 'a directory link leading back up (a loop) is refused' '
	recipe loop "ln -s .. \"\$STAGE/st/up\"" st &&
	refused loop &&
	grep "st/up. is a symbolic link to .\.\.., a directory above it (a loop)" err
'

expect_success 'a glob never matches outside its tree' '
	recipe dots "mkdir -p \"\$STAGE/st/d\"" "st/.*/st" &&
	refused dots &&
	grep "wheel .st.: .st/\.\./st. leaves the tree" err &&
	recipe linked "ln -s $HOME/.ssh \"\$STAGE/st/d\"" "st/d/*" &&
	refused linked &&
	grep "wheel .st.: .st/d/id_ed25519. is reached through .*/stage/pkg/st/d., which resolves to .$HOME/.ssh., outside the tree" err
'

expect_success 'a glob of dot files skips . and .. and packs the rest' '
	recipe dotfiles "echo x >\"\$STAGE/st/.hidden\"" "st/.*" &&
	"$TFBUILD" recipe -q --out out-dotfiles --build-dir b proj/dotfiles.yaml &&
	unzip -l out-dotfiles/st-1.0.0-py3-none-any.whl >list &&
	grep " \.hidden$" list
'

expect_success 'follow-links: true reaches the build tree, never $HOME' '
	recipe wide "echo shared >\"\$BUILDDIR/shared\" && ln -s \"\$BUILDDIR/shared\" \"\$STAGE/st/shared\"" st ", follow-links: true" &&
	"$TFBUILD" recipe -q --out out-wide --build-dir b proj/wide.yaml &&
	unzip -p out-wide/st-1.0.0-py3-none-any.whl st/shared >got &&
	echo shared >want && compare want got &&
	recipe wide2 "ln -s $HOME/.ssh/id_ed25519 \"\$STAGE/st/key\"" st ", follow-links: true" &&
	refused wide2 &&
	grep "outside the build tree .*/b/wide2/x86_64." err &&
	recipe bad "true" st ", follow-links: yes" &&
	expect_code 3 "$TFBUILD" recipe -q --out out-bad --build-dir b proj/bad.yaml 2>err &&
	grep "proj/bad.yaml:[0-9]*:[0-9]*: .follow-links. must be true or false, not .yes." err
'

expect_success 'a file planted in the output folder is named, never listed' '
	recipe plant "echo planted >$PWD/out-plant/evil-6.6-py3-none-any.whl" st &&
	mkdir -p out-plant &&
	# The sandbox keeps a step from writing there (t2120); this is the
	# second defence, for a run with --sandbox=off or another writer.
	"$TFBUILD" recipe -q --sandbox=off --out out-plant --build-dir b proj/plant.yaml 2>err &&
	grep "^tfbuild: warning: .out-plant/evil-6.6-py3-none-any.whl. was not written by this run; it is not listed in SHA256SUMS$" err &&
	test "$(wc -l <out-plant/SHA256SUMS)" = 1 &&
	! grep evil out-plant/SHA256SUMS
'

test_done
