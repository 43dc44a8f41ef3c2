//! The oracle: for every register description, LLVM 14's own
//! MCRegisterInfo and TargetRegisterInfo (llvm-tblgen's `.inc` compiled with
//! g++ against LLVM 14, `tests/oracle/harness.cpp`) and regdesc's generated
//! tables (`regdesc emit --lanes llvm`, compiled with `regdesc-runtime`,
//! `tests/oracle/dump.rs`) are asked the same questions and must print the
//! same canonical text (`tests/oracle/README.md`), section by section.
//!
//! Descriptions: the register corpus (`tests/fixtures/regs/*.td`), the
//! examples (`examples/*.td`), LLVM 14's real targets
//! (`tests/fixtures/real_targets/<T>-regs.td`, run with `-I <LLVM include>
//! -I $REGDESC_LLVM_SRC/llvm/lib/Target/<T>`), and every file named in
//! `REGDESC_ORACLE_EXTRA` (colon-separated; run with `-I` its own directory
//! and LLVM's include directory). Files llvm-tblgen rejects (among them
//! every description over 64 lanes, which LLVM cannot represent) have no
//! oracle and are listed as skipped; the wide ones are covered by the
//! property tests in `tests/oracle/wide.rs`.
//!
//! For each file that passes it prints `oracle ok: <path as given>` (on the
//! test's real stdout, visible without `--nocapture`).
//!
//! The same test holds `regdesc tblgen -gen-register-info` to llvm-tblgen:
//! for every file llvm-tblgen accepts, regdesc's `GenRegisterInfo.inc` must
//! equal llvm-tblgen's byte for byte (a difference fails with a diff), and
//! the oracle built from regdesc's `.inc` must print the same canonical text
//! (`inc ok: <path>`). For a file llvm-tblgen refuses (over 64 lanes),
//! regdesc's coverage-mode `.inc` (`--lanes coverage`) is compiled against
//! LLVM 14 and LLVM's answers about its lane masks are checked for
//! consistency (`tests/oracle/lanes.cpp`; `coverage ok: <path>`); a file
//! over 64 lanes even in coverage mode must fail with the lane-budget
//! diagnostic.

mod common;
#[path = "oracle/wide.rs"]
mod wide;

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use common::oracle::{self, Built, Harness};
use common::oracle_rust::{Member, Scratch};
use common::{first_difference, llvm_include_dir, repo_root};

/// One description to check.
#[derive(Clone, Debug)]
struct Input {
    /// The path as given (relative to the repository root, or as named in
    /// `REGDESC_ORACLE_EXTRA`).
    label: String,
    td: PathBuf,
    includes: Vec<PathBuf>,
}

impl Input {
    fn new(label: String, includes: Vec<PathBuf>) -> Input {
        let td = if Path::new(&label).is_absolute() {
            PathBuf::from(&label)
        } else {
            repo_root().join(&label)
        };
        Input {
            label,
            td,
            includes,
        }
    }
}

