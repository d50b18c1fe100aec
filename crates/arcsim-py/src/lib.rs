//! `arcsim._core`: the Rust side of the Python package `arcsim` (crates/arcsim-py/python).
//!
//! Every function here calls the `arcsim` command's own code (the arcsim-cli library):
//! configurations load, validate and report errors as `arcsim run` does, sweeps are planned,
//! assembled and written by the same functions as `arcsim sweep`, figures run as `arcsim
//! figure`. The Python layer turns the JSON and CSV they give into dicts and DataFrames. The
//! GIL is released while simulating; a KeyboardInterrupt (Ctrl-C, a notebook's interrupt)
//! stops the running simulations as a signal stops the command.

use anyhow::Context;
use arcsim_cli::figure::store;
use arcsim_cli::sweep::{SweepPlan, SweepRequest};
use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::path::PathBuf;

create_exception!(
    arcsim,
    ConfigError,
    PyValueError,
    "An invalid configuration, override, load list or figure spec; the message names the \
     field and the fix, as the `arcsim` command's does."
);
create_exception!(
    arcsim,
    SimulationError,
    PyRuntimeError,
    "A simulation or an output that failed (not the configuration's fault)."
);

/// A configuration as the Python layer passes it: None (the embedded default) or its name
/// (as errors cite it) and its TOML text.
type Source = Option<(String, String)>;

/// Whether `e` is about the input (configuration, overrides, loads, spec) rather than the run.
fn is_input_error(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.is::<arcsim::ConfigError>())
}

/// A Python exception for an error of the command's code, its message as the command prints
/// it (`error: ...` without the prefix).
fn py_err(e: anyhow::Error, planning: bool) -> PyErr {
    arcsim_cli::interrupt::clear();
    if let Some(exit) = e.downcast_ref::<arcsim_cli::interrupt::Exit>() {
        if exit.code == arcsim_cli::interrupt::EXIT_INTERRUPTED {
            return PyKeyboardInterrupt::new_err(exit.message.clone());
        }
    }
    let message = format!("{e:#}");
    if planning || is_input_error(&e) {
        ConfigError::new_err(message)
    } else {
        SimulationError::new_err(message)
    }
}

/// A KeyboardInterrupt pending in the interpreter: checked by the simulations every few
/// thousand cycles (from any thread; only the main thread sees signals).
fn interrupt_pending() -> bool {
    Python::with_gil(|py| py.check_signals().is_err())
}

/// Load and validate a configuration with overrides, as `arcsim run CONFIG --set ...`.
fn load(source: &Source, sets: &[String]) -> anyhow::Result<arcsim::Config> {
    let tree = arcsim_cli::load::tree_of(source.as_ref().map(|(n, t)| (n.as_str(), t.as_str())))?;
    Ok(arcsim_cli::load::finish(tree, sets)?)
}

/// Run one configuration (every seed) as `arcsim run` does; returns result.json's text, and
/// writes result.json, config.toml, series.csv and the plots to `out` when given.
#[pyfunction]
#[pyo3(signature = (source, sets, out=None))]
fn run(
    py: Python<'_>,
    source: Source,
    sets: Vec<String>,
    out: Option<PathBuf>,
) -> PyResult<String> {
    let cfg = load(&source, &sets).map_err(|e| py_err(e, true))?;
    py.allow_threads(|| -> anyhow::Result<String> {
        let o = arcsim_cli::report::simulate(cfg, &sets, &Default::default(), out.as_deref())?;
        if let Some(out) = &out {
            arcsim_cli::report::write_run(&o, out)?;
        }
        arcsim_cli::report::result_json(&o)
    })
    .map_err(|e| py_err(e, false))
}

/// The complete configuration (every key, defaults included) as TOML, as `arcsim check`
/// prints it; raises ConfigError as `run` would.
#[pyfunction]
fn check(source: Source, sets: Vec<String>) -> PyResult<String> {
    let cfg = load(&source, &sets).map_err(|e| py_err(e, true))?;
    cfg.to_complete_toml_string()
        .map_err(|e| py_err(e.into(), true))
}

fn plan(
    source: Source,
    load: String,
    vary: Vec<String>,
    sets: Vec<String>,
    title: Option<String>,
) -> PyResult<SweepPlan> {
    let request = SweepRequest {
        config: source,
        load,
        vary,
        set: sets,
        title,
    };
    SweepPlan::new(request).map_err(|e| py_err(e, true))
}

