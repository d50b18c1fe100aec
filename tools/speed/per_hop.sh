#!/usr/bin/env bash
# Instructions and simulated L1 data-cache misses per packet-hop of a benchmark, counted by
# valgrind's cachegrind (load-independent, unlike wall time on a shared machine):
#
#   tools/speed/per_hop.sh BIN BENCH [CYCLES]
#
# BENCH: iq (`arcsim bench`, the input-queued dragonfly engine), cioq (the same network on
# CIOQ switches), qcn (the QCN-Switch paper's network, Benito et al. 2018, at 40% load),
# ft (the 16-ary 3-tree of fat_tree_16ary3.toml at load 0.5, reference adaptive routing),
# ftff (the same with `first-free`). The run at 1 cycle (the setup: building the network
# and its routing tables) is subtracted from the run at CYCLES (default 800), and the
# difference divided by the packet-hops of the longer run. "D1 misses" are cachegrind's
# simulated first-level data misses, reads and writes, with the host's cache sizes.
set -u
BIN=$1
NAME=$2
CYC=${3:-800}
FT=(--load 0.5 --set topology.kind=tree --set topology.tree.k=16 --set topology.tree.n=3
    --set topology.terminal_latency=10 --set topology.local_latency=10 --set switch.kind=cioq
    --set router.packet_length=8 --set router.buffer_injection=64 --set router.buffer_local=64)
QCN=(--load 0.4 --set switch.kind=cioq --set switch.speedup=2.0 --set 'units.link_rate=40 Gbps'
    --set 'units.cycle=20 ns' --set 'router.packet_length=1000 B' --set 'switch.latency=200 ns'
    --set 'switch.output_buffer=100 KB' --set 'router.buffer_local=100 KB'
    --set 'router.buffer_global=100 KB' --set 'router.buffer_injection=200 KB'
    --set 'topology.local_latency=40 ns' --set 'topology.global_latency=400 ns'
    --set 'topology.terminal_latency=20 ns')
case $NAME in
iq) ARGS=() ;;
cioq) ARGS=(--set switch.kind=cioq) ;;
qcn) ARGS=("${QCN[@]}") ;;
ft) ARGS=("${FT[@]}" --set routing.selection=adaptive) ;;
ftff) ARGS=("${FT[@]}" --set routing.selection=first-free) ;;
*)
    echo "unknown benchmark $NAME (iq, cioq, qcn, ft, ftff)" >&2
    exit 2
    ;;
esac
one() { # cycles -> "instructions D1-misses hops"
    local out ir d1 hops
    out=$(valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null \
        "$BIN" bench --cycles "$1" "${ARGS[@]}" 2>&1)
    ir=$(echo "$out" | grep 'I *refs:' | sed 's/.*refs: *//; s/,//g')
    d1=$(echo "$out" | grep 'D1  misses:' | sed 's/.*misses: *//; s/,//g; s/ .*//')
    hops=$(echo "$out" | grep 'packet-hops/s' | sed 's/.*(\([0-9]*\) hops).*/\1/')
    echo "$ir $d1 $hops"
}
read -r i1 d1 _ < <(one 1)
read -r i2 d2 hops < <(one "$CYC")
python3 -c "
i1, d1, i2, d2, h = $i1, $d1, $i2, $d2, $hops
print('$NAME: %d packet-hops, %.0f instructions and %.1f D1 misses per hop (setup %.3g G instructions)'
      % (h, (i2 - i1) / h, (d2 - d1) / h, i1 / 1e9))"
