//! Reads IGA assembly back into [`Line`]s: the syntax the emitter prints
//! and the integer subset of IGA's disassembly (extra spaces, `jmpi`
//! without an execution size, decimal immediates, `//` comments).
//!
//! Hardware fact served: IGA's syntax is the reference form of a Gen
//! instruction (see [`crate::isa`]); anything outside the subset the
//! simulator runs is an error naming the line, never a guess.

use crate::isa::{Cond, Dst, Flag, Inst, Line, Op, Pred, RegName, Region, Src, Swsb, Ty};
use crate::sim::SimError;

fn err(line: usize, text: &str, msg: impl Into<String>) -> SimError {
    SimError::Parse {
        line,
        text: text.trim().to_string(),
        message: msg.into(),
    }
}

fn flag(s: &str) -> Option<Flag> {
    let rest = s.strip_prefix('f')?;
    let (a, b) = rest.split_once('.')?;
    let f = Flag {
        nr: a.parse().ok()?,
        sub: b.parse().ok()?,
    };
    (f.nr < 2 && f.sub < 2).then_some(f)
}

fn reg_name(s: &str) -> Option<RegName> {
    if s == "null" {
        return Some(RegName::Null);
    }
    let (base, sub) = match s.split_once('.') {
        Some((b, k)) => (b, k.parse().ok()?),
        None => (s, 0),
    };
    if base == "cr0" {
        return Some(RegName::Cr { sub });
    }
    if let Some(n) = base.strip_prefix("acc") {
        return Some(RegName::Acc {
            nr: n.parse().ok()?,
            sub,
        });
    }
    let nr: u8 = base.strip_prefix('r')?.parse().ok()?;
    (nr < 128).then_some(RegName::Grf { nr, sub })
}

fn ty_of(s: &str) -> Option<(&str, Ty)> {
    let (a, t) = s.rsplit_once(':')?;
    Some((a, Ty::from_name(t)?))
}

fn dst(s: &str) -> Option<Dst> {
    let (a, ty) = ty_of(s)?;
    let (r, h) = match a.split_once('<') {
        Some((r, h)) => (r, h.strip_suffix('>')?.parse().ok()?),
        None => (a, 1),
    };
    Some(Dst {
        reg: reg_name(r)?,
        h,
        ty,
    })
}

fn src(s: &str) -> Option<Src> {
    let (a, ty) = ty_of(s)?;
    let (neg, a) = match a.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, a),
    };
    if a.starts_with(|c: char| c.is_ascii_digit()) {
        let v: i64 = match a.strip_prefix("0x").or_else(|| a.strip_prefix("0X")) {
            Some(h) => i64::from_str_radix(h, 16).ok()?,
            None => a.parse().ok()?,
        };
        let v = if neg { v.wrapping_neg() } else { v };
        let bits = match ty.size() {
            2 => (v as u32) & 0xffff,
            _ => v as u32,
        };
        return Some(Src::Imm { bits, ty });
    }
    let (r, region) = match a.split_once('<') {
        Some((r, rg)) => {
            let rg = rg.strip_suffix('>')?;
            let (v, wh) = rg.split_once(';')?;
            let (w, h) = wh.split_once(',')?;
            (
                r,
                Region {
                    v: v.parse().ok()?,
                    w: w.parse().ok()?,
                    h: h.parse().ok()?,
                },
            )
        }
        None => (a, Region::SCALAR),
    };
    Some(Src::Reg {
        reg: reg_name(r)?,
        region,
        ty,
        neg,
    })
}