/// The simulations of a sweep (one per seed of each point, in order) as TOML texts, each for
/// [`run_job`]: what a Dask sweep sends to its workers. With `out` (and not `fresh`), those
/// this build stored in OUT/runs/ are None: [`sweep`] takes them from there.
#[pyfunction]
#[pyo3(signature = (source, load, vary, sets, out=None, fresh=false))]
fn sweep_jobs(
    source: Source,
    load: String,
    vary: Vec<String>,
    sets: Vec<String>,
    out: Option<PathBuf>,
    fresh: bool,
) -> PyResult<Vec<Option<String>>> {
    let plan = plan(source, load, vary, sets, None)?;
    plan.warn();
    let binary = store::binary_id().unwrap_or_default();
    let runs = out.map(|o| o.join("runs"));
    Ok(plan
        .texts
        .into_iter()
        .map(|t| {
            let stored = match &runs {
                Some(runs) if !fresh && !binary.is_empty() => {
                    matches!(store::load_any(runs, &t), Some((_, by)) if by == binary)
                }
                _ => false,
            };
            (!stored).then_some(t)
        })
        .collect())
}

/// Run one simulation of a sweep (a text of [`sweep_jobs`]); returns its outcome as JSON:
/// `{"result": ...}` or `{"failure": "..."}`, what [`sweep`] takes back in `stored`.
#[pyfunction]
fn run_job(py: Python<'_>, job: String) -> PyResult<String> {
    let cfg = arcsim::Config::from_toml_str(&job).map_err(|e| py_err(e.into(), true))?;
    let outcome =
        py.allow_threads(|| arcsim::run_with(&cfg, &mut |_| !arcsim_cli::interrupt::requested()));
    let value = match outcome {
        Err(arcsim::SimError::Interrupted { .. }) => {
            arcsim_cli::interrupt::clear();
            return Err(PyKeyboardInterrupt::new_err(
                "interrupted: the simulation stopped before its end",
            ));
        }
        Ok(r) => serde_json::json!({ "result": r }),
        Err(e) => serde_json::json!({ "failure": store::failure_text(&e) }),
    };
    Ok(value.to_string())
}

/// Parse what [`run_job`] returned.
fn stored_of(text: &str) -> anyhow::Result<store::Stored> {
    let mut v: serde_json::Value = serde_json::from_str(text)?;
    if let Some(f) = v.get("failure").and_then(|f| f.as_str()) {
        return Ok(Err(f.to_string()));
    }
    let r = v
        .get_mut("result")
        .map(serde_json::Value::take)
        .context("an outcome holds a result or a failure")?;
    Ok(Ok(serde_json::from_value(r)?))
}

