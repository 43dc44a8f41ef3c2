//! Helpers shared by the integration tests: finding oracle tools, reading
//! fixtures and their header directives, running commands with a time
//! limit, and showing where two outputs first differ.
//!
//! Oracle rule (project-wide): a test that needs an external tool finds it
//! on `PATH`. When the tool is missing the test prints why and skips, unless
//! `REGDESC_REQUIRE_ORACLES=1` is set (as `.ci/run` does), in which case a
//! missing tool fails the test.

#![allow(dead_code)]

pub mod gen;
pub mod oracle;
pub mod oracle_rust;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The repository root (the root package's manifest directory). Tests run
/// every tool from here so that paths in outputs and diagnostics are stable.
pub fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The root of the LLVM 14 source corpus (it holds `llvm/lib/Target` and
/// `llvm/test/TableGen`): `REGDESC_LLVM_SRC`, else `<repo>/target/llvm-14-src`
/// (where `tests/corpus/prepare.sh` puts it), following the oracle rule.
pub fn llvm_src() -> Option<PathBuf> {
    let root = match std::env::var_os("REGDESC_LLVM_SRC") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => repo_root().join("target/llvm-14-src"),
    };
    if root.join("llvm/test/TableGen").is_dir() && root.join("llvm/lib/Target").is_dir() {
        Some(root)
    } else {
        missing_oracle(&format!(
            "the LLVM 14 source corpus was not found at {} (set REGDESC_LLVM_SRC, or run \
             tests/corpus/prepare.sh)",
            root.display()
        ))
    }
}

/// The `-I` directory every fixture is run with.
pub const FIXTURE_INCLUDE: &str = "tests/fixtures/include";

/// The placeholder a fixture's `ARGS:` uses for the LLVM include directory.
pub const LLVM_INCLUDE_PLACEHOLDER: &str = "@LLVM_INCLUDE@";

/// Whether missing oracles are failures (`REGDESC_REQUIRE_ORACLES=1`).
pub fn oracles_required() -> bool {
    std::env::var("REGDESC_REQUIRE_ORACLES").is_ok_and(|v| v == "1")
}

/// Reports a missing oracle: panics if oracles are required, otherwise
/// prints a skip message (visible with `--nocapture`) and returns `None`.
pub fn missing_oracle<T>(what: &str) -> Option<T> {
    if oracles_required() {
        panic!(
            "{what}, and REGDESC_REQUIRE_ORACLES=1 makes a missing oracle a failure \
             (install it: apt-get install llvm-14 llvm-14-dev llvm-14-tools)"
        );
    }
    eprintln!("SKIPPED: {what} (set REGDESC_REQUIRE_ORACLES=1 to make this a failure)");
    None
}

/// Finds an executable named `name` on `PATH`.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The oracle tool `name` from `PATH`, following the oracle rule.
pub fn oracle(name: &str) -> Option<PathBuf> {
    match find_on_path(name) {
        Some(p) => Some(p),
        None => missing_oracle(&format!("`{name}` is not on PATH")),
    }
}

/// `llvm-tblgen` from LLVM 14 (`llvm-tblgen`, else `llvm-tblgen-14`, on
/// `PATH`), following the oracle rule. Another LLVM version counts as
/// missing: its output differs from the checked-in references.
pub fn llvm_tblgen() -> Option<PathBuf> {
    static FOUND: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let found = FOUND.get_or_init(|| {
        let mut seen = Vec::new();
        for name in ["llvm-tblgen", "llvm-tblgen-14"] {
            let Some(path) = find_on_path(name) else {
                continue;
            };
            let version = Command::new(&path)
                .arg("--version")
                .output()
                .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
                .unwrap_or_default();
            if version.contains("LLVM version 14.") {
                return Ok(path);
            }
            seen.push(format!("{} is not LLVM 14", path.display()));
        }
        if seen.is_empty() {
            Err("`llvm-tblgen` (LLVM 14) is not on PATH".to_string())
        } else {
            Err(seen.join("; "))
        }
    });
    match found {
        Ok(p) => Some(p.clone()),
        Err(why) => missing_oracle(why),
    }
}

/// LLVM 14's include directory (`llvm-config-14 --includedir`, falling back
/// to `/usr/include/llvm-14`), following the oracle rule.
pub fn llvm_include_dir() -> Option<PathBuf> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    let found = FOUND.get_or_init(|| {
        let from_config = find_on_path("llvm-config-14").and_then(|tool| {
            let out = Command::new(tool).arg("--includedir").output().ok()?;
            let dir = String::from_utf8(out.stdout).ok()?.trim().to_string();
            (out.status.success() && !dir.is_empty()).then(|| PathBuf::from(dir))
        });
        from_config
            .into_iter()
            .chain([PathBuf::from("/usr/include/llvm-14")])
            .find(|d| d.join("llvm/Target/Target.td").is_file())
    });
    match found {
        Some(p) => Some(p.clone()),
        None => missing_oracle(
            "LLVM 14's .td files were not found (`llvm-config-14 --includedir`, /usr/include/llvm-14)",
        ),
    }
}

