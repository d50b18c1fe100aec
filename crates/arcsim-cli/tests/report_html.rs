//! `report.html` in a real browser: the report of a run, of a sweep and of a figure with a
//! claim, each opened in headless Chromium, loads without an error and shows every plot of
//! its folder. A screenshot of each is kept under target/tmp/report-html/ (a test artifact).
//!
//! Needs `chromium` (Debian's package; or the browser named by `ARCSIM_CHROMIUM`). Without it
//! the test says so and passes, unless `ARCSIM_BROWSER_TEST=require` (as `.ci/run` sets it),
//! where a missing browser fails it.

mod common;

use common::{arcsim, assert_success, SMALL};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The browser to use, if any.
fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("ARCSIM_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    [
        "chromium",
        "chromium-browser",
        "google-chrome",
        "google-chrome-stable",
    ]
    .iter()
    .flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name)))
    .find(|p| p.is_file())
}

/// Runs the browser headless on `page` with `args`, killed after a minute; its stdout.
fn browse(browser: &Path, profile: &Path, page: &Path, args: &[&str]) -> String {
    let mut child = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--hide-scrollbars",
            // The page's own load events, without waiting on the clock.
            "--virtual-time-budget=10000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("starting {}: {e}", browser.display()));
    let out = child.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || std::io::read_to_string(out).unwrap_or_default());
    let start = Instant::now();
    loop {
        if child.try_wait().expect("wait for the browser").is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("{} did not finish within a minute", browser.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    reader.join().expect("read the browser's output")
}

/// Injected into a copy of the report: records every error (script, console, a resource
/// that fails to load) from the start, and once the page has loaded writes what it sees of
/// each plot into `<pre id="probe">` as JSON, which `--dump-dom` prints.
const PROBE: &str = r#"<script>
window.probeErrors = [];
window.addEventListener('error', e => probeErrors.push(String(e.message ||
  (e.target && (e.target.src || e.target.href)) || e.type)), true);
for (const level of ['error', 'warn']) {
  const orig = console[level];
  console[level] = (...a) => { probeErrors.push(level + ': ' + a.join(' ')); orig(...a); };
}
window.addEventListener('load', () => {
  const plots = [...document.querySelectorAll('figure.plot')].map(f => {
    const svg = f.querySelector('svg');
    if (!svg) return { id: f.id, svg: false };
    const r = svg.getBoundingClientRect(), b = svg.getBBox();
    return { id: f.id, svg: true, width: r.width, height: r.height, ink: b.width * b.height,
             shapes: svg.querySelectorAll('path,polyline,polygon,rect,circle,line').length,
             texts: [...svg.querySelectorAll('text')].map(t => t.getComputedTextLength())
                      .filter(w => w > 0).length };
  });
  const pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify({ errors: probeErrors, plots: plots,
    tables: document.querySelectorAll('table').length });
  document.body.appendChild(pre);
});
</script>"#;

/// Opens `dir/report.html` in the browser: no error, one rendered plot per SVG file of the
/// folder (runs/ aside), `tables` tables; keeps a screenshot as `shots/NAME.png`.
fn check_in_browser(browser: &Path, dir: &Path, shots: &Path, name: &str, tables: usize) {
    let report = dir.join("report.html");
    let page = std::fs::read_to_string(&report).expect("report.html written");
    assert!(
        !page.contains("<script") && !page.contains("src=") && !page.contains("href="),
        "{name}: report.html loads nothing and runs no script"
    );
    let svgs = count_svgs(dir);
    let probe_page = dir.join("report-probe.html");
    std::fs::write(
        &probe_page,
        page.replacen("<head>", &format!("<head>\n{PROBE}"), 1),
    )
    .expect("write the probe page");
    let profile = shots.join(format!("profile-{name}"));
    let dom = browse(browser, &profile, &probe_page, &["--dump-dom"]);
    let json = dom
        .split_once("<pre id=\"probe\">")
        .and_then(|(_, rest)| rest.split_once("</pre>"))
        .map(|(json, _)| {
            json.replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&")
        })
        .unwrap_or_else(|| panic!("{name}: the page never finished loading:\n{dom}"));
    let probe: serde_json::Value = serde_json::from_str(&json).expect("the probe's JSON");
    assert_eq!(
        probe["errors"],
        serde_json::json!([]),
        "{name}: errors in the browser"
    );
    let plots = probe["plots"].as_array().expect("plots");
    assert_eq!(plots.len(), svgs, "{name}: one plot per SVG file");
    assert!(svgs >= 3, "{name}: only {svgs} plots");
    for p in plots {
        assert_eq!(p["svg"], true, "{name}: {p}");
        let n = |k: &str| p[k].as_f64().unwrap_or(0.0);
        assert!(
            n("width") > 300.0 && n("height") > 200.0,
            "{name}: not laid out: {p}"
        );
        assert!(
            n("ink") > 1000.0 && n("shapes") >= 5.0,
            "{name}: nothing drawn: {p}"
        );
        assert!(n("texts") >= 3.0, "{name}: no text rendered: {p}");
    }
    assert_eq!(probe["tables"], tables, "{name}: tables");
    let shot = shots.join(format!("{name}.png"));
    let _ = std::fs::remove_file(&shot);
    browse(
        browser,
        &profile,
        &report,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1100,2600",
        ],
    );
    let png = std::fs::read(&shot).unwrap_or_else(|e| panic!("{}: {e}", shot.display()));
    assert!(
        png.starts_with(b"\x89PNG") && png.len() > 20_000,
        "{name}: blank screenshot"
    );
    let _ = std::fs::remove_file(&probe_page);
}

