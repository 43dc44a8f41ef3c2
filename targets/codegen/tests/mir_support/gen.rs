//! Random machine programs in SSA form over any register description: the
//! classes, widths and sub-register indices to use are read from the
//! tables, so the same generator serves both register files.
//!
//! A program takes arguments (`ARG`), reads a live-in physical register,
//! computes with every generic opcode (three-address, tied, early-clobber,
//! compares, selects), takes parts of wide values (`%t.sub1`,
//! `%v.lo16`), builds tuples (`REG_SEQUENCE`), clobbers an allocatable
//! register and a flag register implicitly, branches (diamonds joined by
//! PHIs) and loops (counted, carrying values in PHIs), and returns many
//! values at once so that registers run out.
//!
//! Every program has an equivalent LLVM IR function, made from the parsed
//! program by [`super::llvm_ir::to_llvm_ir`] (the allocator's tests
//! compare the allocated program with it, and the benchmark gives it to
//! `llc`). So that it can be said in the IR subset, shifts are only made
//! on power-of-two widths.

use regdesc_codegen::mir::widths::{class_width, index_width};
use regdesc_runtime::{LaneMask, RegClass, RegisterInfo, SubRegIdx};

pub use regdesc_codegen::rng::Rng;

/// A class the generator puts values in.
#[derive(Clone, Debug)]
pub struct Kind {
    pub class: RegClass,
    pub name: &'static str,
    pub width: u32,
    /// Sub-register indices every register of the class has, with widths.
    pub subs: Vec<(SubRegIdx, &'static str, u32)>,
}

/// What the generator knows of a register file.
pub struct Spec<R: RegisterInfo> {
    pub kinds: Vec<Kind>,
    /// A physical register read at the entry (a live-in).
    pub live_in: (&'static str, usize),
    pub ri: R,
    /// `MOVI` immediates between -16 and 64 (AMD's inline constants)
    /// instead of any 64-bit value. The benchmark sets it: LLVM 14's
    /// `SI Fold Operands` does not terminate on some of these programs
    /// when a 32-bit literal feeds VALU ops in several blocks
    /// (`bench/llc14-si-fold-operands-hang.ll`), and it compiles them
    /// with `llc`.
    pub inline_immediates: bool,
}

impl<R: RegisterInfo> Spec<R> {
    /// Every allocatable class at most 128 bits wide; `live_in` names a
    /// register and the kind to copy it into.
    pub fn new(ri: R, live_in: &'static str) -> Spec<R> {
        Spec::with_reserved(ri, live_in, &[])
    }

