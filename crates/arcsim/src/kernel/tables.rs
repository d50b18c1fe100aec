//! Routing tables other than every shortest path: forwarding tables read from a file (per
//! switch, destination node -> output port or group of ports, as InfiniBand's linear
//! forwarding tables), up*/down* on any graph and per-destination loop-free DAGs; and the
//! checks every such table must pass before a run: every destination reachable from every
//! switch with nodes, no loop, and a channel-dependency graph without cycle for the VCs
//! configured (a cycle is named, switch and port by switch and port).
//!
//! All of this runs once, when the simulation is built; the hot loop reads the result as a
//! [`RouteTable`].

use super::route::{Choice, RouteTable, VcPolicy};
use crate::topology::{Network, PortClass};
use std::collections::VecDeque;

/// A table as groups: `offsets[s * dests + d] .. offsets[.. + 1]` index `ports`, the output
/// ports of switch `s` towards destination `d` (a switch, or a node when `by_node`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Groups {
    pub by_node: bool,
    pub dests: usize,
    pub offsets: Vec<u32>,
    pub ports: Vec<u16>,
}

impl Groups {
    /// The group of switch `s` towards destination `d`.
    pub fn get(&self, s: usize, d: usize) -> &[u16] {
        let i = s * self.dests + d;
        &self.ports[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    /// From one list per entry, switch-major.
    fn from_lists(by_node: bool, dests: usize, lists: Vec<Vec<u16>>) -> Groups {
        let mut offsets = Vec::with_capacity(lists.len() + 1);
        let mut ports = Vec::new();
        for l in lists {
            offsets.push(ports.len() as u32);
            ports.extend(l);
        }
        offsets.push(ports.len() as u32);
        Groups {
            by_node,
            dests,
            offsets,
            ports,
        }
    }

    /// The destination switch of column `d`.
    fn dst_switch(&self, net: &Network, d: usize) -> usize {
        if self.by_node {
            net.attach[d].0 as usize
        } else {
            d
        }
    }
}

fn is_link(net: &Network, s: usize, p: usize) -> bool {
    matches!(net.port(s, p).class, PortClass::Local | PortClass::Global)
}

/// "switch 3 port 5" for messages.
fn port_name(s: usize, p: u16) -> String {
    format!("switch {s} port {p}")
}

/// Tables in arcsim's text format (see docs/topologies.md): a line `switch S` starts the
/// table of switch S; each following line `D P [P ...]` sends packets for node D out of
/// port P (several ports: a group). `#` starts a comment. Ports are the switch's own
/// numbers: its nodes first, then its links in the order the topology lists them.
pub fn parse_text(text: &str, path: &str, net: &Network) -> Result<Groups, String> {
    let n = net.num_routers();
    let nodes = net.num_terminals();
    let mut lists: Vec<Option<Vec<u16>>> = vec![None; n * nodes];
    let mut current: Option<usize> = None;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let at = |msg: String| format!("{path}:{line_no}: {msg}");
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or_default();
        if first == "switch" {
            let s = words
                .next()
                .ok_or_else(|| at("\"switch\" needs a switch number: switch S".into()))?;
            let s: usize = s.parse().map_err(|_| {
                at(format!(
                    "\"{s}\" is not a switch number (expected switch S, S from 0)"
                ))
            })?;
            if s >= n {
                return Err(at(format!(
                    "switch {s} does not exist: the network has {n} switches, numbered 0..={}",
                    n - 1
                )));
            }
            if let Some(extra) = words.next() {
                return Err(at(format!(
                    "unexpected \"{extra}\" after the switch number"
                )));
            }
            current = Some(s);
            continue;
        }
        let Some(s) = current else {
            return Err(at(
                "an entry before any \"switch S\" line: start each switch's table with one".into(),
            ));
        };
        let d: usize = first.parse().map_err(|_| {
            at(format!(
                "\"{first}\" is not a destination node (expected a line \"D P [P ...]\": node, then output ports)"
            ))
        })?;
        if d >= nodes {
            return Err(at(format!(
                "node {d} does not exist: the network has {nodes} nodes, numbered 0..={}",
                nodes - 1
            )));
        }
        let mut group = Vec::new();
        for w in words {
            let p: usize = w
                .parse()
                .map_err(|_| at(format!("\"{w}\" is not a port number")))?;
            if p >= net.radix(s) {
                return Err(at(format!(
                    "switch {s} has no port {p}: it has {} ports, numbered 0..={}",
                    net.radix(s),
                    net.radix(s).saturating_sub(1)
                )));
            }
            if group.contains(&(p as u16)) {
                return Err(at(format!("port {p} is listed twice")));
            }
            group.push(p as u16);
        }
        if group.is_empty() {
            return Err(at(format!(
                "node {d} has no output port: give at least one (D P [P ...])"
            )));
        }
        let slot = &mut lists[s * nodes + d];
        if slot.is_some() {
            return Err(at(format!("switch {s} already has an entry for node {d}")));
        }
        *slot = Some(group);
    }
    normalise(net, path, lists)
}

/// An OpenSM linear-forwarding-table dump of a fabric imported from `ibnetdiscover`
/// (`fabric`): what `dump_lfts.sh`, `ibroute` and OpenSM's `opensm-lfts.dump` write, a
/// block per switch headed `Unicast lids [0x0-0x8] of switch Lid 2 guid 0x0002c9... (...):`
/// with lines `0x0007 003 : (...)`, destination LID then output port (InfiniBand numbers).
/// Switches are found by GUID, nodes by the LIDs of their HCA ports; LIDs of switches and
/// LIDs the fabric does not have are skipped, and port 255 (unreachable) gives no entry.
pub fn parse_lft_dump(
    text: &str,
    path: &str,
    net: &Network,
    fabric: &crate::config::import::IbFabric,
) -> Result<Groups, String> {
    let n = net.num_routers();
    let nodes = net.num_terminals();
    let mut lists: Vec<Option<Vec<u16>>> = vec![None; n * nodes];
    let node_of_lid: std::collections::HashMap<u32, usize> = fabric
        .node_lid
        .iter()
        .enumerate()
        .filter(|(_, &l)| l != 0)
        .map(|(i, &l)| (l, i))
        .collect();
    let mut current: Option<usize> = None;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let at = |msg: String| format!("{path}:{line_no}: {msg}");
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with("Unicast lids") {
            let words: Vec<&str> = line.split_whitespace().collect();
            let guid = words
                .iter()
                .position(|&w| w == "guid")
                .and_then(|k| words.get(k + 1))
                .and_then(|g| u64::from_str_radix(g.trim_start_matches("0x"), 16).ok())
                .ok_or_else(|| {
                    at(
                        "a \"Unicast lids\" line names the switch: ... of switch Lid L guid 0x..."
                            .into(),
                    )
                })?;
            let s = fabric
                .switch_guid
                .iter()
                .position(|&g| g == guid)
                .ok_or_else(|| {
                    at(format!(
                        "switch guid {guid:#018x} is not in the fabric the topology file describes"
                    ))
                })?;
            current = Some(s);
            continue;
        }
        let first = line.split_whitespace().next().unwrap_or_default();
        if !first.starts_with("0x") {
            // Column headers ("Lid Out Destination", "Port Info") and the closing count
            // ("9 valid lids dumped").
            if first == "Lid" || first == "Port" || line.ends_with("dumped") {
                continue;
            }
            return Err(at(format!(
                "expected a \"Unicast lids\" line or an entry \"0xLID PORT : ...\", not \"{first}\""
            )));
        }
        let Some(s) = current else {
            return Err(at(
                "an entry before any \"Unicast lids ... of switch\" line".into(),
            ));
        };
        let lid = u32::from_str_radix(first.trim_start_matches("0x"), 16)
            .map_err(|_| at(format!("\"{first}\" is not a LID")))?;
        let port_word = line.split_whitespace().nth(1).unwrap_or_default();
        if port_word == "UNREACHABLE" {
            continue;
        }
        let port: usize = port_word
            .parse()
            .map_err(|_| at(format!("\"{port_word}\" is not a port number")))?;
        let Some(&d) = node_of_lid.get(&lid) else {
            continue;
        };
        if port == 0 || port == 255 {
            continue;
        }
        let mapped = fabric.port_map[s].get(port).copied().unwrap_or(u16::MAX);
        if mapped == u16::MAX {
            return Err(at(format!(
                "switch \"{}\" sends LID {lid} out of port {port}, which is not cabled",
                fabric.switch_name[s]
            )));
        }
        let slot = &mut lists[s * nodes + d];
        match slot {
            Some(l) if !l.contains(&mapped) => l.push(mapped),
            Some(_) => {}
            None => *slot = Some(vec![mapped]),
        }
    }
    normalise(net, path, lists)
}

