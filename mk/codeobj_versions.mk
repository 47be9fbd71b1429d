# Code objects v2 and v3 of some of the project's own kernels, built at
# build time with the compilers' -mcode-object-version= (Debian's hipcc /
# clang-15 still emit both; their default is v4). They go to
# $(KDIR)/v2/ and $(KDIR)/v3/ under the same file names as the v4 ones, so
# a workload runs on them with MGSIM_KERNEL_DIR=$(KDIR)/v2 (tests/cli/
# codeobj_versions.sh), and `mgsim disasm` is checked on them
# (tests/cli/disasm_v2.sh). loader_cl (OpenCL: hidden arguments, a
# dynamic_shared_pointer argument, type names) is the unit
# tests' v2 fixture (tests/unit/gcn3/test_codeobj_v2.c); loader_props a v2
# file with two kernels (for disasm_v2.sh).
CO_VERSION_KERNELS := vecadd fir rl mt bs mm
KERNELS_V2 := $(CO_VERSION_KERNELS:%=$(KDIR)/v2/%.hsaco) \
              $(KDIR)/v2/loader_cl.hsaco $(KDIR)/v2/loader_props.hsaco
KERNELS_V3 := $(CO_VERSION_KERNELS:%=$(KDIR)/v3/%.hsaco)

kernels: $(KERNELS_V2) $(KERNELS_V3)

$(KDIR)/v2/%.hsaco: kernels/%.hip
	@mkdir -p $(dir $@)
	$(IN_TMPDIR) $(HIPCC) --genco --offload-arch=gfx803 -O3 -mcode-object-version=2 $< -o $@

$(KDIR)/v3/%.hsaco: kernels/%.hip
	@mkdir -p $(dir $@)
	$(IN_TMPDIR) $(HIPCC) --genco --offload-arch=gfx803 -O3 -mcode-object-version=3 $< -o $@

$(KDIR)/v2/loader_cl.hsaco: tests/unit/gcn3/data/loader_cl.cl
	@mkdir -p $(dir $@)
	$(OCLCC) -x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx803 \
	  -nogpulib -mcode-object-version=2 $(foreach b,$(OCL_BC),-Xclang \
	  -mlink-builtin-bitcode -Xclang $(ROCM_BC)/$(b).bc) -O3 $< -o $@
