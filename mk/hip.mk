# libmgsim-hip: example HIP programs and HIP test programs, compiled by
# Debian's hipcc exactly as a user would (host object + embedded gfx803
# code object) and linked against libmgsim-hip instead of libamdhip64.
# Included by the main Makefile (after its variables are set).
#
#   make hip-examples B=me   -> build-me/examples/hip/{vecadd,halo,managed}
#   make test B=me           -> also builds them (sanitized flavour) for
#                               tests/cli/hip_*.sh
#
# The programs link the static library of the same flavour, with the same
# sanitizer flags ($(SANLD)), so `make test` runs the HIP runtime under
# ASan+UBSan too. The hipcc host object itself is not instrumented.
# Unit tests under tests/unit/hip link libmgsim-hip.a (which contains
# libmgsim's objects) instead of libmgsim.a.

HIP_EXAMPLE_SRCS := $(sort $(wildcard examples/hip/*.hip))
HIP_EXAMPLES := $(HIP_EXAMPLE_SRCS:%.hip=$(BUILD)/%)
HIP_PROG_SRCS := $(sort $(wildcard tests/unit/hip/progs/*.hip))
HIP_PROGS := $(HIP_PROG_SRCS:%.hip=$(BUILD)/%)
HIP_CXX ?= g++
HIPCC_FLAGS ?= --offload-arch=gfx803 -O2

.PHONY: hip-examples
hip-examples: $(HIP_EXAMPLES)

# One example also linked against the shared flavour, to test that path.
HIP_SHARED_EXAMPLE := $(BUILD)/examples/hip/vecadd-shared

test-bins: $(HIP_EXAMPLES) $(HIP_PROGS) $(HIP_SHARED_EXAMPLE)

$(BUILD)/examples/hip/%.o: examples/hip/%.hip
	@mkdir -p $(dir $@)
	$(IN_TMPDIR) $(HIPCC) $(HIPCC_FLAGS) -c $< -o $@

$(BUILD)/tests/unit/hip/progs/%.o: tests/unit/hip/progs/%.hip
	@mkdir -p $(dir $@)
	$(IN_TMPDIR) $(HIPCC) $(HIPCC_FLAGS) -c $< -o $@

$(HIP_EXAMPLES) $(HIP_PROGS): %: %.o $(HIPLIB_A)
	$(HIP_CXX) $(SANLD) -o $@ $< $(HIPLIB_A) $(LDLIBS)

$(HIP_SHARED_EXAMPLE): $(BUILD)/examples/hip/vecadd.o $(HIPLIB_SO)
	$(HIP_CXX) $(SANLD) -o $@ $< -L$(BUILD) -lmgsim-hip \
	  -Wl,-rpath,$(abspath $(BUILD))

$(BUILD)/tests/unit/hip/%: tests/unit/hip/%.c $(HIPLIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(HIPLIB_A) $(LDLIBS) -lcmocka $(SANLD)

# The shared library exports only the HIP API and mgsim's public API.
$(HIPLIB_SO): LDLIBS += -Wl,--version-script=src/hip/exports.map
$(HIPLIB_SO): | src/hip/exports.map
