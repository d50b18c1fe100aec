"""Sweeps on a cluster: through Dask (a LocalCluster here, dask-jobqueue's SLURMCluster on a
real one) and as a Slurm job array (`arcsim sweep --slurm`, its tasks run here one by one as
the array would run them, then `arcsim collect`): both equal the threaded sweep."""

import os
import subprocess

import pandas as pd
import pytest

import arcsim
from conftest import SMALL, measured, read_sweep_csv, run_cli, set_args

LOAD = "0.1:0.3:0.1"
VARY = {"routing.algorithm": ["min", "val"]}


@pytest.fixture(scope="module")
def threaded():
    return arcsim.sweep(load=LOAD, vary=VARY, set=SMALL, threads=2)


def test_a_dask_sweep_equals_the_threaded_sweep(threaded, tmp_path):
    distributed = pytest.importorskip("distributed")
    # Worker processes, as on a cluster: each simulation travels to a worker as its
    # configuration and comes back as its result.
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        df = arcsim.sweep(load=LOAD, vary=VARY, set=SMALL, client=client)
        # Stored like a threaded sweep's when out= is given, so that a later sweep resumes.
        written = arcsim.sweep(load=LOAD, vary=VARY, set=SMALL, client=client, out=tmp_path)
    assert list(df.columns) == list(threaded.columns)
    pd.testing.assert_frame_equal(measured(df), measured(threaded))
    pd.testing.assert_frame_equal(measured(written), measured(threaded))
    assert len(list((tmp_path / "runs").glob("*.json"))) == 6
    assert (tmp_path / "sweep.csv").exists()
    # A Dask sweep run again with out= resumes: nothing is sent to the workers again.
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        resumed = arcsim.sweep(load=LOAD, vary=VARY, set=SMALL, client=client, out=tmp_path)
    # The same wall times too: the stored results, not new runs.
    pd.testing.assert_frame_equal(resumed, written)


def run_task(script, task):
    """One task of the array as Slurm would start it: the script, with its task id."""
    env = dict(os.environ, SLURM_ARRAY_TASK_ID=str(task))
    out = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out


def test_a_slurm_array_run_locally_and_collected_equals_the_threaded_sweep(cli, threaded, tmp_path):
    args = ["--load", LOAD, "--vary", "routing.algorithm=min,val", *set_args(SMALL)]
    run_cli(cli, "sweep", *args, "--slurm", "array", "--sbatch=--time=00:05:00", cwd=tmp_path)
    script = tmp_path / "array" / "sweep.sbatch"
    text = script.read_text()
    assert "#SBATCH --array=0-5\n" in text and "#SBATCH --time=00:05:00\n" in text
    # An interrupted array: tasks 1 and 4 never ran.
    for task in [0, 2, 3, 5]:
        run_task(script, task)
    out = run_cli(cli, "collect", "array", cwd=tmp_path, check=False)
    assert out.returncode != 0
    assert "2 of the sweep's 6 points are not stored" in out.stderr, out.stderr
    assert "task 1: min at load 0.2" in out.stderr and "task 4: val at load 0.2" in out.stderr
    assert "--array=1,4" in out.stderr
    assert not (tmp_path / "array" / "sweep.csv").exists()
    # The whole array again resumes: the stored points are kept, the missing ones run.
    for task in range(6):
        out = run_task(script, task)
        assert ("reusing 1 stored simulations" in out.stderr) == (task not in (1, 4)), out.stderr
    run_cli(cli, "collect", "array", cwd=tmp_path)
    collected = read_sweep_csv(tmp_path / "array" / "sweep.csv")
    assert list(collected.columns) == list(threaded.columns)
    pd.testing.assert_frame_equal(measured(collected), measured(threaded))
    for f in ["sweep.json", "config.toml", "latency.svg", "throughput.png"]:
        assert (tmp_path / "array" / f).exists(), f


def slurm_answers():
    try:
        return subprocess.run(["sinfo", "-h"], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


@pytest.mark.skipif(not slurm_answers(), reason="no Slurm cluster answers here (sinfo)")
def test_a_slurm_array_submitted_to_slurm_equals_the_threaded_sweep(cli, threaded, tmp_path):
    """Where Slurm runs (`sinfo` answers; e.g. a single-node slurm-wlm), the array submitted
    with `sbatch --wait` and collected equals the threaded sweep."""
    args = ["--load", LOAD, "--vary", "routing.algorithm=min,val", *set_args(SMALL)]
    run_cli(cli, "sweep", *args, "--slurm", "array", "--sbatch=--time=00:10:00", cwd=tmp_path)
    out = subprocess.run(
        ["sbatch", "--wait", str(tmp_path / "array" / "sweep.sbatch")],
        capture_output=True, text=True, timeout=600,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    run_cli(cli, "collect", "array", cwd=tmp_path)
    collected = read_sweep_csv(tmp_path / "array" / "sweep.csv")
    pd.testing.assert_frame_equal(measured(collected), measured(threaded))
    assert len(list((tmp_path / "array" / "slurm" / "logs").glob("task-*.out"))) == 6
