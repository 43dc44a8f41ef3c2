//! The pipeline every back end runs, as one function: the driver that the
//! command line, the tests and the benchmarks call.
//!
//! 1. uniformity ([`crate::uniformity`]) and **legalize**
//!    ([`crate::legalize`]): generic SSA machine IR on 32-bit limbs;
//! 2. **select**: the target's instructions ([`Target::select`]);
//! 3. **ssa**: the target's SSA passes ([`Target::after_select`]);
//! 4. **phi-elim**: PHIs to copies ([`crate::mir::phi_elim`]);
//! 5. **post-phi**: the target's first non-SSA passes
//!    ([`Target::after_phi_elim`], AMD's SDWA preserve merge);
//! 6. **two-addr**: tied operands ([`crate::mir::two_addr`]);
//! 7. **alloc**: register allocation from the tables
//!    ([`crate::regalloc`]), with the target's spill hook and reserved
//!    registers;
//! 8. **final**: copy lowering and the last target changes
//!    ([`Target::lower_copies`], [`Target::before_emit`]); then emission.
//!
//! With [`Options::verify_each`] (always in debug builds) the machine
//! verifier runs after every stage, so a pass that breaks the program is
//! named at the next stage boundary. After legalization it always runs,
//! and also checks that no value is wider than 32 bits.

use std::fmt;
use std::time::{Duration, Instant};

use crate::diag::Diag;
use crate::ir::Function;
use crate::legalize::{legalize, LegalizeError};
use crate::mir::print::print_function;
use crate::mir::verify::{verify_function, verify_legal_widths};
use crate::mir::{phi_elim, two_addr, MFunction};
use crate::regalloc::{self, AllocError, AllocOptions};
use crate::target::{Target, TargetError};
use crate::uniformity::Uniformity;

/// A point in the pipeline, after which machine IR can be printed or run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    Legalize,
    Select,
    Ssa,
    PhiElim,
    PostPhi,
    TwoAddr,
    Alloc,
    Final,
}

impl Stage {
    pub const ALL: [Stage; 8] = [
        Stage::Legalize,
        Stage::Select,
        Stage::Ssa,
        Stage::PhiElim,
        Stage::PostPhi,
        Stage::TwoAddr,
        Stage::Alloc,
        Stage::Final,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Stage::Legalize => "legalize",
            Stage::Select => "select",
            Stage::Ssa => "ssa",
            Stage::PhiElim => "phi-elim",
            Stage::PostPhi => "post-phi",
            Stage::TwoAddr => "two-addr",
            Stage::Alloc => "alloc",
            Stage::Final => "final",
        }
    }

    pub fn from_name(s: &str) -> Option<Stage> {
        Stage::ALL.into_iter().find(|x| x.name() == s)
    }

    /// Whether code after this stage is the target's own (selected).
    pub fn is_selected(self) -> bool {
        self >= Stage::Select
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A pass injected after a stage (tests of the verifier).
pub type BrokenPass = fn(&mut MFunction);

/// What to do besides compiling.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Stages after which to print the machine IR.
    pub print_after: Vec<Stage>,
    /// Run the machine verifier after every stage (always in debug builds).
    pub verify_each: bool,
    /// Stop after this stage (no emission unless it is `final`).
    pub stop_after: Option<Stage>,
    /// A pass to run after a stage, before its verification (for testing
    /// that the verifier catches broken passes).
    #[doc(hidden)]
    pub inject: Option<(Stage, BrokenPass)>,
}

/// A compiled function.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The machine IR after the last stage run.
    pub mir: MFunction,
    pub stage: Stage,
    /// Assembly, when the pipeline ran to the end.
    pub asm: Option<String>,
    /// `--print-after` output: (stage, machine IR text).
    pub printed: Vec<(Stage, String)>,
    /// Time spent in each stage (emission counted in `final`).
    pub times: Vec<(Stage, Duration)>,
    /// What the register allocator did, when the pipeline got that far.
    pub alloc: Option<regalloc::AllocStats>,
}

/// Why the pipeline stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PipelineError {
    Legalize(LegalizeError),
    /// A target hook failed.
    Target {
        stage: Stage,
        error: TargetError,
    },
    /// The machine verifier found problems after a stage.
    Verify {
        stage: Stage,
        function: String,
        diags: Vec<Diag>,
    },
    TwoAddress(Diag),
    Alloc {
        function: String,
        error: AllocError,
    },
}

impl PipelineError {
    /// As located diagnostics (each kind's code, label and help here).
    pub fn to_diags(&self) -> Vec<Diag> {
        match self {
            PipelineError::Legalize(e) => vec![e.to_diag()],
            PipelineError::Target { stage, error } => {
                let d = error.to_diag();
                vec![Diag::unlocated(d.code, format!("{} (in stage `{stage}`)", d.message))
                    .help(d.help.clone().unwrap_or_default())]
            }
            PipelineError::Verify {
                stage,
                function,
                diags,
            } => diags
                .iter()
                .map(|d| {
                    Diag::unlocated(
                        "pipeline::verify",
                        format!("machine verifier, after stage `{stage}` of @{function}: {}", d.message),
                    )
                    .help("a pass before this stage boundary produced invalid machine IR; --print-after shows it")
                })
                .collect(),
            PipelineError::TwoAddress(d) => vec![d.clone()],
            PipelineError::Alloc { function, error } => vec![Diag::unlocated(
                "pipeline::alloc",
                format!("register allocation of @{function} failed: {error}"),
            )
            .help("the function needs more registers at once than the target has")],
        }
    }
}

