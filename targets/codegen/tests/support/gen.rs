//! Random programs in the subset, for the differential tests against
//! `lli`: straight-line functions and functions with a counted loop whose
//! body holds a diamond, carrying values through phis. Every instruction
//! kind of the subset appears; shift amounts are masked below the width
//! and vector indices below 2, so the programs are poison-free. Every
//! computed value in scope at the end is stored to a result slot in global
//! memory, so the memory dump compares all of them.
//!
//! Generation is driven by a seed (a small SplitMix64), so that proptest
//! can shrink the size of a failing program.

#![allow(dead_code)]

use regdesc_codegen::ir::types::{Scalar, Type};
use regdesc_codegen::value::{IntBits, IntValue, ScalarValue, Value};

pub const MEM_SIZE: u64 = 1024;
/// Result slots: [0, DATA) in 32-byte slots; loads and stores in the body use [DATA, MEM_SIZE).
pub const DATA: u64 = 512;
const SLOT: u64 = 32;

pub const TYPES: [Type; 12] = [
    Type::Int(1),
    Type::Int(8),
    Type::Int(16),
    Type::Int(32),
    Type::Int(64),
    Type::Int(128),
    Type::Int(256),
    Type::Half,
    Type::Float,
    Type::Vec2(Scalar::Int(16)),
    Type::Vec2(Scalar::Half),
    Type::Vec2(Scalar::Int(32)),
];

pub use regdesc_codegen::rng::Rng;

/// A random value of `ty`, often an edge case.
pub fn random_value(rng: &mut Rng, ty: Type) -> Value {
    let scalar = |s: Scalar, rng: &mut Rng| -> ScalarValue {
        let w = s.bits();
        let bits = match rng.below(6) {
            0 => IntBits::ZERO,
            1 => IntBits::from(1u8),
            2 => IntBits::MAX,
            3 => IntBits::from(1u8) << (w as usize - 1),
            _ => {
                // Four limbs up to i256 (the sequence existing seeds were
                // drawn with), one per 64 bits above.
                let mut limbs = [0u64; IntBits::LIMBS];
                let drawn = (w.div_ceil(64) as usize).clamp(4, IntBits::LIMBS);
                for l in limbs.iter_mut().take(drawn) {
                    *l = rng.next();
                }
                IntBits::from_limbs(limbs)
            }
        };
        let bits = match s {
            // Keep most floats ordinary; some are NaNs and infinities.
            Scalar::Half | Scalar::Float if rng.chance(70) => {
                let f = (rng.below(2000) as f32 - 1000.0) / 8.0;
                match s {
                    Scalar::Half => IntBits::from(half::f16::from_f32(f).to_bits()),
                    _ => IntBits::from(f.to_bits()),
                }
            }
            _ => bits,
        };
        ScalarValue::from_bits(s, bits)
    };
    match ty {
        Type::Vec2(s) => Value::Vec2([scalar(s, rng), scalar(s, rng)]),
        Type::Int(w) => scalar(Scalar::Int(w), rng).value(),
        Type::Half => scalar(Scalar::Half, rng).value(),
        Type::Float => scalar(Scalar::Float, rng).value(),
        Type::Ptr => Value::Ptr(0),
        Type::Void => Value::bool(false),
    }
}

/// The text of a program being generated.
pub struct Gen {
    pub rng: Rng,
    pub lines: Vec<String>,
    n: usize,
    /// Values in scope: (name, type). Scopes nest as a stack of lengths.
    pub scope: Vec<(String, Type)>,
    /// Values computed (to store at the end), in order.
    pub computed: Vec<(String, Type)>,
    pub params: Vec<Type>,
}

impl Gen {
    pub fn new(seed: u64) -> Self {
        Gen {
            rng: Rng::new(seed),
            lines: Vec::new(),
            n: 0,
            scope: Vec::new(),
            computed: Vec::new(),
            params: Vec::new(),
        }
    }

    fn fresh(&mut self) -> String {
        self.n += 1;
        format!("%v{}", self.n)
    }

