#!/bin/sh
# `make deps` installs what the suite needs (issue 29 item 3): every
# native `target-packages` name of the recipes in recipes/ and tests/,
# and every Debian program the test scripts run, is in what
# ci/install-deps.sh installs (its TFBUILD_DEPS_DRY_RUN list on a machine
# where nothing is installed), what those depend on, or a minimal
# Debian's Essential and required packages (tests/lib/depscheck.py).
. "$(dirname "$0")/../lib/test-lib.sh"

# This machine's architecture, with nothing installed (as t1604).
mkdir fake
arch=$(dpkg --print-architecture)
printf '#!/bin/sh\ncase "$1" in\n--print-architecture) echo %s ;;\nesac\n' "$arch" >fake/dpkg
printf '#!/bin/sh\nexit 1\n' >fake/dpkg-query
chmod +x fake/dpkg fake/dpkg-query
deps=$(TFBUILD_DEPS_DRY_RUN=1 PATH="$TRASH/fake:$PATH" sh "$SRC_ROOT/ci/install-deps.sh" 2>&1 |
	sed -n 's/^tfbuild: installing://p')

expect_success 'install-deps lists what it installs' '
	test -n "$deps" && echo " $deps " | grep -q " libyaml-dev "
'

expect_success 'what the suite needs, make deps installs' '
	"$PYTHON" "$TESTS_DIR/lib/depscheck.py" "$SRC_ROOT" $deps
'

expect_success 'a native target package or a program it does not install is named' '
	mkdir -p other/recipes other/tests/e2e &&
	tp=target-packages &&
	printf "schema: 1\n%s: [zlib1g-dev, libfoo-tfbuild-dev]\n" $tp >other/recipes/r.yaml &&
	printf "schema: 1\ntargets: [%s]\n%s: [libbar-tfbuild-dev]\n" \
		"$(test "$arch" = amd64 && echo aarch64 || echo x86_64)" $tp >other/recipes/cross.yaml &&
	printf "cat f | sha256sum && %s --version\n" git >other/tests/e2e/t1.sh &&
	! "$PYTHON" "$TESTS_DIR/lib/depscheck.py" "$TRASH/other" $deps >out &&
	cat out &&
	grep -qx "recipes/r.yaml:2: target package .libfoo-tfbuild-dev. is needed installed on the build machine ($arch), but ci/install-deps.sh does not install it" out &&
	! grep -q "zlib1g-dev\\|libbar\\|sha256sum\\|cat" out &&
	if [ -x /usr/bin/git ]; then
		grep -qx "tests/e2e/t1.sh:1: .git. (Debian package git) is run by the tests, but ci/install-deps.sh does not install it" out
	fi
'

test_done
