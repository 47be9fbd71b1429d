#!/bin/sh
# Installs the Debian packages the Slurm test (make test-slurm) needs:
# slurm-wlm (slurmctld, slurmd, sbatch ...) and munge (the authentication
# daemon Slurm requires). Not in scripts/deps.sh's default list: the
# default test suite does not need them.
exec "$(dirname "$0")/deps.sh" slurm-wlm munge
