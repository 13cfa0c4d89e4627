# tfbuild: `make` builds ./tfbuild, `make test` runs every test,
# `make check` runs them under AddressSanitizer and UBSan, `make demo`
# runs the main job. `make deps` installs what the build needs (Debian).

CC      ?= cc
CFLAGS  ?= -O2 -g
PKGS     = yaml-0.1 libcurl libcrypto libarchive libelf jansson
WARN     = -std=c11 -Wall -Wextra -Wshadow -Wmissing-prototypes \
           -Wstrict-prototypes -Wno-unused-parameter
DEFS     = -D_GNU_SOURCE -DTF_VERSION='"$(VERSION)"'
VERSION  = 0.1.0
O       ?= obj
BIN     ?= tfbuild

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
ALL_CFLAGS  = $(WARN) $(DEFS) $(CFLAGS) $(PKG_CFLAGS) -iquote toolkit
ALL_LDFLAGS = $(LDFLAGS) $(PKG_LIBS)

SRCS     = $(sort $(wildcard toolkit/*.c))
OBJS     = $(SRCS:toolkit/%.c=$(O)/%.o)
LIB_OBJS = $(filter-out $(O)/main.o,$(OBJS))
UNIT_SRCS = $(sort $(wildcard tests/unit/*_test.c))
UNIT_BINS = $(UNIT_SRCS:tests/unit/%.c=$(O)/unit/%)

SAN_FLAGS = -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=undefined

.PHONY: all deps test check demo unit clean bench
all: $(BIN)

$(BIN): $(OBJS)
	$(CC) $(CFLAGS) -o $@ $(OBJS) $(ALL_LDFLAGS)

$(O)/%.o: toolkit/%.c $(wildcard toolkit/*.h)
	@mkdir -p $(O)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(O)/unit/%: tests/unit/%.c tests/unit/unit.h $(LIB_OBJS)
	@mkdir -p $(O)/unit
	$(CC) $(ALL_CFLAGS) -Itests/unit -o $@ $< $(LIB_OBJS) $(ALL_LDFLAGS)

TOOL_SRCS = $(sort $(wildcard tests/tool/test-*.c))
TOOL_BINS = $(TOOL_SRCS:tests/tool/%.c=$(O)/tool/%)

# Test tools let shell tests call internals (like git's test-tool).
$(O)/tool/%: tests/tool/%.c $(LIB_OBJS)
	@mkdir -p $(O)/tool
	$(CC) $(ALL_CFLAGS) -o $@ $< $(LIB_OBJS) $(ALL_LDFLAGS)

unit: $(UNIT_BINS) $(TOOL_BINS)

deps:
	@sh ci/install-deps.sh

test: deps
	$(MAKE) $(BIN) unit
	TFBUILD=$(CURDIR)/$(BIN) UNIT_DIR=$(CURDIR)/$(O)/unit \
		TOOL_DIR=$(CURDIR)/$(O)/tool sh tests/run.sh

check: deps
	$(MAKE) O=obj-san BIN=tfbuild-san CFLAGS="$(SAN_FLAGS)" \
		LDFLAGS="-fsanitize=address,undefined" tfbuild-san unit
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	TFBUILD=$(CURDIR)/tfbuild-san UNIT_DIR=$(CURDIR)/obj-san/unit \
	TOOL_DIR=$(CURDIR)/obj-san/tool \
		sh tests/run.sh

demo: deps $(BIN)
	sh recipes/demo.sh

bench: deps $(BIN)
	sh bench/run.sh

clean:
	rm -rf $(O) obj-* tfbuild tfbuild-* build tests/tmp
