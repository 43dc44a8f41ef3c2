//! Shared by the machine-IR and allocator tests: the two register files
//! (`tests/regfiles/*.td`, expanded by `regdesc!`), their instruction
//! sets, the pass pipeline with its checks, a random program generator
//! ([`gen`]), its LLVM IR twin ([`llvm_ir`]) and an independent
//! interference checker ([`check`]).

#![allow(dead_code)]

pub mod check;
pub mod gen;
pub mod llvm_ir;

use regdesc_codegen::ir::Source;
use regdesc_codegen::mir::instr::{InstrDesc, Sem};
use regdesc_codegen::mir::interp::{self, Bits};
use regdesc_codegen::mir::parse::parse_mir;
use regdesc_codegen::mir::print::print_function;
use regdesc_codegen::mir::verify::verify_function;
use regdesc_codegen::mir::{phi_elim, two_addr, InstrSet, MFunction};
use regdesc_codegen::regalloc::{self, AllocOptions, AllocStats, GenericSpill};
use regdesc_runtime::RegisterInfo;

/// Eight 32-bit registers, a class of four, a non-allocatable flag register.
pub mod toy {
    regdesc_macros::regdesc!(include "tests/regfiles/toy.td");
}

/// Twelve 32-bit VGPRs of 16-bit halves, pairs (any and even-aligned) and
/// triples.
pub mod amd {
    regdesc_macros::regdesc!(include "tests/regfiles/amdlike.td");
}

/// The generic instruction set plus `CLOBBER` (writes `clobbered`, an
/// allocatable register, without naming it) and `SETFLAG` (writes `flag`,
/// a register outside every allocatable class).
pub fn instr_set<R: RegisterInfo>(ri: &R, clobbered: &str, flag: &str) -> InstrSet {
    let t = ri.tables();
    let mut s = InstrSet::generic();
    if let Some(r) = t.reg_by_name(clobbered) {
        s.add(InstrDesc::new("CLOBBER", 0, &[], Sem::Nop).implicit_def(r));
    }
    if let Some(r) = t.reg_by_name(flag) {
        s.add(InstrDesc::new("SETFLAG", 0, &[], Sem::Nop).implicit_def(r));
    }
    s
}

pub fn toy_instrs() -> InstrSet {
    instr_set(&toy::Toy, "R5", "FLAGS")
}

pub fn amd_instrs() -> InstrSet {
    instr_set(&amd::AMDLike, "V3", "SCC")
}

/// Reads one function, or panics with the rendered diagnostics.
pub fn parse_one<R: RegisterInfo>(text: &str, ri: &R, instrs: &InstrSet) -> MFunction {
    match parse_mir(Source::new("test.mir", text), ri, instrs) {
        Ok(mut fs) if fs.len() == 1 => fs.remove(0),
        Ok(fs) => panic!("{} functions in\n{text}", fs.len()),
        Err(e) => panic!("{}\n{text}", e.render(false)),
    }
}

/// The verifier's complaints, one line each.
pub fn verify<R: RegisterInfo>(f: &MFunction, ri: &R, instrs: &InstrSet) -> Result<(), String> {
    let d = verify_function(f, ri, instrs);
    if d.is_empty() {
        Ok(())
    } else {
        let lines: Vec<String> = d.iter().map(|d| d.message.clone()).collect();
        Err(format!(
            "verifier:\n  {}\n{}",
            lines.join("\n  "),
            print_function(f, ri, instrs)
        ))
    }
}

pub const MAX_STEPS: u64 = 200_000;

/// Runs `f` and returns its results.
pub fn run<R: RegisterInfo>(
    f: &MFunction,
    ri: &R,
    instrs: &InstrSet,
    args: &[u128],
) -> Result<Vec<Bits>, String> {
    interp::run(f, ri, instrs, args, MAX_STEPS)
        .map(|o| o.results)
        .map_err(|e| format!("{e}\n{}", print_function(f, ri, instrs)))
}