/// Entries at a destination's own switch must name the node's port (or be absent); they are
/// then dropped, since a switch always delivers to its own nodes. Entries are checked to be
/// links elsewhere.
fn normalise(net: &Network, path: &str, lists: Vec<Option<Vec<u16>>>) -> Result<Groups, String> {
    let nodes = net.num_terminals();
    let mut out = Vec::with_capacity(lists.len());
    for (i, l) in lists.into_iter().enumerate() {
        let (s, d) = (i / nodes, i % nodes);
        let mut l = l.unwrap_or_default();
        if net.attach[d].0 as usize == s {
            let own = net.attach[d].1;
            if !l.is_empty() && l != [own] {
                return Err(format!(
                    "{path}: switch {s} sends node {d}, one of its own nodes, out of port(s) {l:?}, not its port {own}"
                ));
            }
            l.clear();
        } else if let Some(&p) = l.iter().find(|&&p| !is_link(net, s, p as usize)) {
            let what = match net.port(s, p as usize).class {
                PortClass::Terminal => format!("node {}", net.port(s, p as usize).peer),
                _ => "nothing (an unused port)".into(),
            };
            return Err(format!(
                "{path}: switch {s} sends node {d} out of port {p}, which leads to {what}, not to another switch"
            ));
        }
        out.push(l);
    }
    Ok(Groups::from_lists(true, nodes, out))
}

