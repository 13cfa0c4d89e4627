#!/bin/sh
# Install what building and testing tfbuild needs, on Debian 12: the
# libraries it links, the tools its tests run, and the aarch64 cross
# toolchain, multiarch Python headers and user-mode emulator that cross
# builds use. Quiet and quick when everything is already there; needs
# root otherwise.
set -eu

# torch: the framework issue 13's backend builds against (cmake, ninja,
# libtorch-dev) and runs in (python3-torch). python3-cffi and
# python3-cairo: `pip check` in a venv that sees Debian's packages
# otherwise fails on python3-cmarkgfm's and python3-gi's requirements.
pkgs="gcc g++ make pkg-config libyaml-dev libcurl4-openssl-dev libssl-dev
      libarchive-dev liblzma-dev libelf-dev libjansson-dev patch python3 python3-venv
      python3-dev python3-wheel unzip faketime file openssl
      gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user libpython3-dev:arm64
      libcapstone-dev cmake meson ninja-build dpkg-dev zlib1g-dev
      libtorch-dev pybind11-dev python3-torch
      python3-pip python3-cffi python3-cairo"
# The CLI tests: the man page renders, completion loads in bash and zsh.
pkgs="$pkgs man-db groff-base zsh bash-completion"
# Vendoring libraries into wheels (docs/libraries.md); independent
# checkers of the metadata tfbuild writes.
pkgs="$pkgs patchelf binutils twine python3-packaging python3-license-expression"

# Third-party recipe tests get upstream's release tarballs from Debian source packages
# (tests/lib/upstream-sources.sh), which needs a deb-src line.
srclist=/etc/apt/sources.list.d/tfbuild-deb-src.sources
if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ &&
	! grep -qs '^deb-src ' /etc/apt/sources.list; then
	if [ "$(id -u)" = 0 ]; then
		printf '%s\n' '# Added by tfbuild ci/install-deps.sh: tests take upstream release' \
			'# tarballs from Debian source packages (apt-get source).' \
			'Types: deb-src' 'URIs: http://deb.debian.org/debian' 'Suites: bookworm' \
			'Components: main' \
			'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' >"$srclist"
		apt-get -o DPkg::Lock::Timeout=900 update -qq
	else
		echo "tfbuild: not root; add a deb-src line for bookworm main to apt's sources" >&2
	fi
fi

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "tfbuild: installing:$missing" >&2
if [ "$(id -u)" != 0 ]; then
	echo "tfbuild: not root; install these with apt-get:$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# arm64 packages (Python headers for cross builds, and the arm64 CPython
# that tests unpack into a sysroot) come from Debian's multiarch archive.
dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