    /// Like [`Spec::new`], leaving out classes that have fewer than four
    /// pairwise disjoint registers outside `reserved` (an instruction
    /// with three operands of such a class, next to a live-in or a
    /// clobber, may have no allocation at all).
    pub fn with_reserved(ri: R, live_in: &'static str, reserved: &[&str]) -> Spec<R> {
        let t = ri.tables();
        let reserved: Vec<_> = reserved.iter().filter_map(|n| t.reg_by_name(n)).collect();
        let mut kinds = Vec::new();
        for c in t.all_classes() {
            if !t.is_allocatable(c) || ri.allocation_order(c).is_empty() {
                continue;
            }
            let Some(width) = class_width(&ri, c).filter(|&w| w <= 128) else {
                continue;
            };
            let mut disjoint: Vec<regdesc_runtime::Reg> = Vec::new();
            for &r in ri.allocation_order(c) {
                let free = !reserved
                    .iter()
                    .chain(&disjoint)
                    .any(|&x| t.regs_overlap(x, r));
                if free {
                    disjoint.push(r);
                }
            }
            if disjoint.len() < 4 {
                continue;
            }
            let subs = t
                .all_sub_reg_indices()
                .filter(|&i| t.sub_class_with_sub_reg(c, i) == Some(c))
                .filter_map(|i| Some((i, t.sub_reg_index_name(i), index_width(&ri, i)?)))
                .collect();
            kinds.push(Kind {
                class: c,
                name: t.class_name(c),
                width,
                subs,
            });
        }
        let live_kind = t
            .reg_by_name(live_in)
            .and_then(|r| kinds.iter().position(|k| t.contains(k.class, r)))
            .unwrap_or(0);
        Spec {
            kinds,
            live_in: (live_in, live_kind),
            ri,
            inline_immediates: false,
        }
    }
}

/// A value in scope: its register number and kind.
#[derive(Clone, Copy, Debug)]
struct Val {
    reg: u32,
    kind: usize,
}

struct Gen<'a, R: RegisterInfo> {
    spec: &'a Spec<R>,
    rng: Rng,
    blocks: Vec<Vec<String>>,
    cur: usize,
    next: u32,
    scope: Vec<Val>,
    args: usize,
    budget: usize,
}

const BINOPS: [&str; 13] = [
    "ADD", "SUB", "MUL", "AND", "OR", "XOR", "SHL", "LSHR", "ASHR", "ADD2", "SUB2", "XOR2", "MULX",
];
const NON_SHIFT_BINOPS: [&str; 10] = [
    "ADD", "SUB", "MUL", "AND", "OR", "XOR", "ADD2", "SUB2", "XOR2", "MULX",
];
const CMPS: [&str; 4] = ["CMPEQ", "CMPNE", "CMPULT", "CMPSLT"];

/// A random program of about `size` instructions and the number of
/// arguments it reads.
pub fn program<R: RegisterInfo>(spec: &Spec<R>, seed: u64, size: usize) -> (String, usize) {
    let mut g = Gen {
        spec,
        rng: Rng::new(seed),
        blocks: vec![Vec::new()],
        cur: 0,
        next: 0,
        scope: Vec::new(),
        args: 0,
        budget: size,
    };
    let n_args = 2 + g.rng.below(4);
    for _ in 0..n_args {
        let k = g.rng.below(spec.kinds.len());
        let r = g.def(k, &format!("ARG {}", g.args));
        g.args += 1;
        g.scope.push(Val { reg: r, kind: k });
    }
    let (name, k) = spec.live_in;
    let r = g.def(k, &format!("COPY ${name}"));
    g.scope.push(Val { reg: r, kind: k });
    while g.budget > 0 {
        g.stmts(0);
    }
    // Fold many values into one per width (keeping them all live until
    // here), and return the folds.
    let n = 1 + g.rng.below(12);
    let mut folds: Vec<(u32, String)> = Vec::new();
    for _ in 0..n {
        let w = g.pick_width();
        let Some(o) = g.operand(w) else { continue };
        let Some(k) = g.kind_of_width(w) else {
            continue;
        };
        match folds.iter().position(|(fw, _)| *fw == w) {
            None => folds.push((w, o)),
            Some(i) => {
                let prev = folds[i].1.clone();
                let r = g.def(k, &format!("XOR {prev}, {o}"));
                folds[i].1 = format!("%{r}");
            }
        }
    }
    let ops: Vec<String> = folds.into_iter().map(|(_, o)| o).collect();
    g.emit(format!("RET {}", ops.join(", ")));
    let mut text = String::from("function @f {\n");
    for (i, b) in g.blocks.iter().enumerate() {
        text.push_str(&format!("bb.{i}:\n"));
        for l in b {
            text.push_str("  ");
            text.push_str(l);
            text.push('\n');
        }
    }
    text.push_str("}\n");
    (text, g.args)
}

/// Random argument values.
pub fn args(seed: u64, n: usize) -> Vec<u128> {
    let mut rng = Rng::new(seed ^ 0xA5A5);
    (0..n)
        .map(|_| (rng.next() as u128) | ((rng.next() as u128) << 64))
        .collect()
}

impl<R: RegisterInfo> Gen<'_, R> {
    fn emit(&mut self, s: String) {
        self.blocks[self.cur].push(s);
    }

