#!/usr/bin/env python3
"""Overlay several arcsim sweep.csv files: one curve per (label, curve).
usage: plot_sweeps.py OUT_CSV OUT_PNG_PREFIX TITLE LABEL=path/sweep.csv[:curve1,curve2] ...
An empty LABEL keeps the curve names alone; a `:curve1,curve2` suffix keeps only those curves
(names after removing `routing.algorithm=`).
Writes OUT_CSV (the rows with a `label` column) and OUT_PNG_PREFIX-{throughput,latency}.png.
Latency points are drawn only below saturation (accepted >= 95% of offered), as arcsim does.

plot_sweeps.py --labeled CSV OUT_PNG_PREFIX TITLE plots a CSV that already has a `label`
column (such as OUT_CSV, or the data-*.csv files of docs/reproductions)."""
import csv, sys
import matplotlib; matplotlib.use("Agg")
import matplotlib.pyplot as plt

def plot(series, prefix, title):
    labels = list(dict.fromkeys(r["label"] for r in series))
    for what in ("throughput", "latency"):
        plt.figure(figsize=(6.4, 4.2))
        for lab in labels:
            pts = sorted(((float(r["offered_load"]), float(r["accepted_load"]), float(r["latency_mean"])) for r in series if r["label"] == lab))
            if what == "throughput":
                plt.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label=lab)
            else:
                ok = [p for p in pts if p[1] >= 0.95 * p[0]]
                plt.plot([p[0] for p in ok], [p[2] for p in ok], marker=".", label=lab)
        plt.xlabel("offered load (phits/node/cycle)")
        plt.ylabel("accepted load" if what == "throughput" else "mean latency (cycles)")
        plt.title(f"{title}: {what}", fontsize=10); plt.grid(alpha=0.3); plt.legend(fontsize=7)
        plt.tight_layout(); plt.savefig(f"{prefix}-{what}.png", dpi=100); plt.close()


if sys.argv[1:2] == ["--labeled"]:
    path, prefix, title = sys.argv[2:5]
    plot(list(csv.DictReader(open(path))), prefix, title)
    sys.exit(0)
out_csv, prefix, title = sys.argv[1:4]
series = []
for arg in sys.argv[4:]:
    label, path = arg.split("=", 1)
    keep = None
    if ":" in path:
        path, keep = path.split(":", 1)
        keep = keep.split(",")
    rows = list(csv.DictReader(open(path)))
    for r in rows:
        r["curve"] = r["curve"].replace("routing.algorithm=", "")
    if keep is not None:
        rows = [r for r in rows if r["curve"] in keep]
    for r in rows:
        c = r["curve"].replace("routing.", "")
        r["label"] = label if c == "default" else (f"{label} {c}" if label else c)
    series.extend(rows)
keys = ["label", "offered_load", "accepted_load", "latency_mean", "latency_p99", "hops_mean", "misrouted_fraction", "generated", "delivered"]
with open(out_csv, "w") as f:
    w = csv.writer(f); w.writerow(keys)
    for r in series: w.writerow([r[k] for k in keys])
plot(series, prefix, title)
