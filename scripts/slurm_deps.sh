#!/bin/sh
# Installs the Debian packages the Slurm test needs (slurm-wlm: slurmctld,
# slurmd, sbatch ...; munge: the authentication daemon Slurm requires).
# Not part of scripts/deps.sh: the default test suite does not need them.
# Idempotent; exits non-zero after printing the apt command if it cannot.
set -u
PKGS="slurm-wlm munge"
missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0
echo "slurm_deps.sh: installing:$missing" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
if ! { $SUDO apt-get update -qq && \
       DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
         --no-install-recommends $missing; } >&2
then
    echo "slurm_deps.sh: could not install; run: sudo apt-get install -y$missing" >&2
    exit 1
fi
exit 0
