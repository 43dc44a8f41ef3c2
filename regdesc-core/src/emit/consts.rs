//! Named constants for registers, sub-register indices and classes, each
//! with rustdoc saying what it is.

use std::collections::BTreeMap;
use std::fmt::Write;

use proc_macro2::{Literal, Span, TokenStream};
use quote::quote;

use super::names::{ident, rust_name};
use super::{EmitError, EmitOptions};
use crate::doc::layout;
use crate::target::{Reg, RegClass, SubRegIdx, Target};

/// `#[doc]` attributes, one per line, so that the code reads as `///` lines.
fn doc_attrs(text: &str) -> TokenStream {
    let lines = text.lines().map(|l| format!(" {l}"));
    quote!(#(#[doc = #lines])*)
}

/// rustdoc writes a page named `constant.NAME.html` per constant, and file
/// systems refuse names over 255 bytes: AMD's 1024-bit tuples have Rust
/// names of up to 300 bytes (`VGPR0_VGPR1_…_VGPR31`). Constants named
/// longer than this are `#[doc(hidden)]` (still public and usable; their
/// registers are in the tables and in `regdesc doc`'s site).
const MAX_DOCUMENTED_NAME: usize = 200;

/// `#[doc(hidden)]` for a name rustdoc cannot make a page for.
fn hidden_if_long(id: &proc_macro2::Ident) -> TokenStream {
    if id.to_string().len() > MAX_DOCUMENTED_NAME {
        quote!(#[doc(hidden)])
    } else {
        TokenStream::new()
    }
}

/// At most this many items are listed in a doc comment.
const LIST: usize = 8;

fn listed<'a>(names: impl ExactSizeIterator<Item = &'a str>) -> String {
    let n = names.len();
    let mut s: Vec<&str> = names.take(LIST).collect();
    let more = if n > LIST {
        format!(", … ({n} in all)")
    } else {
        String::new()
    };
    if s.is_empty() {
        s.push("none");
    }
    format!("{}{more}", s.join(", "))
}

/// One Rust name per record; clashes are errors.
fn idents<'a>(
    what: &'static str,
    names: impl Iterator<Item = &'a str>,
) -> Result<Vec<proc_macro2::Ident>, EmitError> {
    let mut seen: BTreeMap<String, &'a str> = BTreeMap::new();
    let mut out = Vec::new();
    for name in names {
        let Some(rust) = rust_name(name) else {
            return Err(EmitError::BadName {
                what,
                name: name.to_string(),
            });
        };
        if let Some(first) = seen.insert(rust.clone(), name) {
            return Err(EmitError::NameClash {
                what,
                first: first.to_string(),
                second: name.to_string(),
                rust,
            });
        }
        out.push(ident(&rust, Span::call_site()));
    }
    Ok(out)
}

/// The rustdoc link to an item's `regdesc doc` page; the path comes from
/// [`crate::doc::layout`], the module that lays out the site.
fn link(opts: &EmitOptions, page: impl FnOnce() -> String) -> String {
    match &opts.doc_url {
        Some(base) => format!(
            "\n\n[Documentation]({}/{})",
            base.trim_end_matches('/'),
            page()
        ),
        None => String::new(),
    }
}

