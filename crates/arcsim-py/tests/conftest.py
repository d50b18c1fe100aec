"""Shared fixtures of the Python package's tests: the repository, the `arcsim` command built
from the same sources (target/release/arcsim, as `cargo test --release` leaves it), and the
small network the CLI's tests use."""

import os
import pathlib
import subprocess

import pandas as pd
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]

# The CLI tests' small dragonfly (72 nodes) and short windows: a run takes a fraction of a
# second but goes through every code path of a run.
SMALL = {
    "topology.p": 2,
    "topology.a": 4,
    "topology.h": 2,
    "simulation.warmup_cycles": 300,
    "simulation.measure_cycles": 600,
}

# Fields that measure the machine, not the network: no two runs share them.
WALL = {"wall_seconds", "cycles_per_second", "packet_hops_per_second"}


@pytest.fixture(scope="session")
def root() -> pathlib.Path:
    return ROOT


@pytest.fixture(scope="session")
def cli() -> pathlib.Path:
    """The `arcsim` command (ARCSIM_BIN, else CARGO_TARGET_DIR or target/, release)."""
    env = os.environ.get("ARCSIM_BIN")
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    path = pathlib.Path(env) if env else target / "release" / "arcsim"
    if not path.exists():
        pytest.fail(f"{path} is missing: build it first (cargo build --release -p arcsim-cli), or set ARCSIM_BIN")
    return path


def run_cli(cli, *args, cwd, check=True):
    out = subprocess.run([str(cli), *map(str, args)], cwd=cwd, capture_output=True, text=True)
    if check and out.returncode != 0:
        raise AssertionError(f"arcsim {' '.join(map(str, args))}: exit {out.returncode}\n{out.stderr}")
    return out


def set_args(sets: dict) -> list:
    args = []
    for k, v in sets.items():
        args += ["--set", f"{k}={v}"]
    return args


def without_wall(x):
    """`x` (parsed JSON) without the wall-time and speed fields, at any depth, and without the
    git commit of the build (`arcsim.commit`: the CLI and the wheel may be built at different
    commits of a working tree; the version is kept)."""
    if isinstance(x, dict):
        return {
            k: ({kk: vv for kk, vv in v.items() if kk != "commit"} if k == "arcsim" and isinstance(v, dict) else without_wall(v))
            for k, v in x.items()
            if k not in WALL
        }
    if isinstance(x, list):
        return [without_wall(v) for v in x]
    return x


def read_sweep_csv(path) -> pd.DataFrame:
    """sweep.csv as arcsim.sweep reads it ("-" is missing)."""
    return pd.read_csv(path, na_values=["-"], keep_default_na=True)


def measured(df: pd.DataFrame) -> pd.DataFrame:
    return df.drop(columns=["wall_seconds"])
