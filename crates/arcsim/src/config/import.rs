//! Importers into the graph topology (`topology.graph.file`): BookSim's `anynet` network
//! file and InfiniBand `ibnetdiscover` output. Each gives a [`GraphConfig`] (switches, the
//! switch of every node, links with their latencies; parallel links allowed) and stops at the
//! first malformed line with the file, the line number and what is wrong.

use super::{GraphConfig, GraphLink};
use std::collections::{BTreeMap, HashMap};

/// What an `ibnetdiscover` file tells beyond the graph, for reading OpenSM's forwarding
/// table dumps of the same fabric: switches by GUID, LIDs, and InfiniBand port numbers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IbFabric {
    /// Per switch (arcsim number): its GUID, its LID (0 when not given) and its name.
    pub switch_guid: Vec<u64>,
    pub switch_lid: Vec<u32>,
    pub switch_name: Vec<String>,
    /// Per node: the LID of its HCA port (0 when not given) and the HCA's name and port.
    pub node_lid: Vec<u32>,
    pub node_name: Vec<String>,
    /// Per switch, per InfiniBand port number: the arcsim port (u16::MAX: not connected).
    pub port_map: Vec<Vec<u16>>,
}

/// BookSim's anynet file (BookSim 2's `src/networks/anynet.cpp`): each line names a router
/// or a node and what it is connected to, `router 0 node 0 node 1 router 1 15 router 2`:
/// router 0 has nodes 0 and 1, a link to router 1 of 15 cycles and one to router 2 of 1
/// cycle (a number after an element is the latency of the link to it; 1 when left out).
/// A link listed from one side needs no listing from the other. Routers and nodes are
/// numbered from 0 without gaps; a node attaches to one router.
///
/// arcsim's links have one latency for both directions: a link whose two directions are
/// both given with different latencies is an error (BookSim would keep them apart), and one
/// given from one side only takes that latency both ways (BookSim: 1 cycle back). A node's
/// latency must equal `terminal_latency` (arcsim gives every node link the same).
pub fn anynet(text: &str, path: &str, terminal_latency: u32) -> Result<GraphConfig, String> {
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Kind {
        Router,
        Node,
    }
    // (a, b) with a < b -> latency a -> b and b -> a given explicitly, with their lines.
    /// A latency given explicitly, with its line.
    type Given = Option<(u32, usize)>;
    let mut links: BTreeMap<(u32, u32), [Given; 2]> = BTreeMap::new();
    let mut node_router: BTreeMap<u32, (u32, usize)> = BTreeMap::new();
    let mut routers: BTreeMap<u32, usize> = BTreeMap::new();
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let at = |msg: String| format!("{path}:{line_no}: {msg}");
        let line = raw.split("//").next().unwrap_or("").trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let kind = |w: &str| match w.to_ascii_lowercase().as_str() {
            "router" => Some(Kind::Router),
            "node" => Some(Kind::Node),
            _ => None,
        };
        let number = |w: Option<&&str>, what: &str| -> Result<u32, String> {
            let w = w.ok_or_else(|| at(format!("\"{what}\" needs a number after it")))?;
            w.parse::<u32>().map_err(|_| {
                at(format!(
                    "\"{w}\" is not a {what} number (expected {what} N, N from 0)"
                ))
            })
        };
        let head_kind = kind(words[0]).ok_or_else(|| {
            at(format!(
                "a line starts with \"router\" or \"node\", not \"{}\"",
                words[0]
            ))
        })?;
        let head_word = if head_kind == Kind::Router {
            "router"
        } else {
            "node"
        };
        let head = number(words.get(1), head_word)?;
        if head_kind == Kind::Router {
            routers.entry(head).or_insert(line_no);
        }
        let mut k = 2;
        while k < words.len() {
            let body_kind = kind(words[k]).ok_or_else(|| {
                at(format!(
                    "expected \"router\" or \"node\" (or a latency after one), not \"{}\"",
                    words[k]
                ))
            })?;
            let body_word = if body_kind == Kind::Router {
                "router"
            } else {
                "node"
            };
            let body = number(words.get(k + 1), body_word)?;
            k += 2;
            let latency = match words.get(k) {
                Some(w) if kind(w).is_none() => {
                    k += 1;
                    let l = w.parse::<u32>().map_err(|_| {
                        at(format!(
                            "\"{w}\" is not a latency (cycles) nor \"router\" or \"node\""
                        ))
                    })?;
                    if l == 0 || l > 100_000 {
                        return Err(at(format!(
                            "a latency of {l} cycles is out of range: allowed 1..=100000"
                        )));
                    }
                    Some(l)
                }
                _ => None,
            };
            match (head_kind, body_kind) {
                (Kind::Node, Kind::Node) => {
                    return Err(at(format!(
                        "node {head} is linked to node {body}: nodes attach to routers only"
                    )))
                }
                (Kind::Router, Kind::Router) => {
                    if head == body {
                        return Err(at(format!("router {head} is linked to itself")));
                    }
                    routers.entry(body).or_insert(line_no);
                    let key = (head.min(body), head.max(body));
                    let dir = (head > body) as usize;
                    let slot = &mut links.entry(key).or_default()[dir];
                    if let (Some(l), Some((old, old_line))) = (latency, *slot) {
                        if l != old {
                            return Err(at(format!(
                                "router {head} -> router {body} has latency {l} here and {old} on line {old_line}"
                            )));
                        }
                    }
                    if let Some(l) = latency {
                        *slot = Some((l, line_no));
                    }
                }
                _ => {
                    let (router, node) = if head_kind == Kind::Router {
                        (head, body)
                    } else {
                        (body, head)
                    };
                    routers.entry(router).or_insert(line_no);
                    if let Some(l) = latency.filter(|&l| l != terminal_latency) {
                        return Err(at(format!(
                            "node {node} has latency {l}, and arcsim gives every node link the same latency, topology.terminal_latency = {terminal_latency}: set that to {l}, or leave the latency out"
                        )));
                    }
                    if let Some(&(r, first)) = node_router.get(&node) {
                        if r != router {
                            return Err(at(format!(
                                "node {node} is attached to router {router} here and to router {r} on line {first}: a node attaches to one router"
                            )));
                        }
                    }
                    node_router.insert(node, (router, line_no));
                }
            }
        }
    }
    let switches = routers.len() as u32;
    if switches == 0 {
        return Err(format!("{path}: no router is listed"));
    }
    for (expect, (&r, &line)) in routers.iter().enumerate() {
        if r != expect as u32 {
            return Err(format!(
                "{path}:{line}: router {r} is listed but router {expect} is not: routers are numbered from 0 without gaps"
            ));
        }
    }
    let mut hosts = Vec::with_capacity(node_router.len());
    for (expect, (&n, &(r, line))) in node_router.iter().enumerate() {
        if n != expect as u32 {
            return Err(format!(
                "{path}:{line}: node {n} is listed but node {expect} is not: nodes are numbered from 0 without gaps"
            ));
        }
        hosts.push(r);
    }
    let mut out = Vec::with_capacity(links.len());
    for (&(a, b), dirs) in &links {
        let latency = match dirs {
            [Some((x, lx)), Some((y, ly))] if x != y => {
                return Err(format!(
                    "{path}:{ly}: router {b} -> router {a} has latency {y}, and router {a} -> router {b} {x} on line {lx}: arcsim's links have one latency for both directions"
                ))
            }
            [Some((x, _)), _] | [None, Some((x, _))] => *x,
            [None, None] => 1,
        };
        out.push(GraphLink {
            a,
            b,
            class: "local".into(),
            latency,
        });
    }
    Ok(GraphConfig {
        switches,
        hosts,
        links: out,
        ..Default::default()
    })
}

