#!/bin/bash
# FOGSim v5's side of the cross-check, one run at a time, niced. Build FOGSim v5 first
# (commit dcdd75f of github.com/fuentesp/fogsim, "Version 5"):
#   git clone https://github.com/fuentesp/fogsim && cd fogsim && git checkout dcdd75f && make
# Usage: FOGSIM=/path/to/fogsim ./run_fogsim.sh OUT   (from this folder)
# base.txt holds the network (p = 3, a = 6, h = 3, palm tree, k = 20: packets of 10 phits,
# XbarDelay 10, speedup 2, 1000-phit buffers and output FIFOs, links of 2/20 cycles,
# LRS arbiters, 3 iterations) and the ADV+1 windows (20,000 + 10,000 cycles); UN points run
# 10,000 + 5,000 cycles. Each routing's keys are below. Seed 1.
F=${FOGSIM:-fogsim}
out=${1:-runs}
mkdir -p "$out"
extra() {
  case $1 in
    min) echo "routing=MIN LocalLinkChannels=2 GlobalChannels=1" ;;
    val) echo "routing=VAL LocalLinkChannels=3 GlobalChannels=2" ;;
    pb)  echo "routing=PB LocalLinkChannels=3 GlobalChannels=2 CongestionDetection=PER_PORT piggybacking_coef=200 ugal_global_threshold=5 ugal_local_threshold=0" ;;
    qcnout|qcnfb)
      impl=QCNSWOUT; [ $1 = qcnfb ] && impl=QCNSWOUTFBCOMP
      echo "routing=MIN_COND GlobalMisroutingPolicy=CRG LocalLinkChannels=5 GlobalChannels=3 CosLevels=2 CongestionManagement=QCNSW QCNSW_IMPLEMENTATION=$impl QCNSW_POLICY=AIMD QCN_Q_EQ=200 QCNSamplingInterval=1000 QCN_BC_LIMIT=1000 QCN_R_AI=1 QCN_MIN_RATE=0.0000125 QCN_W=0 QCN_GD=0.015625 QCNQueueLength=2000 QCNThreshold1=0 QCNThreshold2=30 QCNCNMsPercent=30" ;;
  esac
}
one() { # routing pattern-name FOGSim-pattern load-percent [window keys]
  r=$1; tn=$2; T=$3; load=$4; win=$5
  o=$out/$r-$tn-$load
  [ -s "$o" ] && return
  nice -n 10 "$F" base.txt OutputFileName="$o" Probability="$load" Traffic="$T" $win $(extra "$r") > "$o.log" 2>&1
}
UNW="WarmupCycles=10000 MaxCycles=5000"
for r in min val pb qcnout qcnfb; do
  for load in 10 30 50; do one $r adv ADV_RANDOM_NODE $load; done
  for load in 20 40 70 100; do one $r un UN $load "$UNW"; done
done
