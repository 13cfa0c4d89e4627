#!/bin/sh
# tier: expensive (JAX; make test QUICK=1 skips it, CI runs it)
# A JAX PJRT plugin's framework record (docs/frameworks.md): `framework:
# {name: jax, pjrt-header: ...}` reads the PJRT C API version from the
# header the build used and the jaxlib release from the site (or the
# recipe's version); the record names the library exporting GetPjrtApi,
# and Requires-Dist pins jaxlib to that release. verify says so, and
# refuses the library the record names when it lost GetPjrtApi, a
# jax_plugins/NAME/ package without it, and a missing or wider
# Requires-Dist on jax or jaxlib.
. "$(dirname "$0")/../lib/test-lib.sh"

fx=$SRC_ROOT/tests/e2e/abi
tools=${TOOLS_BIN:-/opt/tfbuild-tools/venv/bin}
wheel=pjrt_m1-0.1.0-py3-none-manylinux_2_5_x86_64.manylinux1_x86_64.whl
hdr=tensorflow/include/xla/pjrt/c/pjrt_c_api.h
mkw() { /usr/bin/python3 "$SRC_ROOT/tests/e2e/conventions/mkwheel.py" "$@"; }

# recipe FILE VERSION-LINE: the plugin as jax_plugins/m1, built with ${site}'s header.
recipe() {
	mkdir -p src && cp "$fx/plugin.c" src/ &&
	printf "def initialize():\n    pass\n" >src/__init__.py &&
	cat >"$1" <<-EOF
	schema: 1
	name: pjrt-m1
	version: 0.1.0
	targets: [x86_64]
	variables:
	  site: /nonexistent
	  extra: ""
	sources:
	  - name: src
	    path: src
	steps:
	  - name: plugin
	    source: src
	    run: |
	      eval "\$CC \$CFLAGS -shared -fPIC -DPJRT \${extra} -o \"\\\$STAGE/libm1.so\" plugin.c \$LDFLAGS"
	      cp __init__.py "\$STAGE/"
	wheels:
	  - name: pjrt_m1
	    version: \${version}
	    python: py3
	    abi: none
	    license: MIT
	    framework:
	      name: jax
	      site-packages: \${site}
	      pjrt-header: \${site}/$hdr
	      $2
	    files:
	      - { from: plugin, src: libm1.so, dst: pjrt_m1 }
	      - { from: plugin, src: __init__.py, dst: pjrt_m1 }
	EOF
}