/// Up*/down* routing: a breadth-first spanning tree from `root` gives every switch a depth;
/// a link is "up" from u to v when (depth(v), v) < (depth(u), u). Legal paths take up links,
/// then down links, never up after down. Tables are per destination switch: a switch that
/// can reach it going only down takes the down links on the fewest such hops (so that a
/// packet that came down keeps going down); any other switch takes the up links on the
/// fewest legal hops.
pub fn up_down(net: &Network, root: usize) -> Result<Groups, String> {
    let n = net.num_routers();
    if root >= n {
        return Err(format!(
            "switch {root} does not exist: the network has {n} switches, numbered 0..={}",
            n - 1
        ));
    }
    let mut depth = vec![u32::MAX; n];
    depth[root] = 0;
    let mut queue = VecDeque::from([root]);
    while let Some(s) = queue.pop_front() {
        for p in 0..net.radix(s) {
            if is_link(net, s, p) {
                let t = net.port(s, p).peer as usize;
                if depth[t] == u32::MAX {
                    depth[t] = depth[s] + 1;
                    queue.push_back(t);
                }
            }
        }
    }
    if let Some(s) = depth.iter().position(|&d| d == u32::MAX) {
        return Err(format!(
            "switch {s} cannot be reached from the root switch {root}"
        ));
    }
    let rank = |s: usize| (depth[s], s);
    // Switches from the root down: an up link leads to a switch earlier in this order.
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&s| rank(s));
    let mut lists = vec![Vec::new(); n * n];
    let mut down = vec![u32::MAX; n];
    let mut cost = vec![u32::MAX; n];
    for d in 0..n {
        // Down-only distances to d: search from d along up links backwards (a down link
        // u -> v is an up link v -> u).
        down.fill(u32::MAX);
        down[d] = 0;
        queue.clear();
        queue.push_back(d);
        while let Some(v) = queue.pop_front() {
            for p in 0..net.radix(v) {
                if is_link(net, v, p) {
                    let u = net.port(v, p).peer as usize;
                    // u -> v is down when v ranks after u.
                    if rank(v) > rank(u) && down[u] == u32::MAX {
                        down[u] = down[v] + 1;
                        queue.push_back(u);
                    }
                }
            }
        }
        for &s in &order {
            cost[s] = if down[s] != u32::MAX {
                down[s]
            } else {
                // Up links lead to switches already costed (earlier in the order).
                let mut best = u32::MAX;
                for p in 0..net.radix(s) {
                    if is_link(net, s, p) {
                        let t = net.port(s, p).peer as usize;
                        if rank(t) < rank(s) {
                            best = best.min(cost[t].saturating_add(1));
                        }
                    }
                }
                best
            };
        }
        for s in (0..n).filter(|&s| s != d) {
            let list = &mut lists[s * n + d];
            for p in 0..net.radix(s) {
                if !is_link(net, s, p) {
                    continue;
                }
                let t = net.port(s, p).peer as usize;
                let ok = if down[s] != u32::MAX {
                    rank(t) > rank(s) && down[t] != u32::MAX && down[t] + 1 == down[s]
                } else {
                    rank(t) < rank(s) && cost[t].saturating_add(1) == cost[s]
                };
                if ok {
                    list.push(p as u16);
                }
            }
        }
    }
    Ok(Groups::from_lists(false, n, lists))
}

/// Per-destination loop-free DAGs (the DCB adaptive-routing paper's construction): towards
/// destination switch d, link u -> v belongs to the DAG when (dist(v), v) < (dist(u), u),
/// dist in switch hops. The group of u lists those links in order of preference: shorter
/// remaining path (dist(v)) first, then port number. It holds every shortest path and the
/// detours through switches as far from d as u but numbered lower.
pub fn dag(net: &Network) -> Groups {
    let n = net.num_routers();
    let mut lists = vec![Vec::new(); n * n];
    let mut dist = vec![u32::MAX; n];
    let mut queue = VecDeque::new();
    for d in 0..n {
        dist.fill(u32::MAX);
        dist[d] = 0;
        queue.clear();
        queue.push_back(d);
        while let Some(s) = queue.pop_front() {
            for p in 0..net.radix(s) {
                if is_link(net, s, p) {
                    let t = net.port(s, p).peer as usize;
                    if dist[t] == u32::MAX {
                        dist[t] = dist[s] + 1;
                        queue.push_back(t);
                    }
                }
            }
        }
        for s in (0..n).filter(|&s| s != d && dist[s] != u32::MAX) {
            let mut list: Vec<(u32, u16)> = (0..net.radix(s))
                .filter(|&p| is_link(net, s, p))
                .filter_map(|p| {
                    let t = net.port(s, p).peer as usize;
                    ((dist[t], t) < (dist[s], s)).then_some((dist[t], p as u16))
                })
                .collect();
            list.sort();
            lists[s * n + d] = list.into_iter().map(|(_, p)| p).collect();
        }
    }
    Groups::from_lists(false, n, lists)
}

