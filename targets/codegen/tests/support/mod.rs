//! Shared by the integration tests: finding `lli-14` (the oracle rule:
//! a missing tool skips, or fails under `REGDESC_REQUIRE_ORACLES=1`),
//! fixtures and their `; RUN:` lines, and running one case through the
//! interpreter and through `lli-14` to compare them.
//!
//! `lli` only runs programs with a `main`, so [`lli_wrapper`] appends one
//! to the module: it sets the work-item id each lane sees, calls the
//! function with constant arguments, and prints every result and the final
//! global memory with `printf` in 64-bit hex chunks. The interpreter's
//! results are printed the same way ([`interp_output`]), and the two texts
//! must be equal.

#![allow(dead_code)]

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use regdesc_codegen::cli_values::{parse_arg, parse_mem_init};
use regdesc_codegen::interp::{self, GlobalMemory, LaneArg, Launch};
use regdesc_codegen::ir::types::Type;
use regdesc_codegen::ir::{Builtin, Module, Op, Source};
use regdesc_codegen::value::{IntBits, Value};

pub fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub fn oracles_required() -> bool {
    std::env::var("REGDESC_REQUIRE_ORACLES").is_ok_and(|v| v == "1")
}

/// `lli-14` (or an `lli` that says it is LLVM 14) from `PATH`.
pub fn lli() -> Option<PathBuf> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    let found = FOUND.get_or_init(|| {
        let path = std::env::var_os("PATH")?;
        for name in ["lli-14", "lli"] {
            for dir in std::env::split_paths(&path) {
                let p = dir.join(name);
                if !p.is_file() {
                    continue;
                }
                let v = Command::new(&p).arg("--version").output().ok()?;
                if String::from_utf8_lossy(&v.stdout).contains("LLVM version 14.") {
                    return Some(p);
                }
            }
        }
        None
    });
    match found {
        Some(p) => Some(p.clone()),
        None => {
            if oracles_required() {
                panic!("`lli-14` is not on PATH, and REGDESC_REQUIRE_ORACLES=1 makes a missing oracle a failure (apt-get install llvm-14)");
            }
            eprintln!("SKIPPED: `lli-14` is not on PATH (set REGDESC_REQUIRE_ORACLES=1 to make this a failure)");
            None
        }
    }
}

