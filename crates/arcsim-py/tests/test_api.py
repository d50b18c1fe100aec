"""arcsim.run and arcsim.sweep give what the `arcsim` command gives for the same
configuration (every measured field), configurations as paths, dicts and TOML text, and
invalid ones raise ConfigError naming the field."""

import json
import math

import pandas as pd
import pytest

import arcsim
from conftest import SMALL, measured, read_sweep_csv, run_cli, set_args, without_wall


@pytest.mark.parametrize("extra", [{}, {"simulation.repetitions": 2, "routing.algorithm": "val"}])
def test_run_equals_the_cli_result_json(cli, tmp_path, extra):
    sets = {**SMALL, "traffic.load": 0.3, **extra}
    run_cli(cli, "run", *set_args(sets), "--out", tmp_path / "cli", cwd=tmp_path)
    expected = json.loads((tmp_path / "cli" / "result.json").read_text())
    result = arcsim.run(set=sets)
    assert without_wall(result.summary) == without_wall(expected)
    # Every field of result.json, not a subset (the wall times aside).
    assert set(result.summary) == set(expected)
    if extra:
        assert result.summary["repeated"]["repetitions"] == 2
    # The same through out=: the same files as the command writes.
    again = arcsim.run(set=sets, out=tmp_path / "py")
    written = json.loads((tmp_path / "py" / "result.json").read_text())
    assert without_wall(written) == without_wall(expected)
    for f in ["config.toml", "series.csv", "series.svg", "hops.png"]:
        assert (tmp_path / "py" / f).exists(), f
    assert again.out == tmp_path / "py"


def test_result_data_frames(tmp_path):
    result = arcsim.run(set=SMALL)
    s = result.summary
    # The time series: series.csv's columns, one row per window.
    series_csv = arcsim.run(set=SMALL, out=tmp_path).series
    expected = pd.read_csv(tmp_path / "series.csv", na_values=["-"])
    assert list(expected.columns) == [c for c in series_csv.columns if c in expected.columns]
    assert set(expected.columns) <= set(series_csv.columns)
    assert len(result.series) == len(s["series"]["points"]) == len(expected)
    pd.testing.assert_series_equal(result.series["cycle"], expected["cycle"], check_dtype=False)
    assert result.series["accepted_load"].round(6).tolist() == expected["accepted_load"].tolist()
    assert result.per_router["injected"].tolist() == s["injected_per_router"]
    assert len(result.per_router) == 36
    assert result.hops["packets"].tolist() == s["hops"]["histogram"]
    assert result.hops["packets"].sum() > 0
    assert set(result.link_use["class"]) == {"local", "global"}
    assert result.per_flow.empty
    assert result.accepted_load == s["accepted_load"]
    assert result["routing"] == "min"


def test_flows_are_a_data_frame(root):
    result = arcsim.run(
        root / "examples" / "pfc_incast.toml",
        set={"simulation.warmup_cycles": 100, "simulation.measure_cycles": 300},
    )
    assert len(result.per_flow) == len(result.summary["flows"]) > 0
    assert {"src", "dst", "throughput"} <= set(result.per_flow.columns)


def test_configuration_as_path_dict_and_text_are_the_same(tmp_path):
    text = "[topology]\np = 2\na = 4\nh = 2\n[simulation]\nwarmup_cycles = 300\nmeasure_cycles = 600\n"
    path = tmp_path / "small.toml"
    path.write_text(text)
    by_path = arcsim.run(path).summary
    by_str_path = arcsim.run(str(path)).summary
    by_text = arcsim.run(text).summary
    by_dict = arcsim.run({"topology": {"p": 2, "a": 4, "h": 2}, "simulation": {"warmup_cycles": 300, "measure_cycles": 600}}).summary
    by_dotted = arcsim.run(dict(SMALL)).summary
    by_kwargs = arcsim.run(topology__p=2, topology__a=4, topology__h=2, **{"simulation.warmup_cycles": 300}, simulation__measure_cycles=600).summary
    for other in [by_str_path, by_text, by_dict, by_dotted, by_kwargs]:
        assert without_wall(other) == without_wall(by_path)
    # Overrides change the run as --set does.
    val = arcsim.run(path, **{"routing.algorithm": "val"})
    assert val.summary["routing"] == "val"
    assert val.summary["hops"]["mean"] > by_path["hops"]["mean"]
    assert "[topology]" in arcsim.check(path)


