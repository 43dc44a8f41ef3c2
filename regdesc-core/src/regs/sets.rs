//! Set expressions of register classes and register tuples.
//!
//! This is LLVM's `SetTheory` as used by `CodeGenRegBank`: a `def` that is a
//! `RegisterClass` (field `MemberList`), a `CalleeSavedRegs` (field
//! `SaveList`) or a `RegisterTuples` expands to a set; DAGs apply the
//! operators `add sub and shl trunc rotl rotr decimate interleave sequence`.
//! Sets keep insertion order and drop duplicates.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use crate::eval::print::to_string;
use crate::eval::{Init, InitKind, RecId, RecordKeeper};
use crate::syntax::Span;

use super::RegsError;

/// One element of a set: a def, or a register synthesized by a
/// `RegisterTuples` expansion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Elem {
    Rec(RecId),
    Synth(u32),
}

/// A register made by zipping the lists of a `RegisterTuples` def.
#[derive(Clone, Debug)]
pub struct SynthReg {
    pub name: String,
    /// The `RegisterTuples` def that made it.
    pub tuple: RecId,
    /// The first member: fields not set by the tuple are copied from it.
    pub proto: Elem,
    /// The zipped members, one per sub-register index of the tuple.
    pub members: Vec<Elem>,
    pub asm_name: String,
    pub cost_per_use: Vec<i64>,
    pub artificial: bool,
    pub namespace: String,
}

/// An insertion-ordered set without duplicates (LLVM's `SetVector`).
///
/// Most sets are built from one expansion or a slice of one (`(shl VGPR_32,
/// 1)`) and only read: their elements are known to be distinct, so nothing
/// is hashed until a set is asked whether it holds something (small sets
/// answer by a scan, large ones hash what they hold then, once).
#[derive(Clone, Debug, Default)]
pub struct RecSet {
    pub items: Vec<Elem>,
    /// `items[..indexed]`, once a large set was asked.
    seen: HashSet<Elem>,
    indexed: usize,
}

/// Sets up to this size answer membership by a scan.
const SCAN: usize = 16;

impl RecSet {
    pub fn insert(&mut self, e: Elem) {
        if !self.contains(&e) {
            self.items.push(e);
        }
    }
    pub fn extend<I: IntoIterator<Item = Elem>>(&mut self, it: I) {
        let it = it.into_iter();
        let (more, _) = it.size_hint();
        self.items.reserve(more);
        for e in it {
            self.insert(e);
        }
    }
    /// Adds `elems`, which are distinct (an expansion, or part of one).
    pub fn extend_distinct(&mut self, elems: &[Elem]) {
        if self.items.is_empty() {
            self.items.extend_from_slice(elems);
        } else {
            self.extend(elems.iter().copied());
        }
    }
    pub fn contains(&mut self, e: &Elem) -> bool {
        if self.items.len() <= SCAN {
            return self.items.contains(e);
        }
        if self.indexed < self.items.len() {
            self.seen.extend(self.items[self.indexed..].iter().copied());
            self.indexed = self.items.len();
        }
        self.seen.contains(e)
    }
    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

const MAX_DEPTH: u32 = 512;

/// Evaluates set expressions and caches expansions of defs.
pub struct Sets<'a> {
    rk: &'a RecordKeeper,
    expansions: HashMap<RecId, Vec<Elem>>,
    pub synth: Vec<SynthReg>,
    depth: u32,
}

enum Expander {
    Field(&'static str),
    Tuples,
}

impl<'a> Sets<'a> {
    pub fn new(rk: &'a RecordKeeper) -> Self {
        Sets {
            rk,
            expansions: HashMap::default(),
            synth: Vec::new(),
            depth: 0,
        }
    }

    pub fn name(&self, e: Elem) -> &str {
        match e {
            Elem::Rec(id) => self.rk.name(id),
            Elem::Synth(i) => &self.synth[i as usize].name,
        }
    }