    fn emit(&mut self, line: String) {
        self.lines.push(format!("  {line}"));
    }

    /// Defines a value with the instruction text after `= `.
    pub fn def(&mut self, ty: Type, rhs: String) -> String {
        let name = self.fresh();
        self.emit(format!("{name} = {rhs}"));
        self.scope.push((name.clone(), ty));
        self.computed.push((name.clone(), ty));
        name
    }

    /// An operand of type `ty`: a value in scope, or a constant.
    pub fn operand(&mut self, ty: Type) -> String {
        let have: Vec<String> = self
            .scope
            .iter()
            .filter(|(_, t)| *t == ty)
            .map(|(n, _)| n.clone())
            .collect();
        if have.is_empty() || self.rng.chance(15) {
            random_value(&mut self.rng, ty).operand_text()
        } else {
            let i = self.rng.below(have.len());
            have[i].clone()
        }
    }

    /// A value of type `ty` that is not a constant (materialised if needed).
    fn non_constant(&mut self, ty: Type) -> String {
        let o = self.operand(ty);
        if o.starts_with('%') {
            o
        } else {
            let z = Value::zero(ty)
                .map(|v| v.operand_text())
                .unwrap_or_default();
            match ty {
                Type::Int(_) | Type::Vec2(Scalar::Int(_)) => {
                    self.def(ty, format!("xor {ty} {o}, {z}"))
                }
                _ => self.def(ty, format!("select i1 true, {ty} {o}, {ty} {z}")),
            }
        }
    }

    /// `v` with NaNs and infinities replaced by zero, computed with
    /// bitcast/and/icmp/select. Floating-point operands go through this:
    /// LLVM leaves NaN bits unspecified and its x86 back end really does
    /// change them (`fsub x, C` becomes `fadd x, -C`, commuted operands
    /// pick the other NaN), so only finite values meet arithmetic here,
    /// which cannot produce a NaN. (The fixtures check NaN cases where
    /// lli is deterministic.)
    fn finite(&mut self, ty: Type, v: String) -> String {
        match ty {
            Type::Half | Type::Float => {
                let (it, mask, inf) = if ty == Type::Half {
                    ("i16", 0x7fff_u32, 0x7c00_u32)
                } else {
                    ("i32", 0x7fff_ffff, 0x7f80_0000)
                };
                let it_ty = if ty == Type::Half {
                    Type::Int(16)
                } else {
                    Type::Int(32)
                };
                let b = self.def(it_ty, format!("bitcast {ty} {v} to {it}"));
                let m = self.def(it_ty, format!("and {it} {b}, {mask}"));
                let bad = self.def(Type::Int(1), format!("icmp uge {it} {m}, {inf}"));
                let z = Value::zero(ty)
                    .map(|z| z.operand_text())
                    .unwrap_or_default();
                self.def(ty, format!("select i1 {bad}, {ty} {z}, {ty} {v}"))
            }
            Type::Vec2(Scalar::Half) => {
                let mut out = "zeroinitializer".to_string();
                for k in 0..2 {
                    let e = self.def(
                        Type::Half,
                        format!("extractelement <2 x half> {v}, i32 {k}"),
                    );
                    let f = self.finite(Type::Half, e);
                    out = self.def(
                        ty,
                        format!("insertelement <2 x half> {out}, half {f}, i32 {k}"),
                    );
                }
                out
            }
            _ => v,
        }
    }

    fn int_type(&mut self) -> Type {
        self.rng.pick(&[
            Type::Int(1),
            Type::Int(8),
            Type::Int(16),
            Type::Int(32),
            Type::Int(64),
            Type::Int(128),
            Type::Int(256),
            Type::Vec2(Scalar::Int(16)),
            Type::Vec2(Scalar::Int(32)),
        ])
    }

    fn splat(ty: Type, v: u64) -> String {
        match ty {
            Type::Vec2(s) => format!("<{s} {v}, {s} {v}>"),
            _ => v.to_string(),
        }
    }

