//! "Did you mean" hints for misspelt keys and names.
//!
//! serde answers a key or a name it does not know with every allowed one (`routing` has more
//! than thirty keys); the hint puts the likely intended one first. Names as the papers write
//! them (`ADVG+2`, `UN`, `OFAR-L`) are matched too, since that is what users type first.

/// The hint for serde's "unknown field `x`, expected one of `a`, `b`" or "unknown variant ...",
/// found anywhere in `message` (the TOML parser wraps it in a snippet of the file): the allowed
/// name closest to the given one, or `None` when no name is close.
fn did_you_mean(message: &str) -> Option<String> {
    let (given, names) = unknown_and_allowed(message)?;
    if let Some(hint) = paper_pattern(&given, &names) {
        return Some(hint);
    }
    closest(&given, &names).map(|name| format!("did you mean `{name}`?"))
}

/// `message` with the hint, if any, after serde's first clause ("unknown field `x`"), so it
/// is read before the list of every allowed name.
pub(super) fn with_hint(message: &str) -> String {
    match (did_you_mean(message), message.find("`, expected ")) {
        (Some(hint), Some(at)) => {
            let at = at + 1;
            format!("{} ({hint}){}", &message[..at], &message[at..])
        }
        (Some(hint), None) => format!("{message} ({hint})"),
        _ => message.to_string(),
    }
}

/// The given name and the allowed ones, from serde's message.
fn unknown_and_allowed(message: &str) -> Option<(String, Vec<String>)> {
    let start = ["unknown field `", "unknown variant `"]
        .iter()
        .find_map(|lead| message.find(lead).map(|i| i + lead.len()))?;
    let rest = &message[start..];
    let end = rest.find('`')?;
    let given = rest[..end].to_string();
    // serde writes "expected `a`", "expected `a` or `b`" or "expected one of `a`, `b`, `c`".
    let list = rest[end..].strip_prefix("`, expected ")?;
    let list = list.strip_prefix("one of ").unwrap_or(list);
    // The list ends at the message's end or its line's (the TOML parser may add lines).
    let list = list.lines().next().unwrap_or_default();
    let names: Vec<String> = list
        .split(", ")
        .flat_map(|n| n.split(" or "))
        .filter_map(|n| n.strip_prefix('`')?.strip_suffix('`'))
        .map(str::to_string)
        .collect();
    (!names.is_empty()).then_some((given, names))
}

/// Traffic patterns in the papers' notation: ADVG+N, ADVL+N, SHIFT+N, UN.
fn paper_pattern(given: &str, names: &[String]) -> Option<String> {
    if !names.iter().any(|n| n == "adv-global") {
        return None;
    }
    let lower = given.trim().to_ascii_lowercase();
    let (head, offset) = match lower.split_once('+') {
        Some((head, n)) => (head.trim(), Some(n.trim().parse::<i64>().ok()?)),
        None => (lower.as_str(), None),
    };
    let name = match head {
        "advg" | "adv" | "adv-g" | "adversarial" | "adversarial-global" => "adv-global",
        "advl" | "adv-l" | "adversarial-local" => "adv-local",
        "shift" => "shift",
        "un" | "uni" | "unif" if offset.is_none() => return Some("did you mean `uniform`?".into()),
        _ => return None,
    };
    Some(match offset {
        Some(n) => format!("{given} is pattern = \"{name}\" with offset = {n}"),
        None => format!(
            "did you mean `{name}`, with offset = N for {}+N?",
            given.trim().to_ascii_uppercase()
        ),
    })
}

