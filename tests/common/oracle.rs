//! The C++ half of the oracle (`tests/oracle/harness.cpp`): LLVM 14's own
//! MCRegisterInfo and TargetRegisterInfo for a `.td`, asked every
//! register-info question and printed as the canonical text
//! `tests/oracle/README.md` specifies.
//!
//! [`build`] runs `llvm-tblgen -gen-register-info` on the file,
//! patches the output so every allocation order can be selected, writes it
//! with a generated `oracle_target.h` into
//! `target/oracle-cache/<hash of the target's inputs>/`, compiles it there
//! with `tests/oracle/target.cpp`, and links it with
//! `tests/oracle/harness.cpp` (compiled once, cached beside) against
//! `libLLVM-14` into `oracle-<hash of the harness>`. Objects and binaries
//! whose inputs (the generated `.inc`, the C++ sources, the compiler flags)
//! are unchanged are reused; a harness change only relinks.
//!
//! Call [`toolchain`] first: it follows the oracle rule (skip with a message,
//! or fail under `REGDESC_REQUIRE_ORACLES=1`) when g++, `llvm-config-14`,
//! LLVM 14's headers or `libLLVM-14` are missing. The other functions return
//! `Err` in that case.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::{find_on_path, llvm_tblgen, missing_oracle, repo_root, run_limited, tblgen_limit};

/// Bump when the build step changes in a way the hashed inputs do not show.
const BUILD_VERSION: &str = "regdesc-oracle-build 3";

/// What building and running the oracle needs.
#[derive(Debug)]
pub struct Toolchain {
    pub tblgen: PathBuf,
    pub gxx: PathBuf,
    /// `llvm-config-14 --cxxflags`, with `-I` turned into `-isystem` so that
    /// warnings in LLVM's headers stay quiet.
    pub cxxflags: Vec<String>,
    /// `llvm-config-14 --ldflags`, then `-lLLVM-14` and an rpath to `libdir`.
    pub ldflags: Vec<String>,
    pub libdir: PathBuf,
}

/// The oracle's toolchain, following the oracle rule when a part is missing.
pub fn toolchain() -> Option<&'static Toolchain> {
    match find_toolchain() {
        Ok(t) => Some(t),
        Err(why) => missing_oracle(why),
    }
}

fn find_toolchain() -> Result<&'static Toolchain, &'static str> {
    static FOUND: OnceLock<Result<Toolchain, String>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let tblgen = match llvm_tblgen() {
                Some(t) => t,
                None => return Err("`llvm-tblgen` (LLVM 14) is not on PATH".to_string()),
            };
            let gxx = find_on_path("g++").ok_or("`g++` is not on PATH")?;
            let config = find_on_path("llvm-config-14").ok_or("`llvm-config-14` is not on PATH")?;
            let ask = |arg: &str| -> Result<String, String> {
                let out = Command::new(&config)
                    .arg(arg)
                    .output()
                    .map_err(|e| format!("cannot run llvm-config-14 {arg}: {e}"))?;
                if !out.status.success() {
                    return Err(format!("llvm-config-14 {arg} failed"));
                }
                Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
            };
            let includedir = PathBuf::from(ask("--includedir")?);
            let header = includedir.join("llvm/CodeGen/TargetRegisterInfo.h");
            if !header.is_file() {
                return Err(format!(
                    "LLVM 14's C++ headers are missing ({} not found; install llvm-14-dev)",
                    header.display()
                ));
            }
            let libdir = PathBuf::from(ask("--libdir")?);
            let lib = libdir.join("libLLVM-14.so");
            if !lib.exists() {
                return Err(format!(
                    "libLLVM-14 is missing ({} not found; install llvm-14-dev)",
                    lib.display()
                ));
            }
            let mut cxxflags = Vec::new();
            for flag in ask("--cxxflags")?.split_whitespace() {
                match flag.strip_prefix("-I") {
                    Some(dir) => cxxflags.extend(["-isystem".to_string(), dir.to_string()]),
                    None => cxxflags.push(flag.to_string()),
                }
            }
            let mut ldflags: Vec<String> = ask("--ldflags")?
                .split_whitespace()
                .map(str::to_string)
                .collect();
            ldflags.push("-lLLVM-14".into());
            ldflags.push(format!("-Wl,-rpath,{}", libdir.display()));
            Ok(Toolchain {
                tblgen,
                gxx,
                cxxflags,
                ldflags,
                libdir,
            })
        })
        .as_ref()
        .map_err(String::as_str)
}

