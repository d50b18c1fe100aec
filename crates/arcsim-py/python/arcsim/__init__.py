"""arcsim: a cycle-accurate simulator of HPC and datacenter interconnection networks.

The Python API of the ``arcsim`` command, running the same Rust code:

- :func:`run` runs one configuration (``arcsim run``) and returns a :class:`Result`, whose
  ``summary`` is result.json as a dict and whose series, per-router, per-flow and histogram
  data are pandas DataFrames;
- :func:`sweep` sweeps offered load and other keys (``arcsim sweep``) and returns sweep.csv
  as a DataFrame, on local threads or on a Dask cluster (``client=``);
- :func:`figure` runs a figure specification (``arcsim figure``).

A configuration is a path to a TOML file, a dict, TOML text, or None (the embedded default,
the OFAR paper's network, García et al. 2014). Keys are overridden by dotted name:
``arcsim.run(cfg, **{"routing.algorithm": "val"})``, ``set={"topology.h": 2}``, or with
``__`` for the dot, ``topology__h=2``. An invalid configuration raises :class:`ConfigError`
(a ValueError) whose message names the field and the fix, as the command's does.

See docs/python.md for a tour, Dask and Slurm.
"""

from __future__ import annotations

import io
import json
import math
import os
import pathlib
import re
from typing import Any, Dict, Iterable, Mapping, Optional, Sequence, Union

import pandas as pd

from . import _core
from ._core import ConfigError, SimulationError

__version__: str = _core.__version__
__all__ = [
    "run",
    "sweep",
    "figure",
    "check",
    "default_config",
    "Result",
    "Figure",
    "ConfigError",
    "SimulationError",
]

# Stored simulations (out=...) are reused only by the build that made them: this extension
# module's file identifies it.
_core._set_build_file(_core.__file__)

Config = Union[str, "os.PathLike[str]", Mapping[str, Any], None]

_BARE = re.compile(r"^[A-Za-z_][A-Za-z0-9_.+-]*$")


