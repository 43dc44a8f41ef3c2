//! Reads IGA assembly back into [`Line`]s and [`Stmt`]s: the syntax the
//! emitter prints and IGA's disassembly of IGC's kernels (extra spaces,
//! `jmpi` without an execution size, decimal immediates, `//` comments,
//! `send`/`sends` in the Gen9/11 and Gen12 forms, Gen12 `sync` and SWSB
//! tokens, SIMD32 channel offsets).
//!
//! Hardware fact served: IGA's syntax is the reference form of a Gen
//! instruction (see [`crate::isa`]); anything outside the subset the
//! simulator runs is an error naming the line, never a guess.

use crate::isa::{Cond, Dst, Flag, Inst, Line, Op, Pred, RegName, Region, Src, Swsb, Ty};
use crate::sim::send::{Send, SFID_NAMES};
use crate::sim::{SimError, Stmt};

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
    if !matches!(exec, 1 | 2 | 4 | 8 | 16 | 32) || u32::from(offset) + u32::from(exec) > 32 {
        return Err(err(
            n,
            text,
            format!("execution size {exec} at channel offset {offset}: the simulator runs up to 32 channels"),
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
        } else if is_ignored_option(o) {
            // Encoding and scheduling only: the simulator runs in order.
        } else {
            return Err(err(n, text, format!("option `{o}` is not supported")));
        }
    }
    Ok(i)
}

/// Options that change nothing the simulator models: `Compacted` (an
/// encoding), `NoPreempt`, and Gen12's SWSB tokens `$N`, `$N.src`,
/// `$N.dst` (the simulator completes every send before the next
/// instruction, which is what the tokens wait for).
fn is_ignored_option(o: &str) -> bool {
    o == "Compacted" || o == "NoPreempt" || o.starts_with('$')
}

/// A `send`/`sends` operand register: `r40`, `r40:w`, `null`, `null:f`.
fn send_reg(s: &str) -> Option<Option<u8>> {
    let r = s.split_once(':').map_or(s, |(r, _)| r);
    if r == "null" {
        return Some(None);
    }
    let nr: u8 = r.strip_prefix('r')?.parse().ok()?;
    (nr < 128).then_some(Some(nr))
}

