# tfbuild: `make` builds ./tfbuild, `make test` runs every test (in
# parallel; `make test QUICK=1` skips the expensive tier), `make check`
# runs them under AddressSanitizer and UBSan, `make demo`
# runs the main job. `make deps` installs what the build needs (Debian).
# `make install` installs the binary, its man page and shell completion.
#
# On a bare machine the -dev packages arrive with `deps`, after make has
# read this file and run pkg-config; so every target that depends on
# `deps` builds the binary in a second make, which reads pkg-config anew.

CC      ?= cc
CFLAGS  ?= -O2 -g
PKGS     = yaml-0.1 libcurl libcrypto libarchive libelf jansson capstone \
           libdeflate minizip zlib liblzma
WARN     = -pthread -std=c11 -Wall -Wextra -Wshadow -Wmissing-prototypes \
           -Wstrict-prototypes -Wno-unused-parameter
DEFS     = -D_GNU_SOURCE -DTF_VERSION='"$(VERSION)"'
VERSION  = 0.1.0
O       ?= obj
BIN     ?= tfbuild

PKG_CONFIG ?= pkg-config
PREFIX   ?= /usr/local
DESTDIR  ?=

PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
# Capstone is dlopen'ed on first use (toolkit/isa/isa.c): not linked,
# so a run that does not disassemble does not pay its start-up cost.
CAPSTONE_LIB := $(shell $(PKG_CONFIG) --variable=libdir capstone 2>/dev/null)/libcapstone.so
CAPSTONE_SONAME := $(shell objdump -p $(CAPSTONE_LIB) 2>/dev/null | sed -n 's/^ *SONAME *//p')
PKG_LIBS   := $(filter-out -lcapstone,$(PKG_LIBS))
DEFS       += $(if $(CAPSTONE_SONAME),-DTF_CAPSTONE_SONAME='"$(CAPSTONE_SONAME)"')
# So are libcurl and libarchive (toolkit/dl/): their 36 dependencies
# cost ~14 ms of loading at every start, a no-op rebuild's largest part.
CURL_SONAME := $(shell objdump -p $(shell $(PKG_CONFIG) --variable=libdir libcurl 2>/dev/null)/libcurl.so 2>/dev/null | sed -n 's/^ *SONAME *//p')
ARCHIVE_SONAME := $(shell objdump -p $(shell $(PKG_CONFIG) --variable=libdir libarchive 2>/dev/null)/libarchive.so 2>/dev/null | sed -n 's/^ *SONAME *//p')
PKG_LIBS   := $(filter-out -lcurl -larchive,$(PKG_LIBS))
DEFS       += $(if $(CURL_SONAME),-DTF_CURL_SONAME='"$(CURL_SONAME)"')
DEFS       += $(if $(ARCHIVE_SONAME),-DTF_ARCHIVE_SONAME='"$(ARCHIVE_SONAME)"')
ALL_CFLAGS  = $(WARN) $(DEFS) $(CFLAGS) $(PKG_CFLAGS) -iquote toolkit
# Tests and benchmarks call a folder's internals by their own headers.
TEST_CFLAGS = $(ALL_CFLAGS) $(TK_DIRS:%=-iquote %)
ALL_LDFLAGS = $(LDFLAGS) -pthread $(PKG_LIBS) $(DEMANGLE_LIBS)
# libstdc++ for __cxa_demangle only (toolkit/plugin/framework.c), loaded
# on first use (toolkit/dl/libstdcxx.c): not linked.
DEMANGLE_LIBS =
STDCXX_SONAME := $(shell objdump -p $(shell $(CC) -print-file-name=libstdc++.so 2>/dev/null) 2>/dev/null | sed -n 's/^ *SONAME *//p')
DEFS       += $(if $(STDCXX_SONAME),-DTF_STDCXX_SONAME='"$(STDCXX_SONAME)"')
# The Mach-O reader (toolkit/macho/): LLVM's C++ object library in a
# shared object of its own, $(O)/libtfmacho.so, dlopened on the first
# Mach-O file a run reads, so that libLLVM (100 MB) is never loaded at
# tfbuild's start. Built with CXXFLAGS, not CFLAGS: `make check` and
# `make tsan` instrument tfbuild, not LLVM nor this reader (CXX is
# make's own, g++, unless given).
CXXFLAGS ?= -O2 -g
LLVM_CONFIG ?= llvm-config-14
LLVM_CXXFLAGS := $(patsubst -I%,-isystem %,$(shell $(LLVM_CONFIG) --cxxflags 2>/dev/null))
LLVM_LIBS := $(shell $(LLVM_CONFIG) --ldflags --libs object 2>/dev/null)
TFMACHO  = $(O)/libtfmacho.so
# Where macho.c looks for it beside the binary: $(O)/ of an uninstalled tree.
$(O)/macho.o: DEFS += -DTF_MACHO_OBJ_DIR='"$(O)"'

