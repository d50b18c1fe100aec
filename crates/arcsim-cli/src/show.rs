//! How numbers are written for a reader: a missing measurement as "-", never as 0, and loads
//! with the digits they need.

/// `v` with `prec` decimals, or "-" when the measurement is missing (no packet delivered in
/// the window, so there is nothing to measure).
pub fn opt(v: Option<f64>, prec: usize) -> String {
    match v {
        Some(x) => format!("{x:.prec$}"),
        None => MISSING.to_string(),
    }
}

/// What a table or CSV file holds where a measurement is missing.
pub const MISSING: &str = "-";

/// A load (phits per node per cycle) written as briefly as it reads exactly: `0.4`, `0.125`,
/// up to 6 significant digits (`0.333333`), and in scientific notation below 0.001 (`1e-5`),
/// never the hundreds of digits of `{}` on a tiny value.
pub fn load(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    if x.abs() < 1e-3 {
        let s = format!("{x:.5e}");
        // Drop the mantissa's trailing zeros: 1.00000e-5 -> 1e-5.
        let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
        let m = m.trim_end_matches('0').trim_end_matches('.');
        return format!("{m}e{e}");
    }
    let digits = (6 - 1 - x.abs().log10().floor() as i32).max(0) as usize;
    let s = format!("{x:.digits$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_values_read_as_a_dash() {
        assert_eq!(opt(None, 3), "-");
        assert_eq!(opt(Some(0.0), 1), "0.0");
        assert_eq!(opt(Some(12.345), 2), "12.35");
    }

    #[test]
    fn loads_are_short() {
        assert_eq!(load(0.4), "0.4");
        assert_eq!(load(0.125), "0.125");
        assert_eq!(load(1.0 / 3.0), "0.333333");
        assert_eq!(load(1.0), "1");
        assert_eq!(load(0.0), "0");
        assert_eq!(load(1e-5), "1e-5");
        assert_eq!(load(5e-324), "4.94066e-324");
        assert!(load(5e-324).len() < 16);
    }
}
