//! The pipeline benchmark's input: a deterministic random LLVM IR function
//! of about `n` instructions, inside the subset `regdesc_codegen::read_module`
//! reads and ref32 compiles.
//!
//! `define i128 @f(i32 %a0, i64 %b0, i128 %c0, i32 %a1, i64 %b1, i128 %c1)`
//! (14 argument words, within ref32's 32) is a sequence of regions until
//! the function has `n` instructions, then folds the last value of each
//! type into its `i128` result. A region is
//!
//! - a **straight line** of 4 to 16 instructions on `i32`, `i64` and
//!   `i128` (4 : 3 : 2): `add`/`sub`/`and`/`or`/`xor`, `mul`, shifts by a
//!   constant and by a masked variable amount, `icmp` + `select`, `zext`,
//!   `sext` and `trunc` between the three, operations with a constant;
//! - a **diamond**: a compare, two arms of one or two regions each, and a
//!   `phi` of each type at the join;
//! - a **counted loop** (2 to 9 trips): a header with an `i32` counter and
//!   one accumulator `phi` of each type, a body of one to three regions,
//!   and a latch that counts and branches back.
//!
//! Diamonds and loops nest up to three deep. Operands are mostly among the
//! six values of their type defined last (so a few dozen 32-bit limbs are
//! live at once, near ref32's 64 registers), sometimes (4 %) a value from
//! farther back (long live ranges): one of the last [`Reach`] values of
//! its type still in scope. With a bounded reach a function of 10n
//! instructions is, statistically, ten functions of n one after the other
//! (the values live at once and the live length per instruction do not
//! depend on n), which is what a growth-per-size figure measures. With
//! [`Reach::Scope`] (any value in scope, the generator's first form) the
//! long ranges reach back over the whole function, so the summed live
//! length grows with the square of n. The same `n`, seed and reach give
//! the same text on every machine ([`Rng`] is SplitMix64).

use std::fmt::Write as _;

use regdesc_codegen::rng::Rng;

/// The integer widths used, and their weights.
const WIDTHS: [u32; 3] = [32, 64, 128];
const WEIGHTS: [usize; 3] = [4, 3, 2];
/// How many of the last values of a type an operand is usually taken from.
const WINDOW: usize = 6;
/// How far back a long-range operand reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// One of the last this many values of its type in scope.
    Last(usize),
    /// Any value in scope.
    Scope,
}

/// How deep diamonds and loops nest.
const MAX_DEPTH: usize = 3;

/// A generated function.
pub struct Generated {
    /// The module text (one function, `@f`).
    pub text: String,
    /// Its instructions, as counted while generating.
    pub insts: usize,
}

struct Block {
    label: String,
    phis: Vec<String>,
    body: Vec<String>,
}

struct Gen {
    rng: Rng,
    blocks: Vec<Block>,
    cur: usize,
    /// Values in scope, per width (index into [`WIDTHS`]), oldest first.
    pools: [Vec<String>; 3],
    tmp: usize,
    labels: usize,
    insts: usize,
    reach: Reach,
}

/// About `n` instructions (a little more: the last region is finished).
pub fn generate(n: usize, seed: u64, reach: Reach) -> Generated {
    let mut g = Gen {
        rng: Rng::new(seed),
        blocks: vec![Block {
            label: "entry".into(),
            phis: Vec::new(),
            body: Vec::new(),
        }],
        cur: 0,
        pools: [
            vec!["%a0".into(), "%a1".into()],
            vec!["%b0".into(), "%b1".into()],
            vec!["%c0".into(), "%c1".into()],
        ],
        tmp: 0,
        labels: 0,
        insts: 0,
        reach,
    };
    while g.insts + 5 < n {
        g.region(0);
    }
    g.ret();
    Generated {
        text: g.text(),
        insts: g.insts,
    }
}

/// `v` as a constant of `i{w}` (LLVM reads any in-range signed decimal).
fn konst(w: u32, v: i64) -> String {
    match w {
        32 => (v as i32).to_string(),
        _ => v.to_string(),
    }
}

impl Gen {
    fn fresh(&mut self) -> String {
        self.tmp += 1;
        format!("%v{}", self.tmp)
    }

    fn label(&mut self, what: &str) -> String {
        self.labels += 1;
        format!("{what}{}", self.labels)
    }