impl fmt::Display for PipelineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let msgs: Vec<String> = self.to_diags().iter().map(|d| d.message.clone()).collect();
        f.write_str(&msgs.join("; "))
    }
}

impl std::error::Error for PipelineError {}

struct Run<'a, T: Target> {
    target: &'a T,
    opts: &'a Options,
    printed: Vec<(Stage, String)>,
    times: Vec<(Stage, Duration)>,
    start: Instant,
}

impl<T: Target> Run<'_, T> {
    /// Ends `stage`: inject, verify, print, time. `true` when the pipeline
    /// stops here.
    fn boundary(&mut self, stage: Stage, f: &mut MFunction) -> Result<bool, PipelineError> {
        if let Some((s, pass)) = self.opts.inject {
            if s == stage {
                pass(f);
            }
        }
        self.times.push((stage, self.start.elapsed()));
        if self.opts.verify_each || cfg!(debug_assertions) || stage == Stage::Legalize {
            let mut diags = verify_function(f, self.target.regs(), self.target.instrs());
            if stage == Stage::Legalize {
                diags.extend(verify_legal_widths(f, self.target.regs(), 32));
            }
            if !diags.is_empty() {
                return Err(PipelineError::Verify {
                    stage,
                    function: f.name.clone(),
                    diags,
                });
            }
        }
        if self.opts.print_after.contains(&stage) {
            self.printed.push((
                stage,
                print_function(f, self.target.regs(), self.target.instrs()),
            ));
        }
        self.start = Instant::now();
        Ok(self.opts.stop_after == Some(stage))
    }
}

/// Compiles `f` for `target` (up to [`Options::stop_after`]).
pub fn compile_function<T: Target>(
    f: &Function,
    target: &T,
    opts: &Options,
) -> Result<Compiled, PipelineError> {
    let mut run = Run {
        target,
        opts,
        printed: Vec::new(),
        times: Vec::new(),
        start: Instant::now(),
    };
    let ri = target.regs();
    let instrs = target.instrs();
    let hook_err = |stage: Stage| move |error: TargetError| PipelineError::Target { stage, error };
    let done = |run: Run<'_, T>, mir: MFunction, stage: Stage, asm: Option<String>| Compiled {
        mir,
        stage,
        asm,
        printed: run.printed,
        times: run.times,
        alloc: None,
    };

    let uni = Uniformity::analyze(f);
    let mut m = legalize(f, &uni, target).map_err(PipelineError::Legalize)?;
    if run.boundary(Stage::Legalize, &mut m)? {
        return Ok(done(run, m, Stage::Legalize, None));
    }
    target.select(&mut m).map_err(hook_err(Stage::Select))?;
    if run.boundary(Stage::Select, &mut m)? {
        return Ok(done(run, m, Stage::Select, None));
    }
    target.after_select(&mut m).map_err(hook_err(Stage::Ssa))?;
    if run.boundary(Stage::Ssa, &mut m)? {
        return Ok(done(run, m, Stage::Ssa, None));
    }
    phi_elim::eliminate_phis(&mut m, instrs);
    m.props.ssa = false;
    m.props.no_phis = true;
    if run.boundary(Stage::PhiElim, &mut m)? {
        return Ok(done(run, m, Stage::PhiElim, None));
    }
    target
        .after_phi_elim(&mut m)
        .map_err(hook_err(Stage::PostPhi))?;
    if run.boundary(Stage::PostPhi, &mut m)? {
        return Ok(done(run, m, Stage::PostPhi, None));
    }
    two_addr::lower_two_address(&mut m, ri, instrs).map_err(PipelineError::TwoAddress)?;
    if run.boundary(Stage::TwoAddr, &mut m)? {
        return Ok(done(run, m, Stage::TwoAddr, None));
    }
    let alloc = AllocOptions {
        reserved: target.reserved(f),
        ..AllocOptions::default()
    };
    let stats =
        regalloc::allocate(&mut m, ri, instrs, target.spill_hook(), &alloc).map_err(|error| {
            PipelineError::Alloc {
                function: f.name.clone(),
                error,
            }
        })?;
    if run.boundary(Stage::Alloc, &mut m)? {
        return Ok(Compiled {
            alloc: Some(stats),
            ..done(run, m, Stage::Alloc, None)
        });
    }
    target
        .lower_copies(&mut m)
        .map_err(hook_err(Stage::Final))?;
    target.before_emit(&mut m).map_err(hook_err(Stage::Final))?;
    let asm = target.emit(&m, f).map_err(hook_err(Stage::Final))?;
    run.boundary(Stage::Final, &mut m)?;
    Ok(Compiled {
        alloc: Some(stats),
        ..done(run, m, Stage::Final, Some(asm))
    })
}
