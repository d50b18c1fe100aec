#!/usr/bin/env python3
"""Fig. 12: packets injected per router (measurement window) in G0 and in the tree root's group.
usage: fig12_injection.py a root_group out.csv DIR/ring-*.../result.json ..."""
import json, sys, statistics
a, rg, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rows = []
for f in sys.argv[4:]:
    j = json.load(open(f)); inj = j["injected_per_router"]; name = f.split("/")[-2]
    g = len(inj) // a
    per_group = [sum(inj[k * a:(k + 1) * a]) for k in range(g)]
    others = [per_group[k] for k in range(g) if k not in (0, rg)]
    rows.append((name, inj[0:a], inj[rg * a:(rg + 1) * a], per_group[0], per_group[rg], statistics.mean(others), min(per_group), max(per_group), j["accepted_load"]))
with open(out, "w") as f:
    f.write("run,group,router_in_group,injected\n")
    for r in rows:
        for i, v in enumerate(r[1]): f.write(f"{r[0]},G0,{i},{v}\n")
        for i, v in enumerate(r[2]): f.write(f"{r[0]},G{rg},{i},{v}\n")
print(f"| run | G0 per router | G{rg} per router | G0 total | G{rg} total | mean of other groups | min / max group | accepted load |")
print("|---|---|---|---|---|---|---|---|")
for r in rows:
    print(f"| {r[0]} | {' '.join(map(str, r[1]))} | {' '.join(map(str, r[2]))} | {r[3]:,} | {r[4]:,} | {r[5]:,.0f} | {r[6]:,} / {r[7]:,} | {r[8]:.3f} |")
