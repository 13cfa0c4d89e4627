#!/bin/sh
# make demo: build the m1 backend and tfmini against it, as wheels, for
# both targets, from the local mirror of the pinned upstream archive.
# Ends with the wheels and their sha256.
set -eu
cd "$(dirname "$0")/.."
sh recipes/mirror.sh build/mirror >/dev/null
./tfbuild recipe --target all recipes/m1-plugin.yaml
echo
echo "wheels/SHA256SUMS:"
cat wheels/SHA256SUMS