/// The quoted words of a line, in order.
fn quoted(s: &str) -> Vec<&str> {
    s.split('"').skip(1).step_by(2).collect()
}

/// The number after the first `lid` word of `s`.
fn lid_in(s: &str) -> Option<u32> {
    let mut words = s.split_whitespace();
    while let Some(w) = words.next() {
        if w == "lid" {
            return words.next().and_then(|l| l.parse().ok());
        }
    }
    None
}

/// An ibnetdiscover port reference: `[3]`, `[3](2c9...)` -> 3.
fn port_number(s: &str) -> Option<u32> {
    let s = s.trim_start();
    let rest = s.strip_prefix('[')?;
    let end = rest.find(']')?;
    rest[..end].parse().ok()
}

/// InfiniBand `ibnetdiscover` output (infiniband-diags): blocks `Switch N "S-<guid>" # ...`
/// and `Ca N "H-<guid>" # ...`, each followed by its connected ports, `[p] "<peer>"[q]`.
/// Every switch becomes a switch; every HCA port linked to a switch becomes a node (in the
/// order of the HCA blocks and their ports); every switch-to-switch cable becomes a link of
/// `latency` cycles, parallel cables included. Both ends of a cable must agree.
pub fn ibnetdiscover(
    text: &str,
    path: &str,
    latency: u32,
) -> Result<(GraphConfig, IbFabric), String> {
    #[derive(Clone, Copy, PartialEq, Eq)]
    enum Block {
        Switch(usize),
        Ca(usize),
        None,
    }
    let mut fabric = IbFabric::default();
    let mut switch_of: HashMap<String, usize> = HashMap::new();
    let mut switch_ports: Vec<u32> = Vec::new();
    // Cas: id -> index; per Ca, its name.
    let mut ca_of: HashMap<String, usize> = HashMap::new();
    let mut ca_name: Vec<String> = Vec::new();
    // (switch, port) -> (peer id, peer port, line), from switch blocks.
    let mut switch_side: BTreeMap<(usize, u32), (String, u32, usize)> = BTreeMap::new();
    // Per Ca port seen in a Ca block: (ca, port) -> (switch id, switch port, lid, line).
    /// (HCA, port) and (switch id, switch port, LID, line).
    type CaPort = ((usize, u32), (String, u32, u32, usize));
    let mut ca_side: Vec<CaPort> = Vec::new();
    let mut block = Block::None;
    // First pass: blocks and their port lines.
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let at = |msg: String| format!("{path}:{line_no}: {msg}");
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let first = line.split_whitespace().next().unwrap_or_default();
        if line.contains('=') && !line.starts_with('[') && !line.contains('"') {
            // vendid=, devid=, sysimgguid=, switchguid=, caguid=: not needed.
            continue;
        }
        match first {
            "Switch" | "Ca" => {
                let mut words = line.split_whitespace().skip(1);
                let n: u32 = words.next().and_then(|w| w.parse().ok()).ok_or_else(|| {
                    at(format!(
                        "\"{first}\" needs its number of ports, then its id: {first} N \"id\""
                    ))
                })?;
                let (head, comment) = line.split_once('#').unwrap_or((line, ""));
                let id = quoted(head)
                    .first()
                    .map(|s| s.to_string())
                    .ok_or_else(|| at(format!("\"{first}\" needs its id in quotes")))?;
                let name = quoted(comment)
                    .first()
                    .map(|s| s.to_string())
                    .unwrap_or_default();
                if first == "Switch" {
                    if switch_of.contains_key(&id) {
                        return Err(at(format!("switch \"{id}\" is described twice")));
                    }
                    let s = fabric.switch_guid.len();
                    let hex = id.trim_start_matches("S-");
                    fabric
                        .switch_guid
                        .push(u64::from_str_radix(hex, 16).unwrap_or(0));
                    fabric.switch_lid.push(lid_in(comment).unwrap_or(0));
                    fabric.switch_name.push(name);
                    switch_ports.push(n);
                    switch_of.insert(id, s);
                    block = Block::Switch(s);
                } else {
                    if ca_of.contains_key(&id) {
                        return Err(at(format!("HCA \"{id}\" is described twice")));
                    }
                    let c = ca_name.len();
                    ca_name.push(if name.is_empty() { id.clone() } else { name });
                    ca_of.insert(id, c);
                    block = Block::Ca(c);
                }
            }
            "Rt" => {
                return Err(at(
                    "routers (Rt) are not supported: arcsim imports switches and HCAs".into(),
                ))
            }
            _ if first.starts_with('[') => {
                let (head, comment) = line.split_once('#').unwrap_or((line, ""));
                let p = port_number(head).ok_or_else(|| {
                    at(format!(
                        "a port line starts with its number in brackets, [N], not \"{first}\""
                    ))
                })?;
                let peer = quoted(head).first().map(|s| s.to_string()).ok_or_else(|| {
                    at("a port line names the peer in quotes: [N] \"S-...\"[M]".into())
                })?;
                let after = head
                    .split('"')
                    .nth(2)
                    .and_then(port_number)
                    .ok_or_else(|| {
                        at(format!(
                            "the peer \"{peer}\" needs its port in brackets: \"{peer}\"[M]"
                        ))
                    })?;
                match block {
                    Block::Switch(s) => {
                        if p == 0 || p > switch_ports[s] {
                            return Err(at(format!(
                                "port {p} is out of range: this switch has ports 1..={}",
                                switch_ports[s]
                            )));
                        }
                        if switch_side.insert((s, p), (peer, after, line_no)).is_some() {
                            return Err(at(format!("port {p} is listed twice")));
                        }
                    }
                    Block::Ca(c) => {
                        ca_side
                            .push(((c, p), (peer, after, lid_in(comment).unwrap_or(0), line_no)));
                    }
                    Block::None => {
                        return Err(at("a port line before any \"Switch\" or \"Ca\" line".into()))
                    }
                }
            }
            _ => {
                return Err(at(format!(
                    "expected \"Switch\", \"Ca\", a port line [N] or key=value, not \"{first}\""
                )))
            }
        }
    }
    if switch_of.is_empty() {
        return Err(format!("{path}: no switch is described"));
    }
    let n = switch_of.len();
    // Nodes: HCA ports on switches, in the order of the HCA blocks and their lines.
    let mut hosts = Vec::new();
    // (switch, port) of every node.
    let mut node_at: Vec<(usize, u32)> = Vec::new();
    for ((c, p), (peer, q, lid, line)) in &ca_side {
        let Some(&s) = switch_of.get(peer) else {
            return Err(format!(
                "{path}:{line}: HCA port {p} is linked to \"{peer}\", which is not a switch of the file (HCAs linked to each other are not supported)"
            ));
        };
        if let Some((back, bq, bline)) = switch_side.get(&(s, *q)) {
            let id = ca_of
                .iter()
                .find(|(_, &i)| i == *c)
                .map(|(k, _)| k.as_str());
            if Some(back.as_str()) != id || bq != p {
                return Err(format!(
                    "{path}:{line}: HCA port {p} is linked to port {q} of \"{peer}\", but line {bline} links that port to \"{back}\"[{bq}]"
                ));
            }
        }
        hosts.push(s as u32);
        node_at.push((s, *q));
        fabric.node_lid.push(*lid);
        fabric.node_name.push(format!("{} port {p}", ca_name[*c]));
    }
    // Switch-to-switch cables, once each, from the lower end; HCA ports seen only from a
    // switch (no HCA block) are an error.
    let mut links = Vec::new();
    for (&(s, p), (peer, q, line)) in &switch_side {
        if let Some(&t) = switch_of.get(peer) {
            match switch_side.get(&(t, *q)) {
                Some((back, bp, _)) if switch_of.get(back) == Some(&s) && *bp == p => {}
                Some((back, bp, bline)) => {
                    return Err(format!(
                        "{path}:{line}: port {p} is linked to port {q} of \"{peer}\", but line {bline} links that port to \"{back}\"[{bp}]"
                    ))
                }
                None => {
                    return Err(format!(
                        "{path}:{line}: port {p} is linked to port {q} of \"{peer}\", whose block does not list that port"
                    ))
                }
            }
            if t == s {
                return Err(format!(
                    "{path}:{line}: port {p} is cabled to its own switch"
                ));
            }
            if (s, p) < (t, *q) {
                links.push((s, p, t, *q));
            }
        } else if ca_of.contains_key(peer) {
            if !node_at.contains(&(s, p)) {
                return Err(format!(
                    "{path}:{line}: port {p} is linked to HCA \"{peer}\", whose block does not list it"
                ));
            }
        } else {
            return Err(format!(
                "{path}:{line}: port {p} is linked to \"{peer}\", which the file does not describe"
            ));
        }
    }
    // arcsim's ports: nodes first (node order), then links in the order listed.
    fabric.port_map = switch_ports
        .iter()
        .map(|&k| vec![u16::MAX; k as usize + 1])
        .collect();
    let mut next = vec![0u16; n];
    for &(s, p) in &node_at {
        fabric.port_map[s][p as usize] = next[s];
        next[s] += 1;
    }
    let mut out = Vec::with_capacity(links.len());
    for &(s, p, t, q) in &links {
        fabric.port_map[s][p as usize] = next[s];
        next[s] += 1;
        fabric.port_map[t][q as usize] = next[t];
        next[t] += 1;
        out.push(GraphLink {
            a: s as u32,
            b: t as u32,
            class: "local".into(),
            latency,
        });
    }
    Ok((
        GraphConfig {
            switches: n as u32,
            hosts,
            links: out,
            ..Default::default()
        },
        fabric,
    ))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn booksims_example_file_gives_three_routers_and_nine_nodes() {
        // BookSim 2's src/examples/anynet/anynet_file.
        let text = "router 0 node 0 node 1 node 2 router 1\nrouter 1 node 3 node 4 node 5\nrouter 2 node 6 node 7 node 8 router 1 router 0\n";
        let g = anynet(text, "a", 1).unwrap();
        assert_eq!(g.switches, 3);
        assert_eq!(g.hosts, vec![0, 0, 0, 1, 1, 1, 2, 2, 2]);
        let l: Vec<(u32, u32, u32)> = g.links.iter().map(|l| (l.a, l.b, l.latency)).collect();
        assert_eq!(l, vec![(0, 1, 1), (0, 2, 1), (1, 2, 1)]);
        g.validate().unwrap();
    }

    #[test]
    fn anynet_latencies_and_errors() {
        let g = anynet(
            "router 0 router 1 15 node 0\nrouter 1 node 1 router 0 15\n",
            "a",
            1,
        )
        .unwrap();
        assert_eq!(g.links[0].latency, 15);
        let g = anynet("Router 0 Router 1 10 Router 2 5 node 0 node 1\n", "a", 1).unwrap();
        assert_eq!(
            g.links.iter().map(|l| l.latency).collect::<Vec<_>>(),
            [10, 5]
        );
        for (text, expect) in [
            (
                "switch 0 node 0\n",
                "a:1: a line starts with \"router\" or \"node\"",
            ),
            (
                "router 0 node 0\nrouter x\n",
                "a:2: \"x\" is not a router number",
            ),
            ("router 0 node\n", "a:1: \"node\" needs a number after it"),
            (
                "router 0 node 0 bus 1\n",
                "a:1: \"bus\" is not a latency (cycles) nor \"router\" or \"node\"",
            ),
            (
                "router 0 router 1 2 bus 1\n",
                "a:1: expected \"router\" or \"node\" (or a latency after one), not \"bus\"",
            ),
            (
                "router 0 node 0 0\n",
                "a:1: a latency of 0 cycles is out of range",
            ),
            ("node 0 node 1\n", "a:1: node 0 is linked to node 1"),
            ("router 0 router 0\n", "a:1: router 0 is linked to itself"),
            (
                "router 0 node 0\nrouter 1 node 0 router 0\n",
                "a:2: node 0 is attached to router 1 here and to router 0 on line 1",
            ),
            ("router 0 node 0 5\n", "a:1: node 0 has latency 5"),
            (
                "router 0 node 0 router 2\n",
                "router 2 is listed but router 1 is not",
            ),
            (
                "router 0 node 1 router 1\n",
                "a:1: node 1 is listed but node 0 is not",
            ),
            (
                "router 0 node 0 router 1 3\n\nrouter 1 node 1 router 0 4\n",
                "a:3: router 1 -> router 0 has latency 4, and router 0 -> router 1 3 on line 1",
            ),
            ("", "a: no router is listed"),
        ] {
            let e = anynet(text, "a", 1).unwrap_err();
            assert!(e.contains(expect), "{text:?}: {e}");
        }
    }

    /// Two switches with two parallel cables (ports 1 and 2 of each), three HCAs: two on
    /// switch A (ports 3, 4), one on switch B (port 3), in ibnetdiscover's layout.
    pub const IB: &str = r#"#