/// Every switch with nodes reaches every destination by every route the table allows,
/// without loop. Returns the longest route in switch-to-switch hops.
pub fn check_routes(net: &Network, g: &Groups) -> Result<u32, String> {
    let n = net.num_routers();
    let mut sources: Vec<usize> = net.attach.iter().map(|&(s, _)| s as usize).collect();
    sources.sort_unstable();
    sources.dedup();
    let what = |d: usize| {
        if g.by_node {
            format!("node {d}")
        } else {
            format!("switch {d}")
        }
    };
    // Per switch: 0 unseen, 1 on the current path, 2 done; and its longest route to d.
    let mut state = vec![0u8; n];
    let mut longest = vec![0u32; n];
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut most = 0;
    for d in 0..g.dests {
        if !g.by_node && !sources.contains(&d) {
            continue;
        }
        let target = g.dst_switch(net, d);
        state.fill(0);
        state[target] = 2;
        longest[target] = 0;
        for &src in &sources {
            if state[src] == 2 {
                most = most.max(longest[src]);
                continue;
            }
            state[src] = 1;
            stack.clear();
            stack.push((src, 0));
            while let Some(&mut (s, ref mut next)) = stack.last_mut() {
                let group = g.get(s, d);
                if group.is_empty() {
                    let path: Vec<String> = stack.iter().map(|&(s, _)| s.to_string()).collect();
                    return Err(format!(
                        "switch {s} has no route to {} (reached from switch {src} by switches {})",
                        what(d),
                        path.join(" -> ")
                    ));
                }
                if *next == group.len() {
                    longest[s] = group
                        .iter()
                        .map(|&p| longest[net.port(s, p as usize).peer as usize] + 1)
                        .max()
                        .unwrap_or(0);
                    state[s] = 2;
                    stack.pop();
                    continue;
                }
                let p = group[*next];
                *next += 1;
                let t = net.port(s, p as usize).peer as usize;
                match state[t] {
                    0 => {
                        state[t] = 1;
                        stack.push((t, 0));
                    }
                    1 => {
                        let from = stack.iter().position(|&(x, _)| x == t).unwrap_or(0);
                        let mut cycle: Vec<String> =
                            stack[from..].iter().map(|&(x, _)| x.to_string()).collect();
                        cycle.push(t.to_string());
                        return Err(format!(
                            "the routes to {} loop: switches {} (switch {s} port {p} leads back)",
                            what(d),
                            cycle.join(" -> ")
                        ));
                    }
                    _ => {}
                }
            }
            most = most.max(longest[src]);
        }
    }
    Ok(most)
}

/// A cycle in the channel-dependency graph of the table with VCs 0..=`last_vc[class]` per
/// link class (local, global), under the VC order "VC = switch-to-switch hops so far, at
/// most the last VC": each channel (output port, VC) as (switch, port, VC), or None when
/// there is no cycle (no deadlock possible). Dependencies are those of the routes packets
/// can take: from every switch with nodes, hop count included.
pub fn cdg_cycle(net: &Network, g: &Groups, last_vc: [u8; 2]) -> Option<Vec<(usize, u16, u8)>> {
    let n = net.num_routers();
    let top = last_vc[0].max(last_vc[1]) as usize;
    let levels = top + 1;
    let n_ports = net.ports.len();
    let vc_of = |gp: usize, h: usize| -> u8 {
        let global = net.ports[gp].class == PortClass::Global;
        (h.min(last_vc[global as usize] as usize)) as u8
    };
    let mut sources: Vec<usize> = net.attach.iter().map(|&(s, _)| s as usize).collect();
    sources.sort_unstable();
    sources.dedup();
    let mut edges: Vec<(u32, u32)> = Vec::new();
    let mut seen = vec![false; n * levels];
    let mut queue = VecDeque::new();
    let channel = |gp: usize, vc: u8| (gp * levels + vc as usize) as u32;
    for d in 0..g.dests {
        if !g.by_node && !sources.contains(&d) {
            continue;
        }
        let target = g.dst_switch(net, d);
        seen.fill(false);
        queue.clear();
        for &s in &sources {
            if s != target && !seen[s * levels] {
                seen[s * levels] = true;
                queue.push_back((s, 0usize));
            }
        }
        while let Some((s, h)) = queue.pop_front() {
            let h2 = (h + 1).min(top);
            for &p in g.get(s, d) {
                let gp = net.port_base[s] as usize + p as usize;
                let c1 = channel(gp, vc_of(gp, h));
                let info = net.ports[gp];
                let t = info.peer as usize;
                if t == target {
                    continue;
                }
                for &q in g.get(t, d) {
                    let gq = net.port_base[t] as usize + q as usize;
                    edges.push((c1, channel(gq, vc_of(gq, h + 1))));
                }
                if !seen[t * levels + h2] {
                    seen[t * levels + h2] = true;
                    queue.push_back((t, h2));
                }
            }
        }
    }
    edges.sort_unstable();
    edges.dedup();
    let vertices = n_ports * levels;
    let mut start = vec![0u32; vertices + 1];
    for &(a, _) in &edges {
        start[a as usize + 1] += 1;
    }
    for i in 0..vertices {
        start[i + 1] += start[i];
    }
    // Iterative depth-first search with colours; a grey successor closes a cycle.
    let mut colour = vec![0u8; vertices];
    let mut stack: Vec<(u32, u32)> = Vec::new();
    for v in 0..vertices {
        if colour[v] != 0 || start[v] == start[v + 1] {
            continue;
        }
        colour[v] = 1;
        stack.push((v as u32, start[v]));
        while let Some(&mut (u, ref mut next)) = stack.last_mut() {
            if *next == start[u as usize + 1] {
                colour[u as usize] = 2;
                stack.pop();
                continue;
            }
            let w = edges[*next as usize].1;
            *next += 1;
            match colour[w as usize] {
                0 => {
                    colour[w as usize] = 1;
                    stack.push((w, start[w as usize]));
                }
                1 => {
                    let from = stack.iter().position(|&(x, _)| x == w).unwrap_or(0);
                    let name = |c: u32| {
                        let gp = c as usize / levels;
                        let s = switch_of(net, gp);
                        (
                            s,
                            (gp - net.port_base[s] as usize) as u16,
                            (c as usize % levels) as u8,
                        )
                    };
                    return Some(stack[from..].iter().map(|&(c, _)| name(c)).collect());
                }
                _ => {}
            }
        }
    }
    None
}