expect_success 'the record: PJRT C API from the header, jaxlib pinned' '
	mkdir -p site/${hdr%/*} &&
	printf "#define PJRT_API_MAJOR 0\n\n// minor\n#define PJRT_API_MINOR 90\n" >site/$hdr &&
	recipe r.yaml "version: \"0.10.2\"" &&
	"$TFBUILD" -q recipe --out out --set site="$TRASH/site" r.yaml &&
	unzip -p out/$wheel "pjrt_m1-0.1.0.dist-info/tfbuild/framework.json" >got &&
	sha=$(sha256sum site/$hdr | cut -c1-64) &&
	cat >want <<-EOF &&
	{
	 "framework": {
	  "c-api": {
	   "header": "$hdr",
	   "header-sha256": "$sha",
	   "name": "PJRT C API",
	   "version": "0.90"
	  },
	  "library": "pjrt_m1/libm1.so",
	  "name": "jaxlib",
	  "requires-dist": "jaxlib==0.10.2",
	  "version": "0.10.2"
	 },
	 "schema": 1
	}
	EOF
	compare want got &&
	unzip -p out/$wheel pjrt_m1-0.1.0.dist-info/METADATA | grep "^Requires-Dist" >got &&
	printf "Requires-Dist: jaxlib==0.10.2\nRequires-Dist: jax==0.10.2\n" >want &&
	compare want got &&
	"$tools/python" -c "from packaging.requirements import Requirement as R; r = R(\"jaxlib==0.10.2\"); assert str(r) == \"jaxlib==0.10.2\"; assert [v for v in (\"0.10.1\", \"0.10.2\", \"0.10.2.post1\", \"0.10.3rc1\") if r.specifier.contains(v, prereleases=True)] == [\"0.10.2\"]" &&
	"$TOOL_DIR/test-pep440" has "==0.10.2" 0.10.1 0.10.2 0.10.2.post1 0.10.3rc1 >ours &&
	printf "0.10.1 0\n0.10.2 1\n0.10.2.post1 0\n0.10.3rc1 0\n" >want &&
	compare want ours &&
	grep -q "\"uri\": \"pkg:pypi/jaxlib@0.10.2\"" out/pjrt-m1.intoto.json &&
	"$TFBUILD" verify out/$wheel 2>err &&
	grep -qx "tfbuild: out/$wheel: built for jaxlib 0.10.2 (PJRT C API 0.90)" err
'

expect_success 'an installed jaxlib gives the release; a recipe version of another is refused' '
	mkdir -p site2/jaxlib-0.10.1.dist-info site2/${hdr%/*} &&
	printf "Metadata-Version: 2.4\nName: jaxlib\nVersion: 0.10.1\n" >site2/jaxlib-0.10.1.dist-info/METADATA &&
	cp site/$hdr site2/$hdr &&
	recipe r2.yaml "" &&
	"$TFBUILD" -q recipe --out out2 --set site="$TRASH/site2" r2.yaml &&
	unzip -p out2/$wheel pjrt_m1-0.1.0.dist-info/METADATA | grep -qx "Requires-Dist: jaxlib==0.10.1" &&
	unzip -p out2/$wheel pjrt_m1-0.1.0.dist-info/METADATA | grep -qx "Requires-Dist: jax==0.10.1" &&
	expect_code 6 "$TFBUILD" -q recipe --out out3 --set site="$TRASH/site2" r.yaml 2>err &&
	cat err &&
	grep -q "the recipe declares version 0.10.2, but the framework in .* is jaxlib 0.10.1" err
'

expect_success 'no release known, or a header without the macros: refused' '
	expect_code 6 "$TFBUILD" -q recipe --out out4 --set site="$TRASH/site" r2.yaml 2>err &&
	cat err &&
	grep -q "framework jaxlib: no jaxlib in .* and no release in the recipe.s framework.version" err &&
	mkdir -p bad/${hdr%/*} && echo "#define PJRT_API_MAJOR 0" >bad/$hdr &&
	echo "#define PJRT_API_MINOR (90)" >>bad/$hdr &&
	expect_code 6 "$TFBUILD" -q recipe --out out5 --set site="$TRASH/bad" r.yaml 2>err &&
	cat err &&
	grep -q "bad/$hdr:2: PJRT_API_MINOR is not defined as a number" err
'

expect_success 'a requires-dist on jax wider than the release: refused at its position' '
	sed "s/^    license: MIT/    license: MIT\n    requires-dist: [\"jax>=0.10.2,<0.11\"]/" r.yaml >wide.yaml &&
	expect_code 6 "$TFBUILD" -q recipe --out out6 --set site="$TRASH/site" wide.yaml 2>err &&
	cat err &&
	line=$(grep -n "requires-dist:" wide.yaml | cut -d: -f1) &&
	grep -q "wide.yaml:$line:[0-9]*: requires-dist: .jax>=0.10.2,<0.11. is wider than the window .==0.10.2." err
'

expect_success 'verify refuses the named library without GetPjrtApi' '
	rm -rf rp && mkdir rp && (cd rp && unzip -q ../out/$wheel) &&
	cc -shared -fPIC -DPJRT -DNO_API -o rp/pjrt_m1/libm1.so "$fx/plugin.c" &&
	mkdir -p noapi && "$tools/wheel" pack rp -d noapi >/dev/null &&
	expect_code 6 "$TFBUILD" verify noapi/*.whl 2>err &&
	cat err &&
	grep -q "noapi/[^ ]*\.whl: pjrt_m1/libm1.so: a PJRT plugin library that does not export GetPjrtApi" err
'

expect_success 'verify refuses a missing or wider Requires-Dist on jax or jaxlib' '
	cc -shared -fPIC -DPJRT -o api.so "$fx/plugin.c" &&
	cc -shared -fPIC -DPJRT -DNO_API -o noapi.so "$fx/plugin.c" &&
	printf "def initialize():\n    pass\n" >init.py &&
	mkw jp-1.0-py3-none-linux_x86_64.whl jp 1.0 jax_plugins/m1/__init__.py=init.py \
		jax_plugins/m1/xla_m1.so=api.so &&
	expect_code 6 "$TFBUILD" verify jp-1.0-py3-none-linux_x86_64.whl 2>err &&
	cat err &&
	grep -q "jax_plugins/m1/xla_m1.so is a PJRT plugin, but METADATA has no Requires-Dist on jax or jaxlib" err &&
	mkw jq-1.0-py3-none-linux_x86_64.whl jq 1.0 --requires "jax>=0.10" \
		jax_plugins/m1/__init__.py=init.py jax_plugins/m1/xla_m1.so=api.so &&
	"$TFBUILD" -v verify jq-1.0-py3-none-linux_x86_64.whl 2>err &&
	grep -q "Requires-Dist .jax>=0.10.: its width cannot be judged" err &&
	mkw jr-1.0-py3-none-linux_x86_64.whl jr 1.0 --requires "jaxlib==0.10.2" \
		jax_plugins/m1/__init__.py=init.py jax_plugins/m1/xla_m1.so=noapi.so &&
	expect_code 6 "$TFBUILD" verify jr-1.0-py3-none-linux_x86_64.whl 2>err &&
	cat err &&
	grep -q "jax_plugins/m1/: no shared library of package .jax_plugins/m1/. exports GetPjrtApi" err &&
	rm -rf rp && mkdir rp && (cd rp && unzip -q ../out/$wheel) &&
	sed -i "s/^Requires-Dist: .*/Requires-Dist: jaxlib>=0.10.2/" rp/*.dist-info/METADATA &&
	mkdir -p wider && "$tools/wheel" pack rp -d wider >/dev/null &&
	expect_code 6 "$TFBUILD" verify wider/*.whl 2>err &&
	cat err &&
	grep -q "METADATA: Requires-Dist .jaxlib>=0.10.2. is wider than the window .==0.10.2.: pjrt_m1/libm1.so (a PJRT plugin) was built against jaxlib 0.10.2" err
'

test_done