    fn new_block(&mut self) -> usize {
        self.blocks.push(Vec::new());
        self.blocks.len() - 1
    }

    fn fresh(&mut self) -> u32 {
        self.next += 1;
        self.next - 1
    }

    /// `%N:Class = text`; returns N.
    fn def(&mut self, kind: usize, text: &str) -> u32 {
        let r = self.fresh();
        let name = self.spec.kinds[kind].name;
        self.emit(format!("%{r}:{name} = {text}"));
        r
    }

    fn kind_of_width(&mut self, w: u32) -> Option<usize> {
        let ks: Vec<usize> = (0..self.spec.kinds.len())
            .filter(|&k| self.spec.kinds[k].width == w)
            .collect();
        (!ks.is_empty()).then(|| ks[self.rng.below(ks.len())])
    }

    fn pick_width(&mut self) -> u32 {
        let v = self.scope[self.rng.below(self.scope.len())];
        let k = &self.spec.kinds[v.kind];
        if !k.subs.is_empty() && self.rng.chance(40) {
            k.subs[self.rng.below(k.subs.len())].2
        } else {
            k.width
        }
    }

    /// A value of `w` bits in scope: a whole register or a part of one,
    /// among the latest 48 values and a few of the 400 before them (so
    /// that big programs stay linear to generate, and their live ranges
    /// bounded as in real code).
    fn operand(&mut self, w: u32) -> Option<String> {
        let mut options: Vec<String> = Vec::new();
        let n = self.scope.len();
        let mut picks: Vec<usize> = (n.saturating_sub(48)..n).collect();
        let older = n.saturating_sub(48).min(400);
        for _ in 0..8.min(older) {
            picks.push(n - 48 - 1 - self.rng.below(older));
        }
        for v in picks.into_iter().map(|i| self.scope[i]) {
            let k = &self.spec.kinds[v.kind];
            if k.width == w {
                options.push(format!("%{}", v.reg));
            }
            for &(_, name, sw) in &k.subs {
                if sw == w {
                    options.push(format!("%{}.{name}", v.reg));
                }
            }
        }
        (!options.is_empty()).then(|| options.swap_remove(self.rng.below(options.len())))
    }

    fn stmts(&mut self, depth: usize) {
        let n = 1 + self.rng.below(8);
        for _ in 0..n {
            if self.budget == 0 {
                return;
            }
            self.budget -= 1;
            match self.rng.below(100) {
                0..=44 => self.arith(),
                45..=54 => self.copy(),
                55..=64 => self.reg_sequence(),
                65..=69 => self.compare_select(),
                70..=72 => {
                    let name = if self.rng.chance(50) {
                        "CLOBBER"
                    } else {
                        "SETFLAG"
                    };
                    self.emit(name.to_string());
                }
                73..=76 => {
                    let k = self.rng.below(self.spec.kinds.len());
                    let imm = if self.spec.inline_immediates {
                        self.rng.below(81) as i128 - 16
                    } else {
                        self.rng.next() as i64 as i128
                    };
                    let r = self.def(k, &format!("MOVI {imm}"));
                    self.scope.push(Val { reg: r, kind: k });
                }
                77..=88 if depth < 3 => self.diamond(depth),
                89..=99 if depth < 2 => self.looped(depth),
                _ => self.arith(),
            }
        }
    }

    fn arith(&mut self) {
        let w = self.pick_width();
        let Some(k) = self.kind_of_width(w) else {
            return;
        };
        let (Some(a), Some(b)) = (self.operand(w), self.operand(w)) else {
            return;
        };
        // Shifts take their amount modulo the width; the LLVM IR twin
        // (`llvm_ir.rs`) can only say that for powers of two.
        let ops: &[&str] = if w.is_power_of_two() {
            &BINOPS
        } else {
            &NON_SHIFT_BINOPS
        };
        let op = ops[self.rng.below(ops.len())];
        let r = self.def(k, &format!("{op} {a}, {b}"));
        self.scope.push(Val { reg: r, kind: k });
    }