/// Writes to the test's real stdout (libtest captures `println!`).
fn say(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

fn sorted_td_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "td"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Every description, in a stable order.
fn inputs(llvm_include: &Path) -> Vec<Input> {
    let mut out = Vec::new();
    for f in common::fixtures("tests/fixtures/regs") {
        let dir = f.path.parent().unwrap_or(Path::new(".")).to_path_buf();
        let (mut includes, defines) = f.include_dirs_and_defines(Some(llvm_include));
        assert!(
            defines.is_empty(),
            "{}: -D is not supported by the oracle",
            f.path.display()
        );
        includes.insert(0, dir);
        includes.insert(0, llvm_include.to_path_buf());
        out.push(Input::new(f.path.to_string_lossy().into_owned(), includes));
    }
    for td in sorted_td_files(&repo_root().join("examples")) {
        let name = td.file_name().unwrap_or_default().to_string_lossy();
        out.push(Input::new(
            format!("examples/{name}"),
            vec![llvm_include.to_path_buf(), repo_root().join("examples")],
        ));
    }
    let wrappers = sorted_td_files(&repo_root().join("tests/fixtures/real_targets"));
    if !wrappers.is_empty() {
        if let Some(src) = common::llvm_src() {
            for td in wrappers {
                let name = td.file_name().unwrap_or_default().to_string_lossy();
                let Some(target) = name.strip_suffix("-regs.td") else {
                    continue;
                };
                out.push(Input::new(
                    format!("tests/fixtures/real_targets/{name}"),
                    vec![
                        llvm_include.to_path_buf(),
                        src.join("llvm/lib/Target").join(target),
                    ],
                ));
            }
        }
    }
    if let Some(extra) = std::env::var_os("REGDESC_ORACLE_EXTRA") {
        for file in std::env::split_paths(&extra) {
            if file.as_os_str().is_empty() {
                continue;
            }
            let dir = file
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
                .to_path_buf();
            let dir = if dir.is_absolute() {
                dir
            } else {
                std::env::current_dir().unwrap_or_default().join(dir)
            };
            let label = file.to_string_lossy().into_owned();
            let mut input = Input::new(label, vec![dir, llvm_include.to_path_buf()]);
            // Relative paths in REGDESC_ORACLE_EXTRA are the caller's.
            if file.is_relative() {
                input.td = std::env::current_dir().unwrap_or_default().join(&file);
            }
            out.push(input);
        }
    }
    out
}

/// What happened to one description.
enum Outcome {
    /// The oracle and the `.inc` agree (`oracle ok`, `inc ok`).
    Ok,
    /// A file llvm-tblgen refuses whose coverage `.inc` passed the lane
    /// checks (their summary line).
    Coverage(String),
    Skipped(String),
    Failed(String),
}

/// regdesc's `GenRegisterInfo.inc` for `input`, from `regdesc tblgen
/// -gen-register-info --lanes LANES`: `Err` with its stderr when it fails.
fn regdesc_inc(input: &Input, lanes: &str) -> Result<String, String> {
    let mut cmd = common::regdesc();
    cmd.args(["tblgen", "-gen-register-info", "--lanes", lanes]);
    for dir in &input.includes {
        cmd.arg("-I").arg(dir);
    }
    cmd.arg(&input.td).args(["-o", "-"]);
    let ran = common::run_limited(cmd, common::tblgen_limit())?;
    if !ran.success {
        return Err(ran.stderr_str());
    }
    String::from_utf8(ran.stdout).map_err(|_| "regdesc printed invalid UTF-8".to_string())
}

/// regdesc's `.inc` against llvm-tblgen's (`built`, with LLVM's canonical
/// text `llvm`): the same bytes, and the same answers once compiled.
fn compare_inc(input: &Input, built: &Built, llvm: &str) -> Result<(), String> {
    let ours = regdesc_inc(input, "llvm").map_err(|e| format!("regdesc tblgen failed:\n{e}"))?;
    let mut why = String::new();
    if ours != built.inc {
        why = format!(
            "regdesc tblgen -gen-register-info differs from llvm-tblgen's (expected: llvm-tblgen, got: regdesc):\n{}",
            first_difference(&built.inc, &ours).unwrap_or_default()
        );
    }
    // Equal bytes make the same (cached) binary; different ones are built.
    let text = oracle::build_from_inc(&input.td, &input.includes, &ours, Harness::Canonical)
        .and_then(|b| oracle::run(&b))
        .map_err(|e| format!("{why}\nthe oracle over regdesc's .inc: {e}"))?;
    if let Outcome::Failed(diff) = compare(llvm, &text) {
        why.push_str(&format!(
            "\nthe oracle over regdesc's .inc answers differently:\n{diff}"
        ));
    }
    if why.is_empty() {
        Ok(())
    } else {
        Err(why)
    }
}

/// A file llvm-tblgen refuses: regdesc's coverage `.inc` compiled against
/// LLVM 14 and its lane masks checked by `lanes.cpp`, or the lane-budget
/// diagnostic when even coverage lanes do not fit.
fn coverage_inc(input: &Input) -> Outcome {
    let inc = match regdesc_inc(input, "coverage") {
        Ok(inc) => inc,
        Err(e) if e.contains("regdesc::check::lane_budget") => {
            return Outcome::Skipped("over 64 lanes even in coverage mode (lane budget)".into())
        }
        Err(e) if e.contains("lane") => {
            return Outcome::Failed(format!(
                "over 64 lanes, but regdesc tblgen --lanes coverage fails without the lane-budget diagnostic:\n{e}"
            ))
        }
        Err(_) => return Outcome::Skipped("llvm-tblgen and regdesc reject it".into()),
    };
    let built = match oracle::build_from_inc(&input.td, &input.includes, &inc, Harness::Lanes) {
        Ok(b) => b,
        Err(e) => return Outcome::Failed(format!("the coverage .inc does not build: {e}")),
    };
    match oracle::run(&built) {
        Ok(text) => Outcome::Coverage(text.trim_end().to_string()),
        Err(e) => Outcome::Failed(format!("LLVM's lane answers over the coverage .inc: {e}")),
    }
}

/// `text` split at its `== NAME` lines, in order.
fn sections(text: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    let mut starts: Vec<(usize, &str)> = Vec::new();
    let mut pos = 0;
    for line in text.split_inclusive('\n') {
        if let Some(name) = line.strip_prefix("== ") {
            starts.push((pos, name.trim_end()));
        }
        pos += line.len();
    }
    for (k, &(start, name)) in starts.iter().enumerate() {
        let end = starts.get(k + 1).map_or(text.len(), |&(s, _)| s);
        out.push((name, &text[start..end]));
    }
    out
}

/// Compares the two texts section by section.
fn compare(llvm: &str, ours: &str) -> Outcome {
    if llvm == ours {
        return Outcome::Ok;
    }
    let (a, b) = (sections(llvm), sections(ours));
    let names = |s: &[(&str, &str)]| s.iter().map(|x| x.0.to_string()).collect::<Vec<_>>();
    if names(&a) != names(&b) {
        return Outcome::Failed(format!(
            "the texts have different sections: LLVM {:?}, regdesc {:?}\n{}",
            names(&a),
            names(&b),
            first_difference(llvm, ours).unwrap_or_default()
        ));
    }
    let mut failed = Vec::new();
    let mut report = String::new();
    for ((name, x), (_, y)) in a.iter().zip(&b) {
        if x == y {
            continue;
        }
        failed.push(name.to_string());
        if failed.len() <= 3 {
            report.push_str(&format!(
                "--- section `{name}` (expected: LLVM 14, got: regdesc; line numbers within the section)\n{}",
                first_difference(x, y).unwrap_or_default()
            ));
        }
    }
    if failed.is_empty() {
        Outcome::Ok
    } else {
        Outcome::Failed(format!(
            "sections that differ: {}\n{report}",
            failed.join(", ")
        ))
    }
}

/// Runs the jobs on `workers` threads, results in job order.
fn parallel<T: Sync, R: Send>(jobs: &[T], workers: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, R)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..workers.max(1) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let r = f(job);
                results
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((i, r));
            });
        }
    });
    let mut v = results.into_inner().unwrap_or_else(|e| e.into_inner());
    v.sort_by_key(|(i, _)| *i);
    v.into_iter().map(|(_, r)| r).collect()
}

