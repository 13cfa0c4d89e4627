#!/bin/sh
# Install what building and testing tfbuild needs, on Debian 12: the
# libraries it links, the tools its tests run, and the aarch64 cross
# toolchain, multiarch Python headers and user-mode emulator that cross
# builds use. Quiet and quick when everything is already there; needs
# root otherwise.
#
# On an x86-64 host (amd64) the foreign target is aarch64 (arm64), on an
# aarch64 host (arm64, e.g. GitHub's ubuntu-24.04-arm runner in a
# debian:12 container) it is x86-64 (amd64): the cross compiler and the
# multiarch Python headers follow `dpkg --print-architecture`.
# TFBUILD_DEPS_DRY_RUN=1 prints what would be installed and changed,
# without root and without changing anything (ci/install-deps tests).
set -eu

dry=${TFBUILD_DEPS_DRY_RUN:-}
# Run a command that changes the system, or say it would.
run() {
	if [ -n "$dry" ]; then
		echo "would run: $*" >&2
	else
		"$@"
	fi
}

host=$(dpkg --print-architecture)
case $host in
amd64) foreign=arm64 cross=aarch64-linux-gnu cross_cc=aarch64-linux-gnu-gcc ;;
arm64) foreign=amd64 cross=x86-64-linux-gnu cross_cc=x86_64-linux-gnu-gcc ;;
*) echo "tfbuild: unsupported build machine architecture '$host' (amd64 and arm64 are)" >&2
   exit 1 ;;
esac

# torch: the framework issue 13's backend builds against (cmake, ninja,
# libtorch-dev) and runs in (python3-torch). python3-cffi and
# python3-cairo: `pip check` in a venv that sees Debian's packages
# otherwise fails on python3-cmarkgfm's and python3-gi's requirements.
pkgs="gcc g++ make pkg-config libyaml-dev libcurl4-openssl-dev libssl-dev
      libarchive-dev liblzma-dev libelf-dev libjansson-dev patch python3 python3-venv
      python3-dev python3-wheel unzip faketime file openssl
      gcc-$cross g++-$cross qemu-user libpython3-dev:$foreign
      libcapstone-dev cmake meson ninja-build dpkg-dev zlib1g-dev
      libtorch-dev pybind11-dev python3-torch
      python3-pip python3-cffi python3-cairo"
# The CLI tests: the man page renders, completion loads in bash and zsh.
pkgs="$pkgs man-db groff-base zsh bash-completion"
# The house rules (t000*): the C style is clang-format 14's, Debian 12's.
pkgs="$pkgs clang-format-14"
# Vendoring libraries into wheels (docs/libraries.md); independent
# checkers of the metadata tfbuild writes.
pkgs="$pkgs patchelf binutils twine python3-packaging python3-license-expression"
# Compiler launchers and the servers their tests start on 127.0.0.1
# (docs/distributed.md); python3-yaml reads the release workflow.
pkgs="$pkgs ccache redis-server distcc python3-yaml"
# The build cache's tests (docs/cache.md): nginx with WebDAV as the
# remote cache.
pkgs="$pkgs nginx-light"
# Publishing (docs/publishing.md): the test reads the index's pages with curl.
pkgs="$pkgs curl"
# Packing (toolkit/zip/): libdeflate deflates blocks in parallel, zlib's
# minizip writes the zip; strace counts a no-op rebuild's processes.
pkgs="$pkgs libdeflate-dev libminizip-dev zlib1g-dev strace"
# A recipe's native target packages must be installed on the build
# machine: recipes/libzip.yaml's and recipes/spng.yaml's (t130x).
# tests/e2e/t0005-house-deps.sh checks this list against the suite.
pkgs="$pkgs libbz2-dev"
# Every step runs in a bubblewrap sandbox (docs/security.md#the-step-sandbox).
pkgs="$pkgs bubblewrap"
# Mach-O files (toolkit/macho/): LLVM's object library for the reader
# (libtfmacho.so), and llvm-otool-14, the independent tool its tests
# compare with (docs/verify.md).
pkgs="$pkgs llvm-14-dev llvm-14"

# Third-party recipe tests get upstream's release tarballs from Debian source packages
# (tests/lib/upstream-sources.sh), which needs a deb-src line.
srclist=/etc/apt/sources.list.d/tfbuild-deb-src.sources
if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ &&
	! grep -qs '^deb-src ' /etc/apt/sources.list; then
	if [ -n "$dry" ]; then
		echo "would write: $srclist (deb-src for bookworm main)"
	elif [ "$(id -u)" = 0 ]; then
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

# distccd runs only compilers with a link in /usr/lib/distcc; the cross
# compiler may have come after distcc.
distcc_links() {
	if command -v update-distcc-symlinks >/dev/null &&
		[ ! -e "/usr/lib/distcc/$cross_cc" ] && command -v "$cross_cc" >/dev/null; then
		if [ -n "$dry" ] || [ "$(id -u)" = 0 ]; then
			run update-distcc-symlinks
		fi
	fi
}

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	distcc_links
	exit 0
fi

echo "tfbuild: installing:$missing" >&2
if [ -z "$dry" ] && [ "$(id -u)" != 0 ]; then
	echo "tfbuild: not root; install these with apt-get:$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# Packages of the foreign architecture (Python headers for cross builds,
# and the CPython that tests unpack into a sysroot) come from Debian's
# multiarch archive.
dpkg --print-foreign-architectures | grep -qx "$foreign" ||
	run dpkg --add-architecture "$foreign"
run apt-get -o DPkg::Lock::Timeout=900 update -qq
# shellcheck disable=SC2086
run apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends $missing >/dev/null
distcc_links
