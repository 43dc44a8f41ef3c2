//! What every lint reads: the records, the bank, and naming helpers that
//! keep messages short and consistent.

use std::fmt::Write;

use crate::eval::RecordKeeper;
use crate::regs::{ClassId, IdxId, IndexOrigin, RegBank, RegId, UNKNOWN};
use crate::source::Span;

/// The inputs of the lints.
pub(super) struct Ctx<'a> {
    pub rk: &'a RecordKeeper,
    pub bank: &'a RegBank,
}

impl Ctx<'_> {
    /// Where an index is declared; for a synthesized one, the register that
    /// made it.
    pub fn idx_span(&self, i: IdxId) -> Option<Span> {
        let idx = self.bank.idx(i);
        idx.span.or_else(|| match idx.origin {
            IndexOrigin::Composite { register, .. } | IndexOrigin::Concat { register } => {
                self.bank.reg(register).span
            }
            IndexOrigin::Defined => None,
        })
    }

    /// "tuple NAME" or "def" for a register.
    pub fn reg_origin(&self, r: RegId) -> String {
        match self.bank.reg(r).tuple {
            Some(t) => format!("tuple {}", self.rk.name(t)),
            None => "def".to_string(),
        }
    }

    /// The bits an index names, as `bits [lo, hi)`.
    pub fn interval(&self, i: IdxId) -> String {
        let idx = self.bank.idx(i);
        if idx.offset == UNKNOWN || idx.size == UNKNOWN {
            "unknown bits".into()
        } else {
            format!(
                "bits [{}, {})",
                idx.offset,
                idx.offset as u32 + idx.size as u32
            )
        }
    }
}

/// The size each register's defined classes declare for it: the widest
/// defined class holding it (default mode). The one size rule of `check`.
/// A register can also sit in a narrower view, such as AMDGPU's 64-bit EXEC
/// in the `i1` class SReg_1; that view does not bound it.
pub(super) struct DeclaredSizes {
    /// The defined classes holding each register, with their sizes.
    holders: Vec<Vec<(ClassId, u32)>>,
}

impl DeclaredSizes {
    pub fn new(bank: &RegBank) -> DeclaredSizes {
        let mut holders: Vec<Vec<(ClassId, u32)>> = vec![Vec::new(); bank.registers.len()];
        for (c, rc) in bank.classes.iter().enumerate() {
            if rc.def.is_some() {
                for &r in &rc.members {
                    holders[r as usize].push((c as ClassId, rc.rsi.get(0).reg_size));
                }
            }
        }
        DeclaredSizes { holders }
    }

    /// The size of `r`, leaving class `except` out of the question.
    pub fn of(&self, r: RegId, except: Option<ClassId>) -> Option<u32> {
        self.holder(r, except).map(|(_, s)| s)
    }

    /// The class declaring the size of `r` (the first of the widest), and
    /// the size.
    pub fn holder(&self, r: RegId, except: Option<ClassId>) -> Option<(ClassId, u32)> {
        self.holders[r as usize]
            .iter()
            .filter(|(c, _)| Some(*c) != except)
            .fold(None, |best: Option<(ClassId, u32)>, &(c, s)| match best {
                Some((_, b)) if b >= s => best,
                _ => Some((c, s)),
            })
    }
}

/// Shortens very long register names (tuples of tuples) for messages.
pub(super) fn short(name: &str) -> String {
    if name.len() <= 48 {
        return name.to_string();
    }
    let head: String = name.chars().take(20).collect();
    let tail: String = name
        .chars()
        .rev()
        .take(20)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("{head}…{tail}")
}

/// At most `max` names, then how many there are in all.
pub(super) fn list(names: &[String], max: usize) -> String {
    let mut s = names
        .iter()
        .take(max)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > max {
        let _ = write!(s, ", … ({} in all)", names.len());
    }
    s
}
