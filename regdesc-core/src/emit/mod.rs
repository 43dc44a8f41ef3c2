//! Rust tables for a register description: what `regdesc!` expands to and
//! `regdesc emit` writes.
//!
//! Built from the consumer model ([`crate::target::Target`]), one `gen_*`
//! function per table, into one self-contained module body:
//!
//! - named constants for every register (`regs::R0`), sub-register index
//!   (`sub_regs::sub0`) and register class (`classes::GPR`), named after the
//!   `.td` records, with rustdoc saying what each is;
//! - `TABLES`, a [`regdesc_runtime::Tables`] of static data (the layout and
//!   its encoding are documented in `regdesc_runtime::tables`);
//! - a unit struct named after the `Target` def implementing
//!   `regdesc_runtime::RegisterInfo`, and the `LaneMask` type, as wide as the
//!   description needs (`u32`, `u64`, `u128`, or `Wide<N>` words).
//!
//! The generated code refers to the runtime as `::regdesc_runtime`.

mod classes;
mod consts;
mod expand;
mod indices;
mod names;
mod pool;
mod regs;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use crate::target::Target;

pub use expand::expand;

/// How to generate.
#[derive(Clone, Debug, Default)]
pub struct EmitOptions {
    /// The narrowest lane storage to use, in bits (32 by default; the LLVM
    /// oracle uses 64 so that masks compare with `LaneBitmask`).
    pub min_lane_bits: u32,
    /// Base URL of the `regdesc doc` site: the rustdoc of generated items
    /// links to their pages.
    pub doc_url: Option<String>,
}

/// Why tables cannot be generated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EmitError {
    /// More items than the table encoding holds.
    #[error("{count} {what} do not fit the generated tables (at most {max})")]
    TooMany {
        what: &'static str,
        count: usize,
        max: usize,
    },
    /// Two records map to the same Rust name.
    #[error("{what} `{first}` and `{second}` have the same Rust name `{rust}`")]
    NameClash {
        what: &'static str,
        first: String,
        second: String,
        rust: String,
    },
    /// A record name that is not an identifier.
    #[error("{what} `{name}` is not a Rust identifier")]
    BadName { what: &'static str, name: String },
}

impl EmitError {
    /// The diagnostic code.
    pub fn code(&self) -> &'static str {
        match self {
            EmitError::TooMany { .. } => "regdesc::emit::too_many",
            EmitError::NameClash { .. } => "regdesc::emit::name_clash",
            EmitError::BadName { .. } => "regdesc::emit::bad_name",
        }
    }

    /// As a diagnostic.
    pub fn to_diagnostic(&self) -> crate::diag::Diagnostic {
        crate::diag::Diagnostic::error(self.code(), self.to_string(), None)
    }
}

/// The lane storage a description gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LaneWidth {
    U32,
    U64,
    U128,
    Words(usize),
}

impl LaneWidth {
    pub(crate) fn for_lanes(num_lanes: u32, min_bits: u32) -> LaneWidth {
        match num_lanes.max(min_bits) {
            0..=32 => LaneWidth::U32,
            33..=64 => LaneWidth::U64,
            65..=128 => LaneWidth::U128,
            n => LaneWidth::Words(n.div_ceil(64) as usize),
        }
    }

