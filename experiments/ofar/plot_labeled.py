#!/usr/bin/env python3
"""Plot a labelled CSV (columns label, offered_load, accepted_load, latency_mean, ...), one
curve per label, as plot_sweeps.py does for sweep.csv files.
usage: plot_labeled.py CSV OUT_PNG_PREFIX TITLE
Writes OUT_PNG_PREFIX-{throughput,latency}.png; latency points only below saturation
(accepted >= 95% of offered), as arcsim does."""
import csv, sys
import matplotlib; matplotlib.use("Agg")
import matplotlib.pyplot as plt
path, prefix, title = sys.argv[1:4]
rows = list(csv.DictReader(open(path)))
labels = list(dict.fromkeys(r["label"] for r in rows))
for what in ("throughput", "latency"):
    plt.figure(figsize=(6.4, 4.2))
    for lab in labels:
        pts = sorted((float(r["offered_load"]), float(r["accepted_load"]), float(r["latency_mean"])) for r in rows if r["label"] == lab)
        if what == "throughput":
            plt.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label=lab)
        else:
            ok = [p for p in pts if p[1] >= 0.95 * p[0]]
            plt.plot([p[0] for p in ok], [p[2] for p in ok], marker=".", label=lab)
    plt.xlabel("offered load (phits/node/cycle)")
    plt.ylabel("accepted load" if what == "throughput" else "mean latency (cycles)")
    plt.title(f"{title}: {what}", fontsize=10); plt.grid(alpha=0.3); plt.legend(fontsize=7)
    plt.tight_layout(); plt.savefig(f"{prefix}-{what}.png", dpi=100); plt.close()
