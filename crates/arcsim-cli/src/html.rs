//! `report.html`: one self-contained page per output folder of `arcsim run`, `arcsim sweep`
//! and `arcsim figure`, to read a result in a browser or send it to someone. It holds the
//! summary, the paper's claims with their verdicts (figures), the sweep's table (sweeps),
//! every plot of the folder inline (its SVG, so the page needs no other file), and the
//! complete configuration that ran. No script, no external address, no file beside it: the
//! page renders the same anywhere, offline. Written atomically as every output
//! ([`crate::output`]).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// What a report shows beside the folder's files.
pub struct Report<'a> {
    /// The page's title and first heading.
    pub title: &'a str,
    /// The text summary, as the command printed it (kept preformatted).
    pub summary: &'a str,
    /// (heading, TOML text) of each configuration that ran, complete.
    pub configs: Vec<(String, String)>,
}

/// Writes `dir/report.html`: `report`'s texts, then `dir/claims.csv` (the paper's claims)
/// and `dir/sweep.csv` and `dir/summary.csv` (a figure's) as tables where they exist, then every `.svg` plot under `dir`
/// (recursively, in path order; the stored runs in `dir/runs/` are left out) inline.
pub fn write(dir: &Path, report: &Report) -> Result<()> {
    let mut page = String::new();
    let w = &mut page;
    let _ = write!(
        w,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>{title}</h1>\n<p class=\"made\">made by {made}</p>\n",
        title = esc(report.title),
        made = esc(&crate::provenance::describe()),
    );
    let _ = write!(
        w,
        "<h2>Summary</h2>\n<pre class=\"summary\">{}</pre>\n",
        esc(report.summary.trim_end())
    );
    if let Some(rows) = read_csv(&dir.join("claims.csv"))? {
        let _ = writeln!(w, "<h2>The paper's claims</h2>");
        table(w, &rows, Some(4));
    }
    for (file, heading) in [("sweep.csv", "Sweep"), ("summary.csv", "Summary table")] {
        if let Some(rows) = read_csv(&dir.join(file))? {
            let _ = writeln!(w, "<h2>{heading} ({file})</h2>");
            table(w, &rows, None);
        }
    }
    let plots = svg_files(dir)?;
    let _ = writeln!(w, "<h2>Plots</h2>");
    if plots.is_empty() {
        let _ = writeln!(w, "<p>no plot in this folder</p>");
    }
    for rel in &plots {
        let path = dir.join(rel);
        let svg = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {} for report.html", path.display()))?;
        let name = rel.to_string_lossy();
        let _ = write!(
            w,
            "<figure class=\"plot\" id=\"{id}\">\n{svg}\n<figcaption>{name} (also .png and .pdf \
             beside this page)</figcaption>\n</figure>\n",
            id = esc(&name.replace(['/', '\\', '.'], "-")),
            svg = inline_svg(&svg),
            name = esc(&name),
        );
    }
    let _ = writeln!(w, "<h2>Configuration</h2>");
    for (heading, toml) in &report.configs {
        let _ = write!(
            w,
            "<details>\n<summary>{}</summary>\n<pre class=\"config\">{}</pre>\n</details>\n",
            esc(heading),
            esc(toml.trim_end())
        );
    }
    let _ = writeln!(w, "</body>\n</html>");
    crate::output::write(&dir.join("report.html"), page.as_bytes())
}

/// `report.html` of `arcsim sweep`: its points (the table is sweep.csv), their failures and
/// warnings, and the configuration every point starts from (`base`; each point's `--vary`
/// values and load are its overrides, listed in sweep.csv and sweep.json).
pub fn write_sweep(
    dir: &Path,
    title: Option<&str>,
    points: &[crate::sweep::SweepPoint],
    base: &arcsim::Config,
) -> Result<()> {
    let mut curves: Vec<&str> = points.iter().map(|p| p.curve.as_str()).collect();
    curves.dedup();
    let mut summary = format!(
        "{} points: {} curve(s) ({}) x {} load(s)\n",
        points.len(),
        curves.len(),
        curves.join(", "),
        points.len() / curves.len().max(1)
    );
    for p in points {
        let at = format!("{} at load {}", p.curve, p.result.offered_load);
        if let Some(f) = &p.failure {
            let _ = writeln!(summary, "failed: {at}: {f}");
        }
        for w in &p.warnings {
            let _ = writeln!(summary, "warning: {at}: {w}");
        }
    }
    let heading = "The configuration every point starts from (config.toml; each point's \
                   overrides are in sweep.csv)";
    write(
        dir,
        &Report {
            title: title.unwrap_or("arcsim sweep"),
            summary: &summary,
            configs: vec![(heading.into(), crate::provenance::config_file(base)?)],
        },
    )
}