pub(super) fn gen_constants(t: &Target, opts: &EmitOptions) -> Result<TokenStream, EmitError> {
    // Register pages group registers: only needed for links.
    let site = opts.doc_url.as_ref().map(|_| layout::SiteLayout::new(t));
    // Classes holding each register, for the registers' docs.
    let mut classes_of: Vec<Vec<&str>> = vec![Vec::new(); t.registers.len()];
    for c in &t.classes {
        for r in &c.members {
            classes_of[r.0 as usize].push(&c.name);
        }
    }

    let reg_ids = idents("register", t.registers.iter().map(|r| r.name.as_str()))?;
    let regs = t.registers.iter().enumerate().map(|(i, r)| {
        let id = &reg_ids[i];
        let n = Literal::u16_unsuffixed(Reg::new(i).llvm_number() as u16);
        let mut doc = format!("Register `{}`", r.name);
        if !r.asm_name.is_empty() {
            let _ = write!(doc, " (`{}`)", r.asm_name);
        }
        let _ = write!(doc, ": HW encoding {}", r.hw_encoding);
        if let Some(tuple) = &r.tuple {
            let _ = write!(doc, ", made by tuple `{tuple}`");
        }
        if r.artificial {
            doc.push_str(", artificial");
        }
        doc.push('.');
        if !r.sub_regs.is_empty() {
            let subs: Vec<String> = r
                .sub_regs
                .iter()
                .map(|&(x, s)| format!("{} = {}", t.idx(x).name, t.reg(s).name))
                .collect();
            let _ = write!(
                doc,
                "\n\nSub-registers: {}.",
                listed(subs.iter().map(String::as_str))
            );
        }
        let units: Vec<String> = r.units.iter().map(|u| u.0.to_string()).collect();
        let _ = write!(
            doc,
            "\n\nUnits: {}. Classes: {}.",
            listed(units.iter().map(String::as_str)),
            listed(classes_of[i].iter().copied())
        );
        if let Some(site) = &site {
            doc.push_str(&link(opts, || site.register_url(t, Reg(i as u32))));
        }
        let doc = doc_attrs(&doc);
        let hidden = hidden_if_long(id);
        quote! {
            #doc
            #hidden
            pub const #id: ::regdesc_runtime::Reg = ::regdesc_runtime::Reg::new(#n);
        }
    });

    let idx_ids = idents(
        "sub-register index",
        t.sub_reg_indices.iter().map(|i| i.name.as_str()),
    )?;
    let indices = t.sub_reg_indices.iter().enumerate().map(|(i, x)| {
        let id = &idx_ids[i];
        let n = Literal::u16_unsuffixed(SubRegIdx::new(i).llvm_number() as u16);
        let bits = match (x.offset, x.size) {
            (Some(o), Some(s)) => format!("bits [{o}, {})", o as u32 + s as u32),
            _ => "bits unknown".to_string(),
        };
        let origin = match &x.origin {
            crate::target::IndexOrigin::Defined => String::new(),
            crate::target::IndexOrigin::Composite { first, second, .. } => format!(
                " Synthesized: `{}` then `{}`.",
                t.idx(*first).name,
                t.idx(*second).name
            ),
            crate::target::IndexOrigin::Concat { .. } => {
                let parts: Vec<&str> = x
                    .concatenation_of
                    .iter()
                    .map(|&p| t.idx(p).name.as_str())
                    .collect();
                format!(" Synthesized: the concatenation of {}.", parts.join(", "))
            }
        };
        let mut doc = format!(
            "Sub-register index `{}`: {bits}, lanes `{}`.{origin}",
            x.name, x.lane_mask
        );
        doc.push_str(&link(opts, || layout::index_url(t, SubRegIdx(i as u32))));
        let doc = doc_attrs(&doc);
        let hidden = hidden_if_long(id);
        quote! {
            #doc
            #hidden
            pub const #id: ::regdesc_runtime::SubRegIdx = ::regdesc_runtime::SubRegIdx::new(#n);
        }
    });

    let class_ids = idents("register class", t.classes.iter().map(|c| c.name.as_str()))?;
    let classes = t.classes.iter().enumerate().map(|(i, c)| {
        let id = &class_ids[i];
        let n = Literal::u16_unsuffixed(i as u16);
        let members: Vec<&str> = c
            .members
            .iter()
            .map(|&r: &Reg| t.reg(r).name.as_str())
            .collect();
        let size = c
            .default_spill()
            .map_or(String::new(), |s| format!(", {} bits", s.reg_size));
        let mut doc = format!(
            "Register class `{}`: {} register{}{size}, lanes `{}`{}{}.\n\nMembers: {}.",
            c.name,
            c.members.len(),
            if c.members.len() == 1 { "" } else { "s" },
            c.lane_mask,
            if c.allocatable {
                ""
            } else {
                ", not allocatable"
            },
            match &c.origin {
                crate::target::ClassOrigin::Defined => "",
                _ => ", synthesized",
            },
            listed(members.iter().copied())
        );
        doc.push_str(&link(opts, || layout::class_url(t, RegClass(i as u32))));
        let doc = doc_attrs(&doc);
        let hidden = hidden_if_long(id);
        quote! {
            #doc
            #hidden
            pub const #id: ::regdesc_runtime::RegClass = ::regdesc_runtime::RegClass(#n);
        }
    });

    Ok(quote! {
        /// Registers, named after their `.td` records.
        #[allow(non_upper_case_globals)]
        pub mod regs {
            #(#regs)*
        }
        /// Sub-register indices, named after their `.td` records.
        #[allow(non_upper_case_globals)]
        pub mod sub_regs {
            #(#indices)*
        }
        /// Register classes, named after their `.td` records (or the names
        /// LLVM gives the classes it synthesizes).
        #[allow(non_upper_case_globals)]
        pub mod classes {
            #(#classes)*
        }
    })
}
