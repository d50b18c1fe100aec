#!/usr/bin/env python3
"""Fig. 13: hop histograms (log scale) of burst runs.
usage: fig13_hops.py OUT_CSV OUT_PNG TITLE LABEL=path/result.json ...
       (or LABEL=path/sweep.json::CURVE::LOAD for one point of a sweep)"""
import json, sys
import matplotlib; matplotlib.use("Agg")
import matplotlib.pyplot as plt
out_csv, out_png, title = sys.argv[1:4]
runs = []
for arg in sys.argv[4:]:
    lab, path = arg.split("=", 1)
    if "::" in path:
        path, curve, load = path.split("::")
        d = json.load(open(path))
        points = d["points"] if isinstance(d, dict) else d  # an array before provenance was added
        j = next(p["runs"][0] for p in points if p["curve"] == curve and abs(p["offered_load"] - float(load)) < 1e-9)
    else:
        j = json.load(open(path))
    runs.append((lab, j["hops"]["histogram"], j))
n = max(len(h) for _, h, _ in runs)
with open(out_csv, "w") as f:
    f.write("hops," + ",".join(l for l, _, _ in runs) + "\n")
    for k in range(n):
        f.write(f"{k}," + ",".join(str(h[k]) if k < len(h) else "0" for _, h, _ in runs) + "\n")
print("| run | packets | mean hops | max hops | share > 8 hops | share >= 30 hops | escape entered | escape hops/packet |")
print("|---|---|---|---|---|---|---|---|")
plt.figure(figsize=(9, 4))
for lab, h, j in runs:
    tot = sum(h)
    print(f"| {lab} | {tot:,} | {j['hops']['mean']:.2f} | {j['hops']['max']}{'+' if j['hops']['max'] >= 63 else ''} | "
          f"{sum(h[9:]) / tot:.2e} | {sum(h[30:]) / tot:.2e} | {j['escape']['entered_fraction']:.3f} | {j['escape']['hops_mean']:.3f} |")
    # empty buckets are gaps, not lines
    plt.semilogy(range(len(h)), [h[k] / tot if h[k] else float("nan") for k in range(len(h))], marker=".", label=lab)
plt.xlabel("router-to-router hops (63 = 63 or more)"); plt.ylabel("share of packets")
plt.title(title, fontsize=10); plt.grid(alpha=0.3); plt.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0)); plt.tight_layout(); plt.savefig(out_png, dpi=100)