/// A sweep as `arcsim sweep` runs it; returns sweep.csv's and sweep.json's texts. With
/// `out`, every simulation is stored in OUT/runs/ (an interrupted sweep resumes; `fresh`
/// runs them again) and the outputs are written there. With `stored` (the outcomes of
/// [`sweep_jobs`]'s simulations, run elsewhere, in order), nothing is simulated.
#[pyfunction]
#[pyo3(signature = (source, load, vary, sets, title=None, threads=None, out=None, fresh=false, stored=None))]
#[allow(clippy::too_many_arguments)]
fn sweep(
    py: Python<'_>,
    source: Source,
    load: String,
    vary: Vec<String>,
    sets: Vec<String>,
    title: Option<String>,
    threads: Option<usize>,
    out: Option<PathBuf>,
    fresh: bool,
    stored: Option<Vec<Option<String>>>,
) -> PyResult<(String, String)> {
    let plan = plan(source, load, vary, sets, title)?;
    if stored.is_none() {
        plan.warn();
    }
    let stored = match stored {
        None => None,
        Some(s) if s.len() != plan.jobs.len() => {
            return Err(PyValueError::new_err(format!(
                "stored: {} outcomes for the sweep's {} simulations",
                s.len(),
                plan.jobs.len()
            )))
        }
        Some(s) => Some(
            s.iter()
                .map(|t| t.as_deref().map(stored_of).transpose())
                .collect::<anyhow::Result<Vec<_>>>()
                .map_err(|e| py_err(e, false))?,
        ),
    };
    py.allow_threads(|| -> anyhow::Result<(String, String)> {
        let results = match (stored, &out) {
            (Some(s), Some(out)) => {
                // Those run elsewhere are stored as this build's; the others were stored.
                let binary = store::binary_id().unwrap_or_default();
                let runs = out.join("runs");
                arcsim_cli::output::check_writable(&runs)?;
                let mut results = Vec::with_capacity(s.len());
                for (k, o) in s.into_iter().enumerate() {
                    results.push(match o {
                        Some(o) => {
                            store::save(&runs, &binary, &plan.jobs[k], &plan.texts[k], &o)?;
                            o
                        }
                        None => store::load_any(&runs, &plan.texts[k])
                            .map(|(o, _)| o)
                            .with_context(|| format!("simulation {k} is no longer stored in {}", runs.display()))?,
                    });
                }
                results
            }
            (Some(s), None) => s
                .into_iter()
                .enumerate()
                .map(|(k, o)| o.with_context(|| format!("stored: outcome {k} is missing (None needs out=)")))
                .collect::<anyhow::Result<Vec<_>>>()?,
            (None, Some(out)) => {
                arcsim_cli::output::check_writable(out)?;
                let binary = store::binary_id().unwrap_or_default();
                store::simulate(&plan.jobs, &plan.texts, &out.join("runs"), &binary, fresh, threads, false)?
            }
            (None, None) => {
                let outcomes = arcsim_cli::sweep::run_jobs_with(&plan.jobs, threads, |_, _| {})?;
                let mut results = Vec::with_capacity(outcomes.len());
                for o in outcomes {
                    match o {
                        Err(arcsim::SimError::Interrupted { .. }) => {
                            return Err(arcsim_cli::interrupt::interrupted(
                                "the sweep stopped before its end: nothing kept (give out= to keep each simulation as it finishes)",
                            ))
                        }
                        o => results.push(o.map_err(|e| store::failure_text(&e))),
                    }
                }
                results
            }
        };
        let points = plan.assemble(results);
        if let Some(out) = &out {
            plan.write(out, &points)?;
        }
        let meta = plan.meta()?;
        let csv = String::from_utf8(arcsim_cli::sweep::sweep_csv(&points, &meta)?)?;
        let json = arcsim_cli::sweep::sweep_json(&points, &meta)?;
        Ok((csv, json))
    })
    .map_err(|e| py_err(e, false))
}

/// Run a figure specification as `arcsim figure` does (its report printed on standard
/// output); returns the output folder.
#[pyfunction]
#[pyo3(signature = (spec, scale=None, out=None, sets=Vec::new(), panels=Vec::new(), threads=None, fresh=false))]
#[allow(clippy::too_many_arguments)]
fn figure(
    py: Python<'_>,
    spec: PathBuf,
    scale: Option<String>,
    out: Option<PathBuf>,
    sets: Vec<String>,
    panels: Vec<String>,
    threads: Option<usize>,
    fresh: bool,
) -> PyResult<PathBuf> {
    let stem = spec
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_else(|| "figure".into());
    // The command's default.
    let out = out.unwrap_or_else(|| {
        PathBuf::from("results").join(match &scale {
            Some(s) => format!("{stem}-{s}"),
            None => stem.clone(),
        })
    });
    let args = arcsim_cli::figure::FigureArgs {
        spec,
        scale,
        panels,
        set: sets,
        out: Some(out.clone()),
        threads,
        dry_run: false,
        fresh,
        claims_only: false,
        redraw: false,
    };
    py.allow_threads(|| arcsim_cli::figure::figure_command(&args))
        .map_err(|e| py_err(e, false))?;
    Ok(out)
}

/// Identify this build by `file`, the module's own (`arcsim/__init__.py` passes
/// `_core.__file__`, which Python sets once the module is made): stored simulations are reused
/// only by the build that made them, and the executable is the Python interpreter.
#[pyfunction]
fn _set_build_file(file: PathBuf) {
    store::set_build_file(file);
}

/// The embedded default configuration's TOML text (`arcsim config`).
#[pyfunction]
fn default_config() -> &'static str {
    arcsim::config::DEFAULT_TOML
}

/// The build: "arcsim VERSION (commit ...)".
#[pyfunction]
fn build() -> String {
    arcsim_cli::provenance::describe()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    arcsim_cli::interrupt::set_hook(interrupt_pending);
    m.add("ConfigError", m.py().get_type::<ConfigError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(sweep_jobs, m)?)?;
    m.add_function(wrap_pyfunction!(run_job, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add_function(wrap_pyfunction!(figure, m)?)?;
    m.add_function(wrap_pyfunction!(default_config, m)?)?;
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_function(wrap_pyfunction!(_set_build_file, m)?)?;
    Ok(())
}
