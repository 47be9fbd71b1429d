# mgsim build. One way to build: this Makefile.
#
#   make            optimised build into build/ (library, CLI, kernels)
#   make test       builds with ASan+UBSan into build/san and runs every test
#   make test-matrix  the full workload x platform x GPUs x mode matrix
#   make bench      optimised build, then runs every benchmark under bench/
#   make BUILD=dir  use another build directory (parallel work trees)
#
# Sources are discovered by wildcard so that adding a file never edits this:
#   src/**/*.c (except src/cli, src/hip)  -> libmgsim.a
#   workloads/**/*.c                      -> libmgsim.a
#   src/cli/*.c                           -> mgsim
#   tests/unit/**/test_*.c                -> one cmocka binary each
#   tests/cli/*.sh                        -> shell tests (one test each)
#   bench/*.c                             -> one benchmark binary each
#   kernels/*.hip, kernels/*.cl           -> build/kernels/*.hsaco (gfx803)

# B=name gives a private set of build directories (build-name/...), so that
# several people (or agents) can build in one work tree at once.
SAN ?= 0
ifdef B
ROOTBUILD := build-$(B)
else
ROOTBUILD := build
endif
TEST_BUILD ?= $(ROOTBUILD)/san
ifeq ($(SAN),1)
BUILD ?= $(ROOTBUILD)/san
OPT := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
       -fno-sanitize-recover=all
SANLD := -fsanitize=address,undefined
else
BUILD ?= $(ROOTBUILD)
OPT := -O2 -g
SANLD :=
endif

CC ?= cc
ifeq ($(origin CC),default)
CC := gcc
endif
# Kernels do not depend on the host build flavour; share them.
KDIR ?= $(ROOTBUILD)/kernels
HIPCC ?= hipcc
# hipcc runs in a private TMPDIR, removed afterwards (scripts/in_tmpdir.sh).
IN_TMPDIR := scripts/in_tmpdir.sh
OCLCC ?= clang-15


PKG_CFLAGS := $(shell pkg-config --cflags msgpack inih sqlite3 2>/dev/null)
PKG_LIBS := -lelf $(shell pkg-config --libs msgpack 2>/dev/null || echo -lmsgpackc) \
            -linih -lsqlite3 -lyaml
GIT_REV := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
VERSION := 0.1.0

CFLAGS := -std=c17 -Wall -Wextra -Werror -D_GNU_SOURCE -fPIC $(OPT) \
          -Iinclude -Isrc -I. $(PKG_CFLAGS) -MMD -MP \
          -DMGS_VERSION='"$(VERSION)"' -I$(BUILD)/gen \
          -DMGS_KERNEL_DIR='"$(abspath $(KDIR))"' \
          -DMGS_SOURCE_DIR='"$(abspath .)"'
LDLIBS := $(PKG_LIBS) -lm -lpthread

LIB_SRCS := $(shell find src -name '*.c' -not -path 'src/cli/*' \
              -not -path 'src/hip/*' | sort) \
            $(shell find workloads -name '*.c' 2>/dev/null | sort)