    fn emit(&mut self, line: String) {
        self.blocks[self.cur].body.push(line);
        self.insts += 1;
    }

    fn start_block(&mut self, label: String) {
        self.blocks.push(Block {
            label,
            phis: Vec::new(),
            body: Vec::new(),
        });
        self.cur = self.blocks.len() - 1;
    }

    fn cur_label(&self) -> String {
        self.blocks[self.cur].label.clone()
    }

    fn width_index(&mut self) -> usize {
        let total: usize = WEIGHTS.iter().sum();
        let mut r = self.rng.below(total);
        for (k, w) in WEIGHTS.iter().enumerate() {
            if r < *w {
                return k;
            }
            r -= w;
        }
        0
    }

    /// An operand of width index `t`.
    fn pick(&mut self, t: usize) -> String {
        let len = self.pools[t].len();
        let k = if self.rng.chance(4) {
            match self.reach {
                Reach::Scope => self.rng.below(len),
                Reach::Last(r) => len - 1 - self.rng.below(r.min(len)),
            }
        } else {
            len - 1 - self.rng.below(WINDOW.min(len))
        };
        self.pools[t][k].clone()
    }

    fn last(&self, t: usize) -> String {
        self.pools[t][self.pools[t].len() - 1].clone()
    }

    fn small_const(&mut self, w: u32) -> String {
        let v = if self.rng.chance(50) {
            self.rng.below(200) as i64 - 100
        } else {
            self.rng.next() as i64 >> self.rng.below(64)
        };
        konst(w, v)
    }

    fn region(&mut self, depth: usize) {
        let r = self.rng.below(100);
        if depth >= MAX_DEPTH || r < 60 {
            let k = 4 + self.rng.below(13);
            self.straight(k);
        } else if r < 82 {
            self.diamond(depth);
        } else {
            self.counted_loop(depth);
        }
    }

    fn straight(&mut self, k: usize) {
        for _ in 0..k {
            let t = self.width_index();
            let v = self.value(t);
            self.pools[t].push(v);
        }
    }

    /// One value of width index `t` (one or two instructions).
    fn value(&mut self, t: usize) -> String {
        let w = WIDTHS[t];
        let r = self.rng.below(100);
        let d = self.fresh();
        if r < 38 {
            let op = self.rng.pick(&["add", "sub", "and", "or", "xor"]);
            let (x, y) = (self.pick(t), self.pick(t));
            self.emit(format!("{d} = {op} i{w} {x}, {y}"));
        } else if r < 48 {
            let (x, y) = (self.pick(t), self.pick(t));
            self.emit(format!("{d} = mul i{w} {x}, {y}"));
        } else if r < 60 {
            let op = self.rng.pick(&["shl", "lshr", "ashr"]);
            let x = self.pick(t);
            let s = 1 + self.rng.below(w as usize - 1);
            self.emit(format!("{d} = {op} i{w} {x}, {s}"));
        } else if r < 68 {
            let op = self.rng.pick(&["shl", "lshr", "ashr"]);
            let (x, y) = (self.pick(t), self.pick(t));
            let m = self.fresh();
            self.emit(format!("{m} = and i{w} {y}, {}", w - 1));
            self.emit(format!("{d} = {op} i{w} {x}, {m}"));
        } else if r < 80 {
            let c = self.compare();
            let (x, y) = (self.pick(t), self.pick(t));
            self.emit(format!("{d} = select i1 {c}, i{w} {x}, i{w} {y}"));
        } else if r < 90 {
            let s = (t + 1 + self.rng.below(2)) % 3;
            let (ws, x) = (WIDTHS[s], self.pick(s));
            let op = if ws > w {
                "trunc"
            } else if self.rng.chance(50) {
                "zext"
            } else {
                "sext"
            };
            self.emit(format!("{d} = {op} i{ws} {x} to i{w}"));
        } else {
            let op = self.rng.pick(&["add", "sub", "and", "or", "xor", "mul"]);
            let x = self.pick(t);
            let c = self.small_const(w);
            self.emit(format!("{d} = {op} i{w} {x}, {c}"));
        }
        d
    }

    /// An `icmp` of two values of a random width; its `i1` name.
    fn compare(&mut self) -> String {
        let t = self.width_index();
        let w = WIDTHS[t];
        let pred = self.rng.pick(&[
            "eq", "ne", "ult", "ule", "ugt", "uge", "slt", "sle", "sgt", "sge",
        ]);
        let (x, y) = (self.pick(t), self.pick(t));
        let c = self.fresh();
        self.emit(format!("{c} = icmp {pred} i{w} {x}, {y}"));
        c
    }

