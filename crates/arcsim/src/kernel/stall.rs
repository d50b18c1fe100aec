//! What the kernel's watchdog reports when no packet has moved for too long: where the
//! packets in flight are, and the chain of waits from a full buffer: the head of each
//! buffer waits for room in the next (an output queue, or the input buffer its next hop
//! feeds), until the chain closes on itself (a cycle of full buffers: a deadlock the
//! routing's VC order should have prevented) or ends at a buffer whose head waits for
//! nothing the network holds (a sender paused for good, a head the allocator never serves).

use super::packet::Kind;
use super::Kernel;
use crate::switch::Switch;
use crate::topology::PortClass;
use std::fmt::Write;

/// Buffers of the chain shown.
const MAX_SHOWN: usize = 24;

/// A buffer of the switches: an input VC (global input-VC index) or the output queues of a
/// port (global port).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Buffer {
    Input(u32),
    Output(usize),
}

/// The watchdog's report: `idle` cycles without movement since `since`.
pub fn report<S: Switch>(k: &Kernel, sw: &S, idle: u64, since: u64) -> String {
    let inputs = (0..k.vc_port.len() as u32)
        .map(|vc| sw.input_packets(vc).count())
        .sum::<usize>();
    let outputs = (0..k.net.ports.len())
        .map(|gp| sw.output_packets(gp).count())
        .sum::<usize>();
    let nics: usize = k.nics.iter().map(|n| n.packets().count()).sum();
    let mut text = format!(
        "no packet has moved for {idle} cycles (since cycle {since}), with {} in flight: {inputs} \
         in input buffers, {outputs} in output queues, {nics} at NICs (the rest on links or in \
         control queues)\n",
        k.pool.live()
    );
    // Start at a switch-to-switch buffer if one holds packets: a deadlock is a cycle of them.
    let switch_link =
        |vc: u32| k.net.ports[k.vc_port[vc as usize] as usize].class != PortClass::Terminal;
    let occupied = |vc: u32| sw.input_packets(vc).next().is_some();
    let start = (0..k.vc_port.len() as u32)
        .find(|&vc| switch_link(vc) && occupied(vc))
        .or_else(|| (0..k.vc_port.len() as u32).find(|&vc| occupied(vc)))
        .map(Buffer::Input)
        .or_else(|| {
            (0..k.net.ports.len())
                .find(|&gp| sw.output_packets(gp).next().is_some())
                .map(Buffer::Output)
        });
    let Some(start) = start else {
        text += "no switch buffer holds a packet: every packet waits at its NIC (a rate \
                 limiter or flow control that never lets it go)";
        return text;
    };
    let mut chain: Vec<(Buffer, String)> = Vec::new();
    let mut cur = Some(start);
    let mut cyclic = false;
    while let Some(b) = cur {
        if let Some(at) = chain.iter().position(|(x, _)| *x == b) {
            // Keep only the cycle: drop the buffers that lead into it.
            chain.drain(..at);
            cyclic = true;
            break;
        }
        let (line, next) = step(k, sw, b);
        chain.push((b, line));
        cur = next;
    }
    let _ = writeln!(
        text,
        "{} of {} buffers{}, each head waiting for the next{}:",
        if cyclic { "a cycle" } else { "a chain" },
        chain.len(),
        if cyclic { " closing on itself" } else { "" },
        if chain.len() > MAX_SHOWN {
            format!(" (first {MAX_SHOWN} shown)")
        } else {
            String::new()
        }
    );
    for (_, line) in chain.iter().take(MAX_SHOWN) {
        let _ = writeln!(text, "  {line}");
    }
    text += if cyclic {
        "hint: the routing's VC order does not break this cycle of buffers (more VCs, or a \
         deadlock-free routing); simulation.watchdog_cycles sets the patience"
    } else {
        "hint: the chain ends at a buffer whose head waits for no full buffer: a sender paused \
         for good, or a head never served; simulation.watchdog_cycles sets the patience"
    };
    text
}

