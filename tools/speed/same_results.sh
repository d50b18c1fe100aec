#!/usr/bin/env bash
# Run a fixed set of general-kernel configurations with an arcsim binary and keep their
# outputs (result.json without wall-time/version fields, every CSV) for comparison:
#
#   tools/speed/same_results.sh BIN OUTDIR          # e.g. a baseline build, then a new one
#   diff -r OUTDIR_BASELINE OUTDIR_NEW              # must print nothing
#
# Every example that runs on the kernel (switch.kind = "cioq"), shortened, and variants of
# the benchmarks (the CIOQ dragonfly, the QCN-Switch paper's network, the 16-ary 3-tree),
# of the selections, queue schemes, output queues, flow controls and flows.
set -euo pipefail
BIN=$(realpath "$1")
OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
mkdir -p "$OUT"
short=(--set simulation.warmup_cycles=1000 --set simulation.measure_cycles=3000)
run() { # name config|- sets...
    local name=$1 cfg=$2
    shift 2
    local dir="$OUT/$name"
    rm -rf "$dir.tmp"
    if [ "$cfg" = - ]; then
        "$BIN" run "$@" --out "$dir.tmp" >/dev/null 2>"$dir.err" || { echo "FAILED $name"; cat "$dir.err"; }
    else
        "$BIN" run "$cfg" "$@" --out "$dir.tmp" >/dev/null 2>"$dir.err" || { echo "FAILED $name"; cat "$dir.err"; }
    fi
    mkdir -p "$dir"
    if [ -f "$dir.tmp/result.json" ]; then
        python3 - "$dir.tmp/result.json" "$dir/result.json" <<'PY'
import json, re, sys
drop = re.compile(r"wall|per_second|version|elapsed|git|host|date|created_at|commit|threads|memory")
def clean(v):
    if isinstance(v, dict):
        return {k: clean(x) for k, x in v.items() if not drop.search(k)}
    if isinstance(v, list):
        return [clean(x) for x in v]
    return v
json.dump(clean(json.load(open(sys.argv[1]))), open(sys.argv[2], "w"), indent=1, sort_keys=True)
PY
    fi
    for f in "$dir.tmp"/*.csv; do [ -e "$f" ] && cp "$f" "$dir/"; done
    rm -rf "$dir.tmp" "$dir.err"
}
E=$ROOT/examples
for ex in anynet_updown cioq_dragonfly dragonfly_plus fat_tree_cables fat_tree_dmodk hol_switch \
    multistage_recn pfc_incast qcn_hotspot rlft_c2_hotspot; do
    run "$ex" "$E/$ex.toml" "${short[@]}"
done
run collective_allreduce "$E/collective_allreduce.toml"
run pfc_incast_full "$E/pfc_incast.toml"
run rlft_c2_hotspot_full "$E/rlft_c2_hotspot.toml" --set simulation.measure_cycles=8000
# The benchmarks, shortened.
bench=(--set topology.h=6 --set topology.p=6 --set topology.a=12 --set routing.algorithm=min
    --set traffic.pattern=uniform --set simulation.warmup_cycles=0)
run bench_cioq - "${bench[@]}" --set traffic.load=0.5 --set simulation.measure_cycles=600 \
    --set switch.kind=cioq
run bench_cioq_s2 - "${bench[@]}" --set traffic.load=0.5 --set simulation.measure_cycles=600 \
    --set switch.kind=cioq --set switch.speedup=2.0 --set switch.latency=10 --set switch.output_buffer=1000
run bench_qcn_paper - "${bench[@]}" --set traffic.load=0.4 --set simulation.measure_cycles=600 \
    --set switch.kind=cioq --set switch.speedup=2.0 \
    --set 'units.link_rate=40 Gbps' --set 'units.cycle=20 ns' \
    --set 'router.packet_length=1000 B' --set 'switch.latency=200 ns' \
    --set 'switch.output_buffer=100 KB' --set 'router.buffer_local=100 KB' \
    --set 'router.buffer_global=100 KB' --set 'router.buffer_injection=200 KB' \
    --set 'topology.local_latency=40 ns' --set 'topology.global_latency=400 ns' \
    --set 'topology.terminal_latency=20 ns'
FT=$HERE/fat_tree_16ary3.toml
ftshort=(--set simulation.warmup_cycles=300 --set simulation.measure_cycles=500)
run ft_adaptive "$FT" "${ftshort[@]}"
run ft_first_free "$FT" "${ftshort[@]}" --set routing.selection=first-free
run ft_dmodk_sat "$FT" "${ftshort[@]}" --set routing.selection=d-mod-k --set traffic.load=1.0
# Selections, queue schemes, output queues, flow control on the 4-ary 3-tree.
T=$E/fat_tree_dmodk.toml
for sel in round-robin least-loaded ingress-round-robin random s-mod-k first-free adaptive; do
    run "tree_$sel" "$T" "${short[@]}" --set routing.selection=$sel --set traffic.load=0.8
done
run tree_speedup2_hold "$T" "${short[@]}" --set switch.speedup=2.0 --set switch.output_hold=true \
    --set switch.latency=3 --set switch.output_buffer=32
run tree_pervc "$T" "${short[@]}" --set switch.output_queues=per-vc --set router.vcs_local=2
for q in four-q voq-switch voq-net; do
    run "tree_$q" "$T" "${short[@]}" --set switch.queues=$q --set routing.selection=d-mod-k \
        --set router.buffer_injection=512 --set router.buffer_local=512
done
run tree_pfc "$T" "${short[@]}" --set flow_control.kind=pfc --set flow_control.xoff=40 \
    --set flow_control.xon=16 --set router.buffer_local=80
run tree_none "$T" "${short[@]}" --set flow_control.kind=none
run tree_admittance "$E/rlft_c2_hotspot.toml" "${short[@]}" --set nic.admittance=true
echo "done: $OUT"