    fn pool_lens(&self) -> [usize; 3] {
        [
            self.pools[0].len(),
            self.pools[1].len(),
            self.pools[2].len(),
        ]
    }

    fn truncate_pools(&mut self, lens: [usize; 3]) {
        for (p, n) in self.pools.iter_mut().zip(lens) {
            p.truncate(n);
        }
    }

    fn diamond(&mut self, depth: usize) {
        let c = self.compare();
        let (then, els, join) = (self.label("then"), self.label("else"), self.label("join"));
        self.emit(format!("br i1 {c}, label %{then}, label %{els}"));
        let scope = self.pool_lens();
        let mut arms = Vec::new();
        for label in [then, els] {
            self.start_block(label);
            for _ in 0..1 + self.rng.below(2) {
                self.region(depth + 1);
            }
            let lasts = [self.last(0), self.last(1), self.last(2)];
            arms.push((self.cur_label(), lasts));
            self.emit(format!("br label %{join}"));
            self.truncate_pools(scope);
        }
        self.start_block(join);
        for (t, w) in WIDTHS.iter().enumerate() {
            let p = self.fresh();
            let (a, b) = (&arms[0], &arms[1]);
            let line = format!(
                "{p} = phi i{w} [ {}, %{} ], [ {}, %{} ]",
                a.1[t], a.0, b.1[t], b.0
            );
            self.blocks[self.cur].phis.push(line);
            self.insts += 1;
            self.pools[t].push(p);
        }
    }

    fn counted_loop(&mut self, depth: usize) {
        let pre = self.cur_label();
        let (head, exit) = (self.label("loop"), self.label("exit"));
        let inits = [self.pick(0), self.pick(1), self.pick(2)];
        self.emit(format!("br label %{head}"));
        self.start_block(head.clone());
        let header = self.cur;
        let i = self.fresh();
        let accs = [self.fresh(), self.fresh(), self.fresh()];
        for (t, a) in accs.iter().enumerate() {
            self.pools[t].push(a.clone());
        }
        for _ in 0..1 + self.rng.below(3) {
            self.region(depth + 1);
        }
        let next = self.fresh();
        let c = self.fresh();
        let trips = 2 + self.rng.below(8);
        self.emit(format!("{next} = add i32 {i}, 1"));
        self.emit(format!("{c} = icmp ult i32 {next}, {trips}"));
        let latch = self.cur_label();
        let lasts = [self.last(0), self.last(1), self.last(2)];
        self.emit(format!("br i1 {c}, label %{head}, label %{exit}"));
        let mut phis = vec![format!("{i} = phi i32 [ 0, %{pre} ], [ {next}, %{latch} ]")];
        for (t, w) in WIDTHS.iter().enumerate() {
            phis.push(format!(
                "{} = phi i{w} [ {}, %{pre} ], [ {}, %{latch} ]",
                accs[t], inits[t], lasts[t]
            ));
        }
        self.insts += phis.len();
        self.blocks[header].phis = phis;
        self.start_block(exit);
    }

    fn ret(&mut self) {
        let (x, y, z) = (self.last(0), self.last(1), self.last(2));
        let (xe, ye, s, r) = (self.fresh(), self.fresh(), self.fresh(), self.fresh());
        self.emit(format!("{xe} = zext i32 {x} to i128"));
        self.emit(format!("{ye} = zext i64 {y} to i128"));
        self.emit(format!("{s} = xor i128 {xe}, {ye}"));
        self.emit(format!("{r} = xor i128 {s}, {z}"));
        self.emit(format!("ret i128 {r}"));
    }

    fn text(&self) -> String {
        let mut out = String::from(
            "; generated by targets/ref32/benches/pipeline/gen.rs\n\
             define i128 @f(i32 %a0, i64 %b0, i128 %c0, i32 %a1, i64 %b1, i128 %c1) {\n",
        );
        for b in &self.blocks {
            let _ = writeln!(out, "{}:", b.label);
            for l in b.phis.iter().chain(&b.body) {
                let _ = writeln!(out, "  {l}");
            }
        }
        out.push_str("}\n");
        out
    }
}