/// One fixture file and the directives in its leading `//` comment lines:
/// `// ARGS: ...`, `// ERROR-AT: LINE:COL`, `// ORACLE: skip ...`.
#[derive(Clone, Debug)]
pub struct Fixture {
    /// Path relative to the repository root, e.g. `tests/fixtures/pass/x.td`.
    pub path: PathBuf,
    /// File stem, e.g. `x`.
    pub name: String,
    pub text: String,
    /// Extra command-line arguments, split on whitespace, placeholders kept.
    pub args: Vec<String>,
    /// Expected 1-based position of the first error.
    pub error_at: Option<(usize, usize)>,
    /// `Some(reason)` when `// ORACLE: skip` says llvm-tblgen cannot judge it.
    pub oracle_skip: Option<String>,
}

impl Fixture {
    /// Whether the arguments need the LLVM include directory.
    pub fn needs_llvm_include(&self) -> bool {
        self.args
            .iter()
            .any(|a| a.contains(LLVM_INCLUDE_PLACEHOLDER))
    }

    /// The arguments with placeholders expanded, then `-I tests/fixtures/include`:
    /// exactly what follows the tool's own options, before the file name.
    pub fn tool_args(&self, llvm_include: Option<&Path>) -> Vec<String> {
        let mut out: Vec<String> = self
            .args
            .iter()
            .map(|a| match llvm_include {
                Some(dir) => a.replace(LLVM_INCLUDE_PLACEHOLDER, &dir.to_string_lossy()),
                None => a.clone(),
            })
            .collect();
        out.push("-I".into());
        out.push(FIXTURE_INCLUDE.into());
        out
    }

    /// Include directories and macro names from [`Fixture::tool_args`], for
    /// the in-process API (`-I DIR`, `-IDIR`, `-D NAME`, `-DNAME`).
    pub fn include_dirs_and_defines(
        &self,
        llvm_include: Option<&Path>,
    ) -> (Vec<PathBuf>, Vec<String>) {
        let args = self.tool_args(llvm_include);
        let mut includes = Vec::new();
        let mut defines = Vec::new();
        let mut it = args.into_iter();
        while let Some(a) = it.next() {
            if let Some(rest) = a.strip_prefix("-I") {
                let dir = if rest.is_empty() {
                    it.next().unwrap_or_default()
                } else {
                    rest.to_string()
                };
                includes.push(PathBuf::from(dir));
            } else if let Some(rest) = a.strip_prefix("-D") {
                let name = if rest.is_empty() {
                    it.next().unwrap_or_default()
                } else {
                    rest.to_string()
                };
                defines.push(name);
            } else {
                panic!("unsupported fixture argument {a:?}");
            }
        }
        (includes, defines)
    }
}

/// Reads every `*.td` in `dir` (relative to the repository root), sorted by name.
pub fn fixtures(dir: &str) -> Vec<Fixture> {
    let abs = repo_root().join(dir);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&abs)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", abs.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "td"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            let rel = Path::new(dir).join(p.file_name().unwrap());
            let text = std::fs::read_to_string(&p)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
            parse_fixture(rel, name, text)
        })
        .collect()
}

