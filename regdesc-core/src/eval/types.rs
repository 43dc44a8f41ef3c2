//! Type relations between [`RecTy`]s, as llvm-tblgen defines them.

use std::rc::Rc;

use super::record::{RecId, RecTy, RecordKeeper};

impl RecTy {
    pub fn list_of(self) -> RecTy {
        RecTy::List(Rc::new(self))
    }

    /// The type as llvm-tblgen prints it.
    pub fn display(&self, rk: &RecordKeeper) -> String {
        let mut s = String::new();
        self.write(rk, &mut s);
        s
    }

    pub fn write(&self, rk: &RecordKeeper, out: &mut String) {
        match self {
            RecTy::Bit => out.push_str("bit"),
            RecTy::Bits(n) => {
                out.push_str("bits<");
                out.push_str(&n.to_string());
                out.push('>');
            }
            RecTy::Int => out.push_str("int"),
            RecTy::String => out.push_str("string"),
            RecTy::Dag => out.push_str("dag"),
            RecTy::List(e) => {
                out.push_str("list<");
                e.write(rk, out);
                out.push('>');
            }
            RecTy::Record(classes) => {
                if classes.len() == 1 {
                    out.push_str(rk.name(classes[0]));
                } else {
                    out.push('{');
                    for (i, c) in classes.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        out.push_str(rk.name(*c));
                    }
                    out.push('}');
                }
            }
        }
    }
}

/// Builds a record type from a set of classes: sorted by name, like llvm-tblgen.
pub fn record_ty(rk: &RecordKeeper, mut classes: Vec<RecId>) -> RecTy {
    classes.sort_by(|a, b| rk.name(*a).cmp(rk.name(*b)));
    classes.dedup();
    RecTy::Record(classes.into())
}

/// The direct superclasses of a record, in llvm-tblgen's order (last first).
pub fn direct_superclasses(rk: &RecordKeeper, rec: RecId) -> Vec<RecId> {
    let mut out = Vec::new();
    let mut scs: &[RecId] = &rk.record(rec).superclasses;
    while let Some(&sc) = scs.last() {
        let drop = 1 + rk.record(sc).superclasses.len();
        scs = &scs[..scs.len().saturating_sub(drop)];
        out.push(sc);
    }
    out
}

/// The type of a def (`DefInit`): its direct superclasses.
///
/// Cached per record, together with the number of superclasses it was
/// computed from: a def under construction (`def F0 : Fa, Fb<F0>, Fc<F0>`)
/// is referenced while its superclasses are still being added.
pub fn def_type(rk: &RecordKeeper, rec: RecId) -> RecTy {
    let r = rk.record(rec);
    let supers = r.superclasses.len();
    let cacheable = !r.is_class && supers > 0;
    if cacheable {
        if let Some(Some((n, t))) = rk.def_types.borrow().get(rec as usize) {
            if *n == supers {
                return t.clone();
            }
        }
    }
    let mut t = record_ty(rk, direct_superclasses(rk, rec));
    if cacheable {
        // Most defs share their type with many others: keep one copy.
        t = {
            let mut shared = rk.def_type_set.borrow_mut();
            match shared.get(&t) {
                Some(s) => s.clone(),
                None => {
                    shared.insert(t.clone());
                    t
                }
            }
        };
        let mut c = rk.def_types.borrow_mut();
        if c.len() <= rec as usize {
            c.resize(rec as usize + 1, None);
        }
        c[rec as usize] = Some((supers, t.clone()));
    }
    t
}

fn is_subclass(rk: &RecordKeeper, rec: RecId, class: RecId) -> bool {
    rec == class || rk.record(rec).is_subclass_of(class)
}

/// `typeIsConvertibleTo`.
pub fn convertible(rk: &RecordKeeper, from: &RecTy, to: &RecTy) -> bool {
    use RecTy::*;
    match (from, to) {
        (Bit, Bit | Int) => true,
        (Bit, Bits(n)) => *n == 1,
        (Bits(n), Bits(m)) => n == m,
        (Bits(n), Bit) => *n == 1,
        (Bits(_), Int) => true,
        (Int, Bit | Bits(_) | Int) => true,
        (String, String) => true,
        (Dag, Dag) => true,
        (List(a), List(b)) => convertible(rk, a, b),
        (Record(a), Record(b)) => {
            a == b
                || b.iter()
                    .all(|t| a.iter().any(|&mine| is_subclass(rk, mine, *t)))
        }
        _ => false,
    }
}

/// `typeIsA`.
pub fn type_is_a(rk: &RecordKeeper, a: &RecTy, b: &RecTy) -> bool {
    match (a, b) {
        (RecTy::List(x), RecTy::List(y)) => type_is_a(rk, x, y),
        (RecTy::Record(_), _) => convertible(rk, a, b),
        _ => a == b,
    }
}

/// `resolveTypes`: the common type of two types, if any.
pub fn resolve_types(rk: &RecordKeeper, t1: &RecTy, t2: &RecTy) -> Option<RecTy> {
    if t1 == t2 {
        return Some(t1.clone());
    }
    if let (RecTy::Record(a), RecTy::Record(_)) = (t1, t2) {
        let mut common = Vec::new();
        let mut stack: Vec<RecId> = a.to_vec();
        while let Some(r) = stack.pop() {
            if record_ty_is_subclass_of(rk, t2, r) {
                common.push(r);
            } else {
                stack.extend(direct_superclasses(rk, r));
            }
        }
        return Some(record_ty(rk, common));
    }
    if convertible(rk, t1, t2) {
        return Some(t2.clone());
    }
    if convertible(rk, t2, t1) {
        return Some(t1.clone());
    }
    if let (RecTy::List(a), RecTy::List(b)) = (t1, t2) {
        return resolve_types(rk, a, b).map(RecTy::list_of);
    }
    None
}

/// Is some class of the record type `ty` the class `class` or derived from it?
pub fn record_ty_is_subclass_of(rk: &RecordKeeper, ty: &RecTy, class: RecId) -> bool {
    match ty {
        RecTy::Record(cs) => cs.iter().any(|&c| is_subclass(rk, c, class)),
        _ => false,
    }
}