# Topology file: generated on Sun Nov 29 07:00:00 2026
#
vendid=0x2c9
devid=0xc738
sysimgguid=0x2c90300a0b0c0
switchguid=0x2c90300a0b0c0(2c90300a0b0c0)
Switch	36 "S-0002c90300a0b0c0"		# "switch-A" enhanced port 0 lid 1 lmc 0
[1]	"S-0002c90300d0e0f0"[1]		# "switch-B" lid 2 4xFDR
[2]	"S-0002c90300d0e0f0"[2]		# "switch-B" lid 2 4xFDR
[3]	"H-0002c90300000001"[1](2c90300000002) 		# "node01 HCA-1" lid 3 4xFDR
[4]	"H-0002c90300000011"[1](2c90300000012) 		# "node02 HCA-1" lid 4 4xFDR

vendid=0x2c9
devid=0xc738
switchguid=0x2c90300d0e0f0(2c90300d0e0f0)
Switch	36 "S-0002c90300d0e0f0"		# "switch-B" enhanced port 0 lid 2 lmc 0
[1]	"S-0002c90300a0b0c0"[1]		# "switch-A" lid 1 4xFDR
[2]	"S-0002c90300a0b0c0"[2]		# "switch-A" lid 1 4xFDR
[3]	"H-0002c90300000021"[1](2c90300000022) 		# "node03 HCA-1" lid 5 4xFDR

