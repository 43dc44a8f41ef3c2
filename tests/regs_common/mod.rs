//! Test scaffolding: records from `llvm-tblgen --dump-json`, and the oracle.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::rc::Rc;

use regdesc_core::eval::{Init, InitKind, RecId, RecTy, Record, RecordKeeper, RecordVal};
use regdesc_core::syntax::Span;

/// The `llvm-tblgen` oracle, or `None` (skip) unless `REGDESC_REQUIRE_ORACLES=1`.
pub fn oracle() -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join("llvm-tblgen"))
            .find(|p| p.is_file())
    });
    if found.is_none() && std::env::var("REGDESC_REQUIRE_ORACLES").as_deref() == Ok("1") {
        panic!("llvm-tblgen not found on PATH and REGDESC_REQUIRE_ORACLES=1");
    }
    found
}

/// The include directory holding the real `llvm/Target/Target.td`.
pub fn llvm_include() -> PathBuf {
    if let Some(p) = std::env::var_os("REGDESC_LLVM_INCLUDE") {
        return PathBuf::from(p);
    }
    PathBuf::from("/usr/include/llvm-14")
}

pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs llvm-tblgen; returns (success, stdout, stderr).
pub fn tblgen(tool: &Path, args: &[&str], file: &Path, includes: &[PathBuf]) -> (bool, String, String) {
    let mut cmd = Command::new(tool);
    cmd.args(args);
    for i in includes {
        cmd.arg("-I").arg(i);
    }
    cmd.arg(file);
    let out = cmd.output().expect("run llvm-tblgen");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Builds a record keeper from `--dump-json` output (classes are empty shells
/// named after the superclasses; enough for the register bank).
pub fn records_from_json(json: &str) -> RecordKeeper {
    let v: serde_json::Value = serde_json::from_str(json).expect("json");
    let obj = v.as_object().expect("object");
    let mut rk = RecordKeeper::default();
    let span = Span { file: 0, start: 0, end: 0 };
    let mut class_names: BTreeMap<String, ()> = BTreeMap::new();
    if let Some(inst) = obj.get("!instanceof").and_then(|x| x.as_object()) {
        for k in inst.keys() {
            class_names.insert(k.clone(), ());
        }
    }
    for (k, r) in obj {
        if k.starts_with('!') {
            continue;
        }
        for s in r["!superclasses"].as_array().into_iter().flatten() {
            class_names.insert(s.as_str().unwrap_or("").to_string(), ());
        }
    }
    let new = |rk: &mut RecordKeeper, name: &str, is_class: bool| -> RecId {
        let id = rk.records.len() as RecId;
        rk.records.push(Record {
            id,
            name: name.to_string(),
            is_class,
            is_anonymous: false,
            span,
            template_args: Vec::new(),
            values: Vec::new(),
            superclasses: Vec::new(),
            instantiated_from: Vec::new(),
        });
        id
    };
    for c in class_names.keys() {
        let id = new(&mut rk, c, true);
        rk.classes.insert(c.clone(), id);
    }
    for (k, _) in obj.iter().filter(|(k, _)| !k.starts_with('!')) {
        let id = new(&mut rk, k, false);
        rk.defs.insert(k.clone(), id);
    }
    for (k, r) in obj.iter().filter(|(k, _)| !k.starts_with('!')) {
        let id = rk.defs[k];
        let supers: Vec<(RecId, Span)> = r["!superclasses"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| rk.classes.get(s.as_str()?).map(|&c| (c, span)))
            .collect();
        let mut values = Vec::new();
        for (f, val) in r.as_object().expect("record") {
            if f.starts_with('!') {
                continue;
            }
            values.push(RecordVal {
                name: Rc::from(f.as_str()),
                ty: RecTy::Int,
                value: convert(&rk, val),
                nonconcrete_ok: false,
                is_template_arg: false,
                span,
            });
        }
        let rec = &mut rk.records[id as usize];
        rec.superclasses = supers;
        rec.values = values;
    }
    rk
}

fn convert(rk: &RecordKeeper, v: &serde_json::Value) -> Init {
    use serde_json::Value;
    match v {
        Value::Null => Init::unset(),
        Value::Bool(b) => Init::bit(*b),
        Value::Number(n) => Init::int(n.as_i64().unwrap_or(0)),
        Value::String(s) => Init::string(s),
        Value::Array(a) => InitKind::List {
            elems: a.iter().map(|x| convert(rk, x)).collect(),
            elem_ty: RecTy::Int,
        }
        .into(),
        Value::Object(o) => match o.get("kind").and_then(|k| k.as_str()) {
            Some("def") => match o.get("def").and_then(|d| d.as_str()).and_then(|d| rk.defs.get(d)) {
                Some(&id) => Init::def(id),
                None => Init::unset(),
            },
            Some("dag") => {
                let op = o.get("operator").map(|x| convert(rk, x)).unwrap_or_else(Init::unset);
                let args = o
                    .get("args")
                    .and_then(|a| a.as_array())
                    .into_iter()
                    .flatten()
                    .map(|pair| {
                        let val = convert(rk, &pair[0]);
                        let name = pair[1].as_str().map(Rc::from);
                        (val, name)
                    })
                    .collect();
                InitKind::Dag {
                    op,
                    op_name: None,
                    args,
                }
                .into()
            }
            _ => Init::unset(),
        },
    }
}

/// Removes llvm-tblgen's `warning: ...` lines (and what follows them on
/// the same diagnostic) from its stderr, returning (warnings, rest).
pub fn split_warnings(stderr: &str) -> (Vec<String>, String) {
    let mut warnings = Vec::new();
    let mut rest = String::new();
    for line in stderr.lines() {
        if let Some(w) = line.strip_prefix("warning: ") {
            warnings.push(w.to_string());
        } else {
            rest.push_str(line);
            rest.push('\n');
        }
    }
    (warnings, rest)
}

/// Every `.td` fixture in a folder, sorted.
pub fn fixtures(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|e| e == "td"));
    v.sort();
    v
}
