#!/usr/bin/env python3
"""Summarise arcsim sweep.csv files as a markdown table: per curve, the saturation throughput
(largest accepted load), the offered load where it was reached, the accepted load at the
highest offered load (to show collapse) and the latency at the lowest load.

    python3 experiments/sweep_table.py results/fig6-un/sweep.csv [more.csv ...]
"""
import csv
import sys


def summarise(path):
    rows = list(csv.DictReader(open(path)))
    curves = {}
    for r in rows:
        curves.setdefault(r["curve"], []).append(r)
    out = []
    for name, pts in curves.items():
        pts.sort(key=lambda r: float(r["offered_load"]))
        best = max(pts, key=lambda r: float(r["accepted_load"]))
        out.append(
            (
                name,
                float(best["accepted_load"]),
                float(best["offered_load"]),
                float(pts[-1]["accepted_load"]),
                float(pts[-1]["offered_load"]),
                float(pts[0]["latency_mean"]),
                float(pts[0]["offered_load"]),
            )
        )
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print("| sweep | curve | saturation (accepted) | at offered | accepted at max offered | latency at lowest load |")
    print("|---|---|---|---|---|---|")
    for path in sys.argv[1:]:
        for name, sat, at, last, last_at, lat, lat_at in summarise(path):
            print(f"| {path} | {name} | {sat:.3f} | {at:.2f} | {last:.3f} @ {last_at:.2f} | {lat:.0f} @ {lat_at:.2f} |")


if __name__ == "__main__":
    main()
