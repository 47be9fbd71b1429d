# make test-slurm: `mgsim sweep --slurm` on a one-node Slurm cluster started
# on this machine (scripts/slurm_local.sh; needs root and Debian's slurm-wlm
# and munge: scripts/slurm_deps.sh). Not part of `make test`: it starts
# daemons. The cluster is stopped afterwards unless KEEP_SLURM=1.
.PHONY: test-slurm
test-slurm: $(CLI)
	scripts/slurm_deps.sh
	scripts/slurm_local.sh start
	SLURM_CONF=$${MGSIM_SLURM_DIR:-/tmp/mgsim-slurm}/slurm.conf \
	  MGSIM_KERNEL_DIR=$(abspath $(KDIR)) MGSIM=$(abspath $(CLI)) \
	  bash tests/slurm/sweep_slurm.sh; rc=$$?; \
	  [ "$(KEEP_SLURM)" = 1 ] || scripts/slurm_local.sh stop; exit $$rc
