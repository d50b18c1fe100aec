//! Legends: entries and their samples, single- and multi-column layout,
//! drawing, and the hit tests that keep a legend inside the plot clear of data.

use anyhow::Result;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::grouped::OPEN_BAR_W;
use super::text::{text_width, Canvas, Txt};
use super::{
    draw_err, marker_elem, Marker, LEGEND_COL_GAP, LEGEND_EDGE, LEGEND_FONT, LEGEND_GAP,
    LEGEND_PAD, LEGEND_ROW, LEGEND_SAMPLE, LINE_W,
};

/// Something drawn in the plot that the legend must not cover: a segment
/// in plot coordinates plus a clearance in pixels.
#[derive(Clone, Copy)]
pub(super) struct Obstacle {
    pub(super) a: (f64, f64),
    pub(super) b: (f64, f64),
    pub(super) pad: f64,
}

#[derive(Clone, Debug)]
pub(super) struct LegendEntry {
    pub(super) label: String,
    /// None for the "… (n more)" line, which has no sample.
    pub(super) style: Option<Sample>,
}

/// What a legend entry shows left of its label.
#[derive(Clone, Copy, Debug)]
pub(super) enum Sample {
    /// A line with a marker on it (line plots).
    Line(RGBColor, Marker),
    /// A filled, outlined box (bar charts).
    Swatch(RGBColor),
    /// An open box with an upward arrowhead: a bar that runs off the top (did not finish).
    OpenSwatch(RGBColor),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum LegendPlace {
    /// Top-left corner, in pixels from the plot area's top-left corner.
    Inside(i32, i32),
    /// In a panel right of the chart.
    Outside,
}

/// Legend contents and box size, laid out column by column.
#[derive(Clone, Debug)]
pub(super) struct Legend {
    pub(super) entries: Vec<LegendEntry>,
    rows: usize,
    col_w: i32,
    pub(super) w: i32,
    pub(super) h: i32,
}

impl Legend {
    fn column_width(entries: &[LegendEntry]) -> i32 {
        let text_w = entries
            .iter()
            .map(|e| text_width(&e.label, LEGEND_FONT))
            .max()
            .unwrap_or(0) as i32;
        LEGEND_SAMPLE + LEGEND_GAP + text_w
    }

    fn height(rows: usize) -> i32 {
        2 * LEGEND_PAD + rows as i32 * LEGEND_ROW - (LEGEND_ROW - LEGEND_FONT as i32) / 2
    }

    pub(super) fn single_column(entries: Vec<LegendEntry>) -> Self {
        let col_w = Self::column_width(&entries);
        Legend {
            rows: entries.len(),
            col_w,
            w: 2 * LEGEND_PAD + col_w,
            h: Self::height(entries.len()),
            entries,
        }
    }

    /// Multi-column layout for a panel of at most `max_w` x `max_h` pixels;
    /// entries that do not fit are summarised in a last "… (n more)" row.
    pub(super) fn panel(mut entries: Vec<LegendEntry>, max_w: i32, max_h: i32) -> Self {
        let col_w = Self::column_width(&entries);
        let rows_fit = ((max_h - 2 * LEGEND_PAD) / LEGEND_ROW).max(1) as usize;
        let cols_fit =
            ((max_w - 2 * LEGEND_PAD + LEGEND_COL_GAP) / (col_w + LEGEND_COL_GAP)).max(1) as usize;
        let capacity = rows_fit * cols_fit;
        if entries.len() > capacity {
            let hidden = entries.len() + 1 - capacity;
            entries.truncate(capacity - 1);
            entries.push(LegendEntry {
                label: format!("… ({hidden} more)"),
                style: None,
            });
        }
        let rows = entries.len().min(rows_fit);
        let cols = entries.len().div_ceil(rows.max(1)) as i32;
        Legend {
            rows,
            col_w,
            w: 2 * LEGEND_PAD + cols * col_w + (cols - 1) * LEGEND_COL_GAP,
            h: Self::height(rows),
            entries,
        }
    }

