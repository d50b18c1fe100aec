"""Type stubs of the extension module `arcsim._core` (crates/arcsim-py/src/lib.rs).

Use the functions of `arcsim` instead: these take configurations as (name, TOML text) and
overrides as ``KEY=VALUE`` strings, and return JSON and CSV texts.
"""

from os import PathLike
from typing import List, Optional, Tuple, Union

__version__: str

Source = Optional[Tuple[str, str]]

class ConfigError(ValueError):
    """An invalid configuration, override, load list or figure spec; the message names the
    field and the fix, as the `arcsim` command's does."""

class SimulationError(RuntimeError):
    """A simulation or an output that failed (not the configuration's fault)."""

def run(source: Source, sets: List[str], out: Optional[str] = None) -> str:
    """Run a configuration as `arcsim run`; result.json's text."""

def check(source: Source, sets: List[str]) -> str:
    """The complete configuration as TOML (`arcsim check`)."""

def sweep_jobs(
    source: Source,
    load: str,
    vary: List[str],
    sets: List[str],
    out: Optional[str] = None,
    fresh: bool = False,
) -> List[Optional[str]]:
    """A sweep's simulations (one per seed of each point, in order) as TOML texts; None for
    those stored in OUT/runs/ by this build."""

def run_job(job: str) -> str:
    """Run one of `sweep_jobs`'s simulations; its outcome as JSON."""

def sweep(
    source: Source,
    load: str,
    vary: List[str],
    sets: List[str],
    title: Optional[str] = None,
    threads: Optional[int] = None,
    out: Optional[str] = None,
    fresh: bool = False,
    stored: Optional[List[Optional[str]]] = None,
) -> Tuple[str, str]:
    """A sweep as `arcsim sweep`; sweep.csv's and sweep.json's texts."""

def figure(
    spec: Union[str, PathLike],
    scale: Optional[str] = None,
    out: Optional[str] = None,
    sets: List[str] = ...,
    panels: List[str] = ...,
    threads: Optional[int] = None,
    fresh: bool = False,
) -> str:
    """Run a figure spec as `arcsim figure`; the output folder."""

def default_config() -> str: ...
def build() -> str: ...
def _set_build_file(file: Union[str, PathLike]) -> None: ...
