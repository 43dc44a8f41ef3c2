//! Gen12LP software scoreboard (SWSB) annotations.
//!
//! Hardware fact served (Gen12LP PRM Vol 2a "Software Scoreboard", Vol 7
//! "Instruction Dependencies"): from Gen12 the hardware no longer tracks
//! register dependencies between ALU instructions. An instruction that
//! reads (RAW) a GRF byte written by one of the previous in-order
//! instructions carries `{@N}`, N the distance (1..7) to the nearest such
//! writer not yet waited for (an annotation waits for every writer the
//! instruction reads); a writer 8 to 10 instructions back still gets
//! `@7`, one further back has retired; in-order writes to the same bytes (WAW) retire in order and
//! need none. Older writers are known to have retired.
//! Architecture registers (accumulator, flags) are interlocked by the
//! hardware and need no annotation. Distances follow the fall-through
//! path, across labels and not-taken predicated jumps; a taken `jmpi`
//! lands with nothing in flight, as IGA's `-Xauto-deps` models it.

use std::collections::BTreeMap;

use crate::isa::{Dst, Inst, Line, RegName, Src};
use crate::regions::GRF_BYTES;

/// Longest in-order distance an annotation can express.
const MAX_DIST: usize = 7;

/// How many in-order instructions may still be in flight: a writer up to
/// this far back is waited for with `@7` (IGA's model of Gen12LP).
const IN_FLIGHT: usize = 10;

/// The GRF bytes a destination writes.
pub fn dst_bytes(d: &Dst, exec: u8) -> Vec<u32> {
    let RegName::Grf { nr, sub } = d.reg else {
        return Vec::new();
    };
    let size = d.ty.size();
    let base = u32::from(nr) * GRF_BYTES + u32::from(sub) * size;
    let mut out = Vec::new();
    for ch in 0..u32::from(exec) {
        let at = base + ch * u32::from(d.h) * size;
        out.extend(at..at + size);
    }
    out
}

/// The GRF bytes a source reads.
pub fn src_bytes(s: &Src, exec: u8) -> Vec<u32> {
    let Src::Reg {
        reg: RegName::Grf { nr, sub },
        region,
        ty,
        ..
    } = s
    else {
        return Vec::new();
    };
    let size = ty.size();
    let base = u32::from(*nr) * GRF_BYTES + u32::from(*sub) * size;
    let w = u32::from(region.w.max(1));
    let mut out = Vec::new();
    for ch in 0..u32::from(exec) {
        let el = (ch / w) * u32::from(region.v) + (ch % w) * u32::from(region.h);
        let at = base + el * size;
        out.extend(at..at + size);
    }
    out
}

fn overlaps(a: &[u32], b: &[u32]) -> bool {
    a.iter().any(|x| b.contains(x))
}

/// Writes still in flight at a program point: writer line -> (bytes,
/// instructions since it issued).
type Pending = BTreeMap<usize, (Vec<u32>, usize)>;

/// Runs one instruction over `p`: its distance, and the state after it.
fn step(p: &mut Pending, at: usize, i: &Inst) -> Option<u8> {
    let mut reads: Vec<u32> = Vec::new();
    for s in &i.srcs {
        reads.extend(src_bytes(s, i.exec));
    }
    let dist = p
        .values()
        .filter(|(w, _)| overlaps(w, &reads))
        .map(|(_, age)| *age)
        .min()
        .map(|d| d.min(MAX_DIST) as u8);
    if dist.is_some() {
        // Every writer the instruction waited for has retired.
        p.retain(|_, (w, _)| !overlaps(w, &reads));
    }
    for (_, age) in p.values_mut() {
        *age += 1;
    }
    // A jump does not retire the oldest writer: the first instruction
    // after a `jmpi` still waits for a writer 11 instructions back (IGA's
    // `-Xauto-deps` model, probed with iga64: see `tests/swsb.rs`).
    let window = if i.label.is_some() {
        IN_FLIGHT + 1
    } else {
        IN_FLIGHT
    };
    p.retain(|_, (_, age)| *age <= window);
    let writes = i
        .dst
        .as_ref()
        .map(|d| dst_bytes(d, i.exec))
        .unwrap_or_default();
    if !writes.is_empty() {
        p.insert(at, (writes, 1));
    }
    dist
}

/// Merges `from` into `into` (a write pending on any path is pending, at
/// its nearest distance). Whether `into` changed.
fn merge(into: &mut Pending, from: &Pending) -> bool {
    let mut changed = false;
    for (k, (w, age)) in from {
        match into.get_mut(k) {
            Some((_, a)) if *a <= *age => {}
            Some((_, a)) => {
                *a = *age;
                changed = true;
            }
            None => {
                into.insert(*k, (w.clone(), *age));
                changed = true;
            }
        }
    }
    changed
}

/// Sets each instruction's in-order distance along fall-through paths.
pub fn annotate(lines: &mut [Line]) {
    // Blocks: [start, end) line ranges, split at labels and after jumps.
    let mut starts = vec![0usize];
    for (k, l) in lines.iter().enumerate() {
        match l {
            Line::Label(_) if k > 0 => starts.push(k),
            Line::Inst(i) if i.label.is_some() => starts.push(k + 1),
            _ => {}
        }
    }
    starts.dedup();
    starts.retain(|&s| s < lines.len());
    let n = starts.len();
    let end = |b: usize| starts.get(b + 1).copied().unwrap_or(lines.len());
    // Successors of each block.
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (b, out) in succs.iter_mut().enumerate() {
        let mut falls = true;
        if let Some(Line::Inst(i)) = lines.get(end(b).wrapping_sub(1)) {
            if i.label.is_some() {
                // A taken jump waits for the writes in flight (IGA's
                // model): only the fall-through carries them.
                falls = i.pred.is_some();
            }
        }
        if falls && b + 1 < n {
            out.push(b + 1);
        }
    }
    let mut ins: Vec<Option<Pending>> = vec![None; n];
    ins[0] = Some(Pending::new());
    let mut work = vec![0usize];
    let mut dists: Vec<Option<u8>> = vec![None; lines.len()];
    while let Some(b) = work.pop() {
        let mut p = ins[b].clone().unwrap_or_default();
        for (k, l) in lines.iter().enumerate().take(end(b)).skip(starts[b]) {
            if let Line::Inst(i) = l {
                dists[k] = step(&mut p, k, i);
            }
        }
        for &s in &succs[b] {
            let changed = match &mut ins[s] {
                Some(into) => merge(into, &p),
                slot @ None => {
                    *slot = Some(p.clone());
                    true
                }
            };
            if changed && !work.contains(&s) {
                work.push(s);
            }
        }
    }
    // A control register write waits for every instruction before it,
    // and the next instruction waits for it.
    let mut after_cr = false;
    for (l, d) in lines.iter_mut().zip(dists) {
        if let Line::Inst(i) = l {
            let writes_cr = matches!(i.dst.map(|d| d.reg), Some(RegName::Cr { .. }));
            i.swsb.dist = if writes_cr || after_cr { Some(1) } else { d };
            after_cr = writes_cr;
        }
    }
}