    /// One random instruction (sometimes two, for masked operands).
    pub fn step(&mut self, allow_memory: bool) {
        match self.rng.below(if allow_memory { 14 } else { 12 }) {
            0..=2 => {
                let ty = self.int_type();
                let op = self.rng.pick(&["add", "sub", "mul", "and", "or", "xor"]);
                let (a, b) = (self.non_constant(ty), self.operand(ty));
                self.def(ty, format!("{op} {ty} {a}, {b}"));
            }
            3 => {
                let ty = self.int_type();
                let w = ty.scalar().map_or(8, |s| s.bits()) as u64;
                let amt = self.operand(ty);
                let masked = self.def(ty, format!("and {ty} {amt}, {}", Self::splat(ty, w - 1)));
                let op = self.rng.pick(&["shl", "lshr", "ashr"]);
                let v = self.non_constant(ty);
                self.def(ty, format!("{op} {ty} {v}, {masked}"));
            }
            4 => {
                let ty = self
                    .rng
                    .pick(&[Type::Half, Type::Float, Type::Vec2(Scalar::Half)]);
                let op = self.rng.pick(&["fadd", "fsub", "fmul"]);
                let (a, b) = (self.non_constant(ty), self.operand(ty));
                let (a, b) = (self.finite(ty, a), self.finite(ty, b));
                self.def(ty, format!("{op} {ty} {a}, {b}"));
            }
            5 => {
                let ty = self.rng.pick(&[
                    Type::Int(1),
                    Type::Int(8),
                    Type::Int(16),
                    Type::Int(32),
                    Type::Int(64),
                    Type::Int(128),
                    Type::Int(256),
                ]);
                let pred = self.rng.pick(&[
                    "eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle",
                ]);
                let (a, b) = (self.non_constant(ty), self.operand(ty));
                self.def(Type::Int(1), format!("icmp {pred} {ty} {a}, {b}"));
            }
            6 => {
                let ty = self.rng.pick(&TYPES);
                let c = self.non_constant(Type::Int(1));
                let (a, b) = (self.operand(ty), self.operand(ty));
                self.def(ty, format!("select i1 {c}, {ty} {a}, {ty} {b}"));
            }
            7 => {
                // zext / sext / trunc between two integer widths.
                let widths = [1u16, 8, 16, 32, 64, 128, 256];
                let (i, j) = (self.rng.below(7), self.rng.below(7));
                if i == j {
                    return;
                }
                let (from, to) = (Type::Int(widths[i]), Type::Int(widths[j]));
                let v = self.non_constant(from);
                let op = if j < i {
                    "trunc"
                } else if self.rng.chance(50) {
                    "zext"
                } else {
                    "sext"
                };
                self.def(to, format!("{op} {from} {v} to {to}"));
            }
            8 => {
                let groups: [&[Type]; 3] = [
                    &[Type::Int(16), Type::Half],
                    &[
                        Type::Int(32),
                        Type::Float,
                        Type::Vec2(Scalar::Int(16)),
                        Type::Vec2(Scalar::Half),
                    ],
                    &[Type::Int(64), Type::Vec2(Scalar::Int(32))],
                ];
                let g = groups[self.rng.below(3)];
                let (from, to) = (self.rng.pick(g), self.rng.pick(g));
                let v = self.non_constant(from);
                self.def(to, format!("bitcast {from} {v} to {to}"));
            }
            9 => {
                let (wide, narrow) = if self.rng.chance(50) {
                    (Type::Vec2(Scalar::Int(32)), Type::Vec2(Scalar::Int(16)))
                } else {
                    (Type::Vec2(Scalar::Int(16)), Type::Vec2(Scalar::Int(32)))
                };
                let v = self.non_constant(wide);
                let op = match (wide, self.rng.chance(50)) {
                    (Type::Vec2(Scalar::Int(32)), _) => "trunc",
                    (_, true) => "zext",
                    _ => "sext",
                };
                self.def(narrow, format!("{op} {wide} {v} to {narrow}"));
            }
            10 | 11 => {
                let vt = self.rng.pick(&[
                    Type::Vec2(Scalar::Int(16)),
                    Type::Vec2(Scalar::Half),
                    Type::Vec2(Scalar::Int(32)),
                ]);
                let et = vt.scalar().map_or(Type::Int(16), |s| s.ty());
                let idx = if self.rng.chance(50) {
                    format!("i32 {}", self.rng.below(2))
                } else {
                    let x = self.operand(Type::Int(32));
                    let m = self.def(Type::Int(32), format!("and i32 {x}, 1"));
                    format!("i32 {m}")
                };
                let v = self.non_constant(vt);
                if self.rng.chance(50) {
                    self.def(et, format!("extractelement {vt} {v}, {idx}"));
                } else {
                    let e = self.operand(et);
                    self.def(vt, format!("insertelement {vt} {v}, {et} {e}, {idx}"));
                }
            }
            _ => {
                // A load or store in the data area, at a constant or masked
                // offset. (No i1: random bytes are not valid i1s in memory.)
                let ty = self.rng.pick(&TYPES[1..]);
                let off = if self.rng.chance(50) {
                    format!(
                        "{}",
                        DATA + SLOT * self.rng.below(((MEM_SIZE - DATA) / SLOT) as usize) as u64
                    )
                } else {
                    let x = self.operand(Type::Int(64));
                    let m = self.def(
                        Type::Int(64),
                        format!("and i64 {x}, {}", MEM_SIZE - DATA - SLOT),
                    );
                    self.def(Type::Int(64), format!("add i64 {m}, {DATA}"))
                };
                let p = self.def(
                    Type::Ptr,
                    format!("getelementptr i8, ptr addrspace(1) %mem, i64 {off}"),
                );
                if self.rng.chance(60) {
                    self.def(ty, format!("load {ty}, ptr addrspace(1) {p}"));
                } else {
                    let v = self.operand(ty);
                    self.emit(format!("store {ty} {v}, ptr addrspace(1) {p}"));
                }
            }
        }
    }

