#!/bin/sh
# Issue 39, a new user's point 1: on the native target an installed
# "Architecture: all" package in target-packages (pybind11-dev: headers
# only) is accepted and recorded with its version and arch=all; dpkg
# does not know it as NAME:amd64. A missing package's suggested command
# is the bare name, which apt installs whether it is "all" or not.
. "$(dirname "$0")/../lib/test-lib.sh"

arch=$(dpkg --print-architecture)
case $arch in amd64) native=x86_64 ;; arm64) native=aarch64 ;; esac
pyb=$(dpkg-query -W -f='${Architecture} ${Version}' pybind11-dev)

cat >r.yaml <<EOF
schema: 1
name: r
version: 1.0.0
targets: [$native]
target-packages: [pybind11-dev, zlib1g-dev]
steps:
  - name: one
    run: |
      mkdir -p \$STAGE/r
      test -f /usr/include/pybind11/pybind11.h
      echo ok >\$STAGE/r/__init__.py
wheels:
  - name: r
    version: 1.0.0
    files:
      - from: one
        src: r
        dst: r
EOF

expect_success 'pybind11-dev is an installed Architecture: all package here' '
	case $pyb in "all "?*) ;; *) echo "pybind11-dev: $pyb"; exit 1 ;; esac &&
	! dpkg-query -W pybind11-dev:$arch 2>/dev/null
'

expect_success 'the native target builds with it, and the provenance names it arch=all' '
	"$TFBUILD" recipe --out out r.yaml >log 2>&1 &&
	ls out/r-1.0.0-*.whl &&
	grep -F "pkg:deb/debian/pybind11-dev@${pyb#all }?arch=all" out/r.intoto.json &&
	grep -F "pkg:deb/debian/zlib1g-dev@" out/r.intoto.json | grep -F "arch=$arch"
'

expect_success 'a missing package is named with the bare apt-get command' '
	sed "s/\[pybind11-dev, /[pybind11-dev, no-such-tfbuild-all-dev, /" r.yaml >bad.yaml &&
	expect_code 5 "$TFBUILD" recipe --build-dir bad-build --out bad-out bad.yaml 2>err &&
	grep -x "tfbuild: bad.yaml:5:33: target package '"'"'no-such-tfbuild-all-dev'"'"' is not installed on this machine (the native target $native uses the build machine'"'"'s packages); install it: apt-get install no-such-tfbuild-all-dev" err &&
	! grep -F pybind11 err
'

test_done
