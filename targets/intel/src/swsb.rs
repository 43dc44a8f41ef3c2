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
//! hardware and need no annotation. Distances count instructions of the
//! basic block; a label or a jump starts a new block, where every
//! register is assumed to be ready (the branch itself waits).

use crate::isa::{Dst, Inst, Line, RegName, Src};
use crate::regions::GRF_BYTES;

/// Longest in-order distance an annotation can express.
const MAX_DIST: usize = 7;

/// How many in-order instructions may still be in flight: a writer up to
/// this far back is waited for with `@7` (IGA's model of Gen12LP).
const IN_FLIGHT: usize = 10;

/// The GRF bytes a destination writes.
fn dst_bytes(d: &Dst, exec: u8) -> Vec<u32> {
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

/// Sets each instruction's in-order distance.
pub fn annotate(lines: &mut [Line]) {
    // Bytes written by the instructions of the current block, newest last.
    let mut window: Vec<Vec<u32>> = Vec::new();
    for l in lines.iter_mut() {
        let i: &mut Inst = match l {
            Line::Label(_) => {
                window.clear();
                continue;
            }
            Line::Inst(i) => i,
        };
        let mut reads: Vec<u32> = Vec::new();
        for s in &i.srcs {
            reads.extend(src_bytes(s, i.exec));
        }
        let writes = i
            .dst
            .as_ref()
            .map(|d| dst_bytes(d, i.exec))
            .unwrap_or_default();
        // Writers already waited for (by an earlier annotation) have
        // retired: their bytes are cleared.
        let n = window.len();
        i.swsb.dist = window
            .iter()
            .rev()
            .take(IN_FLIGHT)
            .position(|w| overlaps(w, &reads))
            .map(|p| (p + 1).min(MAX_DIST) as u8);
        if i.swsb.dist.is_some() {
            for w in window.iter_mut().skip(n.saturating_sub(IN_FLIGHT)) {
                if overlaps(w, &reads) {
                    w.clear();
                }
            }
        }
        window.push(writes);
        if i.label.is_some() {
            window.clear();
        }
    }
}