    fn expander(&self, id: RecId) -> Option<Expander> {
        let rec = self.rk.record(id);
        for sc in &rec.superclasses {
            match self.rk.name(*sc) {
                "RegisterClass" => return Some(Expander::Field("MemberList")),
                "CalleeSavedRegs" => return Some(Expander::Field("SaveList")),
                "RegisterTuples" => return Some(Expander::Tuples),
                _ => {}
            }
        }
        None
    }

    /// The expansion of a def, if it is a set (class, tuples, saved regs).
    pub fn expand(&mut self, id: RecId) -> Result<Option<Vec<Elem>>, RegsError> {
        if let Some(v) = self.expansions.get(&id) {
            return Ok(Some(v.clone()));
        }
        let Some(exp) = self.expander(id) else {
            return Ok(None);
        };
        // Insert first: this breaks recursive definitions, like LLVM.
        self.expansions.insert(id, Vec::new());
        let mut elts = RecSet::default();
        let span = Some(self.rk.record(id).span);
        match exp {
            Expander::Field(field) => {
                let Some(init) = self.rk.record(id).get(field).cloned() else {
                    return Err(RegsError::field(self.rk, id, field, "is missing"));
                };
                self.evaluate(&init, &mut elts, span)?;
            }
            Expander::Tuples => self.expand_tuples(id, &mut elts)?,
        }
        self.expansions.insert(id, elts.items.clone());
        Ok(Some(elts.items))
    }

    /// Evaluates one set expression into `elts`.
    pub fn evaluate(
        &mut self,
        init: &Init,
        elts: &mut RecSet,
        span: Option<Span>,
    ) -> Result<(), RegsError> {
        if self.depth > MAX_DEPTH {
            return Err(RegsError::Set {
                message: "set expression nested too deeply".into(),
                span,
            });
        }
        self.depth += 1;
        let r = self.evaluate_inner(init, elts, span);
        self.depth -= 1;
        r
    }

    fn evaluate_inner(
        &mut self,
        init: &Init,
        elts: &mut RecSet,
        span: Option<Span>,
    ) -> Result<(), RegsError> {
        match &**init {
            InitKind::Def(id) => {
                // Expanded before (most references are): no copy.
                if let Some(v) = self.expansions.get(id) {
                    elts.extend_distinct(v);
                    return Ok(());
                }
                match self.expand(*id)? {
                    Some(v) => elts.extend_distinct(&v),
                    None => elts.insert(Elem::Rec(*id)),
                }
                Ok(())
            }
            InitKind::List { elems, .. } => {
                for e in elems {
                    self.evaluate(e, elts, span)?;
                }
                Ok(())
            }
            InitKind::Dag { op, args, .. } => {
                let Some(opid) = op.as_def() else {
                    return Err(self.bad(span, "Bad set expression", init));
                };
                let args: Vec<Init> = args.iter().map(|(a, _)| a.clone()).collect();
                let rk = self.rk;
                self.apply(rk.name(opid), init, &args, elts, span)
            }
            _ => Err(self.bad(span, "Invalid set element", init)),
        }
    }

    fn bad(&self, span: Option<Span>, what: &str, init: &Init) -> RegsError {
        RegsError::Set {
            message: format!("{what}: {}", to_string(self.rk, init)),
            span,
        }
    }

    fn eval_new(&mut self, init: &Init, span: Option<Span>) -> Result<RecSet, RegsError> {
        let mut s = RecSet::default();
        self.evaluate(init, &mut s, span)?;
        Ok(s)
    }

    fn int_arg(
        &self,
        expr: &Init,
        arg: &Init,
        what: &str,
        span: Option<Span>,
    ) -> Result<i64, RegsError> {
        match &**arg {
            InitKind::Int(v) => Ok(*v),
            _ => Err(self.bad(span, what, expr)),
        }
    }