    /// Stores the last computed values in scope to the result slots.
    fn store_results(&mut self) {
        let in_scope: Vec<(String, Type)> = self
            .computed
            .iter()
            .filter(|(n, t)| *t != Type::Ptr && self.scope.iter().any(|(s, _)| s == n))
            .cloned()
            .collect();
        let slots = (DATA / SLOT) as usize;
        let start = in_scope.len().saturating_sub(slots);
        for (k, (name, ty)) in in_scope[start..].iter().enumerate() {
            let p = self.fresh();
            self.emit(format!(
                "{p} = getelementptr i8, ptr addrspace(1) %mem, i64 {}",
                k as u64 * SLOT
            ));
            self.emit(format!("store {ty} {name}, ptr addrspace(1) {p}"));
        }
    }

    fn header(&mut self, ret: Type) -> String {
        let n = 1 + self.rng.below(4);
        let mut params = vec!["ptr addrspace(1) %mem".to_string()];
        for k in 0..n {
            let ty = self.rng.pick(&TYPES);
            self.params.push(ty);
            self.scope.push((format!("%p{k}"), ty));
            params.push(format!("{ty} %p{k}"));
        }
        format!("define {ret} @f({}) {{", params.join(", "))
    }

    fn ret_value(&mut self, ret: Type) -> String {
        let v = self.operand(ret);
        format!("  ret {ret} {v}")
    }

    /// A straight-line function of about `size` instructions.
    pub fn straight(seed: u64, size: usize) -> (String, Vec<Type>) {
        let mut g = Gen::new(seed);
        let ret = g.rng.pick(&TYPES);
        let head = g.header(ret);
        g.lines.push("entry:".into());
        if g.rng.chance(30) {
            g.def(
                Type::Int(32),
                "call i32 @llvm.amdgcn.workitem.id.x()".into(),
            );
        }
        for _ in 0..size {
            g.step(true);
        }
        g.store_results();
        let r = g.ret_value(ret);
        g.lines.push(r);
        let text = format!(
            "{head}\n{}\n}}\n\ndeclare i32 @llvm.amdgcn.workitem.id.x()\n",
            g.lines.join("\n")
        );
        (text, g.params)
    }

