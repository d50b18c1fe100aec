#!/usr/bin/env python3
"""The FOGSim v5 / arcsim comparison table of the cross-check (README.md).

Usage: python3 summarize.py ARCSIM_OUT FOGSIM_DIR > table.md
ARCSIM_OUT holds run.sh's folders (min-adv-0.3/result.json ...); FOGSIM_DIR FOGSim's main
output files (min-adv-30 ...). A point missing on either side is shown as "-"."""
import json
import os
import re
import sys

ROUTINGS = [("min", "MIN"), ("val", "VAL"), ("pb", "PB"),
            ("qcnout", "QCN-Switch output"), ("qcnfb", "QCN-SWout + Fb. comparison")]
POINTS = [("un", 0.2), ("un", 0.4), ("un", 0.7), ("un", 1.0), ("adv", 0.1), ("adv", 0.3), ("adv", 0.5)]


def fogsim(path):
    if not os.path.exists(path):
        return None
    text = open(path).read()

    def num(label):
        m = re.search(r"^" + re.escape(label) + r": ([-0-9.e+]+)", text, re.M)
        return float(m.group(1)) if m else None
    acc = num("Accepted Load")
    if acc is None:
        return None
    nonmin = num("NonMinimal Accepted Load")
    return {
        "accepted": acc,
        "latency": num("Average Total Packet Latency"),
        "misrouted": nonmin / acc if acc and nonmin is not None else None,
        "cnms": num("QCN flits Sent"),
    }


def arcsim(path):
    if not os.path.exists(path):
        return None
    r = json.load(open(path))
    q = r.get("qcn")
    return {
        "accepted": r["accepted_load"],
        "latency": r["latency"]["mean"],
        "misrouted": r.get("misrouted_fraction"),
        "cnms": q["cnms_sent_in_window"] if q else None,
    }


def fmt(v, kind):
    if v is None:
        return "-"
    if kind == "accepted":
        return f"{v:.3f}"
    if kind == "latency":
        return f"{v:.0f}"
    if kind == "misrouted":
        return f"{100 * v:.0f}%"
    return f"{v:.0f}"


def main():
    a_dir, f_dir = sys.argv[1], sys.argv[2]
    print("| routing | traffic, load | accepted FOGSim / arcsim | latency (cycles) FOGSim / arcsim "
          "| misrouted FOGSim / arcsim | CNMs in the window FOGSim / arcsim |")
    print("|---|---|---|---|---|---|")
    for key, name in ROUTINGS:
        for pat, load in POINTS:
            f = fogsim(os.path.join(f_dir, f"{key}-{pat}-{round(load * 100)}"))
            a = arcsim(os.path.join(a_dir, f"{key}-{pat}-{load}", "result.json"))
            if f is None and a is None:
                continue
            cells = []
            for kind in ["accepted", "latency", "misrouted", "cnms"]:
                if kind == "cnms" and not key.startswith("qcn"):
                    cells.append("")
                    continue
                cells.append(f"{fmt(f and f[kind], kind)} / {fmt(a and a[kind], kind)}")
            label = {"un": "UN", "adv": "ADV+1"}[pat]
            print(f"| {name} | {label} {load} | " + " | ".join(cells) + " |")


main()