    fn apply(
        &mut self,
        op: &str,
        expr: &Init,
        args: &[Init],
        elts: &mut RecSet,
        span: Option<Span>,
    ) -> Result<(), RegsError> {
        match op {
            "add" => {
                for a in args {
                    self.evaluate(a, elts, span)?;
                }
            }
            "sub" => {
                if args.len() < 2 {
                    return Err(self.bad(
                        span,
                        "Set difference needs at least two arguments",
                        expr,
                    ));
                }
                let add = self.eval_new(&args[0], span)?;
                let mut sub = RecSet::default();
                for a in &args[1..] {
                    self.evaluate(a, &mut sub, span)?;
                }
                for e in add.items {
                    if !sub.contains(&e) {
                        elts.insert(e);
                    }
                }
            }
            "and" => {
                if args.len() != 2 {
                    return Err(self.bad(span, "Set intersection requires two arguments", expr));
                }
                let s1 = self.eval_new(&args[0], span)?;
                let mut s2 = self.eval_new(&args[1], span)?;
                for e in s1.items {
                    if s2.contains(&e) {
                        elts.insert(e);
                    }
                }
            }
            "shl" | "trunc" | "rotl" | "rotr" | "decimate" => {
                if args.len() != 2 {
                    return Err(self.bad(span, "Operator requires (Op Set, Int) arguments", expr));
                }
                let set = self.eval_new(&args[0], span)?.items;
                let n = self.int_arg(expr, &args[1], "Second argument must be an integer", span)?;
                match op {
                    "shl" => {
                        if n < 0 {
                            return Err(self.bad(span, "Positive shift required", expr));
                        }
                        if (n as u64) < set.len() as u64 {
                            elts.extend_distinct(&set[n as usize..]);
                        }
                    }
                    "trunc" => {
                        if n < 0 {
                            return Err(self.bad(span, "Positive length required", expr));
                        }
                        let n = (n as u64).min(set.len() as u64) as usize;
                        elts.extend_distinct(&set[..n]);
                    }
                    "rotl" | "rotr" => {
                        if set.is_empty() {
                            return Ok(());
                        }
                        let mut n = if op == "rotr" { n.wrapping_neg() } else { n };
                        let len = set.len() as i64;
                        if n < 0 {
                            n = len - (n.unsigned_abs() % len as u64) as i64;
                        } else {
                            n %= len;
                        }
                        let n = (n as usize).min(set.len());
                        let rotated: Vec<Elem> =
                            set[n..].iter().chain(&set[..n]).copied().collect();
                        elts.extend_distinct(&rotated);
                    }
                    _ => {
                        if n <= 0 {
                            return Err(self.bad(span, "Positive stride required", expr));
                        }
                        let step = usize::try_from(n).unwrap_or(usize::MAX);
                        let kept: Vec<Elem> = set.iter().step_by(step).copied().collect();
                        elts.extend_distinct(&kept);
                    }
                }
            }
            "interleave" => {
                let mut lists = Vec::with_capacity(args.len());
                for a in args {
                    lists.push(self.eval_new(a, span)?.items);
                }
                let max = lists.iter().map(Vec::len).max().unwrap_or(0);
                for n in 0..max {
                    for l in &lists {
                        if let Some(e) = l.get(n) {
                            elts.insert(*e);
                        }
                    }
                }
            }
            "sequence" => self.sequence(expr, args, elts, span)?,
            _ => return Err(self.bad(span, "Unknown set operator", expr)),
        }
        Ok(())
    }

