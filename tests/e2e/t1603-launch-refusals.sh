#!/bin/sh
# Launcher refusals (issue 10 item 3), each before anything is fetched or
# built: an unknown --launcher (usage, exit 2) or toolchain `launcher`
# (recipe, exit 3, at its line and column), both listing the valid ones;
# a launcher that is not installed (exit 5, like a missing compiler),
# named with what to install. `--launcher none` overrides a toolchain's.
. "$(dirname "$0")/../lib/test-lib.sh"
. "$TESTS_DIR/e2e/launch/lib.sh"

launch_checkout p
printf 'toolchains:\n  aarch64:\n    launcher: ccach\n' >p/typo.yaml
printf 'toolchains:\n  x86_64:\n    launcher: sccache\n' >p/sccache.yaml

expect_success 'unknown --launcher: usage error listing the valid names' '
	expect_code 2 "$TFBUILD" recipe --launcher distc p/r.yaml 2>err &&
	head -1 err >actual &&
	echo "tfbuild: --launcher '\''distc'\'': not a valid value; valid values are ccache, sccache, distcc, none (did you mean '\''distcc'\''?)" >expect &&
	compare expect actual
'

expect_success 'unknown toolchain launcher: recipe error at its position' '
	expect_code 3 "$TFBUILD" recipe --toolchain p/typo.yaml p/r.yaml 2>actual &&
	echo "tfbuild: p/typo.yaml:3:15: unknown launcher '\''ccach'\'' (valid: ccache, sccache, distcc, none); did you mean '\''ccache'\''?" >expect &&
	compare expect actual && test ! -e p/build
'

# sccache is not in Debian 12: where it is installed, this cannot be shown.
if PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin command -v sccache >/dev/null; then
	skip 'sccache is installed here: the refusal of a missing launcher is not shown'
else
	expect_success 'a launcher that is not installed is named before anything builds' '
		expect_code 5 "$TFBUILD" recipe --launcher sccache p/r.yaml 2>actual &&
		echo "tfbuild: target '\''x86_64'\'': launcher '\''sccache'\'' not found in /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin; sccache is not packaged in Debian 12: install its release binary or '\''cargo install sccache'\'' into /usr/local/bin" >expect &&
		compare expect actual && test ! -e p/build/r/x86_64/stamps
	'

	expect_success 'the same from a toolchain file; --launcher none overrides it' '
		expect_code 5 "$TFBUILD" recipe --toolchain p/sccache.yaml p/r.yaml 2>err &&
		grep -q "launcher '\''sccache'\'' not found" err &&
		"$TFBUILD" -q recipe --launcher none --toolchain p/sccache.yaml --out out p/r.yaml &&
		test -f out/SHA256SUMS
	'
fi

expect_success 'docs: the launchers, the allow-list and the distcc caveat' '
	D="$SRC_ROOT/docs/distributed.md" &&
	grep -q "CCACHE_\*" "$D" && grep -q "SCCACHE_\*" "$D" && grep -q "DISTCC_\*" "$D" &&
	grep -q "gno-column-info" "$D" && grep -q "launcher" "$SRC_ROOT/docs/recipe.md"
'

test_done