fn workers() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

#[test]
fn regdesc_tables_answer_as_llvm() {
    let (Some(_), Some(include)) = (oracle::toolchain(), llvm_include_dir()) else {
        return;
    };
    let started = std::time::Instant::now();
    let inputs = inputs(&include);
    let scratch = Scratch::new().unwrap_or_else(|e| panic!("oracle scratch workspace: {e}"));

    // regdesc's side first (quick), so that one `cargo build` of every
    // member overlaps with the C++ builds.
    let emitted: Vec<Result<Member, String>> = parallel(&inputs, workers(), |i| {
        scratch.emit(&i.label, &i.td, &i.includes)
    });
    let members: Vec<Member> = emitted
        .iter()
        .filter_map(|e| e.as_ref().ok())
        .cloned()
        .collect();
    let (built_rust, built_cpp) = std::thread::scope(|scope| {
        let rust = scope.spawn(|| {
            let started = std::time::Instant::now();
            let built = scratch.build(&members);
            say(&format!(
                "oracle: regdesc's side built in {:.1?} ({} crates)\n",
                started.elapsed(),
                members.len()
            ));
            built
        });
        let cpp: Vec<Result<Built, String>> =
            parallel(&inputs, workers(), |i| oracle::build(&i.td, &i.includes));
        let rust = rust.join().unwrap_or_else(|_| BTreeMap::new());
        (rust, cpp)
    });
    let build_time = started.elapsed();

    let jobs: Vec<usize> = (0..inputs.len()).collect();
    let outcomes: Vec<Outcome> = parallel(&jobs, workers(), |&k| {
        let input = &inputs[k];
        let built = match &built_cpp[k] {
            Ok(b) => b,
            Err(e) if e.contains("llvm-tblgen -gen-register-info rejects") => {
                return match &emitted[k] {
                    Err(ours) if ours.contains("lane") => coverage_inc(input),
                    _ => Outcome::Skipped("llvm-tblgen rejects it".to_string()),
                };
            }
            Err(e) => return Outcome::Failed(format!("the C++ oracle: {e}")),
        };
        let member = match &emitted[k] {
            Ok(m) => m,
            Err(e) => return Outcome::Failed(e.clone()),
        };
        let binary = match built_rust.get(member) {
            Some(Ok(b)) => b,
            Some(Err(e)) => return Outcome::Failed(e.clone()),
            None => return Outcome::Failed("the scratch crate was not built".into()),
        };
        let llvm = match oracle::run_with_notes(built) {
            Ok((text, notes)) => {
                for note in notes.lines() {
                    say(&format!("oracle note: {}: {note}\n", input.label));
                }
                text
            }
            Err(e) => return Outcome::Failed(format!("the C++ oracle: {e}")),
        };
        let ours = match Scratch::run(binary) {
            Ok(t) => t,
            Err(e) => return Outcome::Failed(format!("regdesc's dumper: {e}")),
        };
        match compare(&llvm, &ours) {
            Outcome::Ok => {}
            other => return other,
        }
        match compare_inc(input, built, &llvm) {
            Ok(()) => Outcome::Ok,
            Err(why) => Outcome::Failed(why),
        }
    });

    let mut failures = Vec::new();
    for (input, outcome) in inputs.iter().zip(outcomes) {
        match outcome {
            Outcome::Ok => say(&format!("oracle ok: {0}\ninc ok: {0}\n", input.label)),
            Outcome::Coverage(lanes) => say(&format!("coverage ok: {}: {lanes}\n", input.label)),
            Outcome::Skipped(why) => say(&format!("oracle skipped: {}: {why}\n", input.label)),
            Outcome::Failed(why) => failures.push(format!("{}: {why}", input.label)),
        }
    }
    say(&format!(
        "oracle: {} files, {} failed; builds {:.1?}, total {:.1?}\n",
        inputs.len(),
        failures.len(),
        build_time,
        started.elapsed()
    ));
    assert!(
        failures.is_empty(),
        "regdesc's tables answer differently from LLVM 14's:\n\n{}",
        failures.join("\n\n")
    );
}