    /// The `LaneBits` type.
    pub(crate) fn ty(self) -> TokenStream {
        match self {
            LaneWidth::U32 => quote!(u32),
            LaneWidth::U64 => quote!(u64),
            LaneWidth::U128 => quote!(u128),
            LaneWidth::Words(n) => quote!(::regdesc_runtime::Wide<#n>),
        }
    }

    /// A `LaneMask` constant of this width.
    pub(crate) fn mask(self, m: &crate::lanes::LaneMask) -> TokenStream {
        let w = |i: usize| m.word(i);
        let bits = match self {
            LaneWidth::U32 => {
                let v = proc_macro2::Literal::u32_unsuffixed(w(0) as u32);
                quote!(#v)
            }
            LaneWidth::U64 => {
                let v = proc_macro2::Literal::u64_unsuffixed(w(0));
                quote!(#v)
            }
            LaneWidth::U128 => {
                let v =
                    proc_macro2::Literal::u128_unsuffixed((w(0) as u128) | ((w(1) as u128) << 64));
                quote!(#v)
            }
            LaneWidth::Words(n) => {
                let words = (0..n).map(|i| proc_macro2::Literal::u64_unsuffixed(w(i)));
                quote!(::regdesc_runtime::Wide([#(#words),*]))
            }
        };
        quote!(lm(#bits))
    }
}

/// The module body for `target`.
pub fn module(target: &Target, opts: &EmitOptions) -> Result<TokenStream, EmitError> {
    limits(target)?;
    let width = LaneWidth::for_lanes(target.num_lanes, opts.min_lane_bits);
    let lane_ty = width.ty();
    let consts = consts::gen_constants(target, opts)?;
    let regs = regs::gen_registers(target, width);
    let indices = indices::gen_indices(target, width);
    let classes = classes::gen_classes(target, width);
    let info = info_struct_name(target);
    let target_name = target.name.clone().unwrap_or_default();
    let num_lanes = target.num_lanes;
    let hw_modes = regs::names(target.hw_modes.iter().map(String::as_str));
    let (reg_fields, index_fields, class_fields) = (&regs.fields, &indices.fields, &classes.fields);
    let (reg_items, index_items, class_items) = (&regs.items, &indices.items, &classes.items);
    let doc = format!(
        "The register information of `{}`: pass it to generic code as `&impl RegisterInfo`.",
        if target_name.is_empty() {
            "this description"
        } else {
            &target_name
        }
    );
    Ok(quote! {
        #consts

        /// The lane mask storage of this description.
        pub type LaneBits = #lane_ty;
        /// A set of lanes of this description.
        pub type LaneMask = ::regdesc_runtime::LaneMask<LaneBits>;

        #[doc = #doc]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct #info;

        impl ::regdesc_runtime::RegisterInfo for #info {
            type Lanes = LaneBits;
            fn tables(&self) -> &'static ::regdesc_runtime::Tables<LaneBits> {
                &TABLES
            }
        }

        pub use __regdesc_tables::TABLES;

        #[doc(hidden)]
        #[allow(clippy::all, clippy::pedantic, non_upper_case_globals, dead_code)]
        mod __regdesc_tables {
            use ::regdesc_runtime::tables::{ClassDesc, LaneShift, Names, RegDesc, SpillInfo, Span};
            use ::regdesc_runtime::{Reg, RegClass, Tables};
            pub type LaneBits = #lane_ty;
            type LaneMask = ::regdesc_runtime::LaneMask<LaneBits>;
            const fn lm(b: LaneBits) -> LaneMask {
                ::regdesc_runtime::LaneMask(b)
            }
            const fn r(n: u16) -> Reg {
                Reg::new(n)
            }
            const fn sp(start: u32, len: u32) -> Span {
                Span { start, len }
            }

            #reg_items
            #index_items
            #class_items

            /// The generated tables.
            pub static TABLES: Tables<LaneBits> = Tables {
                target: #target_name,
                num_lanes: #num_lanes,
                hw_modes: #hw_modes,
                #reg_fields
                #index_fields
                #class_fields
            };
        }
    })
}

/// The unit struct implementing `RegisterInfo`: the `Target` def's name.
fn info_struct_name(target: &Target) -> proc_macro2::Ident {
    match target.name.as_deref().and_then(names::rust_name) {
        Some(n) if !n.starts_with("r#") && !n.ends_with('_') => format_ident!("{}", n),
        _ => format_ident!("Registers"),
    }
}

fn limits(t: &Target) -> Result<(), EmitError> {
    let max = u16::MAX as usize - 1;
    for (what, count) in [
        ("registers", t.registers.len()),
        ("sub-register indices", t.sub_reg_indices.len()),
        ("register classes", t.classes.len()),
        ("register units", t.units.len()),
    ] {
        if count > max {
            return Err(EmitError::TooMany { what, count, max });
        }
    }
    Ok(())
}

/// The generated module as formatted Rust source, under `header` (comment
/// lines, e.g. "generated by regdesc emit ..., do not edit").
pub fn file(target: &Target, opts: &EmitOptions, header: &str) -> Result<String, EmitError> {
    let tokens = module(target, opts)?;
    let text = match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(f) => prettyplease::unparse(&f),
        // Never expected: the tokens are generated. Unformatted still compiles.
        Err(_) => tokens.to_string(),
    };
    let mut out = String::new();
    for line in header.lines() {
        out.push_str("// ");
        out.push_str(line);
        out.push('\n');
    }
    out.push('\n');
    out.push_str(&text);
    Ok(out)
}