    fn sequence(
        &mut self,
        expr: &Init,
        args: &[Init],
        elts: &mut RecSet,
        span: Option<Span>,
    ) -> Result<(), RegsError> {
        if args.len() > 4 || args.len() < 3 {
            return Err(self.bad(span, "Bad args to (sequence \"Format\", From, To)", expr));
        }
        let mut step: i64 = 1;
        if args.len() == 4 {
            step = self.int_arg(expr, &args[3], "Stride must be an integer", span)?;
        }
        let Some(format) = args[0].as_str().map(str::to_string) else {
            return Err(self.bad(span, "Format must be a string", expr));
        };
        let from = self.int_arg(expr, &args[1], "From must be an integer", span)?;
        if !(0..(1 << 30)).contains(&from) {
            return Err(RegsError::Set {
                message: "From out of range".into(),
                span,
            });
        }
        let to = self.int_arg(expr, &args[2], "To must be an integer", span)?;
        if !(0..(1 << 30)).contains(&to) {
            return Err(RegsError::Set {
                message: "To out of range".into(),
                span,
            });
        }
        if step == 0 {
            return Err(self.bad(span, "Stride must not be zero", expr));
        }
        if from > to {
            step = -step;
        }
        let mut cur = from;
        loop {
            if (step > 0 && cur > to) || (step < 0 && cur < to) {
                break;
            }
            let name = c_format(&format, cur as u32).map_err(|m| RegsError::Set {
                message: format!("{m}: {}", to_string(self.rk, expr)),
                span,
            })?;
            let Some(id) = self.rk.def_id(&name) else {
                return Err(RegsError::Set {
                    message: format!("No def named '{name}': {}", to_string(self.rk, expr)),
                    span,
                });
            };
            match self.expand(id)? {
                Some(v) => elts.extend_distinct(&v),
                None => elts.insert(Elem::Rec(id)),
            }
            cur = match cur.checked_add(step) {
                Some(c) => c,
                None => break,
            };
        }
        Ok(())
    }