fn hex_or_dec(s: &str) -> Option<u32> {
    match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u32::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// Parses a `send` line as IGA writes it (see [`crate::sim::send`]):
/// Gen9/Gen11 `send (16|M0) r40:w r32:f 0xC 0x084415FF` and
/// `sends (16|M0) null:w r108 r100 0x10C 0x080695FF`; Gen12
/// `send.dc1 (16|M0) r40 r32 null 0x0 0x084415FF {@4,$0}`.
fn send(n: usize, text: &str, note: Option<&str>) -> Result<Send, SimError> {
    let (body, opts) = match text.split_once('{') {
        Some((b, o)) => (b, o.trim_end().trim_end_matches('}')),
        None => (text, ""),
    };
    let mut toks: Vec<&str> = body.split_whitespace().collect();
    let mut nomask = false;
    if toks.first() == Some(&"(W)") {
        nomask = true;
        toks.remove(0);
    } else if toks.first().is_some_and(|t| t.starts_with('(')) {
        return Err(err(n, text, "a predicated send is not simulated"));
    }
    let Some(op) = toks.first().copied() else {
        return Err(err(n, text, "no opcode"));
    };
    toks.remove(0);
    let (base, suffix) = match op.split_once('.') {
        Some((b, s)) => (b, Some(s)),
        None => (op, None),
    };
    let two = match base {
        "send" => false,
        "sends" => true,
        _ => return Err(err(n, text, format!("`{op}` is not a send"))),
    };
    let sfid_named = match suffix {
        None => None,
        Some(sfx) => Some(
            SFID_NAMES
                .iter()
                .find(|(name, _)| *name == sfx)
                .map(|(_, v)| *v)
                .ok_or_else(|| err(n, text, format!("unknown shared function `.{sfx}`")))?,
        ),
    };
    let size = toks
        .first()
        .and_then(|t| t.strip_prefix('(')?.strip_suffix(')'))
        .and_then(|t| t.split_once('|'))
        .and_then(|(e, m)| {
            Some((
                e.parse::<u8>().ok()?,
                m.strip_prefix('M')?.parse::<u8>().ok()?,
            ))
        })
        .ok_or_else(|| err(n, text, "expected `(EXEC|Mk)`"))?;
    toks.remove(0);
    // Gen12 writes src1 (`null` when absent) whatever the mnemonic;
    // Gen9/Gen11 `send` has none, `sends` one.
    let has_src1_slot = two || sfid_named.is_some();
    let want = if has_src1_slot { 5 } else { 4 };
    if toks.len() != want {
        return Err(err(n, text, format!("a send takes {want} operands here")));
    }
    let reg = |s: &str| send_reg(s).ok_or_else(|| err(n, text, format!("bad send register `{s}`")));
    let dst = reg(toks[0])?;
    let src0 = reg(toks[1])?.ok_or_else(|| err(n, text, "src0 of a send is a GRF"))?;
    let src1 = if has_src1_slot { reg(toks[2])? } else { None };
    let num = |s: &str| hex_or_dec(s).ok_or_else(|| err(n, text, format!("bad descriptor `{s}`")));
    let ex_desc = num(toks[want - 2])?;
    let desc = num(toks[want - 1])?;
    let mut eot = sfid_named.is_none() && (ex_desc >> 5) & 1 != 0;
    for o in opts.split(',').map(str::trim).filter(|o| !o.is_empty()) {
        if o == "EOT" {
            eot = true;
        } else if !(o.starts_with('@') || is_ignored_option(o)) {
            return Err(err(
                n,
                text,
                format!("option `{o}` is not supported on a send"),
            ));
        }
    }
    Ok(Send {
        exec: size.0,
        offset: size.1,
        nomask,
        dst,
        src0,
        src1,
        sfid: sfid_named.unwrap_or((ex_desc & 0xF) as u8),
        ex_desc,
        desc,
        eot,
        note: note.map(|c| c.trim().to_string()),
        text: text.trim().to_string(),
    })
}

/// Whether the line is a send (`send`, `sends`, `send.dc1`, with or
/// without `(W)`).
fn is_send(l: &str) -> bool {
    let first = l
        .split_whitespace()
        .find(|t| !t.starts_with('('))
        .unwrap_or("");
    first == "send" || first == "sends" || first.starts_with("send.") || first.starts_with("sends.")
}

/// Parses a whole assembly file, sends included.
pub fn parse_program(text: &str) -> Result<Vec<(usize, Stmt)>, SimError> {
    let mut out = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let n = k + 1;
        let (code, note) = match raw.split_once("//") {
            Some((c, r)) => (c, Some(r)),
            None => (raw, None),
        };
        let l = code.trim();
        if l.is_empty() {
            continue;
        }
        if let Some(name) = l.strip_suffix(':') {
            if !name.contains(char::is_whitespace) {
                out.push((n, Stmt::Label(name.to_string())));
                continue;
            }
        }
        if is_send(l) {
            out.push((n, Stmt::Send(send(n, l, note)?)));
        } else if l
            .trim_start_matches("(W)")
            .trim_start()
            .starts_with("sync.")
        {
            // Gen12 `sync.nop null {$1.dst}`, `(W) sync.allrd`: waits only.
            out.push((n, Stmt::Sync));
        } else {
            out.push((n, Stmt::Inst(inst(n, l)?)));
        }
    }
    Ok(out)
}

/// Parses a whole assembly file of ALU instructions and labels (sends are
/// an error here; [`parse_program`] reads them).
pub fn parse(text: &str) -> Result<Vec<(usize, Line)>, SimError> {
    let lines = text.lines().collect::<Vec<_>>();
    parse_program(text)?
        .into_iter()
        .map(|(n, s)| match s {
            Stmt::Label(l) => Ok((n, Line::Label(l))),
            Stmt::Inst(i) => Ok((n, Line::Inst(i))),
            Stmt::Send(_) | Stmt::Sync => Err(err(
                n,
                lines.get(n - 1).copied().unwrap_or(""),
                "a send or sync needs the program reader (`parse_program`) and a memory",
            )),
        })
        .collect()
}