    fn copy(&mut self) {
        let w = self.pick_width();
        let Some(k) = self.kind_of_width(w) else {
            return;
        };
        let Some(a) = self.operand(w) else { return };
        let r = self.def(k, &format!("COPY {a}"));
        self.scope.push(Val { reg: r, kind: k });
    }

    fn compare_select(&mut self) {
        let w = self.pick_width();
        let (Some(a), Some(b)) = (self.operand(w), self.operand(w)) else {
            return;
        };
        let ck = self.rng.below(self.spec.kinds.len());
        let cmp = CMPS[self.rng.below(CMPS.len())];
        let c = self.def(ck, &format!("{cmp} {a}, {b}"));
        self.scope.push(Val { reg: c, kind: ck });
        let w2 = self.pick_width();
        let Some(k) = self.kind_of_width(w2) else {
            return;
        };
        let (Some(x), Some(y)) = (self.operand(w2), self.operand(w2)) else {
            return;
        };
        let r = self.def(k, &format!("SELECT %{c}, {x}, {y}"));
        self.scope.push(Val { reg: r, kind: k });
    }

    /// A tuple from parts: indices whose lanes cover the class.
    fn reg_sequence(&mut self) {
        let tuple_kinds: Vec<usize> = (0..self.spec.kinds.len())
            .filter(|&k| !self.spec.kinds[k].subs.is_empty())
            .collect();
        if tuple_kinds.is_empty() {
            return self.arith();
        }
        let k = tuple_kinds[self.rng.below(tuple_kinds.len())];
        let t = self.spec.ri.tables();
        let kind = self.spec.kinds[k].clone();
        let full = {
            let m = t.class_lane_mask(kind.class);
            if m.is_none() {
                LaneMask::ALL
            } else {
                m
            }
        };
        let mut order: Vec<usize> = (0..kind.subs.len()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, self.rng.below(i + 1));
        }
        let mut covered = LaneMask::NONE;
        let mut parts = Vec::new();
        for i in order {
            let (idx, name, w) = kind.subs[i];
            let m = t.sub_reg_index_lane_mask(idx) & full;
            if m.intersects(covered) {
                continue;
            }
            let Some(o) = self.operand(w) else { continue };
            covered |= m;
            parts.push(format!("{o}, %subreg.{name}"));
        }
        if covered != full || parts.is_empty() {
            return self.arith();
        }
        let r = self.def(k, &format!("REG_SEQUENCE {}", parts.join(", ")));
        self.scope.push(Val { reg: r, kind: k });
    }

    fn diamond(&mut self, depth: usize) {
        let w = self.pick_width();
        let Some(c) = self.operand(w) else { return };
        let (t, e) = (self.new_block(), self.new_block());
        self.emit(format!("BRCOND {c}, %bb.{t}, %bb.{e}"));
        let base = self.scope.len();
        self.cur = t;
        self.stmts(depth + 1);
        let t_end = self.cur;
        let t_tail = self.scope.split_off(base);
        self.cur = e;
        self.stmts(depth + 1);
        let e_end = self.cur;
        let e_tail = self.scope.split_off(base);
        let j = self.new_block();
        self.blocks[t_end].push(format!("BR %bb.{j}"));
        self.blocks[e_end].push(format!("BR %bb.{j}"));
        self.cur = j;
        let n = 1 + self.rng.below(3);
        let mut phis = Vec::new();
        for _ in 0..n {
            let k = self.rng.below(self.spec.kinds.len());
            let w = self.spec.kinds[k].width;
            self.scope.extend_from_slice(&t_tail);
            let a = self.operand(w);
            self.scope.truncate(base);
            self.scope.extend_from_slice(&e_tail);
            let b = self.operand(w);
            self.scope.truncate(base);
            if let (Some(a), Some(b)) = (a, b) {
                let r = self.fresh();
                let name = self.spec.kinds[k].name;
                self.blocks[j].push(format!(
                    "%{r}:{name} = PHI {a}, %bb.{t_end}, {b}, %bb.{e_end}"
                ));
                phis.push(Val { reg: r, kind: k });
            }
        }
        // The values that dominate the join, and the PHIs.
        self.scope.extend(phis);
    }

    fn looped(&mut self, depth: usize) {
        let Some(ck) = self.kind_of_width(32) else {
            return;
        };
        let cname = self.spec.kinds[ck].name;
        let zero = self.def(ck, "MOVI 0");
        let one = self.def(ck, "MOVI 1");
        let trips = 1 + self.rng.below(4);
        let lim = self.def(ck, &format!("MOVI {trips}"));
        let pre = self.cur;
        let h = self.new_block();
        self.emit(format!("BR %bb.{h}"));
        self.cur = h;
        let i = self.fresh();
        let inext = self.fresh();
        // Carried values: (phi, latch value, kind, initial operand).
        let mut carried = Vec::new();
        for _ in 0..1 + self.rng.below(3) {
            let k = self.rng.below(self.spec.kinds.len());
            let Some(init) = self.operand(self.spec.kinds[k].width) else {
                continue;
            };
            let (p, q) = (self.fresh(), self.fresh());
            carried.push((p, q, k, init));
        }
        self.scope.push(Val { reg: i, kind: ck });
        for &(p, _, k, _) in &carried {
            self.scope.push(Val { reg: p, kind: k });
        }
        self.stmts(depth + 1);
        for &(p, q, k, _) in &carried {
            let w = self.spec.kinds[k].width;
            let src = self.operand(w).unwrap_or_else(|| format!("%{p}"));
            let name = self.spec.kinds[k].name;
            self.emit(format!("%{q}:{name} = COPY {src}"));
        }
        self.emit(format!("%{inext}:{cname} = ADD %{i}, %{one}"));
        let c = self.fresh();
        self.emit(format!("%{c}:{cname} = CMPULT %{inext}, %{lim}"));
        let x = self.new_block();
        self.emit(format!("BRCOND %{c}, %bb.{h}, %bb.{x}"));
        let latch = self.cur;
        let mut phis = vec![format!(
            "%{i}:{cname} = PHI %{zero}, %bb.{pre}, %{inext}, %bb.{latch}"
        )];
        for &(p, q, k, ref init) in &carried {
            let name = self.spec.kinds[k].name;
            phis.push(format!(
                "%{p}:{name} = PHI {init}, %bb.{pre}, %{q}, %bb.{latch}"
            ));
        }
        self.blocks[h].splice(0..0, phis);
        self.cur = x;
    }
}

/// A random program, read, with its LLVM IR twin.
pub struct Generated {
    /// The program's text.
    pub text: String,
    pub function: regdesc_codegen::mir::MFunction,
    /// How many arguments it reads (see [`args`]).
    pub n_args: usize,
    pub ir: super::llvm_ir::IrFunction,
}

/// [`program`], read with [`super::parse_one`] and translated to LLVM IR.
pub fn generate<R: RegisterInfo>(
    spec: &Spec<R>,
    instrs: &regdesc_codegen::mir::InstrSet,
    seed: u64,
    size: usize,
) -> Result<Generated, String> {
    let (text, n_args) = program(spec, seed, size);
    let function = super::parse_one(&text, &spec.ri, instrs);
    let ir = super::llvm_ir::to_llvm_ir(&function, &spec.ri, instrs)
        .map_err(|e| format!("no LLVM IR twin: {e}\n{text}"))?;
    Ok(Generated {
        text,
        function,
        n_args,
        ir,
    })
}