/// The canonical text of a small description, pinned so that format
/// changes show up in review (LLVM's side; the test above holds regdesc's
/// to it).
#[test]
fn canonical_text_of_basic_pair() {
    let (Some(_), Some(include)) = (oracle::toolchain(), llvm_include_dir()) else {
        return;
    };
    let td = repo_root().join("tests/fixtures/regs/basic_pair.td");
    let dir = repo_root().join("tests/fixtures/regs");
    match oracle::llvm_oracle_text(&td, &[include, dir]) {
        Ok(text) => insta::assert_snapshot!(text),
        Err(why) => panic!("basic_pair.td: {why}"),
    }
}

#[test]
fn sections_split_and_compare() {
    let llvm = "== a\nx\n  1\n== pressure-sets\npressure-sets 2\npressure-set 0 P\n";
    assert_eq!(
        sections(llvm),
        vec![
            ("a", "== a\nx\n  1\n"),
            (
                "pressure-sets",
                "== pressure-sets\npressure-sets 2\npressure-set 0 P\n"
            )
        ]
    );
    assert!(matches!(compare(llvm, llvm), Outcome::Ok));
    // Wrong pressure sets fail, and a difference elsewhere names its section.
    let ours = "== a\nx\n  1\n== pressure-sets\npressure-sets 1\n";
    assert!(matches!(compare(llvm, ours), Outcome::Failed(why) if why.contains("pressure-sets")));
    let ours = "== a\nx\n  2\n== pressure-sets\npressure-sets 2\npressure-set 0 P\n";
    assert!(
        matches!(compare(llvm, ours), Outcome::Failed(why) if why.starts_with("sections that differ: a\n"))
    );
}