def test_an_invalid_configuration_raises_naming_the_field(tmp_path):
    with pytest.raises(arcsim.ConfigError, match=r"topology\.h") as e:
        arcsim.run(set={**SMALL, "topology.h": -1})
    assert isinstance(e.value, ValueError)
    with pytest.raises(arcsim.ConfigError, match="routing.algorithm") as e:
        arcsim.run(**{"routing.algorithm": "nope"})
    # As the command says it.
    out = None
    bad = tmp_path / "bad.toml"
    bad.write_text("[traffic]\nload = 2.5\n")
    with pytest.raises(arcsim.ConfigError) as e:
        arcsim.run(bad)
    message = str(e.value)
    assert "traffic.load" in message and f"{bad}:2" in message, message
    with pytest.raises(arcsim.ConfigError, match="not_a_key"):
        arcsim.run({"topology": {"not_a_key": 1}})
    with pytest.raises(arcsim.ConfigError, match="--load"):
        arcsim.sweep(load="0.5:0.1:0.1", set=SMALL)
    with pytest.raises(arcsim.ConfigError, match="traffic.load"):
        arcsim.sweep(load="0.1", vary={"traffic.load": [0.1, 0.2]}, set=SMALL)
    with pytest.raises(FileNotFoundError):
        arcsim.run("no-such-file.toml")


def test_sweep_equals_the_cli_sweep_csv(cli, tmp_path):
    sets = {**SMALL, "simulation.repetitions": 2}
    run_cli(
        cli, "sweep", "--load", "0.1:0.3:0.1", "--vary", "routing.algorithm=min,val",
        *set_args(sets), "--out", tmp_path / "cli", cwd=tmp_path,
    )
    expected = read_sweep_csv(tmp_path / "cli" / "sweep.csv")
    df = arcsim.sweep(load="0.1:0.3:0.1", vary={"routing.algorithm": ["min", "val"]}, set=sets, threads=2)
    assert list(df.columns) == list(expected.columns)
    assert len(df) == 6
    pd.testing.assert_frame_equal(measured(df), measured(expected))
    # sweep.json, every run at full precision, in df.attrs.
    cli_json = json.loads((tmp_path / "cli" / "sweep.json").read_text())
    assert without_wall(df.attrs["sweep"]) == without_wall(cli_json)
    # Loads as numbers, and the same sweep written to a folder and resumed from it.
    again = arcsim.sweep(load=[0.1, 0.2, 0.3], vary={"routing.algorithm": ["min", "val"]}, set=sets, out=tmp_path / "py")
    pd.testing.assert_frame_equal(measured(again), measured(expected))
    assert (tmp_path / "py" / "throughput.png").exists()
    stored = sorted((tmp_path / "py" / "runs").glob("*.json"))
    assert len(stored) == 12
    resumed = arcsim.sweep(load=[0.1, 0.2, 0.3], vary={"routing.algorithm": ["min", "val"]}, set=sets, out=tmp_path / "py")
    # Reused, not run again: the same wall times too.
    pd.testing.assert_frame_equal(resumed, again)


def test_a_missing_measurement_is_nan_not_zero():
    # A window too short for any packet to arrive: latency is missing, as "-" in sweep.csv.
    df = arcsim.sweep(load="0.01", set={**SMALL, "simulation.warmup_cycles": 0, "simulation.measure_cycles": 10})
    assert math.isnan(df["latency_mean"][0])
    assert df["delivered"][0] == 0