fn count_svgs(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .expect("list")
        .map(|e| e.expect("entry").path())
        .map(|p| {
            if p.is_dir() && p.file_name().is_some_and(|n| n != "runs") {
                count_svgs(&p)
            } else {
                usize::from(p.extension().is_some_and(|x| x == "svg"))
            }
        })
        .sum()
}

const FIGURE: &str = r#"
title = "tiny figure"
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

[[claim]]
paper = "MIN carries some load"
curve = "MIN"
metric = "peak"
at_least = 0.01
"#;

const BASE: &str = "[topology]\np = 2\na = 4\nh = 2\n\
                    [simulation]\nwarmup_cycles = 300\nmeasure_cycles = 300\n";

#[test]
fn reports_render_in_a_headless_browser() {
    let Some(browser) = chromium() else {
        let msg = "no chromium on PATH (apt-get install chromium, or set ARCSIM_CHROMIUM)";
        if std::env::var("ARCSIM_BROWSER_TEST").as_deref() == Ok("require") {
            panic!("ARCSIM_BROWSER_TEST=require: {msg}");
        }
        eprintln!("SKIPPED reports_render_in_a_headless_browser: {msg}");
        return;
    };
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-html");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).expect("create the artifact folder");
    let short = [
        "--set",
        "simulation.warmup_cycles=200",
        "--set",
        "simulation.measure_cycles=400",
    ];

    let mut args = vec!["run", "--out", "run"];
    args.extend(SMALL);
    args.extend(short);
    assert_success(&arcsim(&root, &args), "arcsim run");
    check_in_browser(&browser, &root.join("run"), &root, "run", 0);

    let mut args = vec![
        "sweep",
        "--load",
        "0.1:0.2:0.1",
        "--vary",
        "routing.algorithm=min,val",
        "--out",
        "sweep",
    ];
    args.extend(SMALL);
    args.extend(short);
    assert_success(&arcsim(&root, &args), "arcsim sweep");
    check_in_browser(&browser, &root.join("sweep"), &root, "sweep", 1);

    std::fs::write(root.join("base.toml"), BASE).unwrap();
    std::fs::write(root.join("fig.toml"), FIGURE).unwrap();
    let out = arcsim(&root, &["figure", "fig.toml", "--out", "figure"]);
    assert_success(&out, "arcsim figure");
    let page = std::fs::read_to_string(root.join("figure/report.html")).unwrap();
    assert!(page.contains("MIN carries some load") && page.contains("class=\"holds\""));
    // The claims, the figure's summary table and each panel's sweep table.
    check_in_browser(&browser, &root.join("figure"), &root, "figure", 2);
    eprintln!("screenshots in {}", root.display());
}
