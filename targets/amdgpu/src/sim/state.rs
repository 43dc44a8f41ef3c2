//! The state of one wave: the scalar file (SGPRs, VCC, M0, EXEC, by their
//! operand encodings), the VGPRs (one 32-bit value per lane), SCC, the
//! program counter, each lane's private (scratch) memory, and the
//! outstanding memory operations `s_waitcnt` counts.
//!
//! # Outstanding loads (the "Data Dependency Resolution" section of the
//! "Program Flow Control" chapter, Vega ISA (gfx9) and RDNA2 ISA (gfx1030))
//!
//! A load writes its registers when it is issued, and marks them pending
//! on its counter: `vmcnt` for vector memory loads, `lgkmcnt` for scalar
//! memory loads. Vector memory operations return in order, so
//! `s_waitcnt vmcnt(N)` retires all but the N newest; on gfx9 stores count
//! on `vmcnt` too, on gfx10 they count on `vscnt`. Scalar loads may return
//! out of order, so `lgkmcnt(N)` with N > 0 proves nothing about which
//! ones completed unless at most N are outstanding. Reading or
//! overwriting a register whose load is still outstanding is an error.

use std::collections::VecDeque;

use regdesc_codegen::source::Span;

use super::error::SimError;
use super::parse::enc;

/// The counters of `s_waitcnt`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counter {
    Vm,
    Lgkm,
    Vs,
}

impl Counter {
    pub fn name(self) -> &'static str {
        match self {
            Counter::Vm => "vmcnt",
            Counter::Lgkm => "lgkmcnt",
            Counter::Vs => "vscnt",
        }
    }
}

/// A register kept pending by an outstanding load.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pending {
    counter: Counter,
    id: u64,
}

/// One wave.
#[derive(Clone, Debug)]
pub struct Wave {
    /// 32 or 64.
    pub size: usize,
    /// Lanes that exist (the launch may have fewer than `size`).
    pub live: u64,
    pub sgpr: [u32; enc::SCALARS],
    pub scc: bool,
    /// `vgpr[r][lane]`.
    pub vgpr: Vec<[u32; 64]>,
    pub pc: usize,
    /// Each lane's private memory.
    pub scratch: Vec<Vec<u8>>,
    spend: [Option<Pending>; enc::SCALARS],
    vpend: Vec<Option<Pending>>,
    /// Outstanding operations per counter: (id, the instruction's span).
    queues: [VecDeque<(u64, Span)>; 3],
    next_id: u64,
}

/// Bytes of private memory each lane has.
pub const SCRATCH_BYTES: usize = 1 << 14;

fn qi(c: Counter) -> usize {
    match c {
        Counter::Vm => 0,
        Counter::Lgkm => 1,
        Counter::Vs => 2,
    }
}

impl Wave {
    pub fn new(size: usize, lanes: usize) -> Self {
        let live = if lanes >= 64 {
            u64::MAX
        } else {
            (1u64 << lanes) - 1
        };
        Wave {
            size,
            live,
            sgpr: [0; enc::SCALARS],
            scc: false,
            // VGPRs, then (gfx90a) the accumulation VGPRs `a0..a255`.
            vgpr: vec![[0; 64]; 512],
            pc: 0,
            scratch: Vec::new(),
            spend: [None; enc::SCALARS],
            vpend: vec![None; 512],
            queues: Default::default(),
            next_id: 0,
        }
    }

    /// The lane mask of a wave of this size.
    pub fn full(&self) -> u64 {
        if self.size == 64 {
            u64::MAX
        } else {
            0xffff_ffff
        }
    }

    pub fn exec(&self) -> u64 {
        let lo = u64::from(self.sgpr[enc::EXEC_LO as usize]);
        if self.size == 64 {
            lo | u64::from(self.sgpr[enc::EXEC_LO as usize + 1]) << 32
        } else {
            lo
        }
    }