    /// Draws the legend with its top-left corner at (x0, y0) on the canvas.
    pub(super) fn draw<DB: DrawingBackend>(
        &self,
        canvas: &Canvas<DB>,
        x0: i32,
        y0: i32,
    ) -> Result<()> {
        let rect = [(x0, y0), (x0 + self.w, y0 + self.h)];
        let root = canvas.root;
        root.draw(&Rectangle::new(rect, WHITE.filled()))
            .map_err(draw_err)?;
        root.draw(&Rectangle::new(rect, LEGEND_EDGE.stroke_width(1)))
            .map_err(draw_err)?;
        let rows = self.rows.max(1);
        for (i, e) in self.entries.iter().enumerate() {
            let col = (i / rows) as i32;
            let row = (i % rows) as i32;
            let sx = x0 + LEGEND_PAD + col * (self.col_w + LEGEND_COL_GAP);
            let cy = y0 + LEGEND_PAD + row * LEGEND_ROW + LEGEND_FONT as i32 / 2;
            match e.style {
                Some(Sample::Line(colour, marker)) => {
                    canvas.line(
                        vec![(sx, cy), (sx + LEGEND_SAMPLE, cy)],
                        colour.stroke_width(LINE_W),
                    )?;
                    root.draw(&marker_elem::<DB, _>(
                        (sx + LEGEND_SAMPLE / 2, cy),
                        marker,
                        colour,
                    ))
                    .map_err(draw_err)?;
                }
                Some(Sample::Swatch(colour)) => {
                    let h = LEGEND_FONT as i32 / 2;
                    let rect = [
                        (sx + LEGEND_SAMPLE - 3 * h, cy - h),
                        (sx + LEGEND_SAMPLE, cy + h),
                    ];
                    root.draw(&Rectangle::new(rect, colour.filled()))
                        .map_err(draw_err)?;
                    root.draw(&Rectangle::new(rect, BLACK.stroke_width(1)))
                        .map_err(draw_err)?;
                }
                Some(Sample::OpenSwatch(colour)) => {
                    let h = LEGEND_FONT as i32 / 2;
                    let (l, r) = (sx + LEGEND_SAMPLE - 3 * h, sx + LEGEND_SAMPLE);
                    root.draw(&Rectangle::new(
                        [(l, cy - h), (r, cy + h)],
                        colour.stroke_width(OPEN_BAR_W),
                    ))
                    .map_err(draw_err)?;
                    root.draw(&Polygon::new(
                        vec![((l + r) / 2, cy - h), (l, cy + h / 2), (r, cy + h / 2)],
                        colour.filled(),
                    ))
                    .map_err(draw_err)?;
                }
                None => {}
            }
            let t = Txt::new(LEGEND_FONT, HPos::Left, VPos::Center);
            canvas.text(&e.label, (sx + LEGEND_SAMPLE + LEGEND_GAP, cy), t)?;
        }
        Ok(())
    }
}

/// Liang-Barsky: does the segment p0-p1 touch the rectangle (x0, y0, x1, y1)?
pub(super) fn segment_hits_rect(p0: (f64, f64), p1: (f64, f64), r: (f64, f64, f64, f64)) -> bool {
    let (dx, dy) = (p1.0 - p0.0, p1.1 - p0.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [
        (-dx, p0.0 - r.0),
        (dx, r.2 - p0.0),
        (-dy, p0.1 - r.1),
        (dy, r.3 - p0.1),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return false;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                if t > t1 {
                    return false;
                }
                t0 = t0.max(t);
            } else {
                if t < t0 {
                    return false;
                }
                t1 = t1.min(t);
            }
        }
    }
    t0 <= t1
}

/// Highest plot-y of the part of the obstacle whose pixel x is in [xa, xb].
pub(super) fn max_y_over_x_span(
    o: &Obstacle,
    px: &impl Fn(f64) -> f64,
    xa: f64,
    xb: f64,
) -> Option<f64> {
    let (x0, x1) = (px(o.a.0), px(o.b.0));
    let (lo_x, hi_x) = (x0.min(x1), x0.max(x1));
    if hi_x < xa || lo_x > xb {
        return None;
    }
    if x1 == x0 {
        return Some(o.a.1.max(o.b.1));
    }
    // y is linear in x along the segment; evaluate it at the clipped ends.
    let at = |x: f64| {
        let t = ((x - x0) / (x1 - x0)).clamp(0.0, 1.0);
        o.a.1 + t * (o.b.1 - o.a.1)
    };
    Some(at(lo_x.max(xa)).max(at(hi_x.min(xb))))
}