/// How long one compile, link or oracle run may take
/// (`REGDESC_ORACLE_TIMEOUT` seconds, default 900).
pub fn oracle_limit() -> Duration {
    let secs = std::env::var("REGDESC_ORACLE_TIMEOUT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(900u64);
    Duration::from_secs(secs)
}

/// The oracle's canonical text for `td` (run with `-I` for each of
/// `include_dirs`, in order).
pub fn llvm_oracle_text(td: &Path, include_dirs: &[PathBuf]) -> Result<String, String> {
    run(&build(td, include_dirs)?)
}

/// A built oracle binary and what building it took.
#[derive(Debug)]
pub struct Built {
    pub binary: PathBuf,
    /// Whether the binary came from the cache.
    pub cached: bool,
    pub tblgen_time: Duration,
    /// Compiling the target object and linking (zero when cached).
    pub compile_time: Duration,
    /// Compiling the shared harness object (zero when it was cached).
    pub harness_time: Duration,
    /// Size of llvm-tblgen's output.
    pub inc_bytes: usize,
    /// The `.inc` the tables come from, as written (before patching).
    pub inc: String,
}

/// Runs a built oracle: its canonical text.
pub fn run(built: &Built) -> Result<String, String> {
    run_with_notes(built).map(|(text, _)| text)
}

/// Runs a built oracle: its canonical text and its notes (stderr).
pub fn run_with_notes(built: &Built) -> Result<(String, String), String> {
    let ran = run_limited(Command::new(&built.binary), oracle_limit())?;
    if !ran.success {
        return Err(format!(
            "{} failed ({:?}):\n{}",
            built.binary.display(),
            ran.code,
            ran.stderr_str()
        ));
    }
    let notes = ran.stderr_str();
    let text = String::from_utf8(ran.stdout)
        .map_err(|_| "the oracle printed invalid UTF-8".to_string())?;
    Ok((text, notes))
}

/// Which program is linked with a target's tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Harness {
    /// `harness.cpp`: every question, the canonical text.
    Canonical,
    /// `lanes.cpp`: the lane mask consistency checks.
    Lanes,
}

impl Harness {
    fn source(self) -> &'static str {
        match self {
            Harness::Canonical => "harness.cpp",
            Harness::Lanes => "lanes.cpp",
        }
    }
    fn prefix(self) -> &'static str {
        match self {
            Harness::Canonical => "oracle",
            Harness::Lanes => "lanes",
        }
    }
}

/// llvm-tblgen's `GenRegisterInfo.inc` for `td`.
pub fn llvm_inc(td: &Path, include_dirs: &[PathBuf]) -> Result<String, String> {
    let tools = find_toolchain().map_err(str::to_string)?;
    register_info_inc(tools, td, include_dirs)
}

/// Builds (or finds in the cache) the oracle binary for `td`.
pub fn build(td: &Path, include_dirs: &[PathBuf]) -> Result<Built, String> {
    let tools = find_toolchain().map_err(str::to_string)?;
    let started = Instant::now();
    let inc = register_info_inc(tools, td, include_dirs)?;
    let mut built = build_from_inc(td, include_dirs, &inc, Harness::Canonical)?;
    built.tblgen_time = started.elapsed();
    Ok(built)
}