CLI_SRCS := $(sort $(wildcard src/cli/*.c))
HIP_SRCS := $(sort $(wildcard src/hip/*.c))
TEST_SRCS := $(shell find tests/unit -name 'test_*.c' 2>/dev/null | sort)
BENCH_SRCS := $(sort $(wildcard bench/*.c))
KERNEL_SRCS := $(sort $(wildcard kernels/*.hip kernels/*.cl))

LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/obj/%.o)
HIP_OBJS := $(HIP_SRCS:%.c=$(BUILD)/obj/%.o)
TEST_BINS := $(TEST_SRCS:%.c=$(BUILD)/%)
BENCH_BINS := $(BENCH_SRCS:%.c=$(BUILD)/%)
KERNELS := $(patsubst kernels/%,$(KDIR)/%.hsaco,$(basename $(KERNEL_SRCS)))

LIB := $(BUILD)/libmgsim.a
CLI := $(BUILD)/mgsim
# The HIP runtime replacement: ordinary hipcc-compiled programs link against
# it instead of libamdhip64 (docs/hip.md). Static and shared flavours.
HIPLIB_A := $(BUILD)/libmgsim-hip.a
HIPLIB_SO := $(BUILD)/libmgsim-hip.so
HIPLIBS := $(if $(HIP_SRCS),$(HIPLIB_A) $(HIPLIB_SO))

.PHONY: all test test-matrix bench emu-times clean kernels demo
all: $(CLI) $(HIPLIBS) kernels

kernels: $(KERNELS)

# Objects depend on the flags they were built with: a stamp that changes
# only when the optimisation/sanitizer/package flags do, so a tree built
# by an older Makefile (e.g. before -fPIC) is rebuilt, not half-linked.
FLAGS_STAMP := $(BUILD)/.flags
STAMP_TEXT := $(OPT) $(SANLD) $(PKG_CFLAGS) -fPIC
.PHONY: FORCE
$(FLAGS_STAMP): FORCE
	@mkdir -p $(dir $@)
	@printf '%s\n' '$(STAMP_TEXT)' | cmp -s - $@ || \
	  printf '%s\n' '$(STAMP_TEXT)' > $@

# The git revision the results record (MGS_GIT_REV) lives in a generated
# header rewritten only when the revision changes, so the files that
# include it are rebuilt then, and only they (a -D flag went stale: objects
# compiled before a commit kept the old revision).
GIT_REV_H := $(BUILD)/gen/git_rev.h
$(GIT_REV_H): FORCE
	@mkdir -p $(dir $@)
	@printf '#define MGS_GIT_REV "%s"\n' '$(GIT_REV)' | cmp -s - $@ || \
	  printf '#define MGS_GIT_REV "%s"\n' '$(GIT_REV)' > $@

$(BUILD)/obj/%.o: %.c $(FLAGS_STAMP) | $(GIT_REV_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(CLI): $(CLI_OBJS) $(LIB)
	$(CC) $(SANLD) -o $@ $(CLI_OBJS) $(LIB) $(LDLIBS)

$(HIPLIB_A): $(HIP_OBJS) $(LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

$(HIPLIB_SO): $(HIP_OBJS) $(LIB_OBJS)
	$(CC) -shared $(SANLD) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/%.c $(LIB) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LIB) $(LDLIBS) -lcmocka $(SANLD)

$(BUILD)/bench/%: bench/%.c $(LIB) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LIB) $(LDLIBS)

# HIP kernels: hipcc emits an offload bundle; the loader accepts bundles.
$(KDIR)/%.hsaco: kernels/%.hip
	@mkdir -p $(dir $@)
	$(IN_TMPDIR) $(HIPCC) --genco --offload-arch=gfx803 -O3 $< -o $@

# OpenCL C kernels: plain code object from clang with the ROCm device libs
# linked as builtin bitcode (clang does not find Debian's layout itself).
ROCM_BC := /usr/lib/x86_64-linux-gnu/amdgcn/bitcode
OCL_BC := opencl ocml ockl oclc_isa_version_803 oclc_abi_version_400 \
          oclc_wavefrontsize64_on oclc_daz_opt_off oclc_finite_only_off \
          oclc_unsafe_math_off oclc_correctly_rounded_sqrt_on
$(KDIR)/%.hsaco: kernels/%.cl
	@mkdir -p $(dir $@)
	$(OCLCC) -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx803 \
	  -nogpulib $(foreach b,$(OCL_BC),-Xclang -mlink-builtin-bitcode \
	  -Xclang $(ROCM_BC)/$(b).bc) -O3 $< -o $@

demo: all
	$(CLI) run

test:
	$(MAKE) SAN=1 BUILD=$(TEST_BUILD) test-bins kernels
	MGSIM_KERNEL_DIR=$(abspath $(KDIR)) scripts/run_tests.sh $(TEST_BUILD) $(T)

# The benchmarks are built too (not run): a bench that no longer compiles
# fails the suite instead of the next `make bench`.
test-bins: $(CLI) $(HIPLIBS) $(TEST_BINS) $(BENCH_BINS)

# The full verification matrix: every workload x platform type x 1, 2, 4
# GPUs x emu/timing (tests/cli/platform_matrix.sh; the suite runs it
# without the duplicate runs), optimised build.
test-matrix: all
	MGSIM=$(abspath $(CLI)) MGSIM_MATRIX=full \
	  MGSIM_KERNEL_DIR=$(abspath $(KDIR)) bash tests/cli/platform_matrix.sh

bench: $(CLI) $(BENCH_BINS) kernels
	scripts/run_bench.sh $(BUILD)

# Emulation seconds of every workload at the default size (long: over an
# hour of CPU; docs/performance.md).
emu-times: $(CLI) kernels
	scripts/emu_times.sh --mgsim $(CLI)

clean:
	rm -rf $(ROOTBUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# Optional fragments for parts with their own build steps (examples, ...).
-include $(sort $(wildcard mk/*.mk))
