#!/bin/sh
# One source for the reference backend (issue 34 item 5): every pair of
# files backend/ and templates/ share code in (and the library templates'
# copies of one another) is in tests/lib/onesource.map, each shared unit
# `same` (equal but for the placeholders and the map's renames) or each
# side's `own`; tests/lib/onesource.py checks it. On a copy of the tree:
# a fix on one side alone fails, naming both places, until it reaches the
# other; the same fix on both passes; a library template's file edited
# alone fails; a new copy the map does not declare fails.
. "$(dirname "$0")/../lib/test-lib.sh"

check="python3 $SRC_ROOT/tests/lib/onesource.py"

expect_success 'the tree: every shared unit accounted for and equal' '
	(cd "$SRC_ROOT" && $check)
'

expect_success 'a copy of the tree to break' '
	mkdir -p tree/tests/lib &&
	cp -R "$SRC_ROOT/backend" "$SRC_ROOT/templates" tree/ &&
	cp "$SRC_ROOT/tests/lib/onesource.map" tree/tests/lib/ &&
	(cd tree && $check)
'

expect_success 'a fix to one side of a `same` unit alone fails, naming both' '
	cp -R tree one &&
	sed -i "/^static void buffer_free/,/^}/s/free(b->data);/free(b->data); b->data = NULL;/" \
		one/templates/pjrt-plugin/src/buffer.c &&
	! grep -q "b->data = NULL" one/backend/pjrt_m1/src/buffer.c &&
	grep -q "b->data = NULL" one/templates/pjrt-plugin/src/buffer.c &&
	! (cd one && $check) >out &&
	grep "backend/pjrt_m1/src/buffer.c:[0-9]*: buffer_free differs from templates/pjrt-plugin/src/buffer.c:[0-9]*" out
'

expect_success 'the same fix on both sides passes' '
	sed -i "/^static void buffer_free/,/^}/s/free(b->data);/free(b->data); b->data = NULL;/" \
		one/backend/pjrt_m1/src/buffer.c &&
	(cd one && $check)
'

expect_success 'the other pair families: device.c and a script alone fail too' '
	cp -R tree two &&
	sed -i "/^static void destroy_stream(/,/^}/s/free(/free((void *)/" \
		two/backend/tf_m1/src/device.c &&
	sed -i "s/^h=\$1$/h=\${1:?}/" two/templates/pjrt-plugin/src/gen-slots.sh &&
	! (cd two && $check) >out &&
	grep "backend/tf_m1/src/device.c:[0-9]*: destroy_stream differs" out &&
	grep "backend/pjrt_m1/gen-slots.sh:[0-9]*: set-eu differs" out
'

expect_success 'a library template file edited alone fails' '
	cp -R tree three &&
	echo "/* one more line */" >>"three/templates/meson-library/src/lib/{{module}}.c" &&
	! (cd three && $check) >out &&
	grep "templates/c-library/src/lib/{{module}}.c: differs from templates/meson-library/src/lib/{{module}}.c" out
'

expect_success 'a new copy the map does not declare fails' '
	cp -R tree four &&
	cp four/backend/tests/kernel_test.c four/templates/c-library/src/lib/copied.c &&
	! (cd four && $check) >out &&
	grep "backend/tests/kernel_test.c and templates/c-library/src/lib/copied.c share 6 or more lines" out
'

expect_success 'a unit both sides gain, unclassified, fails' '
	cp -R tree five &&
	for f in five/backend/pjrt_m1/src/client.c five/templates/pjrt-plugin/src/client.c; do
		printf "\nint onesource_probe(void);\n" >>"$f" || return 1
	done &&
	! (cd five && $check) >out &&
	grep "onesource_probe is also in templates/pjrt-plugin/src/client.c" out
'

test_done