/// Descriptions whose tables are inconsistent in LLVM 14 itself, so that
/// no lane assignment passes every check of `lanes.cpp` on them.
const INCONSISTENT_IN_LLVM: &[(&str, &str)] = &[
    (
        "tests/fixtures/regs/ambiguous_composites.td",
        "its compositions are ambiguous (llvm-tblgen warns): `a then lo` names d, not R0",
    ),
    (
        "tests/fixtures/regs/arm_like_dpair.td",
        "LLVM composes lane masks leaf by leaf, and a synthesized index composes with dsub_1 to the leaf dsub_3",
    ),
];

/// The lane checks of `tests/oracle/lanes.cpp` hold for LLVM's own tables
/// (llvm-tblgen's `.inc`), which shows they check what LLVM guarantees, and
/// for regdesc's coverage `.inc` of the same files (but those in
/// [`INCONSISTENT_IN_LLVM`]).
#[test]
fn lane_checks_hold_for_llvm_and_coverage_tables() {
    let (Some(_), Some(include)) = (oracle::toolchain(), llvm_include_dir()) else {
        return;
    };
    let inputs: Vec<Input> = inputs(&include)
        .into_iter()
        .filter(|i| !i.label.starts_with("tests/fixtures/real_targets/"))
        .collect();
    let outcomes: Vec<Result<String, String>> = parallel(&inputs, workers(), |input| {
        let Ok(llvm) = oracle::llvm_inc(&input.td, &input.includes) else {
            return Ok(String::new());
        };
        let check = |inc: &str, what: &str| {
            oracle::build_from_inc(&input.td, &input.includes, inc, Harness::Lanes)
                .and_then(|b| oracle::run(&b))
                .map_err(|e| format!("{} ({what}): {e}", input.label))
        };
        let ours = regdesc_inc(input, "coverage")
            .map_err(|e| format!("{}: regdesc tblgen --lanes coverage: {e}", input.label))?;
        let (a, b) = (
            check(&llvm, "llvm-tblgen's .inc"),
            check(&ours, "regdesc's coverage .inc"),
        );
        if let Some((_, why)) = INCONSISTENT_IN_LLVM.iter().find(|(l, _)| *l == input.label) {
            return match a {
                Ok(_) => Err(format!(
                    "{}: listed as inconsistent in LLVM ({why}), but LLVM's tables pass",
                    input.label
                )),
                Err(_) => Ok(format!("lanes skipped: {}: {why}\n", input.label)),
            };
        }
        Ok(format!(
            "lanes ok: {}: llvm {}; coverage {}\n",
            input.label,
            a?.trim_end(),
            b?.trim_end()
        ))
    });
    let mut failures = Vec::new();
    for o in outcomes {
        match o {
            Ok(line) => say(&line),
            Err(e) => failures.push(e),
        }
    }
    assert!(
        failures.is_empty(),
        "lane checks failed:\n\n{}",
        failures.join("\n\n")
    );
}
