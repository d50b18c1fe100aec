"""arcsim.figure runs a figure spec as `arcsim figure` does: the same tables."""

import pandas as pd

import arcsim
from conftest import measured, read_sweep_csv, run_cli

BASE = """
[topology]
p = 2
a = 4
h = 2
[simulation]
warmup_cycles = 300
measure_cycles = 300
repetitions = 2
"""

SPEC = """
title = "tiny sweep"
kind = "sweep"
config = "base.toml"
loads = "0.1:0.3:0.2"

[[panel]]
name = "un"
set = ["traffic.pattern=uniform"]

[[curve]]
label = "MIN"
set = ["routing.algorithm=min"]

[[curve]]
label = "VAL"
set = ["routing.algorithm=val"]

[scale.one]
set = ["simulation.repetitions=1"]
"""


def test_figure_equals_the_cli_figure(cli, tmp_path):
    (tmp_path / "base.toml").write_text(BASE)
    (tmp_path / "fig.toml").write_text(SPEC)
    run_cli(cli, "figure", "fig.toml", "--scale", "one", "--out", "cli", cwd=tmp_path)
    fig = arcsim.figure(tmp_path / "fig.toml", scale="one", out=tmp_path / "py", threads=2)
    assert fig.out == tmp_path / "py"
    assert "tiny sweep" in fig.summary
    assert fig.claims is None
    pd.testing.assert_frame_equal(fig.table("summary.csv"), pd.read_csv(tmp_path / "cli" / "summary.csv"))
    pd.testing.assert_frame_equal(
        measured(fig.table("un/sweep.csv")), measured(read_sweep_csv(tmp_path / "cli" / "un" / "sweep.csv"))
    )
    assert len(list((tmp_path / "py" / "runs").glob("*.json"))) == 4
    # Overrides as for run: the same figure on a smaller window differs.
    other = arcsim.figure(tmp_path / "fig.toml", scale="one", out=tmp_path / "short", **{"simulation.measure_cycles": 200})
    assert not other.table("un/sweep.csv")["accepted_load"].equals(fig.table("un/sweep.csv")["accepted_load"])