/// Builds (or finds in the cache) `harness` linked with the tables of
/// `inc`, a `GenRegisterInfo.inc` for `td` (llvm-tblgen's or regdesc's).
pub fn build_from_inc(
    td: &Path,
    include_dirs: &[PathBuf],
    inc: &str,
    harness: Harness,
) -> Result<Built, String> {
    let tools = find_toolchain().map_err(str::to_string)?;
    let tblgen_time = Duration::ZERO;
    let inc_bytes = inc.len();
    let target = GeneratedTarget::from_inc(inc).map_err(|e| format!("{}: {e}", td.display()))?;

    let sources = repo_root().join("tests/oracle");
    let read = |name: &str| {
        std::fs::read_to_string(sources.join(name))
            .map_err(|e| format!("cannot read tests/oracle/{name}: {e}"))
    };
    let (oracle_h, harness_cpp, target_cpp) = (
        read("oracle.h")?,
        read(harness.source())?,
        read("target.cpp")?,
    );
    let flags = tools.cxxflags.join(" ") + " | " + &tools.ldflags.join(" ");
    let cache = cache_dir();

    let harness_key = hash_hex(&[
        BUILD_VERSION,
        &flags,
        &oracle_h,
        &read("hooks.h")?,
        &harness_cpp,
    ]);
    let harness_obj = cache.join(format!("{}-{harness_key}.o", harness.prefix()));
    // The target object does not depend on the harness: a harness change
    // only relinks.
    let key = hash_hex(&[
        BUILD_VERSION,
        &flags,
        &oracle_h,
        &read("oracle_pch.h")?,
        &target_cpp,
        &target.header,
        &target.inc,
    ]);
    let dir = cache.join(&key);
    let binary = dir.join(format!("{}-{harness_key}", harness.prefix()));
    if binary.is_file() {
        return Ok(Built {
            binary,
            cached: true,
            tblgen_time,
            compile_time: Duration::ZERO,
            harness_time: Duration::ZERO,
            inc_bytes,
            inc: inc.to_string(),
        });
    }

    std::fs::create_dir_all(&cache)
        .map_err(|e| format!("cannot create {}: {e}", cache.display()))?;
    let mut harness_time = Duration::ZERO;
    if !harness_obj.is_file() {
        let started = Instant::now();
        let tmp = unique_temp(&harness_obj);
        let compiled = compile(
            tools,
            &sources.join(harness.source()),
            &[&sources],
            &["-O2"],
            &tmp,
        );
        if let Err(e) = compiled {
            let _ = std::fs::remove_file(&tmp);
            return Err(e);
        }
        rename(&tmp, &harness_obj)?;
        harness_time = started.elapsed();
    }

    let started = Instant::now();
    let target_obj = dir.join("target.o");
    if !target_obj.is_file() {
        let pch = precompiled_header(tools, &sources, &cache)?;
        let work = unique_temp(&dir);
        if let Err(e) = compile_target(tools, td, include_dirs, &target, &sources, &pch, &work) {
            let _ = std::fs::remove_dir_all(&work);
            return Err(e);
        }
        // Another test may have built the same inputs meanwhile: keep theirs.
        if std::fs::rename(&work, &dir).is_err() && !target_obj.is_file() {
            let _ = std::fs::remove_dir_all(&work);
            return Err(format!(
                "cannot move {} to {}",
                work.display(),
                dir.display()
            ));
        }
        let _ = std::fs::remove_dir_all(&work);
    }
    let tmp = unique_temp(&binary);
    let mut link = Command::new(&tools.gxx);
    link.arg(&harness_obj)
        .arg(&target_obj)
        .args(&tools.ldflags)
        .arg("-o")
        .arg(&tmp);
    if let Err(e) = checked(link, "linking the oracle") {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    rename(&tmp, &binary)?;
    Ok(Built {
        binary,
        cached: false,
        tblgen_time,
        compile_time: started.elapsed(),
        harness_time,
        inc_bytes,
        inc: inc.to_string(),
    })
}

/// Writes the patched `.inc` and `oracle_target.h` into `work` and compiles
/// the target object there.
fn compile_target(
    tools: &Toolchain,
    td: &Path,
    include_dirs: &[PathBuf],
    target: &GeneratedTarget,
    sources: &Path,
    pch_dir: &Path,
    work: &Path,
) -> Result<(), String> {
    std::fs::create_dir_all(work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let write = |name: &str, text: &str| {
        let path = work.join(name);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    write("RegisterInfo.inc", &target.inc)?;
    write("oracle_target.h", &target.header)?;
    write(
        "SOURCE",
        &format!(
            "{}\n{}\n",
            td.display(),
            include_dirs
                .iter()
                .map(|d| format!("-I {}", d.display()))
                .collect::<Vec<_>>()
                .join(" ")
        ),
    )?;
    compile(
        tools,
        &sources.join("target.cpp"),
        &[pch_dir, work, sources],
        TARGET_FLAGS,
        &work.join("target.o"),
    )
}

/// How target.cpp (and its precompiled header) is compiled. The tables are
/// data: -O1 is enough. LLVM 14 writes some out-of-range weights into
/// uint8_t tables (a narrowing error in C++11): they truncate, as LLVM's own
/// build of such a file would have to.
const TARGET_FLAGS: &[&str] = &["-O1", "-Wno-narrowing"];

/// The directory holding `oracle_pch.h.gch`, `tests/oracle/oracle_pch.h`
/// precompiled with target.cpp's flags (built once per set of inputs; GCC
/// finds it first on the include path and falls back to the plain header
/// if it cannot use it).
fn precompiled_header(tools: &Toolchain, sources: &Path, cache: &Path) -> Result<PathBuf, String> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let read = |name: &str| {
        std::fs::read_to_string(sources.join(name))
            .map_err(|e| format!("cannot read tests/oracle/{name}: {e}"))
    };
    let key = hash_hex(&[
        BUILD_VERSION,
        &tools.cxxflags.join(" "),
        &TARGET_FLAGS.join(" "),
        &read("oracle_pch.h")?,
        &read("oracle.h")?,
    ]);
    let dir = cache.join(format!("pch-{key}"));
    let gch = dir.join("oracle_pch.h.gch");
    if gch.is_file() {
        return Ok(dir);
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let tmp = unique_temp(&gch);
    let mut cmd = Command::new(&tools.gxx);
    cmd.args(["-x", "c++-header"])
        .args(TARGET_FLAGS)
        .args(&tools.cxxflags)
        .arg("-I")
        .arg(sources)
        .arg(sources.join("oracle_pch.h"))
        .arg("-o")
        .arg(&tmp);
    if let Err(e) = checked(cmd, "precompiling tests/oracle/oracle_pch.h") {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    rename(&tmp, &gch)?;
    Ok(dir)
}

/// `llvm-tblgen -gen-register-info` output for `td`.
fn register_info_inc(
    tools: &Toolchain,
    td: &Path,
    include_dirs: &[PathBuf],
) -> Result<String, String> {
    let mut cmd = Command::new(&tools.tblgen);
    cmd.arg("-gen-register-info");
    for dir in include_dirs {
        cmd.arg("-I").arg(dir);
    }
    cmd.arg(td);
    let ran = run_limited(cmd, tblgen_limit())?;
    if !ran.success {
        return Err(format!(
            "llvm-tblgen -gen-register-info rejects {}:\n{}",
            td.display(),
            ran.stderr_str()
        ));
    }
    String::from_utf8(ran.stdout).map_err(|_| "llvm-tblgen printed invalid UTF-8".to_string())
}

fn compile(
    tools: &Toolchain,
    source: &Path,
    include_dirs: &[&Path],
    flags: &[&str],
    out: &Path,
) -> Result<(), String> {
    let mut cmd = Command::new(&tools.gxx);
    cmd.arg("-c").args(flags).args(&tools.cxxflags);
    for dir in include_dirs {
        cmd.arg("-I").arg(dir);
    }
    cmd.arg(source).arg("-o").arg(out);
    checked(cmd, &format!("compiling {}", source.display()))
}

fn checked(cmd: Command, what: &str) -> Result<(), String> {
    let ran = run_limited(cmd, oracle_limit())?;
    if ran.success {
        Ok(())
    } else {
        Err(format!("{what} failed:\n{}", ran.stderr_str()))
    }
}

fn rename(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::rename(from, to)
        .map_err(|e| format!("cannot move {} to {}: {e}", from.display(), to.display()))
}

/// `target/oracle-cache` (under `CARGO_TARGET_DIR` when that is set).
pub fn cache_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target"))
        .join("oracle-cache")
}

/// A path beside `path` that no other process or thread uses.
fn unique_temp(path: &Path) -> PathBuf {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp-{}-{n}", std::process::id()));
    path.with_file_name(name)
}

/// FNV-1a, 64 bits (cache keys).
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// A cache key over several texts (each length-prefixed).
fn hash_hex(parts: &[&str]) -> String {
    let mut bytes = Vec::new();
    for part in parts {
        bytes.extend_from_slice(&(part.len() as u64).to_le_bytes());
        bytes.extend_from_slice(part.as_bytes());
    }
    format!("{:016x}", fnv1a64(&bytes))
}

/// llvm-tblgen's output made ready for `target.cpp`.
#[derive(Debug)]
pub struct GeneratedTarget {
    /// The Target record's name.
    pub name: String,
    /// HW mode names, from `RegClassInfos`' `// Mode = M (NAME)` comments.
    pub hw_modes: Vec<String>,
    /// The `.inc` with every `<Class>AltOrderSelect` body replaced.
    pub inc: String,
    /// `oracle_target.h`.
    pub header: String,
}

impl GeneratedTarget {
    pub fn from_inc(inc: &str) -> Result<Self, String> {
        let name = target_name(inc)?;
        let hw_modes = hw_mode_names(inc)?;
        let inc = patch_alt_order_select(inc)?;
        let names = hw_modes
            .iter()
            .map(|m| format!("{m:?}"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut header = format!(
            "// Generated by tests/common/oracle.rs for tests/oracle/target.cpp.\n\
             #define ORACLE_TARGET {name}\n\
             #define ORACLE_TARGET_NAME \"{name}\"\n\
             #define ORACLE_NUM_HW_MODES {}\n\
             #define ORACLE_HW_MODE_NAMES {names}\n\
             #define ORACLE_INC \"RegisterInfo.inc\"\n",
            hw_modes.len()
        );
        header.push_str(&namespace_aliases(&inc));
        Ok(GeneratedTarget {
            name,
            hw_modes,
            inc,
            header,
        })
    }
}

/// llvm-tblgen declares every enumerator (registers, classes, indices) in
/// one namespace, the first register's, but refers to each item by its own
/// record's `Namespace`: with records in several namespaces its output does
/// not compile. This declares each such other namespace with a using
/// directive for the declaring one, so that `B::B0` finds `A::B0`.
fn namespace_aliases(inc: &str) -> String {
    let section = inc
        .split_once("#ifdef GET_REGINFO_ENUM")
        .and_then(|(_, rest)| rest.split_once("#endif // GET_REGINFO_ENUM"))
        .map_or("", |(enums, _)| enums);
    let is_ident = |s: &str| {
        !s.is_empty()
            && s.chars().all(|c| c == '_' || c.is_ascii_alphanumeric())
            && !s.starts_with(|c: char| c.is_ascii_digit())
    };
    let Some(primary) = section.lines().find_map(|l| {
        let name = l.strip_prefix("namespace ")?.strip_suffix(" {")?;
        (name != "llvm" && is_ident(name)).then_some(name)
    }) else {
        return String::new();
    };
    let enumerators: std::collections::BTreeSet<&str> = section
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("  ")?;
            let end = rest.find(|c: char| !(c == '_' || c.is_ascii_alphanumeric()))?;
            let (name, after) = rest.split_at(end);
            (is_ident(name) && (after.starts_with(',') || after.starts_with(" ="))).then_some(name)
        })
        .collect();
    let mut others = std::collections::BTreeSet::new();
    let mut rest = inc;
    while let Some(at) = rest.find("::") {
        let before = &rest[..at];
        let start = before
            .rfind(|c: char| !(c == '_' || c.is_ascii_alphanumeric()))
            .map_or(0, |i| i + 1);
        let qualifier = &before[start..];
        let after = &rest[at + 2..];
        let end = after
            .find(|c: char| !(c == '_' || c.is_ascii_alphanumeric()))
            .unwrap_or(after.len());
        if qualifier != primary && is_ident(qualifier) && enumerators.contains(&after[..end]) {
            others.insert(qualifier);
        }
        rest = after;
    }
    let mut out = String::new();
    for ns in others {
        out.push_str(&format!(
            "namespace llvm {{ namespace {primary} {{}} namespace {ns} {{ using namespace ::llvm::{primary}; }} }}\n"
        ));
    }
    out
}

/// The `<Target>` of `explicit <Target>GenRegisterInfo(unsigned RA, ...`.
fn target_name(inc: &str) -> Result<String, String> {
    const BEFORE: &str = "explicit ";
    const AFTER: &str = "GenRegisterInfo(unsigned RA,";
    inc.lines()
        .find_map(|line| {
            let rest = line.trim_start().strip_prefix(BEFORE)?;
            let name = rest.split_once(AFTER)?.0;
            let ok =
                !name.is_empty() && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric());
            ok.then(|| name.to_string())
        })
        .ok_or_else(|| "no <Target>GenRegisterInfo declaration in llvm-tblgen's output".to_string())
}

/// Names of the HW modes in mode order (`Default` first).
fn hw_mode_names(inc: &str) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    for line in inc.lines() {
        let Some(rest) = line.strip_prefix("  // Mode = ") else {
            continue;
        };
        let (number, name) = rest
            .split_once(" (")
            .and_then(|(n, rest)| Some((n, rest.strip_suffix(')')?)))
            .ok_or_else(|| format!("unexpected HW mode comment {line:?}"))?;
        if number != names.len().to_string() {
            return Err(format!("HW mode comments out of order at {line:?}"));
        }
        names.push(name.to_string());
    }
    if names.is_empty() {
        return Err("no register classes (llvm-tblgen printed no RegClassInfos)".to_string());
    }
    Ok(names)
}

/// Replaces the body of every `<Class>AltOrderSelect` (target C++ that only
/// compiles inside its back end) by `(void)MF; return
/// ::oracle::selectAltOrder(N);`, N being the class's number of orders taken
/// from the `assert(Select < N);` in the `<Class>GetRawAllocationOrder` that
/// llvm-tblgen prints right after it.
fn patch_alt_order_select(inc: &str) -> Result<String, String> {
    const OPEN: &str = "\nstatic inline unsigned ";
    const SIGNATURE: &str = "AltOrderSelect(const MachineFunction &MF) {";
    let mut out = String::with_capacity(inc.len());
    let mut rest = inc;
    while let Some(at) = rest.find(OPEN) {
        let after_open = &rest[at + OPEN.len()..];
        let Some(class) = after_open
            .split_once(SIGNATURE)
            .map(|(c, _)| c)
            .filter(|c| c.chars().all(|ch| ch == '_' || ch.is_ascii_alphanumeric()))
        else {
            out.push_str(&rest[..at + OPEN.len()]);
            rest = after_open;
            continue;
        };
        let body_start = at + OPEN.len() + class.len() + SIGNATURE.len();
        let close = format!(
            "}}\n\nstatic ArrayRef<MCPhysReg> {class}GetRawAllocationOrder(const MachineFunction &MF) {{\n"
        );
        let body_len = rest[body_start..]
            .find(&close)
            .ok_or_else(|| format!("cannot find the end of {class}AltOrderSelect"))?;
        let function_start = body_start + body_len + close.len();
        const ASSERT: &str = "assert(Select < ";
        let orders = rest[function_start..]
            .find(ASSERT)
            .map(|i| &rest[function_start + i + ASSERT.len()..])
            .and_then(|s| s.split_once(')'))
            .and_then(|(n, _)| n.parse::<u32>().ok())
            .ok_or_else(|| format!("cannot find the number of orders of {class}"))?;
        out.push_str(&rest[..body_start]);
        out.push_str(&format!(
            " (void)MF; return ::oracle::selectAltOrder({orders}); "
        ));
        rest = &rest[body_start + body_len..];
    }
    out.push_str(rest);
    let functions = inc.matches(SIGNATURE).count();
    let patched = out.matches("::oracle::selectAltOrder(").count();
    if functions != patched {
        return Err(format!(
            "patched {patched} of {functions} AltOrderSelect functions in llvm-tblgen's output"
        ));
    }
    Ok(out)
}