fn parse_fixture(path: PathBuf, name: String, text: String) -> Fixture {
    let mut args = Vec::new();
    let mut error_at = None;
    let mut oracle_skip = None;
    for line in text.lines().take_while(|l| l.starts_with("//")) {
        let body = line.trim_start_matches('/').trim();
        if let Some(rest) = body.strip_prefix("ARGS:") {
            args.extend(rest.split_whitespace().map(str::to_string));
        } else if let Some(rest) = body.strip_prefix("ERROR-AT:") {
            let (l, c) = rest
                .trim()
                .split_once(':')
                .unwrap_or_else(|| panic!("{}: ERROR-AT must be LINE:COL", path.display()));
            let parse = |s: &str| -> usize {
                s.trim()
                    .parse()
                    .unwrap_or_else(|_| panic!("{}: bad ERROR-AT {rest:?}", path.display()))
            };
            error_at = Some((parse(l), parse(c)));
        } else if let Some(rest) = body.strip_prefix("ORACLE:") {
            let rest = rest.trim();
            if let Some(reason) = rest.strip_prefix("skip") {
                oracle_skip = Some(reason.trim_start_matches([' ', '-']).trim().to_string());
            }
        }
    }
    Fixture {
        path,
        name,
        text,
        args,
        error_at,
        oracle_skip,
    }
}

