# Helpers of the launcher tests (t16xx), sourced after test-lib.sh.

# A free TCP port on 127.0.0.1 (the kernel's choice; the server binds it
# right after, and start_* retries if someone else took it meanwhile).
free_port() {
	"$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_port PORT: until something listens there (5 s at most).
wait_port() {
	i=0
	until "$PYTHON" -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 0.2)' "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 50 ] || return 1
		sleep 0.1
	done
}

# A fresh checkout of the test project in DIR.
launch_checkout() {
	rm -rf "$1" && mkdir -p "$(dirname "$1")" &&
		cp -R "$TESTS_DIR/e2e/launch" "$1"
}

# launch_build CHECKOUT OUT [tfbuild options...]: build both targets
# (or $TARGET).
launch_build() {
	co=$1 out=$2
	shift 2
	"$TFBUILD" -q recipe --target "${TARGET:-all}" --out "$out" "$@" "$co/r.yaml"
}

# same_wheels DIR1 DIR2: the same wheel files, byte for byte.
same_wheels() {
	(cd "$1" && ls *.whl) >w1 && (cd "$2" && ls *.whl) >w2 && compare w1 w2 &&
		test "$(wc -l <w1)" = 2 &&
		while read -r w; do cmp "$1/$w" "$2/$w" || return 1; done <w1
}