/// How many random cases a property test runs: `default`, or the value
/// of `REGDESC_PROPTEST_CASES`.
pub fn proptest_cases(default: u32) -> u32 {
    std::env::var("REGDESC_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Every `*.ll` under `dir` (relative to the crate), sorted.
pub fn ll_files(dir: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(manifest_dir().join(dir))
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "ll"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// One run of a function: what `regdesc-cc run` options describe.
#[derive(Clone, Debug)]
pub struct Case {
    pub name: String,
    pub text: String,
    pub func: String,
    pub launch: Launch,
    pub memory: Vec<u8>,
}

/// Splits a `; RUN:` line into words, honouring double quotes.
pub fn split_words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any {
        out.push(cur);
    }
    out
}

/// The cases of a fixture's `; RUN:` lines.
pub fn fixture_cases(path: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("; RUN:"))
        .enumerate()
        .map(|(n, line)| case_from_options(&format!("{stem}#{}", n + 1), &text, &split_words(line)))
        .collect()
}

/// Reads `regdesc-cc run` options (the subset fixtures use).
pub fn case_from_options(name: &str, text: &str, words: &[String]) -> Case {
    let mut func = String::new();
    let mut args = Vec::new();
    let mut launch = Launch::lanes(1, Vec::new());
    let mut mem_size = 4096usize;
    let mut inits = Vec::new();
    let mut it = words.iter();
    while let Some(w) = it.next() {
        let v = it.next().cloned().unwrap_or_default();
        let num = || {
            v.parse::<u32>()
                .unwrap_or_else(|_| panic!("{name}: bad number {v}"))
        };
        match w.as_str() {
            "--fn" => func = v.clone(),
            "--arg" => {
                let (_, a) = parse_arg(&Source::new("arg", v.as_str()), &v)
                    .unwrap_or_else(|e| panic!("{name}: {}", e.render(false)));
                args.push(a);
            }
            "--lanes" => launch.lanes = num(),
            "--workitem" => launch.first_workitem = num(),
            "--workgroup" => launch.workgroup_id = num(),
            "--workgroup-size" => launch.workgroup_size = Some(num()),
            "--mem-size" => mem_size = v.parse().unwrap_or(4096),
            "--mem" => inits.push(
                parse_mem_init(&Source::new("mem", v.as_str()), &v)
                    .unwrap_or_else(|e| panic!("{name}: {}", e.render(false))),
            ),
            other => panic!("{name}: unknown option {other}"),
        }
    }
    launch.args = args;
    let mut mem = GlobalMemory::new(mem_size.div_ceil(8) * 8);
    for (addr, values) in inits {
        let mut at = addr;
        for v in values {
            mem.store(&v, at).unwrap_or_else(|e| panic!("{name}: {e}"));
            at += v.ty().store_size();
        }
    }
    Case {
        name: name.to_string(),
        text: text.to_string(),
        func,
        launch,
        memory: mem.bytes().to_vec(),
    }
}

/// `bits` as `ceil(width/64)` 16-digit hex chunks, most significant first.
fn hex_chunks(bits: IntBits, width: u32) -> String {
    let limbs = bits.as_limbs();
    let n = width.div_ceil(64).max(1) as usize;
    (0..n)
        .rev()
        .map(|i| format!("{:016x}", limbs[i]))
        .collect::<Vec<_>>()
        .join("")
}

fn value_line(lane: u32, v: Option<Value>) -> String {
    match v {
        None => format!("R {lane} void"),
        Some(v) => format!("R {lane} {}", hex_chunks(v.to_bits(), v.ty().bits())),
    }
}

fn memory_lines(bytes: &[u8]) -> String {
    let mut s = String::new();
    for chunk in bytes.chunks(8) {
        let mut b = [0u8; 8];
        b[..chunk.len()].copy_from_slice(chunk);
        s.push_str(&format!("M {:016x}\n", u64::from_le_bytes(b)));
    }
    s
}

/// The interpreter's results in the wrapper's format, or its error.
pub fn interp_output(case: &Case) -> Result<String, String> {
    let m = regdesc_codegen::read_module(&case.name, &case.text).map_err(|e| e.render(false))?;
    let f = m
        .function(&case.func)
        .ok_or_else(|| format!("no function @{}", case.func))?;
    let mut mem = GlobalMemory::from_bytes(case.memory.clone());
    let results = interp::run(f, &case.launch, &mut mem).map_err(|e| e.to_string())?;
    let mut s = String::new();
    for r in results {
        s.push_str(&value_line(r.lane, r.ret));
        s.push('\n');
    }
    s.push_str(&memory_lines(mem.bytes()));
    Ok(s)
}

/// The text given to `lli`: the module, made runnable on the host, and a `main`.
pub fn lli_wrapper(case: &Case, module: &Module) -> String {
    let mut out = String::new();
    for line in case.text.lines() {
        let t = line.trim_start();
        if t.starts_with("target ")
            || (t.starts_with("declare")
                && (t.contains("@llvm.amdgcn.")
                    || t.contains("get_global_id")
                    || t.contains("@_Z6mul_hi")))
        {
            continue;
        }
        let l = line
            .replace("amdgpu_kernel ", "")
            .replace("spir_kernel ", "")
            .replace("spir_func ", "")
            .replace("@llvm.amdgcn.workitem.id.x", "@__rd_workitem_id_x")
            .replace("@llvm.amdgcn.workgroup.id.x", "@__rd_workgroup_id_x");
        out.push_str(&l);
        out.push('\n');
    }
    let l = &case.launch;
    let size = case.memory.len();
    let wg_size = l.workgroup_size.unwrap_or(l.lanes);
    out.push_str(&format!(
        "\n@__rd_mem = addrspace(1) global [{size} x i8] c\"{}\", align 32\n",
        case.memory
            .iter()
            .map(|b| format!("\\{b:02X}"))
            .collect::<String>()
    ));
    out.push_str("@__rd_wi = global i32 0\n");
    out.push_str("@__rd_fmt_r = private constant [6 x i8] c\"R %d \\00\"\n");
    out.push_str("@__rd_fmt_chunk = private constant [7 x i8] c\"%016lx\\00\"\n");
    out.push_str("@__rd_fmt_void = private constant [5 x i8] c\"void\\00\"\n");
    out.push_str("@__rd_fmt_nl = private constant [2 x i8] c\"\\0A\\00\"\n");
    out.push_str("@__rd_fmt_m = private constant [9 x i8] c\"M %016lx\\00\"\n");
    out.push_str("declare i32 @printf(ptr, ...)\n");
    out.push_str(
        "define i32 @__rd_workitem_id_x() {\n  %v = load i32, ptr @__rd_wi\n  ret i32 %v\n}\n",
    );
    out.push_str(&format!(
        "define i32 @__rd_workgroup_id_x() {{\n  ret i32 {}\n}}\n",
        l.workgroup_id as i32
    ));
    // get_global_id, as the module calls it (return type from the calls).
    let mut ggid: Vec<(Builtin, Type)> = Vec::new();
    for f in &module.functions {
        for inst in &f.insts {
            if let Op::Call {
                callee: c @ Builtin::GetGlobalId { .. },
                ret_ty,
                ..
            } = &inst.op
            {
                if !ggid.contains(&(*c, *ret_ty)) {
                    ggid.push((*c, *ret_ty));
                }
            }
        }
    }
    for (c, ty) in ggid {
        out.push_str(&format!(
            "define {ty} @{}(i32 %d) {{\n  %wi = load i32, ptr @__rd_wi\n  %w = zext i32 %wi to i64\n  %g = mul i64 {}, {}\n  %s = add i64 %g, %w\n  %z = icmp eq i32 %d, 0\n  %r = select i1 %z, i64 %s, i64 0\n  %t = {}\n  ret {ty} %t\n}}\n",
            c.name(),
            l.workgroup_id,
            wg_size,
            if ty == Type::Int(64) { "add i64 %r, 0".to_string() } else { format!("trunc i64 %r to {ty}") },
        ));
    }
    // OpenCL's scalar mul_hi: the high half of the double-width product.
    let mut mul_hi: Vec<Builtin> = Vec::new();
    for f in &module.functions {
        for inst in &f.insts {
            if let Op::Call {
                callee: c @ Builtin::MulHi { .. },
                ..
            } = &inst.op
            {
                if !mul_hi.contains(c) {
                    mul_hi.push(*c);
                }
            }
        }
    }
    for c in mul_hi {
        let Builtin::MulHi { signed, bits } = c else {
            continue;
        };
        let ext = if signed { "sext" } else { "zext" };
        let w2 = 2 * bits;
        out.push_str(&format!(
            "define i{bits} @{}(i{bits} %a, i{bits} %b) {{\n  %x = {ext} i{bits} %a to i{w2}\n  %y = {ext} i{bits} %b to i{w2}\n  %p = mul i{w2} %x, %y\n  %h = lshr i{w2} %p, {bits}\n  %r = trunc i{w2} %h to i{bits}\n  ret i{bits} %r\n}}\n",
            c.name()
        ));
    }
    out.push_str(&main_fn(case, module));
    out
}

fn main_fn(case: &Case, module: &Module) -> String {
    let f = module.function(&case.func).expect("function exists");
    let l = &case.launch;
    let mut s = String::from("define i32 @main() {\n");
    let mut n = 0usize;
    let mut tmp = || {
        n += 1;
        format!("%t{n}")
    };
    let print = |s: &mut String, fmt: &str, len: usize, arg: Option<String>| {
        let extra = arg.map(|a| format!(", {a}")).unwrap_or_default();
        s.push_str(&format!(
            "  call i32 (ptr, ...) @printf(ptr getelementptr ([{len} x i8], ptr {fmt}, i32 0, i32 0){extra})\n"
        ));
    };
    for lane in 0..l.lanes {
        s.push_str(&format!(
            "  store i32 {}, ptr @__rd_wi\n",
            l.first_workitem.wrapping_add(lane) as i32
        ));
        let mut args = Vec::new();
        for (a, p) in l.args.iter().zip(&f.params) {
            let ty = f.value(*p).ty;
            let v = a.for_lane(lane).expect("a value per lane");
            let text = match v {
                Value::Ptr(addr) => {
                    let t = tmp();
                    s.push_str(&format!(
                        "  {t} = getelementptr i8, ptr addrspace(1) @__rd_mem, i64 {addr}\n"
                    ));
                    t
                }
                other => other.operand_text(),
            };
            args.push(format!("{ty} {text}"));
        }
        let ret = f.ret_ty;
        print(&mut s, "@__rd_fmt_r", 6, Some(format!("i32 {lane}")));
        if ret == Type::Void {
            s.push_str(&format!("  call void @{}({})\n", f.name, args.join(", ")));
            print(&mut s, "@__rd_fmt_void", 5, None);
        } else {
            let r = tmp();
            s.push_str(&format!(
                "  {r} = call {ret} @{}({})\n",
                f.name,
                args.join(", ")
            ));
            // The result's bits as an integer of whole 64-bit chunks.
            let bits = ret.bits();
            let chunks = bits.div_ceil(64).max(1);
            let wide = format!("i{}", chunks * 64);
            let as_int = match ret {
                Type::Ptr => {
                    let (a, b) = (tmp(), tmp());
                    s.push_str(&format!("  {a} = ptrtoint ptr addrspace(1) {r} to i64\n"));
                    s.push_str(&format!(
                        "  {b} = sub i64 {a}, ptrtoint (ptr addrspace(1) @__rd_mem to i64)\n"
                    ));
                    b
                }
                Type::Int(_) => r,
                other => {
                    let t = tmp();
                    s.push_str(&format!(
                        "  {t} = bitcast {other} {r} to i{}\n",
                        other.bits()
                    ));
                    t
                }
            };
            let int_ty = if ret == Type::Ptr {
                "i64".to_string()
            } else {
                format!("i{bits}")
            };
            let w = tmp();
            if int_ty == wide {
                s.push_str(&format!("  {w} = add {wide} {as_int}, 0\n"));
            } else {
                s.push_str(&format!("  {w} = zext {int_ty} {as_int} to {wide}\n"));
            }
            for c in (0..chunks).rev() {
                let (sh, tr) = (tmp(), tmp());
                s.push_str(&format!("  {sh} = lshr {wide} {w}, {}\n", c * 64));
                if wide == "i64" {
                    s.push_str(&format!("  {tr} = add i64 {sh}, 0\n"));
                } else {
                    s.push_str(&format!("  {tr} = trunc {wide} {sh} to i64\n"));
                }
                print(&mut s, "@__rd_fmt_chunk", 7, Some(format!("i64 {tr}")));
            }
        }
        print(&mut s, "@__rd_fmt_nl", 2, None);
    }
    for k in 0..case.memory.len() / 8 {
        let (p, v) = (tmp(), tmp());
        s.push_str(&format!(
            "  {p} = getelementptr i64, ptr addrspace(1) @__rd_mem, i64 {k}\n  {v} = load i64, ptr addrspace(1) {p}\n"
        ));
        print(&mut s, "@__rd_fmt_m", 9, Some(format!("i64 {v}")));
        print(&mut s, "@__rd_fmt_nl", 2, None);
    }
    s.push_str("  ret i32 0\n}\n");
    s
}

/// Runs a command with a time limit: (status ok, stdout, stderr).
pub fn run_with_timeout(
    cmd: &mut Command,
    limit: Duration,
) -> Result<(bool, String, String), String> {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut out = child.stdout.take().ok_or("no stdout")?;
    let mut err = child.stderr.take().ok_or("no stderr")?;
    let t_out = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().map_err(|e| e.to_string())? {
            break st;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("timed out after {limit:?}"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let o = t_out.join().unwrap_or_default();
    let e = t_err.join().unwrap_or_default();
    Ok((status.success(), o, e))
}

/// Runs the case's wrapper with `lli`; writes the wrapper next to the
/// target directory so a failure can be reproduced.
pub fn lli_output(lli: &Path, case: &Case) -> Result<String, String> {
    let m = regdesc_codegen::read_module(&case.name, &case.text).map_err(|e| e.render(false))?;
    let text = lli_wrapper(case, &m);
    let dir = std::env::temp_dir().join("regdesc-codegen-lli");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let file = dir.join(format!(
        "{}-{}.ll",
        case.name.replace(['#', '/'], "_"),
        std::process::id()
    ));
    std::fs::write(&file, &text).map_err(|e| e.to_string())?;
    let (ok, out, err) = run_with_timeout(
        Command::new(lli).arg("-opaque-pointers").arg(&file),
        Duration::from_secs(60),
    )?;
    if !ok {
        return Err(format!("lli failed on {}:\n{err}", file.display()));
    }
    let _ = std::fs::remove_file(&file);
    Ok(out)
}

/// Compares the interpreter with `lli` on one case; `Err` describes the difference.
pub fn compare(lli: &Path, case: &Case) -> Result<(), String> {
    let ours = interp_output(case).map_err(|e| format!("{}: interpreter: {e}", case.name))?;
    let theirs = lli_output(lli, case).map_err(|e| format!("{}: {e}", case.name))?;
    if ours == theirs {
        return Ok(());
    }
    let diff: Vec<String> = ours
        .lines()
        .zip(theirs.lines())
        .enumerate()
        .filter(|(_, (a, b))| a != b)
        .take(5)
        .map(|(n, (a, b))| format!("  line {}: interpreter `{a}`, lli `{b}`", n + 1))
        .collect();
    Err(format!(
        "{}: the interpreter and lli differ\n{}\n--- program ---\n{}",
        case.name,
        diff.join("\n"),
        case.text
    ))
}

/// Per-lane arguments for a launch from values.
pub fn uniform_args(values: Vec<Value>) -> Vec<LaneArg> {
    values.into_iter().map(LaneArg::Uniform).collect()
}
pub mod gen;
