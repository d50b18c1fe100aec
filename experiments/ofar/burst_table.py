#!/usr/bin/env python3
"""Burst table: consumption cycles normalised to a reference routing.
usage: burst_table.py DIR SUFFIX REF out.csv out.png title routing1,routing2,... [pattern1,pattern2,...]
Runs are read from DIR/PATTERN-ROUTING{SUFFIX}/result.json (or, for a run that did not finish,
the "N of M" in DIR/PATTERN-ROUTING{SUFFIX}.log). Patterns default to un,advg2,advgh,mix1,mix2,mix3;
a2a (All-to-all, Fig. 11) and a2a500 (its first 500 steps) may be added.
With REF_CSV=path in the environment, a (pattern, routing) without a run in DIR is taken from
that earlier output of this script (to compare new runs against reference runs kept as CSV)."""
import json, os, re, sys
import matplotlib; matplotlib.use("Agg")
import matplotlib.pyplot as plt
d, suf, ref, out_csv, out_png, title, routs = sys.argv[1:8]
routs = routs.split(",")
pats = sys.argv[8].split(",") if len(sys.argv) > 8 else ["un", "advg2", "advgh", "mix1", "mix2", "mix3"]
labels = {"un": "UN", "advg2": "ADVG+2", "advgh": "ADVG+h", "mix1": "MIX1", "mix2": "MIX2", "mix3": "MIX3", "a2a": "All-to-all", "a2a500": "All-to-all\n(500 steps)"}
kept = {}
if os.environ.get("REF_CSV"):
    import csv
    for row in csv.DictReader(open(os.environ["REF_CSV"])):
        c = row["consumption_cycles"]
        kept[(row["pattern"], row["routing"])] = (
            int(c) if c.isdigit() else c,
            int(row["hops_max"]) if row["hops_max"] else None,
            float(row["escape_entered_fraction"]) if row["escape_entered_fraction"] else None,
        )
def get(p, r):
    base = f"{d}/{p}-{r}{suf}"
    f = base + "/result.json"
    if not os.path.exists(f) and not os.path.exists(base + ".log") and (p, r) in kept:
        return kept[(p, r)]
    if os.path.exists(f):
        j = json.load(open(f)); return j["burst"]["consumption_cycles"], j["hops"]["max"], j["escape"]["entered_fraction"]
    if os.path.exists(base + ".log"):
        m = re.search(r"(\d+) of (\d+)", open(base + ".log").read())
        return ("not consumed: " + (m.group(0) if m else "?")), None, None
    return None, None, None
rows = []
with open(out_csv, "w") as f:
    f.write("pattern,routing,consumption_cycles,normalised_to_" + ref + ",hops_max,escape_entered_fraction\n")
    for p in pats:
        rc = get(p, ref)[0]
        for r in routs:
            c, hm, ef = get(p, r)
            n = c / rc if isinstance(c, int) and isinstance(rc, int) else None
            f.write(f"{p},{r},{c},{'' if n is None else f'{n:.3f}'},{'' if hm is None else hm},{'' if ef is None else f'{ef:.4f}'}\n")
            rows.append((p, r, c, n))
print("| pattern | " + " | ".join(routs) + " |"); print("|---" * (len(routs) + 1) + "|")
for p in pats:
    cells = []
    for r in routs:
        c, n = [(x[2], x[3]) for x in rows if x[0] == p and x[1] == r][0]
        cells.append("–" if c is None else (f"{n:.3f} ({c:,})" if n is not None else str(c)))
    print(f"| {p} | " + " | ".join(cells) + " |")
plt.figure(figsize=(9, 3.8)); w = 0.8 / len(routs)
for i, r in enumerate(routs):
    ys = [next((x[3] for x in rows if x[0] == p and x[1] == r), None) for p in pats]
    xs = [k + i * w for k in range(len(pats))]
    plt.bar(xs, [min(y, 2.5) if y is not None else 0 for y in ys], w, label=r)
    for x, y in zip(xs, ys):
        if y is None:
            plt.text(x, 0.05, "n/c", rotation=90, ha="center", fontsize=7)
        elif y > 2.5:
            plt.text(x, 2.3, f"{y:.2f}", rotation=90, ha="center", fontsize=7, color="white")
plt.xticks([k + 0.4 - w / 2 for k in range(len(pats))], [labels.get(p, p) for p in pats])
plt.axhline(1, color="grey", lw=0.8); plt.ylabel(f"consumption time / {ref}"); plt.title(title)
plt.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0)); plt.ylim(0, 2.5); plt.tight_layout(); plt.savefig(out_png, dpi=110)