/// Parses one instruction line (no label, no comment).
fn inst(n: usize, text: &str) -> Result<Inst, SimError> {
    let (body, opts) = match text.split_once('{') {
        Some((b, o)) => (b, o.trim_end().trim_end_matches('}')),
        None => (text, ""),
    };
    let mut toks: Vec<&str> = body.split_whitespace().collect();
    let mut nomask = false;
    let mut pred = None;
    if let Some(t) = toks.first().copied() {
        if let Some(inner) = t.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
            toks.remove(0);
            let mut p = inner;
            if p == "W" {
                nomask = true;
                p = "";
            } else if let Some(r) = p.strip_prefix("W&") {
                nomask = true;
                p = r;
            }
            if !p.is_empty() {
                let (invert, f) = match p.strip_prefix('~') {
                    Some(f) => (true, f),
                    None => (false, p.strip_prefix('+').unwrap_or(p)),
                };
                let bad = || err(n, text, format!("bad predicate `{inner}`"));
                let (f, ctrl) = match f.match_indices('.').nth(1) {
                    Some((k, _)) => {
                        let ctrl = match &f[k + 1..] {
                            "all8h" => (true, 8),
                            "all16h" => (true, 16),
                            "any8h" => (false, 8),
                            "any16h" => (false, 16),
                            _ => return Err(bad()),
                        };
                        (&f[..k], Some(ctrl))
                    }
                    None => (f, None),
                };
                let flag = flag(f).ok_or_else(bad)?;
                pred = Some(Pred { flag, invert, ctrl });
            }
        }
    }
    let Some(opname) = toks.first().copied() else {
        return Err(err(n, text, "no opcode"));
    };
    toks.remove(0);
    let op = Op::from_name(opname).ok_or_else(|| {
        err(
            n,
            text,
            format!("`{opname}` is not an instruction the simulator runs"),
        )
    })?;
    let (mut exec, mut offset) = (1u8, 0u8);
    if let Some(t) = toks.first().copied() {
        if let Some(inner) = t.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
            if let Some((e, m)) = inner.split_once('|') {
                toks.remove(0);
                exec = e.parse().map_err(|_| err(n, text, "bad execution size"))?;
                offset = m
                    .strip_prefix('M')
                    .and_then(|m| m.parse().ok())
                    .ok_or_else(|| err(n, text, "bad channel offset"))?;
            }
        }
    }
    if !matches!(exec, 1 | 2 | 4 | 8 | 16) || u32::from(offset) + u32::from(exec) > 16 {
        return Err(err(
            n,
            text,
            format!("execution size {exec} at channel offset {offset}: the simulator runs up to 16 channels"),
        ));
    }
    let mut cond = None;
    if let Some(t) = toks.first().copied() {
        if let Some((c, f)) = t.strip_prefix('(').and_then(|t| t.split_once(')')) {
            let c =
                Cond::from_name(c).ok_or_else(|| err(n, text, format!("bad condition `{c}`")))?;
            let f = flag(f).ok_or_else(|| err(n, text, format!("bad flag `{f}`")))?;
            cond = Some((c, f));
            toks.remove(0);
        }
    }
    let mut i = Inst {
        op,
        nomask,
        pred,
        cond,
        exec,
        offset,
        dst: None,
        srcs: Vec::new(),
        acc_wr: false,
        label: None,
        switch: false,
        swsb: Swsb::default(),
    };
    if op == Op::Jmpi {
        let l = toks
            .first()
            .ok_or_else(|| err(n, text, "jmpi without a label"))?;
        i.label = Some((*l).to_string());
    } else if op != Op::Nop {
        let d = toks.first().ok_or_else(|| err(n, text, "no destination"))?;
        i.dst = Some(dst(d).ok_or_else(|| err(n, text, format!("bad destination `{d}`")))?);
        for s in &toks[1..] {
            i.srcs
                .push(src(s).ok_or_else(|| err(n, text, format!("bad source `{s}`")))?);
        }
        if i.srcs.len() != op.num_srcs() {
            return Err(err(
                n,
                text,
                format!("{opname} takes {} sources", op.num_srcs()),
            ));
        }
    }
    for o in opts.split(',').map(str::trim).filter(|o| !o.is_empty()) {
        if o == "AccWrEn" {
            i.acc_wr = true;
        } else if o == "Switch" {
            i.switch = true;
        } else if let Some(d) = o.strip_prefix('@') {
            i.swsb.dist = d.parse().ok();
        } else {
            return Err(err(n, text, format!("option `{o}` is not supported")));
        }
    }
    Ok(i)
}

/// Parses a whole assembly file.
pub fn parse(text: &str) -> Result<Vec<(usize, Line)>, SimError> {
    let mut out = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let n = k + 1;
        let l = raw.split("//").next().unwrap_or("").trim();
        if l.is_empty() {
            continue;
        }
        if let Some(name) = l.strip_suffix(':') {
            if !name.contains(char::is_whitespace) {
                out.push((n, Line::Label(name.to_string())));
                continue;
            }
        }
        out.push((n, Line::Inst(inst(n, l)?)));
    }
    Ok(out)
}
