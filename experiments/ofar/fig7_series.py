#!/usr/bin/env python3
"""Fig. 7: mean latency per generation window, averaged over seeds (weighted by samples).
usage: fig7_series.py DIR PREFIX OUT_CSV OUT_PNG CHANGE_CYCLE curve1,curve2,... [TITLE]
reads DIR/PREFIX-CURVE-s*/result.json; cycles in the CSV are relative to CHANGE_CYCLE."""
import json, glob, sys
import matplotlib; matplotlib.use("Agg")
import matplotlib.pyplot as plt
base, prefix, out_csv, out_png, change = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
curves = sys.argv[6].split(",")
lo, hi = change - 1500, change + 1900
data = {}
for c in curves:
    acc = {}
    files = sorted(glob.glob(f"{base}/{prefix}-{c}-s*/result.json"))
    for f in files:
        for p in json.load(open(f))["series"]["points"]:
            if lo <= p["cycle"] < hi and p["latency_samples"] > 0:
                s = acc.setdefault(p["cycle"], [0.0, 0, 0.0])
                s[0] += p["latency_mean"] * p["latency_samples"]; s[1] += p["latency_samples"]
                s[2] += p["misrouted_fraction"] * p["latency_samples"]
    data[c] = {k: (v[0] / v[1], v[2] / v[1]) for k, v in acc.items()}
    print(c, len(files), "seeds")
cycles = sorted(set().union(*[d.keys() for d in data.values()]))
with open(out_csv, "w") as f:
    f.write("cycle," + ",".join(f"{c}_latency,{c}_misrouted" for c in curves) + "\n")
    for k in cycles:
        f.write(f"{k - change}," + ",".join(f"{data[c][k][0]:.1f},{data[c][k][1]:.3f}" for c in curves) + "\n")
plt.figure(figsize=(7, 4))
for c in curves:
    ks = sorted(data[c]); plt.plot([k - change for k in ks], [data[c][k][0] for k in ks], label=c, marker=".")
plt.axvline(0, color="grey", ls="--", lw=0.8)
plt.xlabel("generation cycle relative to the change (window start)"); plt.ylabel("mean latency (cycles)")
plt.title(sys.argv[7] if len(sys.argv) > 7 else "")
plt.legend(); plt.grid(alpha=0.3); plt.tight_layout(); plt.savefig(out_png, dpi=110)