fn switch_of(net: &Network, gp: usize) -> usize {
    net.port_base.partition_point(|&b| b as usize <= gp) - 1
}

/// A cycle of channels as "switch 0 port 3 (VC 0) -> switch 1 port 2 (VC 0) -> back".
pub fn describe_cycle(cycle: &[(usize, u16, u8)]) -> String {
    let mut parts: Vec<String> = cycle
        .iter()
        .map(|&(s, p, vc)| format!("{} (VC {vc})", port_name(s, p)))
        .collect();
    if let Some(first) = parts.first().cloned() {
        parts.push(first);
    }
    parts.join(" -> ")
}

/// The table `g` as the kernel's [`RouteTable`], checked: every destination reachable
/// without loop, and the VCs configured (`vcs`: local, global; 0 = as many as needed)
/// free of deadlock. With one VC per class enough, every hop takes VC 0 (and 4Q and
/// virtual output queues are allowed); otherwise a packet's VC is its hop count, which
/// with as many VCs as the longest route has hops can never wait in a cycle.
pub fn route_table(
    net: &Network,
    g: Groups,
    choice: Choice,
    vcs: (usize, usize),
) -> Result<RouteTable, TableError> {
    let longest = check_routes(net, &g).map_err(TableError::Routes)?;
    if longest > 200 {
        return Err(TableError::Routes(format!(
            "the longest route crosses {longest} links: at most 200 are supported"
        )));
    }
    let one_vc = cdg_cycle(net, &g, [0, 0]);
    let (policy, need) = match (&one_vc, vcs) {
        (None, _) => (VcPolicy::UpDown, (1, 1)),
        (Some(_), (0, 0)) => (VcPolicy::Hops, (longest.max(1), longest.max(1))),
        (Some(cycle), (l, gl)) => {
            let l = if l == 0 { longest.max(1) as usize } else { l };
            let gl = if gl == 0 { longest.max(1) as usize } else { gl };
            let last = [(l.min(256) - 1) as u8, (gl.min(256) - 1) as u8];
            if let Some(c) = cdg_cycle(net, &g, last) {
                let key = if net.ports.iter().any(|p| p.class == PortClass::Global)
                    && c.iter()
                        .any(|&(s, p, _)| net.port(s, p as usize).class == PortClass::Global)
                {
                    "router.vcs_global"
                } else {
                    "router.vcs_local"
                };
                let counts = if net.ports.iter().any(|p| p.class == PortClass::Global) {
                    format!("{l} local and {gl} global VCs")
                } else {
                    format!("{l} VC{}", if l == 1 { "" } else { "s" })
                };
                return Err(TableError::Deadlock {
                    key,
                    message: format!(
                        "{counts} (a packet's VC is its hop count) leave a cycle in the channel dependencies of these routes, so packets can deadlock: {}; use {} VCs (0: as many as needed), or routes without the cycle",
                        describe_cycle(&c),
                        longest.max(1)
                    ),
                });
            }
            let _ = cycle;
            (VcPolicy::Hops, (l as u32, gl as u32))
        }
    };
    let mut t = RouteTable::from_groups(
        net.num_routers(),
        g.by_node,
        g.offsets,
        g.ports,
        policy,
        choice,
    );
    t.diameter = longest;
    t.need = Some(need);
    Ok(t)
}

/// The table `routing.paths` names, checked, or None for every shortest path (the
/// topology's own tables). Errors name the key to change.
pub fn for_config(
    cfg: &crate::config::Config,
    net: &Network,
) -> Result<Option<RouteTable>, crate::error::ConfigError> {
    use crate::config::Paths;
    use crate::error::ConfigError;
    let r = &cfg.routing;
    let field = |key: &str, message: String| ConfigError::Field {
        field: key.into(),
        message,
    };
    let (groups, choice, key) = match r.paths {
        Paths::Shortest => return Ok(None),
        Paths::UpDown => (
            up_down(net, r.up_down_root as usize).map_err(|m| field("routing.up_down_root", m))?,
            Choice::Modulo,
            "routing.paths",
        ),
        Paths::Dag => (dag(net), Choice::First, "routing.paths"),
        Paths::Table => {
            let text = std::fs::read_to_string(&r.table)
                .map_err(|e| field("routing.table", format!("cannot read \"{}\": {e}", r.table)))?;
            let groups = if text
                .lines()
                .any(|l| l.trim_start().starts_with("Unicast lids"))
            {
                let t = &cfg.topology;
                let fabric = match t.kind {
                    crate::config::TopologyKind::Graph => t
                        .graph
                        .import(t.terminal_latency, t.local_latency)?
                        .and_then(|(_, f)| f),
                    _ => None,
                };
                let fabric = fabric.ok_or_else(|| {
                    field(
                        "routing.table",
                        format!(
                            "\"{}\" is an OpenSM forwarding table dump, which names switches by GUID and nodes by LID: import the fabric from its ibnetdiscover output (topology.graph.file)",
                            r.table
                        ),
                    )
                })?;
                parse_lft_dump(&text, &r.table, net, &fabric)
            } else {
                parse_text(&text, &r.table, net)
            };
            (
                groups.map_err(|m| field("routing.table", m))?,
                Choice::Modulo,
                "routing.table",
            )
        }
    };
    let groups = match r.groups {
        crate::config::ArGroups::Table => groups,
        mode => widen(net, &groups, mode == crate::config::ArGroups::Lag),
    };
    let vcs = (cfg.router.vcs_local, cfg.router.vcs_global);
    match route_table(net, groups, choice, vcs) {
        Ok(t) => Ok(Some(t)),
        Err(TableError::Routes(m)) => Err(field(key, m)),
        Err(TableError::Deadlock { key, message }) => Err(field(key, message)),
    }
}