/// What the pipeline did to one function.
pub struct Pipeline {
    pub results: Vec<Bits>,
    pub stats: AllocStats,
    pub allocated: MFunction,
}

/// PHI elimination, two-address lowering, allocation (checked by
/// [`check::check_allocation`]) and rewriting, verifying after each and
/// comparing every stage's results with the input's.
pub fn pipeline<R: RegisterInfo>(
    f: &MFunction,
    ri: &R,
    instrs: &InstrSet,
    args: &[u128],
    opts: &AllocOptions,
) -> Result<Pipeline, String> {
    verify(f, ri, instrs)?;
    let expected = run(f, ri, instrs, args)?;
    let same = |stage: &str, g: &MFunction| -> Result<(), String> {
        verify(g, ri, instrs).map_err(|e| format!("after {stage}: {e}"))?;
        let got = run(g, ri, instrs, args).map_err(|e| format!("after {stage}: {e}"))?;
        if got != expected {
            return Err(format!(
                "after {stage}: results {got:?}, expected {expected:?}\n{}",
                print_function(g, ri, instrs)
            ));
        }
        Ok(())
    };
    let mut g = f.clone();
    phi_elim::eliminate_phis(&mut g, instrs);
    same("PHI elimination", &g)?;
    two_addr::lower_two_address(&mut g, ri, instrs).map_err(|d| d.message.clone())?;
    same("two-address lowering", &g)?;
    let hook = GenericSpill { instrs };
    let a = regalloc::assign(&mut g, ri, instrs, &hook, opts)
        .map_err(|e| format!("allocation failed: {e}\n{}", print_function(&g, ri, instrs)))?;
    same("coalescing and spilling", &g)?;
    check::check_allocation(&g, ri, instrs, &a.assignment, &opts.reserved)?;
    let removed = regalloc::rewrite(&mut g, ri, instrs, &a.assignment);
    if !g.props.no_vregs {
        return Err(format!(
            "virtual registers left after rewriting\n{}",
            print_function(&g, ri, instrs)
        ));
    }
    same("rewriting", &g)?;
    let mut stats = a.stats;
    stats.copies_removed = removed;
    Ok(Pipeline {
        results: expected,
        stats,
        allocated: g,
    })
}

/// The benchmarks' input: a random program over the AMD-like register
/// file (seed 7) of at least `n` instructions (and at most about 2 % more)
/// after PHI elimination and two-address lowering, lowered, with the
/// program as generated (and its LLVM IR twin). Its immediates are inline
/// constants (see [`gen::Spec::inline_immediates`]).
pub fn sized_function(n: usize, instrs: &InstrSet) -> (MFunction, gen::Generated) {
    let mut spec = gen::Spec::new(amd::AMDLike, "V1");
    spec.inline_immediates = true;
    let mut size = (n / 2).max(1);
    let mut best: Option<(MFunction, gen::Generated)> = None;
    for tries in 0.. {
        let g = match gen::generate(&spec, instrs, 7, size) {
            Ok(g) => g,
            Err(e) => panic!("{e}"),
        };
        let mut f = g.function.clone();
        phi_elim::eliminate_phis(&mut f, instrs);
        if let Err(d) = two_addr::lower_two_address(&mut f, &spec.ri, instrs) {
            panic!("two-address lowering failed: {}", d.message);
        }
        let got = f.num_insts();
        if got >= n && best.as_ref().is_none_or(|(b, _)| got < b.num_insts()) {
            best = Some((f, g));
        }
        if let Some((b, _)) = &best {
            if b.num_insts() <= n + n / 50 || tries >= 12 {
                break;
            }
        }
        // The count grows about in proportion to the budget.
        let next = (size as f64 * n as f64 / got.max(1) as f64) as usize;
        size = if got < n {
            next.max(size + 1)
        } else {
            next.min(size - 1).max(1)
        };
    }
    match best {
        Some(b) => b,
        None => unreachable!("the loop ends with a function"),
    }
}