/// What a finished command printed.
pub struct Ran {
    pub success: bool,
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

impl Ran {
    pub fn stdout_str(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
    pub fn stderr_str(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// How [`run_limited`] says that a command ran out of time.
const DID_NOT_FINISH: &str = "did not finish within";

/// Whether a [`run_limited`] error is a timeout (not a failure to start).
pub fn is_timeout(error: &str) -> bool {
    error.contains(DID_NOT_FINISH)
}

/// Runs `cmd` from the repository root, killing it after `limit`.
/// `Err` describes a command that could not start or ran out of time.
pub fn run_limited(cmd: Command, limit: Duration) -> Result<Ran, String> {
    run_limited_in(cmd, repo_root(), limit)
}

/// Runs `cmd` from directory `dir`, killing it after `limit` (see
/// [`run_limited`]).
pub fn run_limited_in(mut cmd: Command, dir: &Path, limit: Duration) -> Result<Ran, String> {
    let shown = format!("{cmd:?}");
    cmd.current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot run {shown}: {e}"))?;
    let mut out = child.stdout.take().expect("piped stdout");
    let mut err = child.stderr.take().expect("piped stderr");
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = out.read_to_end(&mut buf);
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = err.read_to_end(&mut buf);
        buf
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{shown} {DID_NOT_FINISH} {limit:?}"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("waiting for {shown}: {e}")),
        }
    };
    Ok(Ran {
        success: status.success(),
        code: status.code(),
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
    })
}

/// The `regdesc` binary built for this test run.
pub fn regdesc() -> Command {
    Command::new(env!("CARGO_BIN_EXE_regdesc"))
}

/// `None` when equal; otherwise a unified diff of the first hunk that
/// differs (three lines of context, at most [`DIFF_LINES`] lines), with
/// line numbers of the whole outputs. Only a window after the common prefix
/// is diffed, so this stays fast on multi-megabyte outputs.
pub fn first_difference(expected: &str, actual: &str) -> Option<String> {
    if expected == actual {
        return None;
    }
    const CONTEXT: usize = 3;
    const WINDOW: usize = 400;
    let exp: Vec<&str> = expected.split_inclusive('\n').collect();
    let act: Vec<&str> = actual.split_inclusive('\n').collect();
    let first = exp
        .iter()
        .zip(&act)
        .position(|(a, b)| a != b)
        .unwrap_or(exp.len().min(act.len()));
    let base = first.saturating_sub(CONTEXT);
    let window = |lines: &[&str]| lines[base..lines.len().min(first + WINDOW)].concat();
    let (old, new) = (window(&exp), window(&act));
    let diff = similar::TextDiff::configure()
        .timeout(Duration::from_secs(2))
        .diff_lines(&old, &new);
    let mut out = format!(
        "@@ first difference at line {} (expected {} lines, got {}) @@\n",
        first + 1,
        exp.len(),
        act.len()
    );
    let mut shown = 0;
    if let Some(group) = diff.grouped_ops(CONTEXT).first() {
        for op in group {
            for change in diff.iter_changes(op) {
                if shown == DIFF_LINES {
                    out.push_str("...\n");
                    return Some(out);
                }
                let (sign, line) = match change.tag() {
                    similar::ChangeTag::Equal => (' ', change.old_index()),
                    similar::ChangeTag::Delete => ('-', change.old_index()),
                    similar::ChangeTag::Insert => ('+', change.new_index()),
                };
                let text = change.as_str().unwrap_or("");
                let lineno = line.map_or(String::new(), |l| (base + l + 1).to_string());
                out.push_str(&format!(
                    "{sign}{lineno:>6} | {}",
                    text.trim_end_matches('\n')
                ));
                if !text.ends_with('\n') {
                    out.push_str("  (no newline at end)");
                }
                out.push('\n');
                shown += 1;
            }
        }
    }
    Some(out)
}

/// Most lines [`first_difference`] shows.
pub const DIFF_LINES: usize = 40;

/// Every file under `dir` with extension `ext`, following symbolic links
/// (the LLVM include directory is a tree of symlinks on Debian), sorted.
pub fn files_with_extension(dir: &Path, ext: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, ext: &str, out: &mut Vec<PathBuf>, depth: usize) {
        if depth > 32 {
            return;
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            // fs::metadata follows symlinks.
            let Ok(meta) = std::fs::metadata(&path) else {
                continue;
            };
            if meta.is_dir() {
                walk(&path, ext, out, depth + 1);
            } else if meta.is_file() && path.extension().is_some_and(|e| e == ext) {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, ext, &mut out, 0);
    out.sort();
    out
}

/// How long one llvm-tblgen run may take (`REGDESC_TBLGEN_TIMEOUT` seconds,
/// default 120): llvm-tblgen 14 loops forever on some inputs (artificial
/// registers in odd classes).
pub fn tblgen_limit() -> Duration {
    let secs = std::env::var("REGDESC_TBLGEN_TIMEOUT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(120u64);
    Duration::from_secs(secs)
}

/// What `llvm-tblgen -gen-register-info -register-info-debug` prints on
/// stderr for `file` (its warnings, then the dump): `Ok((accepted, stderr))`,
/// `Err` when it could not run or did not finish in time.
pub fn tblgen_register_info_debug(
    tool: &Path,
    file: &Path,
    includes: &[PathBuf],
) -> Result<(bool, String), String> {
    tblgen_register_info_debug_within(tool, file, includes, tblgen_limit())
}

/// [`tblgen_register_info_debug`] with a time limit of its own (see
/// [`is_timeout`]).
pub fn tblgen_register_info_debug_within(
    tool: &Path,
    file: &Path,
    includes: &[PathBuf],
    limit: Duration,
) -> Result<(bool, String), String> {
    tblgen_register_info_within(tool, file, includes, limit).map(|(ok, stderr, _)| (ok, stderr))
}

/// llvm-tblgen `-gen-register-info -register-info-debug` on `file`:
/// whether it succeeded, its stderr (warnings and dump) and its stdout (the
/// `GenRegisterInfo.inc`).
pub fn tblgen_register_info_within(
    tool: &Path,
    file: &Path,
    includes: &[PathBuf],
    limit: Duration,
) -> Result<(bool, String, String), String> {
    let mut cmd = Command::new(tool);
    cmd.args(["-gen-register-info", "-register-info-debug", "-o", "-"]);
    for i in includes {
        cmd.arg("-I").arg(i);
    }
    cmd.arg(file);
    let ran = run_limited(cmd, limit)?;
    Ok((ran.success, ran.stderr_str(), ran.stdout_str()))
}

/// The driver's input for `file` with these include directories.
pub fn input(file: &Path, includes: &[PathBuf]) -> regdesc_core::driver::Input {
    let mut input = regdesc_core::driver::Input::file(file);
    input.include_dirs = includes.to_vec();
    input
}

/// What `regdesc dump --lanes llvm` prints for `input` (the whole stream
/// llvm-tblgen prints on stderr), or the rendered diagnostics.
pub fn regdesc_register_info_debug(input: &regdesc_core::driver::Input) -> Result<String, String> {
    let run = regdesc_core::driver::bank(input, regdesc_core::lanes::LaneMode::Llvm);
    run.register_info_debug().ok_or_else(|| run.render(false))
}