const STYLE: &str = "body{font-family:'DejaVu Sans',Verdana,sans-serif;max-width:1100px;\
margin:1em auto;padding:0 1em;color:#222}\
h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:1.5em}\
.made{color:#666}pre.summary{white-space:pre-wrap}pre{background:#f6f6f6;padding:.6em;overflow-x:auto;font-size:.85em}\
table{border-collapse:collapse;font-size:.85em;display:block;overflow-x:auto}\
td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}\
th{background:#eee}.holds{background:#dff0d8}.differs{background:#f2dede}\
.not-checked{background:#fcf8e3}\
figure.plot{margin:1em 0}figure.plot svg{width:100%;height:auto;max-width:1000px;\
border:1px solid #ddd}figcaption{color:#666;font-size:.85em}";

/// `text` with the characters HTML gives a meaning escaped.
pub fn esc(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&#39;"),
            c => s.push(c),
        }
    }
    s
}

/// An SVG file as an element of the page: from its `<svg` tag on (an XML declaration or a
/// doctype before it has no place inside HTML).
fn inline_svg(svg: &str) -> &str {
    svg.find("<svg").map_or(svg, |i| &svg[i..]).trim_end()
}

/// Every `.svg` file under `dir`, relative to it, in path order; `runs/` (the stored
/// simulations) is not searched.
fn svg_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut todo = vec![PathBuf::new()];
    while let Some(rel) = todo.pop() {
        let full = dir.join(&rel);
        let entries =
            std::fs::read_dir(&full).with_context(|| format!("listing {}", full.display()))?;
        for e in entries {
            let e = e.with_context(|| format!("listing {}", full.display()))?;
            let name = rel.join(e.file_name());
            let kind = e.file_type()?;
            if kind.is_dir() && name != Path::new("runs") {
                todo.push(name);
            } else if kind.is_file() && name.extension().is_some_and(|x| x == "svg") {
                out.push(name);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The records of a CSV file (header first), or None when there is no such file.
fn read_csv(path: &Path) -> Result<Option<Vec<Vec<String>>>> {
    if !path.is_file() {
        return Ok(None);
    }
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_path(path)
        .with_context(|| format!("reading {}", path.display()))?;
    let rows = r
        .records()
        .map(|rec| rec.map(|rec| rec.iter().map(str::to_string).collect()))
        .collect::<std::result::Result<Vec<Vec<String>>, _>>()
        .with_context(|| format!("reading {}", path.display()))?;
    Ok(Some(rows))
}

/// An HTML table of `rows` (the first is the header); the cells of column `verdict` get
/// the class of their value (holds, differs, not-checked) and so its colour.
fn table(w: &mut String, rows: &[Vec<String>], verdict: Option<usize>) {
    let _ = writeln!(w, "<table>");
    for (i, row) in rows.iter().enumerate() {
        let _ = write!(w, "<tr>");
        for (j, cell) in row.iter().enumerate() {
            let tag = if i == 0 { "th" } else { "td" };
            let class = match verdict {
                Some(v) if v == j && i > 0 => format!(" class=\"{}\"", cell.replace(' ', "-")),
                _ => String::new(),
            };
            let _ = write!(w, "<{tag}{class}>{}</{tag}>", esc(cell));
        }
        let _ = writeln!(w, "</tr>");
    }
    let _ = writeln!(w, "</table>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_holds_texts_tables_and_every_plot_but_the_stored_runs() {
        let dir = std::env::temp_dir().join(format!("arcsim-html-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("panel")).unwrap();
        std::fs::create_dir_all(dir.join("runs")).unwrap();
        let svg = "<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" \
                   viewBox=\"0 0 10 10\"><text>A &lt; B</text></svg>\n";
        for f in ["a.svg", "panel/b.svg", "runs/c.svg"] {
            std::fs::write(dir.join(f), svg).unwrap();
        }
        std::fs::write(
            dir.join("claims.csv"),
            "claim,panel,curve,metric,verdict,value,detail\n\"x < y\",all,OFAR,m,holds,1,d\n\
             z,all,PB,m,not checked,,left out\n",
        )
        .unwrap();
        let report = Report {
            title: "Fig. <7>",
            summary: "accepted 0.4 & more\n",
            configs: vec![("run".into(), "[topology]\np = 2\n".into())],
        };
        write(&dir, &report).unwrap();
        let page = std::fs::read_to_string(dir.join("report.html")).unwrap();
        assert!(page.starts_with("<!DOCTYPE html>"));
        assert!(page.contains("<title>Fig. &lt;7&gt;</title>"));
        assert!(page.contains("accepted 0.4 &amp; more"));
        assert!(page.contains("[topology]\np = 2"));
        assert_eq!(
            page.matches("<figure class=\"plot\"").count(),
            2,
            "runs/ left out"
        );
        assert!(page.find("id=\"a-svg\"").unwrap() < page.find("id=\"panel-b-svg\"").unwrap());
        assert!(!page.contains("<?xml"), "the XML declaration is dropped");
        assert!(page.contains("<td class=\"holds\">holds</td>"));
        assert!(page.contains("<td class=\"not-checked\">not checked</td>"));
        assert!(page.contains("<td>x &lt; y</td>"));
        assert!(
            !page.contains("sweep.csv"),
            "no sweep table without sweep.csv"
        );
        // Nothing the page would fetch: no script, no address.
        assert!(!page.contains("<script") && !page.contains("http://www.w3.org/1999"));
        assert!(!page.contains("src=") && !page.contains("href="));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