    /// A function with a counted loop (at most 8 trips) around a diamond,
    /// carrying 1–3 values through phis; about `size` instructions in all.
    pub fn looped(seed: u64, size: usize) -> (String, Vec<Type>) {
        let mut g = Gen::new(seed);
        let ret = g.rng.pick(&TYPES);
        let head = g.header(ret);
        let part = size / 4 + 1;
        g.lines.push("entry:".into());
        for _ in 0..part {
            g.step(true);
        }
        let bound = g.operand(Type::Int(32));
        let n = g.def(Type::Int(32), format!("and i32 {bound}, 7"));
        let carried: Vec<(String, Type, String)> = (0..1 + g.rng.below(3))
            .map(|k| {
                let ty = g.rng.pick(&TYPES);
                let init = g.operand(ty);
                (format!("%c{k}"), ty, init)
            })
            .collect();
        g.emit("br label %loop".into());
        g.lines.push("\nloop:".into());
        g.emit("%i = phi i32 [ 0, %entry ], [ %i.next, %latch ]".into());
        for (name, ty, init) in &carried {
            g.emit(format!(
                "{name} = phi {ty} [ {init}, %entry ], [ {name}.next, %latch ]"
            ));
        }
        for (name, ty, _) in &carried {
            g.scope.push((name.clone(), *ty));
        }
        g.scope.push(("%i".into(), Type::Int(32)));
        for _ in 0..part {
            g.step(true);
        }
        let cond = g.non_constant(Type::Int(1));
        g.emit(format!("br i1 {cond}, label %then, label %else"));
        let outer = g.scope.len();
        let mut arms = Vec::new();
        for arm in ["then", "else"] {
            g.lines.push(format!("\n{arm}:"));
            for _ in 0..part / 2 + 1 {
                g.step(true);
            }
            let picks: Vec<String> = carried.iter().map(|(_, ty, _)| g.operand(*ty)).collect();
            arms.push(picks);
            g.emit("br label %latch".into());
            g.scope.truncate(outer);
        }
        g.lines.push("\nlatch:".into());
        for (k, (name, ty, _)) in carried.iter().enumerate() {
            g.emit(format!(
                "{name}.next = phi {ty} [ {}, %then ], [ {}, %else ]",
                arms[0][k], arms[1][k]
            ));
            g.scope.push((format!("{name}.next"), *ty));
            g.computed.push((format!("{name}.next"), *ty));
        }
        g.emit("%i.next = add i32 %i, 1".into());
        g.emit(format!("%more = icmp ult i32 %i.next, {n}"));
        g.emit("br i1 %more, label %loop, label %exit".into());
        g.lines.push("\nexit:".into());
        g.store_results();
        let r = g.ret_value(ret);
        g.lines.push(r);
        let text = format!(
            "{head}\n{}\n}}\n\ndeclare i32 @llvm.amdgcn.workitem.id.x()\n",
            g.lines.join("\n")
        );
        (text, g.params)
    }
}

/// Random arguments for `params` (after `%mem`), one set per lane.
pub fn random_args(
    seed: u64,
    params: &[Type],
    lanes: u32,
) -> Vec<regdesc_codegen::interp::LaneArg> {
    let mut rng = Rng::new(seed ^ 0x5555_5555);
    let mut args = vec![regdesc_codegen::interp::LaneArg::Uniform(Value::Ptr(0))];
    for ty in params {
        let per_lane: Vec<Value> = (0..lanes).map(|_| random_value(&mut rng, *ty)).collect();
        args.push(regdesc_codegen::interp::LaneArg::PerLane(per_lane));
    }
    args
}

/// Random initial memory.
pub fn random_memory(seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed ^ 0xAAAA);
    (0..MEM_SIZE).map(|_| rng.next() as u8).collect()
}

/// `IntValue` is re-exported for tests that build values by hand.
pub fn int(width: u16, v: i128) -> IntValue {
    IntValue::from_i128(width, v)
}
