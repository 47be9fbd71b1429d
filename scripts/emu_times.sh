#!/bin/bash
# Emulation time of every workload at one size (docs/performance.md,
# "Emulation time per workload"): runs `mgsim run NAME --mode emu` for each
# workload that `mgsim list workloads` prints and writes a Markdown table
# (workload, wall and CPU seconds, peak RSS, wavefront instructions, launches,
# rate, verified) to stdout, one row as each run ends.
#
#   scripts/emu_times.sh [--size small|default] [--timeout S] [--only A,B]
#                        [--mgsim PATH] [--out DIR] [-- RUN-OPTIONS...]
#
# RUN-OPTIONS go to every `mgsim run` (e.g. `-- --preset carve --gpus 1`
# for the CARVE workloads, whose default sizes need its 32 GB per GPU).
# A run that passes --timeout seconds of wall time (default 1800) is stopped
# and reported as "timeout"; one that fails verification or errors shows its
# exit code. The databases go to --out (default a temporary directory,
# removed at the end). Long: at the default size the whole list takes over an
# hour of CPU; `make emu-times` runs it.
set -u
size=default
timeout_s=1800
only=
mgsim=${MGSIM:-build/mgsim}
out=
while [ $# -gt 0 ]; do
    case "$1" in
    --size) size=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --mgsim) mgsim=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "emu_times.sh: error: unknown option '$1' (try --help)" >&2
       exit 2 ;;
    esac
done
case "$size" in small|default) ;; *)
    echo "emu_times.sh: error: --size must be small or default" >&2; exit 2 ;;
esac
if [ ! -x "$mgsim" ]; then
    echo "emu_times.sh: error: $mgsim not found (build with make, or --mgsim)" >&2
    exit 2
fi
cleanup=
if [ -z "$out" ]; then
    out=$(mktemp -d)
    cleanup=$out
fi
mkdir -p "$out" || exit 2

names=$("$mgsim" list workloads | awk '/^  [a-z0-9_]+ +[A-Za-z0-9]+ / && $1 != "name" {print $1}')
if [ -n "$only" ]; then
    names=$(echo "$only" | tr ',' ' ')
fi

echo "| workload | wall s | CPU s | peak RSS MB | wf insts | launches | M wf-insts/CPU-s | result |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
total_cpu=0
for w in $names; do
    json="$out/$w.json"
    tfile="$out/$w.time"
    /usr/bin/time -f "%e %U %S %M" -o "$tfile" \
        timeout --signal=INT "$timeout_s" \
        "$mgsim" run "$w" --mode emu --size "$size" --quiet --json \
        --db "$out/$w.db" "$@" >"$json" 2>"$out/$w.err"
    rc=$?
    read -r wall user sys rss_kb < <(tail -n 1 "$tfile")
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%.1f", u + s}')
    total_cpu=$(awk -v a="$total_cpu" -v b="$cpu" 'BEGIN {printf "%.1f", a + b}')
    insts=$(grep -o '"wf_insts": [0-9]*' "$json" | awk '{print $2}')
    kernels=$(grep -o '"kernels": [0-9]*' "$json" | awk '{print $2}')
    rate=$(awk -v i="${insts:-0}" -v c="$cpu" \
        'BEGIN {if (c > 0 && i > 0) printf "%.1f", i / c / 1e6; else print "-"}')
    case $rc in
    0) result=verified ;;
    124|130) result="timeout (${timeout_s} s)" ;;
    1) result="VERIFICATION FAILED" ;;
    *) result="exit $rc: $(head -c 120 "$out/$w.err" | tr '\n|' '  ')" ;;
    esac
    printf '| %s | %.1f | %s | %d | %s | %s | %s | %s |\n' "$w" "$wall" "$cpu" \
        $((rss_kb / 1024)) "${insts:--}" "${kernels:--}" "$rate" "$result"
done
echo
echo "total CPU: $total_cpu s ($size size, $(date -u +%Y-%m-%d), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
[ -n "$cleanup" ] && rm -rf "$cleanup"
exit 0
