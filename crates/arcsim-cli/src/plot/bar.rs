//! Bar charts: one bar per slot, labels thinned to every k-th slot when they
//! would collide.

use anyhow::Result;
use plotters::prelude::*;

use super::axis::{
    draw_axes, draw_background, linear_bounds, log_bounds, usable, Axis, Extent, Geometry,
};
use super::text::{text_width, truncate, Canvas};
use super::{draw_err, Bar, PlotSpec, Render, PALETTE, TICK_FONT};

// ---------------------------------------------------------------------------
// Bar charts.

pub(super) struct BarPlot<'a> {
    /// Texts and scale, as the caller gave them.
    spec: PlotSpec<'a>,
    x: Axis,
    y: Axis,
    /// (slot index, plot-y of the bar top) of drawable bars.
    bars: Vec<(usize, f64)>,
    geo: Geometry,
    no_data: bool,
}

const BAR_COLOUR: RGBColor = PALETTE[0];
pub(super) const BAR_LABEL_CHARS: usize = 24;

impl<'a> BarPlot<'a> {
    pub(super) fn new(spec: &PlotSpec<'a>, bars: &[Bar]) -> Self {
        let mut y_ext = Extent::default();
        let mut drawn = Vec::new();
        for (i, b) in bars.iter().enumerate() {
            let v = b.value;
            let t = if !usable(v) {
                None
            } else if spec.log_y {
                (v > 0.0).then(|| v.log10())
            } else {
                Some(v)
            };
            if let Some(t) = t {
                y_ext.add(t);
                drawn.push((i, t));
            }
        }
        let no_data = drawn.is_empty();
        let y = if spec.log_y {
            // Bars grow from the bottom of a log axis, so leave room below
            // the smallest bar for it to be visible.
            let (lo, hi) = log_bounds(y_ext.0);
            Axis::log((lo - 0.05 * (hi - lo)).max(-307.0), hi)
        } else {
            let (lo, hi) = linear_bounds(y_ext.0);
            Axis::linear(lo, hi, 6)
        };
        let geo = Geometry::new(spec, &y, 0);

        // Slots are centred on integers; label every k-th slot (k from 1, 2,
        // 5, 10, 20, ...) so that labels never collide.
        let n = bars.len();
        let (xlo, xhi) = if n == 0 {
            (0.0, 1.0)
        } else {
            (-0.5, n as f64 - 0.5)
        };
        let labels: Vec<String> = bars
            .iter()
            .map(|b| truncate(&b.label, BAR_LABEL_CHARS))
            .collect();
        let label_w = labels
            .iter()
            .map(|l| text_width(l, TICK_FONT))
            .max()
            .unwrap_or(0);
        let slot_px = f64::from(geo.plot_size().0) / n.max(1) as f64;
        let step = label_stride((f64::from(label_w) + 14.0) / slot_px);
        let ticks = (0..n)
            .step_by(step)
            .map(|i| (i as f64, labels[i].clone()))
            .collect();
        BarPlot {
            spec: *spec,
            x: Axis {
                lo: xlo,
                hi: xhi,
                ticks,
            },
            y,
            bars: drawn,
            geo,
            no_data,
        }
    }
}

/// Smallest k in 1, 2, 5, 10, 20, ... with k >= `need`: labelling every
/// k-th of equal slots whose labels need `need` slots each keeps them apart.
pub(super) fn label_stride(need: f64) -> usize {
    (0..20u32)
        .flat_map(|e| [1usize, 2, 5].map(|m| m.saturating_mul(10usize.saturating_pow(e))))
        .find(|&s| s as f64 >= need)
        .unwrap_or(usize::MAX)
        .max(1)
}

impl Render for BarPlot<'_> {
    fn render<DB: DrawingBackend>(&self, canvas: &Canvas<DB>) -> Result<()> {
        let (x, y) = (&self.x, &self.y);
        let mut chart = draw_background(canvas, self.spec.title, &self.geo, x, y, false)?;

        let slots = (x.hi - x.lo).max(1.0);
        let slot_px = f64::from(self.geo.plot_size().0) / slots;
        // Narrow slots: bars touch and lose their outline, which would
        // otherwise be all there is to see.
        let half = if slot_px >= 4.0 { 0.4 } else { 0.5 };
        let outline = slot_px >= 8.0;
        let base = if self.spec.log_y { y.lo } else { 0.0 };
        let rects = self.bars.iter().map(|&(i, top)| {
            let cx = i as f64;
            [(cx - half, base), (cx + half, top.max(y.lo))]
        });
        chart
            .draw_series(
                rects
                    .clone()
                    .map(|r| Rectangle::new(r, BAR_COLOUR.filled())),
            )
            .map_err(draw_err)?;
        if outline {
            chart
                .draw_series(rects.map(|r| Rectangle::new(r, BLACK.stroke_width(1))))
                .map_err(draw_err)?;
        }
        draw_axes(canvas, &chart, &self.spec, &self.geo, x, y, self.no_data)
    }
}
