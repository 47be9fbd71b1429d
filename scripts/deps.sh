#!/bin/sh
# Installs every Debian package mgsim needs. Idempotent: installs only what
# is missing. Exits non-zero (after printing the apt command to run) when it
# cannot install.
set -u
# Arguments replace the default list (scripts/slurm_deps.sh).
PKGS="make gcc pkg-config git hipcc rocm-device-libs llvm-15 clang-15 \
libelf-dev libmsgpack-dev libinih-dev libsqlite3-dev libcmocka-dev libyaml-dev \
python3-matplotlib sqlite3"
[ $# -gt 0 ] && PKGS="$*"

missing=""
for p in $PKGS; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

echo "deps.sh: installing:$missing" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
if ! { $SUDO apt-get update -qq && \
       DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing; } >&2
then
    echo "deps.sh: could not install packages; run: sudo apt-get install -y$missing" >&2
    exit 1
fi
exit 0