# toolkit/ holds the pipeline's stages; a concern of several files has
# a folder of its own (audit/, env/, isa/, metadata/, ui/), one flat object dir.
TK_DIRS  = $(sort $(dir $(wildcard toolkit/*/*.c)))
SRCS     = $(sort $(wildcard toolkit/*.c toolkit/*/*.c))
OBJS     = $(addprefix $(O)/,$(notdir $(SRCS:.c=.o))) $(O)/templates.o
vpath %.c toolkit $(TK_DIRS)
# Test tools and unit tests link everything but main() and the commands.
LIB_OBJS = $(filter-out $(O)/main.o $(O)/commands.o $(O)/cmd_%.o,$(OBJS))
UNIT_SRCS = $(sort $(wildcard tests/unit/*_test.c))
UNIT_BINS = $(UNIT_SRCS:tests/unit/%.c=$(O)/unit/%)

SAN_FLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=undefined

.PHONY: all deps test check tsan demo unit clean bench install docs need-libs
all: $(BIN) $(TFMACHO)

# Say what is missing instead of 260 undefined references.
need-libs:
	@[ -n "$(PKG_LIBS)" ] || { echo "tfbuild: the libraries ($(PKGS)) are not installed: run 'make deps' (or ci/install-deps.sh as root) first" >&2; exit 1; }

$(BIN): $(OBJS) | need-libs
	$(CC) $(CFLAGS) -o $@ $(OBJS) $(ALL_LDFLAGS)

$(O)/%.o: %.c $(wildcard toolkit/*.h toolkit/*/*.h) | need-libs
	@mkdir -p $(O)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(TFMACHO): toolkit/macho/reader.cpp toolkit/macho/macho.h
	@[ -n "$(LLVM_LIBS)" ] || { echo "tfbuild: LLVM's object library ($(LLVM_CONFIG)) is not installed: run 'make deps' (or ci/install-deps.sh as root) first" >&2; exit 1; }
	@mkdir -p $(O)
	$(CXX) $(LLVM_CXXFLAGS) $(CXXFLAGS) -Wall -Wextra -fPIC \
		-fvisibility=hidden -shared -Wl,--no-undefined -o $@ \
		toolkit/macho/reader.cpp $(LLVM_LIBS)

# templates/ (tfbuild new) embedded as a C table by a generator that
# needs only libc and refuses an unknown {{placeholder}}; the directories
# are prerequisites too, so adding or removing a file remakes the table.
TEMPLATE_PATHS := $(shell find templates 2>/dev/null)
$(O)/embed-templates: tools/embed-templates.c toolkit/scaffold/placeholders.inc
	@mkdir -p $(O)
	$(CC) -O1 -std=c11 -Wall -Wextra -iquote toolkit -o $@ $<
$(O)/templates.c: $(O)/embed-templates $(TEMPLATE_PATHS)
	$(O)/embed-templates templates $@.tmp && mv $@.tmp $@
$(O)/templates.o: $(O)/templates.c toolkit/scaffold/scaffold.h | need-libs
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# The stable ABI table is data compiled into abi3.o.
$(O)/abi3.o: toolkit/audit/abi3_table.inc
$(O)/metadata.o: toolkit/metadata/spdx_ids.inc

$(O)/unit/%: tests/unit/%.c tests/unit/unit.h $(LIB_OBJS)
	@mkdir -p $(O)/unit
	$(CC) $(TEST_CFLAGS) -Itests/unit -o $@ $< $(LIB_OBJS) $(ALL_LDFLAGS)

TOOL_SRCS = $(sort $(wildcard tests/tool/test-*.c))
TOOL_BINS = $(TOOL_SRCS:tests/tool/%.c=$(O)/tool/%)

# Test tools let shell tests call internals (like git's test-tool).
$(O)/tool/%: tests/tool/%.c $(LIB_OBJS)
	@mkdir -p $(O)/tool
	$(CC) $(TEST_CFLAGS) -o $@ $< $(LIB_OBJS) $(ALL_LDFLAGS)

unit: $(UNIT_BINS) $(TOOL_BINS) $(TFMACHO)

deps:
	@sh ci/install-deps.sh
	@sh ci/install-python-tools.sh

# The suite against one build: $(call run_suite,BINARY,OBJECT_DIR).
# tests/run.sh runs the programs in parallel: TEST_JOBS at a time, or
# make's -jN, else nproc. QUICK=1 skips the expensive tier (the framework
# tests: TFBUILD_TEST_EXPENSIVE=0), which CI runs (.ci/run).
TEST_JOBS ?=
QUICK ?=
test_jobs = $(or $(TEST_JOBS),$(patsubst -j%,%,$(filter -j%,$(MAKEFLAGS))))
run_suite = TFBUILD=$(CURDIR)/$(1) UNIT_DIR=$(CURDIR)/$(2)/unit \
	TOOL_DIR=$(CURDIR)/$(2)/tool $(if $(test_jobs),TEST_JOBS=$(test_jobs)) \
	$(if $(filter 1,$(QUICK)),TFBUILD_TEST_EXPENSIVE=0) sh tests/run.sh

test: deps
	$(MAKE) $(BIN) $(TFMACHO) unit
	$(call run_suite,$(BIN),$(O))

check: deps
	$(MAKE) O=obj-san BIN=tfbuild-san CFLAGS="$(SAN_FLAGS)" \
		LDFLAGS="-fsanitize=address,undefined" tfbuild-san unit \
		obj-san/libtfmacho.so
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	$(call run_suite,tfbuild-san,obj-san)

# ThreadSanitizer on the tests that start threads: the wheel writer's
# workers (zipout.c), pack's ELF probe and its post-pack check (pack.c),
# the status line's redraw thread (ui.c, on a terminal through script(1)
# in t0102), and runs killed while those threads work (t1705). Reports go
# to files, so a race fails the target even where a test expected
# tfbuild itself to fail. The whole suite under TSan takes 35 minutes;
# these, about 2 with the build.
TSAN_TESTS = zipout_test t0102 t05 t0607 t1005 t1705 t1706
tsan: deps
	$(MAKE) O=obj-tsan BIN=tfbuild-tsan \
		CFLAGS="-O1 -g -fsanitize=thread -fno-omit-frame-pointer" \
		LDFLAGS="-fsanitize=thread" tfbuild-tsan obj-tsan/unit/zipout_test \
		$(TOOL_BINS:$(O)/%=obj-tsan/%) obj-tsan/libtfmacho.so
	rm -rf obj-tsan/reports
	mkdir -p obj-tsan/reports
	TSAN_OPTIONS=log_path=$(CURDIR)/obj-tsan/reports/tsan \
	$(call run_suite,tfbuild-tsan,obj-tsan) $(TSAN_TESTS)
	@set -- obj-tsan/reports/tsan.*; [ ! -e "$$1" ] || { cat "$$@"; \
		echo "tfbuild: ThreadSanitizer reported $$# race(s), above" >&2; exit 1; }
	@echo "tsan: no report"

demo: deps
	$(MAKE) $(BIN)
	sh recipes/demo.sh

bench: deps
	$(MAKE) $(BIN)
	sh bench/run.sh

# docs/tfbuild.1 and contrib/completion/ are generated from the command
# table by `tfbuild help`, and committed; a test checks they are current.
docs: $(BIN)
	./$(BIN) help --man >docs/tfbuild.1
	./$(BIN) help --completion bash >contrib/completion/tfbuild.bash
	./$(BIN) help --completion zsh >contrib/completion/_tfbuild

install: $(BIN) $(TFMACHO)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/tfbuild
	install -d $(DESTDIR)$(PREFIX)/lib/tfbuild
	install -m 0755 $(TFMACHO) $(DESTDIR)$(PREFIX)/lib/tfbuild/libtfmacho.so
	install -m 0644 docs/tfbuild.1 $(DESTDIR)$(PREFIX)/share/man/man1/tfbuild.1
	install -m 0644 contrib/completion/tfbuild.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/tfbuild
	install -m 0644 contrib/completion/_tfbuild \
		$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_tfbuild

clean:
	rm -rf $(O) obj-* tfbuild tfbuild-* build tests/tmp

# --- Fuzzing (tests/fuzz/README.md) ----------------------------------------
# Each tests/fuzz/NAME_fuzz.c is a libFuzzer harness for one parser of
# untrusted input. `make unit` (so `make test` and `make check`) links
# each with replay.c into $(O)/unit/fuzz_NAME_test, which tests/run.sh
# runs: the seeds in tests/fuzz/corpus/NAME and $(O)/fuzz/seeds/NAME
# (binary seeds built from this repository by mkseeds.sh) and
# deterministic mutations of them. `make fuzz` runs every harness (or
# those in FUZZ_ONLY) under libFuzzer with clang for FUZZ_SECONDS each,
# then merges what found new code into the committed corpora.

FUZZ_SRCS    = $(sort $(wildcard tests/fuzz/*_fuzz.c))
FUZZ_NAMES   = $(FUZZ_SRCS:tests/fuzz/%_fuzz.c=%)
FUZZ_REPLAY  = $(FUZZ_NAMES:%=$(O)/unit/fuzz_%_test)
FUZZ_SEEDS   = $(O)/fuzz/seeds/.done
FUZZ_DEPS    = tests/fuzz/fuzz.h tests/fuzz/fuzz.c $(LIB_OBJS)
FUZZ_CC     ?= clang
FUZZ_SECONDS ?= 60
FUZZ_ONLY   ?= $(FUZZ_NAMES)
FUZZ_O       = $(O)/libfuzzer
FUZZ_CFLAGS  = -O1 -g -fno-omit-frame-pointer -fno-sanitize-recover=undefined \
               -fsanitize=fuzzer-no-link,address,undefined
FUZZ_OPTS   ?= -close_fd_mask=2 -timeout=10 -rss_limit_mb=2048
# After each run, inputs that reach new code are merged (-merge=1) into
# the committed text corpora, tests/fuzz/corpus/NAME, so they grow in git
# and the replay in `make test` runs them; FUZZ_MERGE=0 leaves them alone.
FUZZ_MERGE  ?= 1
FUZZ_MERGE_MAX_LEN ?= 4096

.PHONY: fuzz-replay fuzz fuzz-targets
unit: fuzz-replay
fuzz-replay: $(FUZZ_REPLAY) $(FUZZ_SEEDS)

$(O)/unit/fuzz_%_test: tests/fuzz/%_fuzz.c tests/fuzz/replay.c $(FUZZ_DEPS)
	@mkdir -p $(O)/unit
	$(CC) $(TEST_CFLAGS) -DFUZZ_NAME='"$*"' \
		-DFUZZ_DIRS='"$(CURDIR)/tests/fuzz/corpus/$*:$(CURDIR)/$(O)/fuzz/seeds/$*"' \
		-DFUZZ_SAVE_DIR='"$(CURDIR)/tests/tmp"' \
		-o $@ tests/fuzz/replay.c tests/fuzz/fuzz.c $< $(LIB_OBJS) \
		$(ALL_LDFLAGS)

$(FUZZ_SEEDS): tests/fuzz/mkseeds.sh $(O)/tool/test-wheel \
		$(wildcard tests/fixtures/elf/*)
	sh tests/fuzz/mkseeds.sh $(O)/fuzz/seeds $(O)/tool/test-wheel $(FUZZ_NAMES)
	@touch $@

# Built by `make fuzz` in a sub-make with O=$(FUZZ_O) and CC=$(FUZZ_CC).
fuzz-targets: $(FUZZ_ONLY:%=$(O)/fuzz/%_fuzz)

$(O)/fuzz/%_fuzz: tests/fuzz/%_fuzz.c $(FUZZ_DEPS)
	@mkdir -p $(O)/fuzz
	$(CC) $(TEST_CFLAGS) -fsanitize=fuzzer -o $@ tests/fuzz/fuzz.c $< \
		$(LIB_OBJS) $(ALL_LDFLAGS)

fuzz: $(FUZZ_SEEDS)
	@command -v $(FUZZ_CC) >/dev/null 2>&1 || { \
		echo "make fuzz needs clang and its libFuzzer: apt-get install clang"; \
		exit 1; }
	$(MAKE) O=$(FUZZ_O) CC=$(FUZZ_CC) CFLAGS="$(FUZZ_CFLAGS)" \
		LDFLAGS="-fsanitize=address,undefined" FUZZ_ONLY="$(FUZZ_ONLY)" \
		fuzz-targets
	@failed=; for n in $(FUZZ_ONLY); do \
		mkdir -p $(FUZZ_O)/corpus/$$n $(FUZZ_O)/crashes; \
		dict=; [ ! -f tests/fuzz/$$n.dict ] || dict=-dict=tests/fuzz/$$n.dict; \
		seeds=; for d in tests/fuzz/corpus/$$n $(O)/fuzz/seeds/$$n; do \
			[ ! -d $$d ] || seeds="$$seeds $$d"; done; \
		echo "== fuzz $$n for $(FUZZ_SECONDS)s (log: $(FUZZ_O)/$$n.log)"; \
		$(FUZZ_O)/fuzz/$${n}_fuzz $(FUZZ_OPTS) $$dict \
			-max_total_time=$(FUZZ_SECONDS) \
			-artifact_prefix=$(FUZZ_O)/crashes/$$n- \
			$(FUZZ_O)/corpus/$$n $$seeds >$(FUZZ_O)/$$n.log 2>&1 || \
			failed="$$failed $$n"; \
		grep -E '^(#[0-9]+.*DONE|Done |SUMMARY|==[0-9]+==ERROR|artifact_prefix|Test unit written)' \
			$(FUZZ_O)/$$n.log || tail -n 5 $(FUZZ_O)/$$n.log; \
		[ "$(FUZZ_MERGE)" = 0 ] || [ ! -d tests/fuzz/corpus/$$n ] || { \
			before=$$(ls tests/fuzz/corpus/$$n | wc -l); \
			$(FUZZ_O)/fuzz/$${n}_fuzz $(FUZZ_OPTS) -merge=1 \
				-max_len=$(FUZZ_MERGE_MAX_LEN) tests/fuzz/corpus/$$n \
				$(FUZZ_O)/corpus/$$n >$(FUZZ_O)/$$n.merge.log 2>&1 || \
				failed="$$failed $$n(merge)"; \
			echo "   corpus/$$n: $$before -> $$(ls tests/fuzz/corpus/$$n | wc -l) inputs (new ones add coverage: commit them)"; }; \
	done; \
	[ -z "$$failed" ] || { echo "fuzz: failed:$$failed (see $(FUZZ_O)/crashes)"; exit 1; }