/// The adaptive-routing groups of the InfiniBand adaptive-routing paper (Rocher-González
/// et al.) built on the table `g`: with `lag`, each entry's group becomes every link port of
/// the switch whose far end is a switch one of the entry's ports leads to (LAG: all ports to
/// the same remote switch); otherwise (TREE) every link port of the switch on a minimal path
/// to the destination's switch. Entries for the switch's own nodes and empty entries stay as
/// they are; ports are listed in port order.
pub fn widen(net: &Network, g: &Groups, lag: bool) -> Groups {
    let n = net.num_routers();
    // Switch distances to every switch (TREE only), by breadth-first search.
    let dist: Vec<Vec<u32>> = if lag {
        Vec::new()
    } else {
        (0..n)
            .map(|d| {
                let mut dist = vec![u32::MAX; n];
                dist[d] = 0;
                let mut queue = VecDeque::from([d]);
                while let Some(s) = queue.pop_front() {
                    for p in 0..net.radix(s) {
                        if is_link(net, s, p) {
                            let t = net.port(s, p).peer as usize;
                            if dist[t] == u32::MAX {
                                dist[t] = dist[s] + 1;
                                queue.push_back(t);
                            }
                        }
                    }
                }
                dist
            })
            .collect()
    };
    let mut lists = Vec::with_capacity(n * g.dests);
    for s in 0..n {
        for d in 0..g.dests {
            let cur = g.get(s, d);
            let dsw = g.dst_switch(net, d);
            if cur.is_empty() || dsw == s {
                lists.push(cur.to_vec());
                continue;
            }
            let links = (0..net.radix(s)).filter(|&p| is_link(net, s, p));
            let group: Vec<u16> = if lag {
                let remote: Vec<u32> = cur.iter().map(|&p| net.port(s, p as usize).peer).collect();
                links
                    .filter(|&p| remote.contains(&net.port(s, p).peer))
                    .map(|p| p as u16)
                    .collect()
            } else {
                let here = dist[dsw][s];
                links
                    .filter(|&p| dist[dsw][net.port(s, p).peer as usize].saturating_add(1) == here)
                    .map(|p| p as u16)
                    .collect()
            };
            lists.push(if group.is_empty() {
                cur.to_vec()
            } else {
                group
            });
        }
    }
    Groups::from_lists(g.by_node, g.dests, lists)
}

