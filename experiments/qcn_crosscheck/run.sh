#!/bin/sh
# arcsim's side of the FOGSim v5 cross-check: every routing of this folder at the points
# FOGSim ran, with FOGSim's windows (ADV+1: 20,000 + 10,000 cycles; UN: 10,000 + 5,000).
# Results go to OUT (default: results/, not stored); then
#   python3 summarize.py OUT fogsim/  writes the comparison table.
# Usage: experiments/qcn_crosscheck/run.sh [OUT]   (from the repository root, after
# cargo build --release)
set -e
here=$(dirname "$0")
out=${1:-$here/results}
bin=${ARCSIM:-target/release/arcsim}
point() { # routing pattern-name pattern load warmup measure
  "$bin" run "$here/$1.toml" \
    --set traffic.pattern="$3" --set traffic.load="$4" \
    --set simulation.warmup_cycles="$5" --set simulation.measure_cycles="$6" \
    --out "$out/$1-$2-$4" > /dev/null
}
for r in min val pb qcnout qcnfb; do
  for load in 0.1 0.3 0.5; do point $r adv adv-global $load 20000 10000; done
  for load in 0.2 0.4 0.7 1.0; do point $r un uniform $load 10000 5000; done
done
