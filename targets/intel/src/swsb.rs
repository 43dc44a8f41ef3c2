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
//! lands with nothing in flight, and the instruction right after a `jmpi`
//! still waits for a writer 11 back, as IGA's `-Xauto-deps` models it.
//!
//! Sends are out of order: they neither count towards nor age the
//! in-order distances (their reads of in-order results still wait with
//! `@N`). Each send sets a scoreboard token (SBID, `$N`, the lowest free
//! one of 16); a later instruction that reads or writes its response
//! waits with `$N.dst`, one that overwrites its payload with `$N.src`.
//! An instruction carries one token wait (its first operand's, in
//! source-then-destination order; with an in-order distance, only a
//! `.dst` wait); the others go on `(W) sync.nop`s before it. A send that depends on an outstanding send of its own
//! takes over that send's token (the shared function runs them in
//! order). These are the rules IGA's `-Xauto-deps` applies; the IGA test
//! compares every function with it. Tokens are tracked along straight-line
//! code only: the emitter refuses sends in functions with jumps on Gen12LP.

use std::collections::BTreeMap;

use crate::isa::{Dst, Inst, Line, RegName, SendInst, Src, Swsb, Token};
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
/// Keys: `2 * line` for an instruction's writes, `2 * line + 1` for its
/// reads (which only sends, out of order, wait for: write after read).
type Pending = BTreeMap<usize, (Vec<u32>, usize)>;

/// The bytes of whole GRFs.
fn grf_bytes(grfs: &[u8]) -> Vec<u32> {
    grfs.iter()
        .flat_map(|g| u32::from(*g) * GRF_BYTES..(u32::from(*g) + 1) * GRF_BYTES)
        .collect()
}

/// A send over `p`: its distance (it reads in-order results), and the
/// state after it (it is not in order: nothing ages).
fn step_send(p: &mut Pending, s: &SendInst) -> Option<u8> {
    let reads = grf_bytes(&s.payload_grfs());
    let writes = grf_bytes(&s.response_grfs());
    // Reads after in-order writes, writes after in-order writes and
    // reads.
    let hit = |k: usize, b: &[u32]| {
        (k.is_multiple_of(2) && (overlaps(b, &reads) || overlaps(b, &writes)))
            || (k % 2 == 1 && overlaps(b, &writes))
    };
    let dist = p
        .iter()
        .filter(|(k, (b, _))| hit(**k, b))
        .map(|(_, (_, age))| *age)
        .min()
        .map(|d| d.min(MAX_DIST) as u8);
    if dist.is_some() {
        // The instructions waited for have completed, writes and reads.
        let done: Vec<usize> = p
            .iter()
            .filter(|(k, (b, _))| hit(**k, b))
            .map(|(k, _)| k / 2)
            .collect();
        p.retain(|k, _| !done.contains(&(k / 2)));
    }
    dist
}

