#!/bin/bash
# A single-node Slurm cluster on this machine, for testing `mgsim sweep
# --slurm` for real (docs/studies.md): munged + slurmctld + slurmd from
# Debian's munge and slurm-wlm (scripts/slurm_deps.sh installs them),
# localhost only, one partition "debug" with this machine's cores.
#
#   scripts/slurm_local.sh start   write the configuration, start the daemons,
#                                  wait until the node is idle
#   scripts/slurm_local.sh stop    stop the daemons this script started
#   scripts/slurm_local.sh status  sinfo
#
# State lives under $MGSIM_SLURM_DIR (default /tmp/mgsim-slurm): the
# configuration, spool directories, logs and the daemons' pid files; stop
# kills exactly those pids. Needs root (the daemons run as root here;
# a real cluster has its own configuration: see docs/studies.md).
set -u
DIR=${MGSIM_SLURM_DIR:-/tmp/mgsim-slurm}
CONF=$DIR/slurm.conf
export SLURM_CONF=$CONF
NODE=$(hostname -s)
CPUS=$(nproc)

die() { echo "slurm_local.sh: $*" >&2; exit 1; }

start() {
    [ "$(id -u)" -eq 0 ] || die "needs root (it starts munged, slurmctld and slurmd)"
    for b in munged slurmctld slurmd sinfo sbatch; do
        command -v "$b" >/dev/null || die "$b not found: run scripts/slurm_deps.sh"
    done
    mkdir -p "$DIR"/{ctld,d,munge,log}
    if [ -f "$DIR/munged.pid" ] && kill -0 "$(cat "$DIR/munged.pid")" 2>/dev/null; then
        :
    else
        [ -f /etc/munge/munge.key ] || mungekey --create >/dev/null || die "cannot create the munge key"
        chown -R munge:munge "$DIR/munge"
        # The default socket (/run/munge) is where Slurm's auth/munge looks.
        mkdir -p /run/munge && chown munge:munge /run/munge
        runuser -u munge -- munged --pid-file="$DIR/munge/munged.pid" \
            --log-file="$DIR/munge/munged.log" --seed-file="$DIR/munge/seed" ||
            die "munged did not start (see $DIR/munge/munged.log)"
        cp "$DIR/munge/munged.pid" "$DIR/munged.pid"
    fi
    cat > "$CONF" <<CONF
# Written by scripts/slurm_local.sh: a one-node test cluster.
ClusterName=mgsim-local
SlurmctldHost=$NODE(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$DIR/ctld
SlurmdSpoolDir=$DIR/d
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
SwitchType=switch/none
MaxArraySize=100001
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$CPUS State=UNKNOWN
PartitionName=debug Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
CONF
    rm -f "$DIR/cgroup.conf"
    if ! { [ -f "$DIR/slurmctld.pid" ] && kill -0 "$(cat "$DIR/slurmctld.pid")" 2>/dev/null; }; then
        slurmctld -f "$CONF" -i || die "slurmctld did not start (see $DIR/log/slurmctld.log)"
    fi
    if ! { [ -f "$DIR/slurmd.pid" ] && kill -0 "$(cat "$DIR/slurmd.pid")" 2>/dev/null; }; then
        slurmd -f "$CONF" || die "slurmd did not start (see $DIR/log/slurmd.log)"
    fi
    for _ in $(seq 1 60); do
        state=$(sinfo -h -N -o %t 2>/dev/null | head -1)
        case "$state" in
            idle*|mix*|alloc*) echo "slurm_local.sh: node $NODE is $state (SLURM_CONF=$CONF)"; return 0 ;;
            down*|drain*) scontrol update nodename="$NODE" state=resume >/dev/null 2>&1 ;;
        esac
        sleep 1
    done
    die "the node did not become idle (sinfo: ${state:-nothing}; logs in $DIR/log)"
}

stop() {
    for d in slurmd slurmctld munged; do
        f=$DIR/$d.pid
        if [ -f "$f" ]; then
            pid=$(cat "$f")
            kill "$pid" 2>/dev/null
            for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            rm -f "$f"
        fi
    done
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    status) sinfo ;;
    *) echo "usage: scripts/slurm_local.sh start|stop|status" >&2; exit 2 ;;
esac
