#!/bin/sh
# Install the Python tools the suite runs into virtual environments
# outside the repository, made with Debian's Python:
#
#   ${TFBUILD_TOOLS:-/opt/tfbuild-tools}/venv  ci/python-tools.txt: twine,
#     packaging, pkginfo, auditwheel, abi3audit, uv, pypiserver, wheel,
#     with their closure pinned by hash
#   ${TFBUILD_TOOLS:-/opt/tfbuild-tools}/zig   ci/zig.txt: zig
#
# The index is whatever pip is configured with (PIP_INDEX_URL, pip.conf);
# the hashes pin the bytes. Quick when the environment already holds
# exactly this file's pins (a stamp holds the file's sha256), so it is
# kept across runs; a changed file makes a new environment.
# TFBUILD_DEPS_DRY_RUN=1 says what it would do and changes nothing.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=${TFBUILD_TOOLS:-/opt/tfbuild-tools}

# install REQUIREMENTS VENV: make VENV hold exactly REQUIREMENTS' pins.
install() {
	req=$1 venv=$2
	want=$(sha256sum "$req" | cut -d' ' -f1)
	if [ -f "$venv/.tfbuild-pins" ] && [ "$(cat "$venv/.tfbuild-pins")" = "$want" ]; then
		return 0
	fi
	if [ -n "${TFBUILD_DEPS_DRY_RUN:-}" ]; then
		echo "would make: $venv (pip install --require-hashes -r $req)" >&2
		return 0
	fi
	echo "tfbuild: installing the Python tools into $venv" >&2
	# A venv's scripts name its own path, so it is made in place; the
	# stamp is written last, so an interrupted install is made again.
	rm -rf "$venv"
	mkdir -p "$top"
	/usr/bin/python3 -m venv "$venv"
	# Every file pinned by its sha256 (--require-hashes), binaries only.
	"$venv/bin/python" -m pip install --require-hashes -r "$req" \
		--only-binary=:all: --no-deps -q --disable-pip-version-check
	"$venv/bin/python" -m pip check >/dev/null
	echo "$want" >"$venv/.tfbuild-pins.tmp"
	mv "$venv/.tfbuild-pins.tmp" "$venv/.tfbuild-pins"
}

install "$here/python-tools.txt" "$top/venv"
# zig (ci/zig.txt): 400 MB, in an environment of its own.
install "$here/zig.txt" "$top/zig"
