#!/bin/sh
# The README's first command works on a bare machine: `make demo` when
# the -dev packages only arrive with `make deps`. Simulated: a
# pkg-config that knows no library until ci/install-deps.sh has run,
# on a copy of the tree whose install-deps.sh only marks that it ran
# and whose demo only runs the binary. Objects are copied from the
# build under test when present, so only linking is left to do.
. "$(dirname "$0")/../lib/test-lib.sh"

mkdir -p src/ci src/recipes bin
cp -p "$SRC_ROOT/Makefile" src/ &&
	cp -Rp "$SRC_ROOT/toolkit" "$SRC_ROOT/tools" "$SRC_ROOT/templates" src/ || exit 1
if [ -d "$SRC_ROOT/obj" ]; then
	mkdir -p src/obj && cp -p "$SRC_ROOT"/obj/*.o src/obj/ 2>/dev/null
fi
cat >src/ci/install-deps.sh <<EOF
touch "$TRASH/installed"
EOF
cat >src/ci/install-python-tools.sh <<EOF
touch "$TRASH/python-tools"
EOF
cat >src/recipes/demo.sh <<'EOF'
./tfbuild --version
EOF
real_pkg_config=$(command -v pkg-config)
cat >bin/pkg-config <<EOF
#!/bin/sh
[ -e "$TRASH/installed" ] || exit 1
exec "$real_pkg_config" "\$@"
EOF
chmod +x bin/pkg-config

expect_success 'without the libraries, make says to run make deps' '
	PATH="$TRASH/bin:$PATH" expect_code 2 make -C src tfbuild >out 2>err &&
	grep -q "^tfbuild: the libraries (.*) are not installed: run .make deps." err &&
	test ! -e src/tfbuild
'

expect_success 'make demo as the first command: deps, then a build that finds them' '
	PATH="$TRASH/bin:$PATH" make -C src demo >out 2>err &&
	test -e installed && test -e python-tools &&
	grep -q "^tfbuild [0-9]" out
'

expect_success 'a second make has nothing to do' '
	PATH="$TRASH/bin:$PATH" make -C src tfbuild >out 2>err &&
	compare /dev/null err && ! grep -q -- "-o " out
'

test_done