/// One buffer of the chain: its line, and the buffer its head waits for (None: the chain
/// ends here).
fn step<S: Switch>(k: &Kernel, sw: &S, b: Buffer) -> (String, Option<Buffer>) {
    match b {
        Buffer::Input(vc) => {
            let gp = k.vc_port[vc as usize] as usize;
            let s = k.port_switch[gp] as usize;
            let n = sw.input_packets(vc).count();
            let head = sw.input_packets(vc).next().expect("occupied");
            let p = k.pool.get(head);
            // The class of the link that feeds the buffer.
            let class = match k.net.ports[gp].class {
                PortClass::Terminal => "node",
                _ => k.class_names[k.peer[gp] as usize],
            };
            let mut line = format!(
                "{} input ({class}) VC {}: {n} packets; head {}",
                k.port_name(gp),
                vc - k.vc_base[gp],
                describe(k, head)
            );
            // The output it would take: its node's port, or its routing's first choice.
            let o = if p.kind == Kind::Data && p.dst_switch as usize == s {
                k.node_port(s, p.dst) as usize
            } else {
                let ports = k.route.group(s, p.dst_switch as usize, p.dst);
                ports[k.route.first_choice(s, p.src, p.dst, ports.len())] as usize
            };
            let out = k.net.port_base[s] as usize + o;
            let queued = sw.output_packets(out).count();
            let _ = write!(line, " wants output {o} ({})", k.class_names[out]);
            if queued > 0 {
                let _ = write!(line, ", whose queue holds {queued} packets");
                return (line, Some(Buffer::Output(out)));
            }
            if k.net.ports[out].class == PortClass::Terminal {
                line += " to its node, which takes every packet";
                return (line, None);
            }
            let class = k.net.ports[out].class;
            let next = if p.kind == Kind::Control {
                k.control_vc(p, out)
            } else {
                let ordered = k.route.next_vc(p.hops, p.global_hops, class);
                k.queue_at(k.peer[out] as usize, p, Some(ordered), false)
                    .unwrap_or(0)
            };
            let down = k.downstream_vc(out, next);
            (
                line + &downstream(k, down, p.len),
                waits_on(k, sw, down, p.len),
            )
        }
        Buffer::Output(gp) => {
            let n = sw.output_packets(gp).count();
            let head = sw.output_packets(gp).next().expect("occupied");
            let p = k.pool.get(head);
            let mut line = format!(
                "{} output queue ({}): {n} packets; head {}",
                k.port_name(gp),
                k.class_names[gp],
                describe(k, head)
            );
            if k.net.ports[gp].class == PortClass::Terminal {
                line += " to its node, which takes every packet";
                return (line, None);
            }
            let down = k.downstream_vc(gp, p.vc);
            (
                line + &downstream(k, down, p.len),
                waits_on(k, sw, down, p.len),
            )
        }
    }
}

/// "(node 3 -> node 9, 8 phits)" (or a control packet's switches).
fn describe(k: &Kernel, pkt: u32) -> String {
    let p = k.pool.get(pkt);
    match p.kind {
        Kind::Data => format!("(node {} -> node {}, {} phits)", p.src, p.dst, p.len),
        Kind::Control => format!(
            "(control packet, switch {} -> switch {}, {} phits)",
            p.src, p.dst_switch, p.len
        ),
    }
}

/// How input VC `down` stands for a packet of `len` phits sent into it.
fn downstream(k: &Kernel, down: u32, len: u16) -> String {
    let gp = k.vc_port[down as usize] as usize;
    format!(
        ", next buffer {} VC {}: {} of {} phits held, {} for the packet",
        k.port_name(gp),
        down - k.vc_base[gp],
        k.fc.occupancy(down),
        k.fc.capacity[down as usize],
        if k.fc.can_send(down, len as u32) {
            "room"
        } else {
            "no room (credits or a pause)"
        }
    )
}

/// The buffer a head waits for when it cannot go into input VC `down`: that VC, if it
/// holds packets.
fn waits_on<S: Switch>(k: &Kernel, sw: &S, down: u32, len: u16) -> Option<Buffer> {
    (!k.fc.can_send(down, len as u32) && sw.input_packets(down).next().is_some())
        .then_some(Buffer::Input(down))
}