def _toml_value(v: Any) -> str:
    """A Python value as the VALUE of a ``--set KEY=VALUE`` (TOML)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        # As the command line writes it (routing.algorithm=val) when TOML would read it as
        # that string anyway; quoted otherwise.
        if _BARE.match(v) and v not in ("true", "false", "inf", "nan"):
            return v
        return json.dumps(v)
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{_key(k)} = {_toml_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_inner(x) for x in v) + "]"
    if isinstance(v, pathlib.PurePath):
        return json.dumps(str(v))
    raise TypeError(f"cannot write {type(v).__name__} {v!r} as a configuration value")


def _toml_inner(v: Any) -> str:
    """A value inside an array or inline table: strings always quoted."""
    return json.dumps(v) if isinstance(v, str) else _toml_value(v)


def _key(k: str) -> str:
    return k if re.match(r"^[A-Za-z0-9_-]+$", k) else json.dumps(k)


def _toml_document(d: Mapping[str, Any]) -> str:
    """A dict of tables (``{"topology": {"h": 2}}``) as a TOML document."""
    lines = []
    top = {k: v for k, v in d.items() if not isinstance(v, Mapping)}
    for k, v in top.items():
        lines.append(f"{_key(k)} = {_toml_inner(v)}")

    def table(prefix: str, t: Mapping[str, Any]) -> None:
        plain = {k: v for k, v in t.items() if not _is_table(v)}
        lines.append(f"[{prefix}]")
        for k, v in plain.items():
            if isinstance(v, list) and v and all(isinstance(x, Mapping) for x in v):
                continue
            lines.append(f"{_key(k)} = {_toml_inner(v)}")
        for k, v in t.items():
            if isinstance(v, Mapping):
                table(f"{prefix}.{_key(k)}", v)
            elif isinstance(v, list) and v and all(isinstance(x, Mapping) for x in v):
                for item in v:
                    lines.append(f"[[{prefix}.{_key(k)}]]")
                    for ik, iv in item.items():
                        lines.append(f"{_key(ik)} = {_toml_inner(iv)}")

    for k, v in d.items():
        if isinstance(v, Mapping):
            table(_key(k), v)
    return "\n".join(lines) + "\n"


def _is_table(v: Any) -> bool:
    return isinstance(v, Mapping) or (
        isinstance(v, list) and bool(v) and all(isinstance(x, Mapping) for x in v)
    )


def _source(config: Config) -> Optional[tuple]:
    """(name, TOML text) of a configuration, or None for the embedded default."""
    if config is None:
        return None
    if isinstance(config, Mapping):
        # Dotted keys at the top ({"topology.h": 2}) are nested as the command's --set would.
        nested: Dict[str, Any] = {}
        for k, v in config.items():
            node = nested
            parts = str(k).split(".")
            for p in parts[:-1]:
                node = node.setdefault(p, {})
            if isinstance(v, Mapping) and isinstance(node.get(parts[-1]), dict):
                node[parts[-1]].update(v)
            else:
                node[parts[-1]] = v
        return ("<dict>", _toml_document(nested))
    if isinstance(config, os.PathLike):
        path = pathlib.Path(config)
        return (str(path), path.read_text())
    if isinstance(config, str):
        if "\n" in config or "=" in config or config.lstrip().startswith("["):
            return ("<toml>", config)
        path = pathlib.Path(config)
        if not path.exists():
            raise FileNotFoundError(
                f"configuration {config!r}: no such file (give a path, a dict, or TOML text)"
            )
        return (str(path), path.read_text())
    raise TypeError(
        f"configuration: expected a path, a dict, TOML text or None, not {type(config).__name__}"
    )


def _sets(set: Optional[Mapping[str, Any]], overrides: Mapping[str, Any]) -> list:
    """``KEY=VALUE`` overrides: ``set`` first, then the keyword arguments (``__`` = ``.``)."""
    out = []
    for k, v in (set or {}).items():
        out.append(f"{k}={_toml_value(v)}")
    for k, v in overrides.items():
        out.append(f"{k.replace('__', '.')}={_toml_value(v)}")
    return out


def _loads(load: Union[str, float, Iterable[float]]) -> str:
    """A load list as ``--load`` takes it."""
    if isinstance(load, str):
        return load
    if isinstance(load, (int, float)):
        return repr(float(load))
    return ",".join(repr(float(x)) for x in load)


def _vary(vary: Optional[Mapping[str, Union[Sequence[Any], Any]]]) -> list:
    out = []
    for k, values in (vary or {}).items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            values = [values]
        out.append(f"{k}=" + ",".join(_toml_value(v) for v in values))
    return out


def _run_job(job: str) -> str:
    """One simulation of a sweep, on a Dask worker (a module-level function: workers import
    it by name)."""
    return _core.run_job(job)


class Result:
    """The outcome of :func:`run`.

    Attributes:
        summary: result.json as a dict: the first seed's run (``accepted_load``,
            ``latency``, ``hops``, ``packets``, ...), ``repeated`` (the means and 95%
            confidence half-widths over seeds, when ``simulation.repetitions`` > 1),
            ``arcsim`` (the build), ``config`` (every key) and ``warnings``.
        series: the time series, one row per window, the columns of series.csv.
        per_router: packets injected per router (and, in burst mode, the cycle each
            finished).
        per_flow: one row per flow of ``traffic.flows`` (empty without flows).
        hops: the hop-count histogram (``hops``, ``packets``).
        link_use: the share of each class's links per tenth of utilisation.
        out: the folder the outputs were written to (``out=``), else None.
    """

    def __init__(self, summary: Dict[str, Any], out: Optional[pathlib.Path] = None):
        self.summary: Dict[str, Any] = summary
        self.out: Optional[pathlib.Path] = out
        s = summary
        series = s.get("series") or {}
        points = series.get("points") or []
        df = pd.json_normalize(points) if points else pd.DataFrame()
        df = df.rename(columns={c: c.split(".", 1)[1] + "_occupancy" for c in df.columns if c.startswith("occupancy.")})
        self.series: pd.DataFrame = df
        per_router = pd.DataFrame(
            {"router": range(len(s.get("injected_per_router", []))), "injected": s.get("injected_per_router", [])}
        )
        burst = s.get("burst")
        if burst and burst.get("finished_per_router"):
            per_router["finished_cycle"] = burst["finished_per_router"]
        self.per_router: pd.DataFrame = per_router
        self.per_flow: pd.DataFrame = pd.DataFrame(s.get("flows") or [])
        hist = (s.get("hops") or {}).get("histogram") or []
        self.hops: pd.DataFrame = pd.DataFrame({"hops": range(len(hist)), "packets": hist})
        rows = []
        for cls in ("local", "global"):
            u = (s.get("links") or {}).get(cls) or {}
            h = u.get("histogram") or []
            n = u.get("links") or 0
            for k, count in enumerate(h):
                rows.append(
                    {
                        "class": cls,
                        "from": k / len(h),
                        "to": (k + 1) / len(h),
                        "links": count,
                        "share": count / n if n else float("nan"),
                    }
                )
        self.link_use: pd.DataFrame = pd.DataFrame(rows)

    def __getitem__(self, key: str) -> Any:
        """``result["accepted_load"]``: a field of the summary."""
        return self.summary[key]

    @property
    def accepted_load(self) -> float:
        return self.summary["accepted_load"]

    @property
    def latency_mean(self) -> Optional[float]:
        """Mean packet latency in cycles; None when no packet was delivered."""
        return self.summary["latency"]["mean"]

    @property
    def warnings(self) -> list:
        return self.summary.get("warnings", [])

    def __repr__(self) -> str:
        s = self.summary
        return (
            f"<arcsim.Result {s.get('topology')} | {s.get('routing')} {s.get('pattern')} | "
            f"offered {s.get('offered_load')} accepted {s.get('accepted_load'):.4f} "
            f"latency {s['latency'].get('mean')}>"
        )


def run(
    config: Config = None,
    *,
    set: Optional[Mapping[str, Any]] = None,
    out: Union[str, "os.PathLike[str]", None] = None,
    **overrides: Any,
) -> Result:
    """Run one simulation (``simulation.repetitions`` seeds), as ``arcsim run`` does.

    Args:
        config: a TOML file's path, a dict (nested tables or dotted keys), TOML text, or
            None for the embedded default.
        set: overrides by dotted key, ``{"traffic.load": 0.3}`` (applied first).
        out: a folder to write result.json, config.toml, series.csv and the plots to, as
            ``arcsim run --out`` does; nothing is written without it.
        **overrides: more overrides, ``**{"routing.algorithm": "val"}`` or
            ``routing__algorithm="val"``.

    Returns:
        A :class:`Result`; ``result.summary`` holds the same fields as result.json.

    Raises:
        ConfigError: the configuration is invalid (the message names the field).
        SimulationError: the simulation failed (a deadlock, a burst not consumed in time).
    """
    text = _core.run(_source(config), _sets(set, overrides), None if out is None else str(out))
    return Result(json.loads(text), None if out is None else pathlib.Path(out))


def check(config: Config = None, *, set: Optional[Mapping[str, Any]] = None, **overrides: Any) -> str:
    """Validate a configuration and return it complete (every key) as TOML, as ``arcsim
    check`` prints it. Raises :class:`ConfigError` naming the field when invalid."""
    return _core.check(_source(config), _sets(set, overrides))


def default_config() -> str:
    """The embedded default configuration (``arcsim config``) as TOML text."""
    return _core.default_config()


def _csv_frame(text: str) -> pd.DataFrame:
    # Every column as sweep.csv has it; "-" is a missing measurement (NaN), as are empty
    # cells (a failed point's).
    return pd.read_csv(io.StringIO(text), na_values=["-"], keep_default_na=True)


def sweep(
    config: Config = None,
    *,
    load: Union[str, float, Iterable[float]],
    vary: Optional[Mapping[str, Union[Sequence[Any], Any]]] = None,
    set: Optional[Mapping[str, Any]] = None,
    threads: Optional[int] = None,
    client: Any = None,
    out: Union[str, "os.PathLike[str]", None] = None,
    fresh: bool = False,
    title: Optional[str] = None,
    **overrides: Any,
) -> pd.DataFrame:
    """Sweep offered load, one curve per combination of ``vary`` values, as ``arcsim sweep``.

    Args:
        config: as for :func:`run`.
        load: ``"START:STOP:STEP"`` (inclusive) or a list as ``--load`` takes it
            (``"0.05:0.5:0.05,0.7"``), or loads as numbers (``[0.1, 0.2]``).
        vary: ``{"routing.algorithm": ["min", "val"]}``: one curve per value, the
            cartesian product over keys.
        set: overrides for every point (dotted keys), as ``--set``; ``**overrides`` too.
        threads: local worker threads (default: one per core); results do not depend on it.
        client: a ``distributed.Client``: each simulation runs as a task on its workers
            (a ``LocalCluster``, or dask-jobqueue's ``SLURMCluster`` on a cluster); the
            results are merged in the same order and format as the threaded sweep.
        out: a folder for sweep.csv, sweep.json, config.toml and the plots; each simulation
            is stored in OUT/runs/ as it finishes, so that a sweep run again resumes
            (``fresh=True`` runs them all again).
        title: the plots' title.

    Returns:
        sweep.csv as a DataFrame (the same columns; ``"-"`` cells, missing measurements, are
        NaN). ``df.attrs["sweep"]`` holds sweep.json as a dict (every run of every point at
        full precision).
    """
    source = _source(config)
    sets = _sets(set, overrides)
    loads = _loads(load)
    varied = _vary(vary)
    stored = None
    if client is not None:
        # Those stored in OUT/runs/ by this build are None: not sent again.
        jobs = _core.sweep_jobs(source, loads, varied, sets, None if out is None else str(out), fresh)
        todo = [i for i, job in enumerate(jobs) if job is not None]
        futures = client.map(_run_job, [jobs[i] for i in todo], pure=False)
        stored = [None] * len(jobs)
        for i, outcome in zip(todo, client.gather(futures)):
            stored[i] = outcome
    csv_text, json_text = _core.sweep(
        source,
        loads,
        varied,
        sets,
        title,
        threads,
        None if out is None else str(out),
        fresh,
        stored,
    )
    df = _csv_frame(csv_text)
    df.attrs["sweep"] = json.loads(json_text)
    return df


class Figure:
    """The outcome of :func:`figure`: the folder its tables and plots were written to.

    Attributes:
        out: the output folder.
        summary: summary.txt (the report ``arcsim figure`` prints).
        claims: claims.csv as a DataFrame (the paper's claims and their verdicts), None when
            the spec has none.
    """

    def __init__(self, out: pathlib.Path):
        self.out = out
        self.summary: str = (out / "summary.txt").read_text()
        claims = out / "claims.csv"
        self.claims: Optional[pd.DataFrame] = pd.read_csv(claims) if claims.exists() else None

    def table(self, name: str) -> pd.DataFrame:
        """A CSV table the figure wrote, e.g. ``fig.table("summary.csv")`` or
        ``fig.table("uniform/sweep.csv")``."""
        return _csv_frame((self.out / name).read_text())

    def __repr__(self) -> str:
        return f"<arcsim.Figure {self.out}>"


def figure(
    spec: Union[str, "os.PathLike[str]"],
    *,
    scale: Optional[str] = None,
    out: Union[str, "os.PathLike[str]", None] = None,
    set: Optional[Mapping[str, Any]] = None,
    panels: Optional[Sequence[str]] = None,
    threads: Optional[int] = None,
    fresh: bool = False,
    **overrides: Any,
) -> Figure:
    """Run a figure specification as ``arcsim figure`` does (its report printed on standard
    output), e.g. ``arcsim.figure("experiments/ofar/fig07.toml", scale="quick")``.

    Args:
        spec: the figure spec (TOML).
        scale: a reduced scale the spec defines (``[scale.quick]``); None: the paper's size.
        out: the output folder (default: results/SPEC-SCALE, as the command's).
        set: overrides for every simulation (and ``**overrides``).
        panels: run only these panels.
        threads: worker threads (default: one per core).
        fresh: run every simulation again rather than reuse those stored in OUT/runs/.

    Returns:
        A :class:`Figure` (the folder, the summary, the claims).
    """
    folder = _core.figure(
        str(spec),
        scale,
        None if out is None else str(out),
        _sets(set, overrides),
        list(panels or []),
        threads,
        fresh,
    )
    return Figure(pathlib.Path(folder))
