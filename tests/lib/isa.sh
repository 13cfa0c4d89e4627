# The ISA tests' recipe (t1101, t1102, t1103), sourced after test-lib.sh
# with $fix set to the fixture directory.
#
# isa_recipe NAME TARGET LIB BUILD ISA-YAML [notest] writes NAME.yaml:
# step `lib` makes $STAGE/LIB and runs BUILD (its lines after the first
# indented by six spaces), which builds libLIB.so there; test `run`
# builds LIB_test.c against it and runs it under $EMULATOR (left out
# with notest); wheel LIB packs the library, ISA-YAML (the wheel's
# `isa:` lines, or "") ending its definition.
isa_recipe() {
	tests="tests:
  - name: run
    source: fix
    needs: [lib]
    run: |
      \$CC -O2 -o \"\$BUILDDIR/t\" $3_test.c -L\${stage.lib}/$3 -l$3
      LD_LIBRARY_PATH=\${stage.lib}/$3 \$EMULATOR \"\$BUILDDIR/t\""
	[ "${6-}" != notest ] || tests=
	cat >"$1.yaml" <<-EOF
	schema: 1
	name: $1
	version: 1.0.0
	targets: [$2]
	sources:
	  - name: fix
	    path: $fix
	steps:
	  - name: lib
	    source: fix
	    run: |
	      mkdir -p "\$STAGE/$3"
	      $4
	$tests
	wheels:
	  - name: $3
	    version: 1.0.0
	    files:
	      - from: lib
	        src: $3
	        dst: .
	$5
	EOF
}