    pub fn set_exec(&mut self, m: u64) {
        self.sgpr[enc::EXEC_LO as usize] = m as u32;
        if self.size == 64 {
            self.sgpr[enc::EXEC_LO as usize + 1] = (m >> 32) as u32;
        }
    }

    pub fn vcc(&self) -> u64 {
        let lo = u64::from(self.sgpr[enc::VCC_LO as usize]);
        if self.size == 64 {
            lo | u64::from(self.sgpr[enc::VCC_LO as usize + 1]) << 32
        } else {
            lo
        }
    }

    /// The active lanes, lowest first.
    pub fn active(&self) -> impl Iterator<Item = usize> {
        let m = self.exec() & self.live;
        (0..self.size).filter(move |l| m >> l & 1 == 1)
    }

    fn check(
        &self,
        p: Option<Pending>,
        reg: impl FnOnce() -> String,
        span: &Span,
    ) -> Result<(), SimError> {
        if let Some(p) = p {
            if let Some((_, load)) = self.queues[qi(p.counter)]
                .iter()
                .find(|(id, _)| *id == p.id)
            {
                return Err(SimError::ReadBeforeWait {
                    span: span.clone(),
                    reg: reg(),
                    counter: p.counter.name(),
                    load: load.clone(),
                });
            }
        }
        Ok(())
    }

    /// Checks that scalar register `r` has no outstanding load.
    pub fn check_s(&self, r: u16, span: &Span) -> Result<(), SimError> {
        let p = self.spend.get(r as usize).copied().flatten();
        self.check(p, || scalar_name(r), span)
    }

    /// Checks that VGPR `r` has no outstanding load.
    pub fn check_v(&self, r: u16, span: &Span) -> Result<(), SimError> {
        let p = self.vpend.get(r as usize).copied().flatten();
        self.check(p, || format!("v{r}"), span)
    }

    /// Starts a memory operation on `counter`; gives its id.
    pub fn issue(&mut self, counter: Counter, span: &Span) -> u64 {
        self.next_id += 1;
        self.queues[qi(counter)].push_back((self.next_id, span.clone()));
        self.next_id
    }

    /// Marks registers as written by the outstanding operation `id`.
    pub fn pend_s(&mut self, r: u16, counter: Counter, id: u64) {
        if let Some(p) = self.spend.get_mut(r as usize) {
            *p = Some(Pending { counter, id });
        }
    }

    pub fn pend_v(&mut self, r: u16, counter: Counter, id: u64) {
        if let Some(p) = self.vpend.get_mut(r as usize) {
            *p = Some(Pending { counter, id });
        }
    }

    /// `s_waitcnt counter(n)`.
    pub fn wait(&mut self, counter: Counter, n: usize) {
        let q = &mut self.queues[qi(counter)];
        if q.len() <= n {
            return;
        }
        if counter == Counter::Lgkm && n > 0 {
            // Scalar loads return out of order: nothing is known complete.
            return;
        }
        while q.len() > n {
            q.pop_front();
        }
    }

    /// The private memory of `lane`, `len` bytes from `addr`.
    pub fn scratch_mut(&mut self, lane: usize, addr: u64, len: usize) -> Option<&mut [u8]> {
        if self.scratch.len() <= lane {
            self.scratch.resize(lane + 1, Vec::new());
        }
        let mem = self.scratch.get_mut(lane)?;
        let end = usize::try_from(addr).ok()?.checked_add(len)?;
        if end > SCRATCH_BYTES {
            return None;
        }
        if mem.len() < end {
            mem.resize(SCRATCH_BYTES, 0);
        }
        mem.get_mut(end - len..end)
    }
}

/// The assembly name of a scalar register encoding.
pub fn scalar_name(r: u16) -> String {
    match r {
        106 => "vcc_lo".into(),
        107 => "vcc_hi".into(),
        124 => "m0".into(),
        125 => "null".into(),
        126 => "exec_lo".into(),
        127 => "exec_hi".into(),
        r => format!("s{r}"),
    }
}
