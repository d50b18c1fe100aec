//! The embedded font and text layout (glyph positions, widths, fitting to a
//! width), and `Canvas`: the root drawing area plus how text goes on it.

use std::sync::OnceLock;

use ab_glyph::{point, Font, FontRef, GlyphId, ScaleFont};
use anyhow::{bail, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::FontTransform;

use super::{draw_err, FONT};

// ---------------------------------------------------------------------------
// Font.

pub(super) static FONT_DATA: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");

/// The embedded font, parsed once by ab_glyph.
fn parsed_font() -> Option<&'static FontRef<'static>> {
    static FONT_REF: OnceLock<Option<FontRef<'static>>> = OnceLock::new();
    FONT_REF
        .get_or_init(|| FontRef::try_from_slice(FONT_DATA).ok())
        .as_ref()
}

/// Fails if the embedded font does not parse. The public entry points call
/// this before laying anything out, so that [`font`] cannot panic.
pub(super) fn ensure_font() -> Result<()> {
    match parsed_font() {
        Some(_) => Ok(()),
        None => bail!("the embedded DejaVu Sans font could not be loaded"),
    }
}

/// The embedded font.
fn font() -> &'static FontRef<'static> {
    parsed_font().expect("ensure_font() succeeded")
}

/// Pixels per font unit at a plotters font size: like plotters, ab_glyph
/// maps the font's ascent-to-descent height to `size` pixels.
fn px_per_unit(size: u32) -> f64 {
    f64::from(size) / f64::from(font().height_unscaled())
}

/// Glyphs of `text` with their pen x (kerning applied), in pixels, plus the
/// total advance width.
fn layout(text: &str, size: u32) -> (Vec<(GlyphId, f64)>, f64) {
    let font = font();
    let scale = px_per_unit(size);
    let mut pen = 0.0;
    let mut prev = None;
    let glyphs = text
        .chars()
        .map(|c| {
            let id = font.glyph_id(c);
            if let Some(p) = prev {
                pen += f64::from(font.kern_unscaled(p, id)) * scale;
            }
            prev = Some(id);
            let at = pen;
            pen += f64::from(font.h_advance_unscaled(id)) * scale;
            (id, at)
        })
        .collect();
    (glyphs, pen)
}

/// Width in pixels of `text` at `size`, as it will be laid out.
pub(super) fn text_width(text: &str, size: u32) -> u32 {
    layout(text, size).1.ceil() as u32
}

/// Largest size <= `size` (down to 60% of it) at which `text` fits in
/// `max_w` pixels; long titles shrink instead of running off the canvas.
pub(super) fn fit_size(text: &str, size: u32, max_w: i32) -> u32 {
    let min = size * 6 / 10;
    let mut s = size;
    while s > min && text_width(text, s) as i32 > max_w {
        s -= 1;
    }
    s
}

/// A title in one line, shrunk to fit `max_w` (down to 80% of `size`), or, when it is
/// longer, in two lines broken at the space nearest its middle (after a colon or a dash
/// when one is near), each shrunk to fit: a long title never runs off the canvas.
pub(super) fn title_lines(title: &str, size: u32, max_w: i32) -> Vec<(String, u32)> {
    let one = fit_size(title, size, max_w);
    if one >= size * 8 / 10 && text_width(title, one) as i32 <= max_w {
        return vec![(title.to_string(), one)];
    }
    let mid = title.len() / 2;
    let spaces: Vec<usize> = title.match_indices(' ').map(|(i, _)| i).collect();
    // Prefer a break after ":" or "—" within a third of the middle.
    let near = |i: &usize| i.abs_diff(mid) <= title.len() / 3;
    let after_punct = spaces
        .iter()
        .filter(|&&i| near(&i) && (title[..i].ends_with(':') || title[..i].ends_with('—')))
        .min_by_key(|&&i| i.abs_diff(mid));
    let Some(&at) = after_punct.or_else(|| spaces.iter().min_by_key(|&&i| i.abs_diff(mid))) else {
        return vec![(title.to_string(), one)];
    };
    [&title[..at], &title[at + 1..]]
        .into_iter()
        .map(|line| (line.to_string(), fit_size(line, size, max_w)))
        .collect()
}

/// `text` cut to `max_chars` characters, the last one an ellipsis when cut.
pub(crate) fn truncate(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(max_chars.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

// ---------------------------------------------------------------------------
// Canvas: the root drawing area plus how text goes on it.

/// Text appearance and anchoring. The anchor semantics are those of
/// plotters' SVG backend (Top: baseline 0.76 em down; Center: baseline
/// 0.5 ex down; Bottom: baseline 0.5 ex up), which PNG text mirrors.
#[derive(Clone, Copy)]
pub(super) struct Txt {
    pub(super) size: u32,
    pub(super) colour: RGBColor,
    pub(super) h: HPos,
    pub(super) v: VPos,
    /// Rotated 90° counter-clockwise (reads bottom to top).
    pub(super) rotate: bool,
}

impl Txt {
    pub(super) fn new(size: u32, h: HPos, v: VPos) -> Self {
        Txt {
            size,
            colour: BLACK,
            h,
            v,
            rotate: false,
        }
    }
}

pub(super) struct Canvas<'a, DB: DrawingBackend> {
    pub(super) root: &'a DrawingArea<DB, Shift>,
    /// Rasterise glyphs here (PNG) rather than emitting text (SVG).
    pub(super) raster_text: bool,
}

impl<DB: DrawingBackend> Canvas<'_, DB> {
    pub(super) fn text(&self, text: &str, pos: (i32, i32), t: Txt) -> Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        if self.raster_text {
            return self.raster(text, pos, t);
        }
        // SVG: size the font so that its em matches the PNG's (plotters
        // writes font-size = size / 1.24).
        let units_per_em = f64::from(font().units_per_em().unwrap_or(0.0));
        let size = 1.24 * f64::from(t.size) * units_per_em / f64::from(font().height_unscaled());
        let style = (FONT, size)
            .into_font()
            .transform(if t.rotate {
                FontTransform::Rotate270
            } else {
                FontTransform::None
            })
            .color(&t.colour)
            .pos(Pos::new(t.h, t.v));
        self.root.draw_text(text, &style, pos).map_err(draw_err)
    }

    /// Rasterises text with ab_glyph, each glyph at its pen position plus its
    /// side bearing (plotters' ab_glyph text drawing drops the bearing).
    fn raster(&self, text: &str, pos: (i32, i32), t: Txt) -> Result<()> {
        let font = font();
        let scale = px_per_unit(t.size);
        let (glyphs, width) = layout(text, t.size);
        let dx = match t.h {
            HPos::Left => 0.0,
            HPos::Center => -width / 2.0,
            HPos::Right => -width,
        };
        // Top of the 'x' glyph's ink, in font units (outline bounds are y-up,
        // so `min.y` is its y_max).
        let x_height = || {
            f64::from(
                font.outline(font.glyph_id('x'))
                    .map_or(0.0, |o| o.bounds.min.y),
            )
        };
        let baseline = match t.v {
            VPos::Top => 0.76 * f64::from(font.units_per_em().unwrap_or(0.0)),
            VPos::Center => 0.5 * x_height(),
            VPos::Bottom => -0.5 * x_height(),
        };
        let baseline = (baseline * scale).round() as f32;
        let scaled = font.as_scaled(t.size as f32);
        let mut pixels = Vec::new();
        for (id, pen) in glyphs {
            let at = point((pen + dx).round() as f32, baseline);
            let Some(glyph) = scaled.outline_glyph(id.with_scale_and_position(scaled.scale(), at))
            else {
                continue;
            };
            let min = glyph.px_bounds().min;
            glyph.draw(|x, y, a| {
                if a > 0.0 {
                    pixels.push((min.x as i32 + x as i32, min.y as i32 + y as i32, a));
                }
            });
        }
        for (x, y, a) in pixels {
            let (x, y) = if t.rotate { (y, -x) } else { (x, y) };
            let colour = t.colour.mix(f64::from(a.min(1.0)));
            self.root
                .draw_pixel((pos.0 + x, pos.1 + y), &colour)
                .map_err(draw_err)?;
        }
        Ok(())
    }

    pub(super) fn line(&self, points: Vec<(i32, i32)>, style: ShapeStyle) -> Result<()> {
        self.root
            .draw(&PathElement::new(points, style))
            .map_err(draw_err)
    }

    pub(super) fn rect(&self, a: (i32, i32), b: (i32, i32), style: ShapeStyle) -> Result<()> {
        self.root
            .draw(&Rectangle::new([a, b], style))
            .map_err(draw_err)
    }

    pub(super) fn polygon(&self, points: Vec<(i32, i32)>, style: ShapeStyle) -> Result<()> {
        self.root
            .draw(&Polygon::new(points, style))
            .map_err(draw_err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_ab_glyph_metrics() {
        ensure_font().unwrap();
        let scaled = font().as_scaled(18.0);
        assert_ne!(scaled.glyph_id('A'), GlyphId(0));
        assert!(font()
            .outline(font().glyph_id('x'))
            .is_some_and(|o| o.bounds.min.y > 0.0));
        // Our advances (with kerning) must agree with ab_glyph's at the
        // scale plotters uses for the same font size.
        for text in [
            "Average latency (cycles)",
            "dragonfly UGAL",
            "AVATAR Te 0.25",
        ] {
            let ids: Vec<_> = text.chars().map(|c| scaled.glyph_id(c)).collect();
            let advances: f32 = ids.iter().map(|&id| scaled.h_advance(id)).sum();
            let kerning: f32 = ids.windows(2).map(|w| scaled.kern(w[0], w[1])).sum();
            let ours = layout(text, 18).1;
            let theirs = f64::from(advances + kerning);
            assert!((ours - theirs).abs() < 0.01, "{text}: {ours} vs {theirs}");
            if text.starts_with("AVATAR") {
                assert!(kerning < 0.0, "no kerning applied");
            }
        }
    }
}