/// What is wrong with a table: its routes (unreachable destination, loop), or deadlock with
/// the VCs configured (the key to change).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableError {
    Routes(String),
    Deadlock { key: &'static str, message: String },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{GraphConfig, GraphLink};
    use crate::topology::{Graph, Topology};

    fn graph(switches: u32, hosts: &[u32], links: &[(u32, u32)]) -> Network {
        let cfg = GraphConfig {
            switches,
            hosts: hosts.to_vec(),
            links: links
                .iter()
                .map(|&(a, b)| GraphLink {
                    a,
                    b,
                    class: "local".into(),
                    latency: 1,
                })
                .collect(),
            ..Default::default()
        };
        Graph::new(&cfg, 1).network()
    }

    /// A ring of four switches, one node each.
    fn ring() -> Network {
        graph(4, &[0, 1, 2, 3], &[(0, 1), (1, 2), (2, 3), (3, 0)])
    }

    /// The port of switch `s` whose link leads to switch `t`.
    fn port_to(net: &Network, s: usize, t: usize) -> u16 {
        (0..net.radix(s))
            .find(|&p| is_link(net, s, p) && net.port(s, p).peer as usize == t)
            .unwrap() as u16
    }

    /// A text table for a ring where switch s sends node d towards `next(s, d)`.
    fn ring_text(net: &Network, next: impl Fn(usize, usize) -> Option<usize>) -> String {
        let mut text = String::new();
        for s in 0..4 {
            text += &format!("switch {s}\n");
            for d in (0..4).filter(|&d| d != s) {
                if let Some(t) = next(s, d) {
                    text += &format!("{d} {}\n", port_to(net, s, t));
                }
            }
        }
        text
    }

    #[test]
    fn a_text_table_is_read_per_node_with_groups() {
        let net = graph(2, &[0, 1], &[(0, 1), (0, 1)]);
        let g = parse_text(
            "# two parallel links\nswitch 0\n1 1 2\nswitch 1\n0 1  # one of them\n",
            "t.txt",
            &net,
        )
        .unwrap();
        assert!(g.by_node);
        assert_eq!(g.get(0, 1), &[1, 2]);
        assert_eq!(g.get(1, 0), &[1]);
        assert_eq!(check_routes(&net, &g), Ok(1));
        assert_eq!(cdg_cycle(&net, &g, [0, 0]), None);
    }

    #[test]
    fn malformed_lines_name_the_file_and_line() {
        let net = graph(2, &[0, 1], &[(0, 1)]);
        for (text, expect) in [
            ("1 1\n", "t.txt:1: an entry before any \"switch S\" line"),
            ("switch 0\n\n1 x\n", "t.txt:3: \"x\" is not a port number"),
            ("switch 9\n", "t.txt:1: switch 9 does not exist"),
            ("switch\n", "t.txt:1: \"switch\" needs a switch number"),
            ("switch 0 1\n", "t.txt:1: unexpected \"1\""),
            ("switch 0\n1 5\n", "t.txt:2: switch 0 has no port 5"),
            ("switch 0\n7 1\n", "t.txt:2: node 7 does not exist"),
            (
                "switch 0\nx 1\n",
                "t.txt:2: \"x\" is not a destination node",
            ),
            ("switch 0\n1 1 1\n", "t.txt:2: port 1 is listed twice"),
            (
                "switch 0\n1 1\n1 1\n",
                "t.txt:3: switch 0 already has an entry for node 1",
            ),
            ("switch 0\n1\n", "t.txt:2: node 1 has no output port"),
            (
                "switch 0\n1 0\n",
                "switch 0 sends node 1 out of port 0, which leads to node 0",
            ),
            (
                "switch 0\n0 1\n",
                "switch 0 sends node 0, one of its own nodes",
            ),
        ] {
            let e = parse_text(text, "t.txt", &net).unwrap_err();
            assert!(e.contains(expect), "{text:?}: {e}");
        }
    }

    #[test]
    fn a_missing_route_and_a_loop_are_found() {
        let net = ring();
        let cw = |s: usize| (s + 1) % 4;
        // Switch 0 has no entry for node 2.
        let text = ring_text(&net, |s, d| (s != 0 || d != 2).then(|| cw(s)));
        let g = parse_text(&text, "t", &net).unwrap();
        let e = check_routes(&net, &g).unwrap_err();
        assert!(e.contains("switch 0 has no route to node 2"), "{e}");
        // Node 2: 0 -> 1 and 1 -> 0.
        let text = ring_text(&net, |s, d| Some(if d == 2 && s == 1 { 0 } else { cw(s) }));
        let g = parse_text(&text, "t", &net).unwrap();
        let e = check_routes(&net, &g).unwrap_err();
        assert!(e.contains("the routes to node 2 loop: switches"), "{e}");
        assert!(
            e.contains("0 -> 1 -> 0") || e.contains("1 -> 0 -> 1"),
            "{e}"
        );
    }

    /// Clockwise routes on a ring: every channel waits on the next, a cycle on one VC that
    /// VCs by hop count break.
    #[test]
    fn clockwise_routes_on_a_ring_deadlock_on_one_vc_and_the_cycle_is_named() {
        let net = ring();
        let g = parse_text(&ring_text(&net, |s, _| Some((s + 1) % 4)), "t", &net).unwrap();
        assert_eq!(check_routes(&net, &g), Ok(3));
        let c = cdg_cycle(&net, &g, [0, 0]).expect("a cycle");
        assert_eq!(c.len(), 4);
        let named = describe_cycle(&c);
        let hop = |s: usize| format!("switch {s} port {} (VC 0)", port_to(&net, s, (s + 1) % 4));
        assert!(
            named.contains(&format!("{} -> {}", hop(0), hop(1))),
            "{named}"
        );
        assert_eq!(cdg_cycle(&net, &g, [2, 2]), None);
        match route_table(&net, g.clone(), Choice::Modulo, (1, 1)) {
            Err(TableError::Deadlock { key, message }) => {
                assert_eq!(key, "router.vcs_local");
                assert!(message.contains(&hop(2)), "{message}");
            }
            other => panic!("{other:?}"),
        }
        // Two VCs leave a cycle too (hops 2 and on share VC 1: 2 -> 3 -> 0 -> 1 for node
        // 1 and so on); three do not.
        assert!(cdg_cycle(&net, &g, [1, 1]).is_some());
        let t = route_table(&net, g, Choice::Modulo, (0, 0)).unwrap();
        assert_eq!(t.need, Some((3, 3)));
        assert_eq!(t.policy, VcPolicy::Hops);
    }

    #[test]
    fn up_down_on_a_ring_never_turns_up_after_down() {
        let net = ring();
        let g = up_down(&net, 0).unwrap();
        // Depths 0, 1, 2, 1: 1 -> 2 is down, 2 -> 3 up, so 1 reaches 3 through the root.
        assert_eq!(g.get(1, 3), &[port_to(&net, 1, 0)]);
        assert_eq!(g.get(3, 1), &[port_to(&net, 3, 0)]);
        // 3 -> 2 is down: switch 3 reaches 2 directly, and so does the root (two ways down).
        assert_eq!(g.get(3, 2), &[port_to(&net, 3, 2)]);
        assert_eq!(g.get(0, 2).len(), 2);
        assert_eq!(check_routes(&net, &g), Ok(2));
        assert_eq!(cdg_cycle(&net, &g, [0, 0]), None);
        let t = route_table(&net, g, Choice::Modulo, (1, 1)).unwrap();
        assert_eq!(t.policy, VcPolicy::UpDown);
        assert!(up_down(&net, 4)
            .unwrap_err()
            .contains("switch 4 does not exist"));
    }

    #[test]
    fn an_opensm_lft_dump_maps_guids_lids_and_ports() {
        use crate::config::import::{ibnetdiscover, tests::IB};
        let (g, fabric) = ibnetdiscover(IB, "ib", 1).unwrap();
        let net = Graph::new(&g, 1).network();
        // Switch A (lid 1): nodes LID 3, 4 on its IB ports 3, 4; LID 5 over both cables
        // (IB ports 1 and 2, listed twice: a group). Switch B (lid 2): LIDs 3 and 4 over
        // cable 1 and 2, LID 5 on its port 3.
        let dump = "Unicast lids [0x0-0x5] of switch Lid 1 guid 0x0002c90300a0b0c0 (switch-A):
  Lid  Out   Destination
       Port     Info
0x0001 000 : (Switch portguid 0x0002c90300a0b0c0: 'switch-A')
0x0002 001 : (Switch portguid 0x0002c90300d0e0f0: 'switch-B')
0x0003 003 : (Channel Adapter portguid 0x0002c90300000002: 'node01 HCA-1')
0x0004 004 : (Channel Adapter portguid 0x0002c90300000012: 'node02 HCA-1')
0x0005 001 : (Channel Adapter portguid 0x0002c90300000022: 'node03 HCA-1')
0x0005 002 : (Channel Adapter portguid 0x0002c90300000022: 'node03 HCA-1')
6 valid lids dumped
Unicast lids [0x0-0x5] of switch Lid 2 guid 0x0002c90300d0e0f0 (switch-B):
0x0003 001 : (Channel Adapter portguid 0x0002c90300000002: 'node01 HCA-1')
0x0004 002 : (Channel Adapter portguid 0x0002c90300000012: 'node02 HCA-1')
0x0005 003 : (Channel Adapter portguid 0x0002c90300000022: 'node03 HCA-1')
0x0009 255 : (no such LID)
";
        let t = parse_lft_dump(dump, "lfts", &net, &fabric).unwrap();
        // arcsim ports: A has nodes 0, 1 at ports 0, 1 and the cables at 2, 3; B node 2
        // at 0, cables at 1, 2.
        assert_eq!(t.get(0, 2), &[2, 3]);
        assert_eq!(t.get(1, 0), &[1]);
        assert_eq!(t.get(1, 1), &[2]);
        assert_eq!(check_routes(&net, &t), Ok(1));
        for (bad, expect) in [
            (
                dump.replace("0x0003 003", "0x0003 009"),
                "lfts:6: switch \"switch-A\" sends LID 3 out of port 9, which is not cabled",
            ),
            (
                dump.replace("guid 0x0002c90300d0e0f0 (switch-B)", "guid 0x99 (x)"),
                "lfts:11: switch guid 0x0000000000000099 is not in the fabric",
            ),
            (
                dump.replace("0x0004 002", "0x0004 two"),
                "lfts:13: \"two\" is not a port number",
            ),
            (format!("0x0001 001\n{dump}"), "lfts:1: an entry before any"),
            (
                dump.replace("6 valid lids dumped", "garbage"),
                "lfts:10: expected a \"Unicast lids\" line",
            ),
        ] {
            let e = parse_lft_dump(&bad, "lfts", &net, &fabric).unwrap_err();
            assert!(e.contains(expect), "{expect}: {e}");
        }
    }

    #[test]
    fn dag_groups_hold_shortest_paths_then_detours() {
        let net = ring();
        let g = dag(&net);
        // Towards switch 2: switch 0 (distance 2) has two shortest ways, both in the DAG.
        assert_eq!(g.get(0, 2), &[port_to(&net, 0, 1), port_to(&net, 0, 3)]);
        // Towards switch 0: switch 1 goes to 0 only (switch 2 is farther).
        assert_eq!(g.get(1, 0), &[port_to(&net, 1, 0)]);
        assert_eq!(check_routes(&net, &g), Ok(2));
        // A square with a diagonal 1-3: towards 0, switches 1 and 3 are at distance 1 and
        // 3 -> 1 is a detour of the DAG ((1, 1) < (1, 3)), after the direct link.
        let net = graph(4, &[0, 1, 2, 3], &[(0, 1), (1, 2), (2, 3), (3, 0), (1, 3)]);
        let g = dag(&net);
        assert_eq!(g.get(3, 0), &[port_to(&net, 3, 0), port_to(&net, 3, 1)]);
        assert_eq!(g.get(1, 0), &[port_to(&net, 1, 0)]);
        // 2 -> 3 -> 1 -> 0 is the longest route.
        assert_eq!(check_routes(&net, &g), Ok(3));
    }
}