    fn expand_tuples(&mut self, def: RecId, elts: &mut RecSet) -> Result<(), RegsError> {
        let rk = self.rk;
        let rec = rk.record(def);
        let span = Some(rec.span);
        let indices = super::list_of_defs(rk, def, "SubRegIndices")?;
        let Some(subregs) = rec.get_list("SubRegs").map(<[Init]>::to_vec) else {
            return Err(RegsError::field(rk, def, "SubRegs", "must be a list"));
        };
        let dim = indices.len();
        if dim != subregs.len() {
            return Err(RegsError::Tuple {
                message: "SubRegIndices and SubRegs size mismatch".into(),
                span,
            });
        }
        if dim < 2 {
            return Err(RegsError::Tuple {
                message: "Tuples must have at least 2 sub-registers".into(),
                span,
            });
        }
        let mut lists = Vec::with_capacity(dim);
        let mut length = usize::MAX;
        for sr in &subregs {
            let s = self.eval_new(sr, span)?.items;
            length = length.min(s.len());
            lists.push(s);
        }
        if length == 0 {
            return Ok(());
        }
        let names = super::list_of_strings(rk, def, "RegAsmNames")?;
        for n in 0..length {
            let members: Vec<Elem> = lists.iter().map(|l| l[n]).collect();
            let name = members
                .iter()
                .map(|&e| self.name(e))
                .collect::<Vec<_>>()
                .join("_");
            let proto = members[0];
            let asm_name = if names.is_empty() {
                String::new()
            } else if let Some(s) = names.get(n) {
                s.clone()
            } else {
                return Err(RegsError::Tuple {
                    message: format!("Register tuple definition missing name for '{name}'."),
                    span,
                });
            };
            let (cost_per_use, artificial, namespace) = match proto {
                Elem::Rec(p) => (
                    super::list_of_ints(rk, p, "CostPerUse")?,
                    rk.record(p).get_bit("isArtificial").unwrap_or(false),
                    rk.record(p)
                        .get_string("Namespace")
                        .unwrap_or("")
                        .to_string(),
                ),
                Elem::Synth(i) => {
                    let s = &self.synth[i as usize];
                    (s.cost_per_use.clone(), s.artificial, s.namespace.clone())
                }
            };
            let id = self.synth.len() as u32;
            self.synth.push(SynthReg {
                name,
                tuple: def,
                proto,
                members,
                asm_name,
                cost_per_use,
                artificial,
                namespace,
            });
            elts.insert(Elem::Synth(id));
        }
        Ok(())
    }
}

/// `printf`-style formatting of one unsigned argument (as `sequence` does).
pub fn c_format(fmt: &str, val: u32) -> Result<String, String> {
    let mut out = String::new();
    let chars: Vec<char> = fmt.chars().collect();
    let mut i = 0;
    let mut used = false;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c != '%' {
            out.push(c);
            continue;
        }
        if chars.get(i) == Some(&'%') {
            out.push('%');
            i += 1;
            continue;
        }
        let (mut zero, mut left, mut plus, mut space, mut alt) =
            (false, false, false, false, false);
        while let Some(&f) = chars.get(i) {
            match f {
                '0' => zero = true,
                '-' => left = true,
                '+' => plus = true,
                ' ' => space = true,
                '#' => alt = true,
                _ => break,
            }
            i += 1;
        }
        let mut width = 0usize;
        while let Some(d) = chars.get(i).and_then(|c| c.to_digit(10)) {
            width = (width * 10 + d as usize).min(4096);
            i += 1;
        }
        let mut prec: Option<usize> = None;
        if chars.get(i) == Some(&'.') {
            i += 1;
            let mut p = 0usize;
            while let Some(d) = chars.get(i).and_then(|c| c.to_digit(10)) {
                p = (p * 10 + d as usize).min(4096);
                i += 1;
            }
            prec = Some(p);
        }
        while matches!(
            chars.get(i),
            Some('l') | Some('h') | Some('z') | Some('j') | Some('t')
        ) {
            i += 1;
        }
        let Some(&conv) = chars.get(i) else {
            return Err("Bad format string".into());
        };
        i += 1;
        if used {
            return Err("Format string takes more than one argument".into());
        }
        used = true;
        let (mut digits, prefix) = match conv {
            'u' => (val.to_string(), ""),
            'd' | 'i' => ((val as i32).to_string(), ""),
            'x' => (format!("{val:x}"), if alt && val != 0 { "0x" } else { "" }),
            'X' => (format!("{val:X}"), if alt && val != 0 { "0X" } else { "" }),
            'o' => (format!("{val:o}"), if alt { "0" } else { "" }),
            _ => return Err(format!("Unsupported conversion '%{conv}' in format string")),
        };
        let mut sign = String::new();
        if let Some(rest) = digits.strip_prefix('-') {
            sign.push('-');
            digits = rest.to_string();
        } else if matches!(conv, 'd' | 'i') && plus {
            sign.push('+');
        } else if matches!(conv, 'd' | 'i') && space {
            sign.push(' ');
        }
        if let Some(p) = prec {
            if p == 0 && val == 0 {
                digits.clear();
            }
            while digits.len() < p {
                digits.insert(0, '0');
            }
        }
        let body_len = sign.len() + prefix.len() + digits.len();
        let pad = width.saturating_sub(body_len);
        if left {
            out.push_str(&sign);
            out.push_str(prefix);
            out.push_str(&digits);
            out.extend(std::iter::repeat_n(' ', pad));
        } else if zero && prec.is_none() {
            out.push_str(&sign);
            out.push_str(prefix);
            out.extend(std::iter::repeat_n('0', pad));
            out.push_str(&digits);
        } else {
            out.extend(std::iter::repeat_n(' ', pad));
            out.push_str(&sign);
            out.push_str(prefix);
            out.push_str(&digits);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::c_format;

    #[test]
    fn formats() {
        assert_eq!(c_format("R%u", 7).unwrap(), "R7");
        assert_eq!(c_format("R%02u", 7).unwrap(), "R07");
        assert_eq!(c_format("X%x_%%", 255).unwrap(), "Xff_%");
        assert!(c_format("%s", 1).is_err());
    }
}