vendid=0x2c9
devid=0x1011
caguid=0x2c90300000001
Ca	2 "H-0002c90300000001"		# "node01 HCA-1"
[1](2c90300000002) 	"S-0002c90300a0b0c0"[3]		# lid 3 lmc 0 "switch-A" lid 1 4xFDR

caguid=0x2c90300000011
Ca	2 "H-0002c90300000011"		# "node02 HCA-1"
[1](2c90300000012) 	"S-0002c90300a0b0c0"[4]		# lid 4 lmc 0 "switch-A" lid 1 4xFDR

caguid=0x2c90300000021
Ca	2 "H-0002c90300000021"		# "node03 HCA-1"
[1](2c90300000022) 	"S-0002c90300d0e0f0"[3]		# lid 5 lmc 0 "switch-B" lid 2 4xFDR
"#;

    #[test]
    fn an_ibnetdiscover_file_gives_switches_hcas_and_parallel_cables() {
        let (g, f) = ibnetdiscover(IB, "ib", 7).unwrap();
        assert_eq!(g.switches, 2);
        assert_eq!(g.hosts, vec![0, 0, 1]);
        let l: Vec<(u32, u32, u32)> = g.links.iter().map(|l| (l.a, l.b, l.latency)).collect();
        assert_eq!(l, vec![(0, 1, 7), (0, 1, 7)]);
        g.validate().unwrap();
        assert_eq!(f.switch_guid, vec![0x2c90300a0b0c0, 0x2c90300d0e0f0]);
        assert_eq!(f.switch_lid, vec![1, 2]);
        assert_eq!(f.node_lid, vec![3, 4, 5]);
        assert_eq!(f.switch_name[1], "switch-B");
        assert_eq!(f.node_name[2], "node03 HCA-1 port 1");
        // Switch A: nodes at arcsim ports 0, 1 (IB ports 3, 4), cables at 2, 3 (IB 1, 2).
        assert_eq!(&f.port_map[0][1..5], &[2, 3, 0, 1]);
        assert_eq!(&f.port_map[1][1..4], &[1, 2, 0]);
    }

    #[test]
    fn malformed_ibnetdiscover_lines_name_the_line() {
        let bad = |from: &str, to: &str| IB.replacen(from, to, 1);
        for (text, expect) in [
            (bad("Switch\t36 \"S-0002c90300a0b0c0\"", "Switch\tx \"S-0002c90300a0b0c0\""), "ib:8: \"Switch\" needs its number of ports"),
            (bad("[2]\t\"S-0002c90300d0e0f0\"[2]", "[40]\t\"S-0002c90300d0e0f0\"[2]"), "ib:10: port 40 is out of range"),
            (bad("[2]\t\"S-0002c90300d0e0f0\"[2]", "[2]\t\"S-0002c90300d0e0f0\""), "ib:10: the peer \"S-0002c90300d0e0f0\" needs its port"),
            (bad("[2]\t\"S-0002c90300a0b0c0\"[2]", "[2]\t\"S-0002c90300a0b0c0\"[4]"), "ib:10: port 2 is linked to port 2 of \"S-0002c90300d0e0f0\", but line 19 links that port to \"S-0002c90300a0b0c0\"[4]"),
            (bad("[1]\t\"S-0002c90300d0e0f0\"[1]", "[1]\t\"S-0002c90300ffffff\"[1]"), "ib:9: port 1 is linked to \"S-0002c90300ffffff\", which the file does not describe"),
            (bad("vendid=0x2c9\n", "Bridge 2\n"), "ib:4: expected \"Switch\", \"Ca\""),
            (format!("[1] \"S-1\"[1]\n{IB}"), "ib:1: a port line before any"),
            (bad("Ca\t2 \"H-0002c90300000021\"", "Rt\t2 \"H-0002c90300000021\""), "routers (Rt) are not supported"),
        ] {
            let e = ibnetdiscover(&text, "ib", 1).unwrap_err();
            assert!(e.contains(expect), "{expect}: {e}");
        }
    }
}