/// Runs one instruction over `p`: its distance, and the state after it.
fn step(p: &mut Pending, at: usize, i: &Inst) -> Option<u8> {
    let mut reads: Vec<u32> = Vec::new();
    for s in &i.srcs {
        reads.extend(src_bytes(s, i.exec));
    }
    let dist = p
        .iter()
        .filter(|(k, (w, _))| k.is_multiple_of(2) && overlaps(w, &reads))
        .map(|(_, (_, age))| *age)
        .min()
        .map(|d| d.min(MAX_DIST) as u8);
    if dist.is_some() {
        // Every writer the instruction waited for has retired.
        let done: Vec<usize> = p
            .iter()
            .filter(|(k, (w, _))| k.is_multiple_of(2) && overlaps(w, &reads))
            .map(|(k, _)| k / 2)
            .collect();
        p.retain(|k, _| !done.contains(&(k / 2)));
    }
    for (_, age) in p.values_mut() {
        *age += 1;
    }
    // A jump does not retire the oldest writer: the first instruction
    // after a `jmpi` still waits for a writer 11 instructions back (IGA's
    // `-Xauto-deps` model, probed with iga64 in `tests/swsb.rs`).
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
        p.insert(2 * at, (writes, 1));
    }
    if !reads.is_empty() {
        p.insert(2 * at + 1, (reads, 1));
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

/// Sets each instruction's in-order distance along fall-through paths,
/// then the scoreboard tokens of sends (inserting `sync.nop`s).
pub fn annotate(lines: &mut Vec<Line>) {
    distances(lines);
    tokens(lines);
}

/// An outstanding send: the bytes it will write and those it still reads.
struct Outstanding {
    dst: Vec<u32>,
    src: Vec<u32>,
}

const TOKENS: usize = 16;

/// The token waits an access needs, in order, without repeats.
fn waits_of(out: &[Option<Outstanding>; TOKENS], reads: &[Vec<u32>], writes: &[u32]) -> Vec<Token> {
    let mut w: Vec<Token> = Vec::new();
    let add = |t: Token, w: &mut Vec<Token>| {
        let n = match t {
            Token::Dst(n) | Token::Src(n) | Token::Set(n) => n,
        };
        if !w
            .iter()
            .any(|x| matches!(x, Token::Dst(m) | Token::Src(m) if *m == n))
        {
            w.push(t);
        }
    };
    for r in reads {
        for (n, o) in out.iter().enumerate() {
            if let Some(o) = o {
                if overlaps(r, &o.dst) {
                    add(Token::Dst(n as u8), &mut w);
                }
            }
        }
    }
    for (n, o) in out.iter().enumerate() {
        if let Some(o) = o {
            if overlaps(writes, &o.dst) {
                add(Token::Dst(n as u8), &mut w);
            } else if overlaps(writes, &o.src) {
                add(Token::Src(n as u8), &mut w);
            }
        }
    }
    w
}

fn release(out: &mut [Option<Outstanding>; TOKENS], w: &[Token]) {
    for t in w {
        match *t {
            Token::Dst(n) => out[usize::from(n)] = None,
            Token::Src(n) => {
                if let Some(o) = &mut out[usize::from(n)] {
                    o.src.clear();
                }
            }
            Token::Set(_) => {}
        }
    }
}

fn sync(t: Token) -> Line {
    Line::Sync(Swsb {
        dist: None,
        token: Some(t),
    })
}

/// Scoreboard tokens along the lines (straight-line code).
fn tokens(lines: &mut Vec<Line>) {
    let mut out: [Option<Outstanding>; TOKENS] = Default::default();
    let mut result = Vec::with_capacity(lines.len());
    for l in std::mem::take(lines) {
        match l {
            Line::Inst(mut i) => {
                let reads: Vec<Vec<u32>> = i.srcs.iter().map(|s| src_bytes(s, i.exec)).collect();
                let writes = i
                    .dst
                    .as_ref()
                    .map(|d| dst_bytes(d, i.exec))
                    .unwrap_or_default();
                let w = waits_of(&out, &reads, &writes);
                // With an in-order distance only a `.dst` wait fits on
                // the instruction; the others go on `sync.nop`s.
                let mine = w
                    .iter()
                    .position(|t| i.swsb.dist.is_none() || matches!(t, Token::Dst(_)));
                for (k, t) in w.iter().enumerate() {
                    if Some(k) != mine {
                        result.push(sync(*t));
                    }
                }
                i.swsb.token = mine.map(|k| w[k]);
                release(&mut out, &w);
                result.push(Line::Inst(i));
            }
            Line::Send(mut s) => {
                let reads = vec![grf_bytes(&s.payload_grfs())];
                let writes = grf_bytes(&s.response_grfs());
                let w = waits_of(&out, &reads, &writes);
                if s.eot {
                    for t in &w {
                        result.push(sync(*t));
                    }
                    release(&mut out, &w);
                    result.push(Line::Send(s));
                    continue;
                }
                // Takes over the token of the send it depends on.
                let own = w.iter().find_map(|t| match t {
                    Token::Dst(n) | Token::Src(n) => Some(*n),
                    Token::Set(_) => None,
                });
                for t in &w {
                    let n = match t {
                        Token::Dst(n) | Token::Src(n) | Token::Set(n) => *n,
                    };
                    if Some(n) != own {
                        result.push(sync(*t));
                    }
                }
                release(&mut out, &w);
                let n = match own {
                    Some(n) => n,
                    None => match out.iter().position(Option::is_none) {
                        Some(n) => n as u8,
                        None => {
                            result.push(sync(Token::Dst(0)));
                            0
                        }
                    },
                };
                out[usize::from(n)] = Some(Outstanding {
                    dst: writes,
                    src: reads.concat(),
                });
                s.swsb.token = Some(Token::Set(n));
                result.push(Line::Send(s));
            }
            other => result.push(other),
        }
    }
    *lines = result;
}

/// Sets each instruction's in-order distance along fall-through paths.
fn distances(lines: &mut [Line]) {
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
            match l {
                Line::Inst(i) => dists[k] = step(&mut p, k, i),
                Line::Send(s) => dists[k] = step_send(&mut p, s),
                Line::Label(_) | Line::Sync(_) => {}
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
        match l {
            Line::Inst(i) => {
                let writes_cr = matches!(i.dst.map(|d| d.reg), Some(RegName::Cr { .. }));
                i.swsb.dist = if writes_cr || after_cr { Some(1) } else { d };
                after_cr = writes_cr;
            }
            Line::Send(s) => s.swsb.dist = d,
            Line::Label(_) | Line::Sync(_) => {}
        }
    }
}
