//! `duplicate_register`: two tuple definitions (or defs) that build the
//! same register with different sub-register indices. LLVM only reports
//! this as "No SubRegIndex for ..." much later; here it is named.

use std::collections::{BTreeMap, BTreeSet};

use super::context::{list, short, Ctx};
use super::Lint;
use crate::diag::Diagnostic;
use crate::regs::RegId;

/// Reports each pair of definitions once; returns whether any was found.
pub(super) fn duplicates(cx: &Ctx, out: &mut Vec<Diagnostic>) -> bool {
    let before = out.len();
    let bank = cx.bank;
    let mut by_units: BTreeMap<&[u32], Vec<RegId>> = BTreeMap::new();
    for (r, reg) in bank.registers.iter().enumerate() {
        if reg.units.len() > 1 && !reg.explicit_sub_regs.is_empty() {
            by_units
                .entry(reg.units.as_slice())
                .or_default()
                .push(r as RegId);
        }
    }
    // One diagnostic per pair of tuple definitions (or defs).
    let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
    for regs in by_units.values() {
        if regs.len() < 2 {
            continue;
        }
        // Two definitions building the same register: same units *and* same
        // name, which is what llvm-tblgen trips over. Distinct registers over
        // the same units are legitimate (x86's RAX whose only sub-register is
        // EAX; AArch64's W28_W29 and X28_FP pairs).
        let pair = regs.iter().enumerate().find_map(|(k, &a)| {
            regs[k + 1..].iter().copied().find_map(|b| {
                let (ra, rb) = (bank.reg(a), bank.reg(b));
                (ra.name == rb.name && ra.explicit_sub_reg_indices != rb.explicit_sub_reg_indices)
                    .then_some((a, b))
            })
        });
        let Some((a, b)) = pair else { continue };
        let (ra, rb) = (bank.reg(a), bank.reg(b));
        let (oa, ob) = (cx.reg_origin(a), cx.reg_origin(b));
        if !seen.insert((oa.clone(), ob.clone())) {
            continue;
        }
        let ia: Vec<String> = ra
            .explicit_sub_reg_indices
            .iter()
            .map(|&i| bank.idx(i).name.clone())
            .collect();
        let ib: Vec<String> = rb
            .explicit_sub_reg_indices
            .iter()
            .map(|&i| bank.idx(i).name.clone())
            .collect();
        let count = by_units
            .values()
            .filter(|v| v.len() > 1 && cx.reg_origin(v[0]) == oa && cx.reg_origin(v[1]) == ob)
            .count();
        let same_name = ra.name == rb.name;
        let msg = format!(
            "{} and {} produce the same register{} ({} register units) with different sub-register indices",
            oa,
            ob,
            if same_name {
                format!(" {}", short(&ra.name))
            } else {
                format!("s {} and {}", short(&ra.name), short(&rb.name))
            },
            ra.units.len()
        );
        let d = Lint::DuplicateRegister.diagnostic(msg, ra.span)
            .with_label(format!("indices [{}]", list(&ia, 4)))
            .with_related(rb.span, format!("{ob} covers the same units with indices [{}]", list(&ib, 4)))
            .with_help(format!(
                "{count} register(s) are built twice; LLVM only reports \"No SubRegIndex for ...\". Keep one tuple definition per set of registers and put the other view in a register class (e.g. `(add {})`), or give both the same sub-register index structure",
                match cx.bank.reg(a).tuple {
                    Some(t) => cx.rk.name(t).to_string(),
                    None => ra.name.clone(),
                }
            ));
        out.push(d);
    }
    out.len() > before
}