/// The allowed name meant by `given`: the same up to case, `-` and `_`; else the one a typo
/// away (one or two letters added, dropped, changed or swapped, fewer than half of them);
/// else the only one that starts with it, or that it starts with; else the most similar one
/// (Jaro-Winkler at least 0.85, the level at which one or two letters are wrong in a name of
/// eight). The typo comes before the prefix because keys extend one another
/// (`escape_entry_limt` starts with `escape` but means `escape_entry_limit`).
pub(super) fn closest<'a>(given: &str, names: &'a [String]) -> Option<&'a str> {
    let squash = |s: &str| -> String {
        s.chars()
            .filter(|c| *c != '-' && *c != '_')
            .flat_map(char::to_lowercase)
            .collect()
    };
    let g = squash(given);
    if g.is_empty() {
        return None;
    }
    let squashed: Vec<String> = names.iter().map(|n| squash(n)).collect();
    if let Some(i) = squashed.iter().position(|n| *n == g) {
        return Some(&names[i]);
    }
    // Names the papers spell out.
    const ALIASES: &[(&str, &str)] = &[("piggyback", "pb"), ("uniformrandom", "uniform")];
    if let Some(name) = ALIASES
        .iter()
        .find(|(alias, _)| *alias == g)
        .and_then(|(_, name)| names.iter().find(|n| n == name))
    {
        return Some(name);
    }
    let dist: Vec<usize> = squashed
        .iter()
        .map(|s| strsim::damerau_levenshtein(&g, s))
        .collect();
    let nearest = dist.iter().copied().min().unwrap_or(usize::MAX);
    if nearest <= 2 && 2 * nearest < g.chars().count() {
        // Two names equally close: no guess between them.
        let typo: Vec<usize> = (0..names.len()).filter(|&i| dist[i] == nearest).collect();
        if let [only] = typo[..] {
            return Some(&names[only]);
        }
    }
    let prefixed: Vec<usize> = (0..names.len())
        // A one- or two-letter name (`a`, `p`, `h`) begins too many words to be meant.
        .filter(|&i| {
            squashed[i].starts_with(&g) || (squashed[i].len() > 2 && g.starts_with(&squashed[i]))
        })
        .collect();
    if let [only] = prefixed[..] {
        return Some(&names[only]);
    }
    names
        .iter()
        .zip(&squashed)
        .map(|(name, s)| (strsim::jaro_winkler(&g, s), name))
        .filter(|(score, _)| *score >= 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, name)| name.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(given: &str, names: &[&str]) -> String {
        let list: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
        format!(
            "unknown field `{given}`, expected one of {}",
            list.join(", ")
        )
    }

    fn variant(given: &str, names: &[&str]) -> String {
        field(given, names).replacen("unknown field", "unknown variant", 1)
    }

    const ROUTING: &[&str] = &[
        "algorithm",
        "ugal_threshold",
        "misroute_threshold",
        "escape",
        "rings",
        "ring_direction",
        "ecm_threshold",
        "escape_entry_limit",
    ];
    const ALGORITHMS: &[&str] = &["min", "val", "val-any", "ugal-l", "ofar", "ofar-l", "pb"];
    const PATTERNS: &[&str] = &["uniform", "adv-global", "adv-local", "shift", "hot-spot"];

    #[test]
    fn misspelt_keys_get_the_intended_one() {
        for (given, meant) in [
            ("algoritm", "algorithm"),
            ("misroute_treshold", "misroute_threshold"),
            ("ring", "rings"),
            ("Ring-Direction", "ring_direction"),
            // A typo ranks before a name the given one starts with.
            ("escape_entry_limt", "escape_entry_limit"),
            ("escapes", "escape"),
        ] {
            assert_eq!(
                did_you_mean(&field(given, ROUTING)).as_deref(),
                Some(format!("did you mean `{meant}`?").as_str()),
                "{given}"
            );
        }
    }

    #[test]
    fn names_as_the_papers_write_them() {
        for (given, meant) in [
            ("OFAR", "ofar"),
            ("OFAR-L", "ofar-l"),
            ("valany", "val-any"),
            ("ugal", "ugal-l"),
            ("Piggyback", "pb"),
            ("minimal", "min"),
        ] {
            assert_eq!(
                did_you_mean(&variant(given, ALGORITHMS)).as_deref(),
                Some(format!("did you mean `{meant}`?").as_str()),
                "{given}"
            );
        }
        assert_eq!(
            did_you_mean(&variant("ADVG+2", PATTERNS)).as_deref(),
            Some("ADVG+2 is pattern = \"adv-global\" with offset = 2")
        );
        assert_eq!(
            did_you_mean(&variant("advl+3", PATTERNS)).as_deref(),
            Some("advl+3 is pattern = \"adv-local\" with offset = 3")
        );
        assert_eq!(
            did_you_mean(&variant("UN", PATTERNS)).as_deref(),
            Some("did you mean `uniform`?")
        );
        assert!(did_you_mean(&variant("advg", PATTERNS))
            .unwrap()
            .contains("`adv-global`"));
    }

    #[test]
    fn lists_of_one_or_two_names() {
        assert_eq!(
            did_you_mean("unknown variant `Any`, expected `all` or `any`").as_deref(),
            Some("did you mean `any`?")
        );
        assert_eq!(
            with_hint("unknown variant `ports`, expected `vc` or `port`"),
            "unknown variant `ports` (did you mean `port`?), expected `vc` or `port`"
        );
        assert_eq!(
            did_you_mean("unknown field `fator`, expected `factor`").as_deref(),
            Some("did you mean `factor`?")
        );
    }

    #[test]
    fn nothing_close_gets_no_hint() {
        assert_eq!(did_you_mean(&field("colour", ROUTING)), None);
        assert_eq!(did_you_mean(&variant("booksim", ALGORITHMS)), None);
        // A word that merely begins with a one-letter key is not that key.
        assert_eq!(did_you_mean(&field("height", &["p", "a", "h"])), None);
        // "v" starts two names: no guess between them.
        assert_eq!(did_you_mean(&variant("v", ALGORITHMS)), None);
        assert_eq!(
            did_you_mean("invalid type: string, expected a number"),
            None
        );
    }

    #[test]
    fn the_hint_comes_before_the_list() {
        let m = with_hint(&field("algoritm", ROUTING));
        assert!(
            m.starts_with(
                "unknown field `algoritm` (did you mean `algorithm`?), expected one of `algorithm`"
            ),
            "{m}"
        );
        let plain = field("colour", ROUTING);
        assert_eq!(with_hint(&plain), plain);
    }

    #[test]
    fn found_inside_a_parser_snippet() {
        let m = format!(
            "TOML parse error at line 3, column 1\n  |\n3 | colr = 1\n  | ^^^^\n{}\n",
            field("colr", &["title", "color", "kind"])
        );
        assert_eq!(did_you_mean(&m).as_deref(), Some("did you mean `color`?"));
    }
}
