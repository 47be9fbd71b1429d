#!/bin/sh
# Runs a command with TMPDIR set to a fresh directory and removes that
# directory afterwards, keeping the command's exit status. The build runs
# hipcc through it: Debian's hipcc leaves two empty directories in $TMPDIR
# for every file it compiles (thousands in /tmp after a few test runs).
# Usage: scripts/in_tmpdir.sh CMD [ARGS...]
d=$(mktemp -d "${TMPDIR:-/tmp}/mgsim-build.XXXXXX") || exit 1
TMPDIR=$d "$@"
rc=$?
rm -rf "$d"
exit $rc
