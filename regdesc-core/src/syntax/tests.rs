//! Tests of the whole syntax stage against llvm-14's `.td` files and
//! small inputs checked against llvm-tblgen 14.

use super::*;
use std::path::Path;

const LLVM_INCLUDE: &str = "/usr/include/llvm-14";

fn llvm_opts() -> LoadOptions {
    LoadOptions {
        include_dirs: vec![PathBuf::from(LLVM_INCLUDE)],
        ..Default::default()
    }
}

fn td_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            td_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "td") {
            out.push(p);
        }
    }
}

fn first_errors(sources: &SourceMap, diags: &[Diagnostic]) -> String {
    diags
        .iter()
        .take(5)
        .map(|d| {
            let loc = d
                .span
                .map(|s| {
                    let (l, c) = sources.line_col(s.file, s.start);
                    format!("{}:{l}:{c}: ", sources.file(s.file).path.display())
                })
                .unwrap_or_default();
            format!("{loc}{}", d.message)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn target_td_and_all_includes_parse() {
    let root = Path::new(LLVM_INCLUDE).join("llvm/Target/Target.td");
    if !root.exists() {
        eprintln!("skipping: {} not installed", root.display());
        return;
    }
    let t = std::time::Instant::now();
    let loaded = match load_file(&root, &llvm_opts()) {
        Ok(l) => l,
        Err((s, d)) => panic!("{}", first_errors(&s, &d)),
    };
    let dt = t.elapsed();
    let bytes: usize = loaded.sources.files.iter().map(|f| f.text.len()).sum();
    eprintln!(
        "Target.td: {} files, {} bytes, loaded in {:?}",
        loaded.sources.files.len(),
        bytes,
        dt
    );
    assert!(loaded.sources.files.len() > 5);
    assert!(loaded.diagnostics.is_empty());
}

#[test]
fn every_llvm_td_file_parses_alone() {
    let mut files = Vec::new();
    td_files(Path::new(LLVM_INCLUDE), &mut files);
    files.sort();
    let mut failures = Vec::new();
    for f in &files {
        if let Err((s, d)) = load_file(f, &llvm_opts()) {
            failures.push(format!("{}:\n{}", f.display(), first_errors(&s, &d)));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

fn parse_ok(src: &str) -> SourceFileAst {
    match parse(0, src) {
        Ok(a) => a,
        Err(e) => panic!("{src}\n{e:#?}"),
    }
}

#[test]
fn dbg_small() {
    parse_ok("class A;");
}

/// Times the stages on Target.td and everything it includes (best of
/// several runs). Run in release mode with `--nocapture` to see numbers.
#[test]
fn timing_breakdown() {
    let root = Path::new(LLVM_INCLUDE).join("llvm/Target/Target.td");
    let Ok(loaded) = load_file(&root, &llvm_opts()) else {
        return;
    };
    struct H;
    impl preprocess::PreprocessHost for H {
        fn is_defined(&self, _: &str) -> bool {
            false
        }
        fn define(&mut self, _: &str) {}
        fn include(&mut self, _: &str, _: Span) {}
    }
    let runs = if cfg!(debug_assertions) { 1 } else { 7 };
    let best = |f: &dyn Fn()| {
        (0..runs)
            .map(|_| {
                let t = std::time::Instant::now();
                f();
                t.elapsed()
            })
            .min()
            .unwrap_or_default()
    };
    let files = &loaded.sources.files;
    let pres: Vec<String> = files
        .iter()
        .map(|f| preprocess::preprocess(0, &f.text, &mut H).text)
        .collect();
    let tp = best(&|| {
        for f in files {
            preprocess::preprocess(0, &f.text, &mut H);
        }
    });
    let tpest = best(&|| {
        for p in &pres {
            assert!(parser::pest_only(p));
        }
    });
    let tfull = best(&|| {
        for p in &pres {
            assert!(parser::parse_preprocessed(0, p).is_ok());
        }
    });
    let tload = best(&|| {
        assert!(load_file(&root, &llvm_opts()).is_ok());
    });
    eprintln!(
        "Target.td + includes ({} files): preprocess {tp:?}, pest {tpest:?}, pest+build {tfull:?}, load_file {tload:?}",
        files.len()
    );
}

/// For `perf stat`: parses Target.td and its includes 10 times.
#[test]
#[ignore]
fn bench_pest() {
    let root = Path::new(LLVM_INCLUDE).join("llvm/Target/Target.td");
    let Ok(loaded) = load_file(&root, &llvm_opts()) else {
        return;
    };
    let pres: Vec<String> = loaded
        .sources
        .files
        .iter()
        .map(|f| {
            let mut h = std::collections::HashSet::<String>::new();
            struct H<'a>(&'a mut std::collections::HashSet<String>);
            impl preprocess::PreprocessHost for H<'_> {
                fn is_defined(&self, n: &str) -> bool {
                    self.0.contains(n)
                }
                fn define(&mut self, n: &str) {
                    self.0.insert(n.into());
                }
                fn include(&mut self, _: &str, _: Span) {}
            }
            preprocess::preprocess(0, &f.text, &mut H(&mut h)).text
        })
        .collect();
    let mode = std::env::var("BENCH").unwrap_or_default();
    let pres: Vec<String> = if std::env::var("COMPACT").is_ok() {
        pres.iter()
            .map(|p| {
                let mut out = String::new();
                let mut prev = false;
                for c in p.chars() {
                    if c == ' ' && prev {
                        continue;
                    }
                    prev = c == ' ';
                    out.push(c);
                }
                out
            })
            .collect()
    } else {
        pres
    };
    eprintln!("bytes: {}", pres.iter().map(|p| p.len()).sum::<usize>());
    for _ in 0..10 {
        for p in &pres {
            if mode == "full" {
                assert!(parser::parse_preprocessed(0, p).is_ok());
            } else {
                assert!(parser::pest_only(p));
            }
        }
    }
}

fn parse_err(src: &str) -> Vec<String> {
    match parse(0, src) {
        Ok(_) => panic!("expected an error for {src:?}"),
        Err(es) => es
            .iter()
            .map(|e| {
                let sp = e.span().unwrap_or_default();
                format!("{}..{}: {e}", sp.start, sp.end)
            })
            .collect(),
    }
}

#[test]
fn dbg_messages() {
    for src in [
        "def A { int x }",
        "def A { int x = ; }",
        "class A<int a> : B<1 { }",
        "def A : B<1>, C",
        "def A { list<int> x = [1, 2; }",
        "foo",
        "let x = 1 def A;",
        "def A { int in = 1; }",
        "def A { int x = !div(1, 2); }",
        "def A { string s = \"a\\q\"; }",
        "def A {};",
        "multiclass M {}",
        "foreach i = [1] in { class C; }",
        "def A { int x = !add(1); }",
        "def A { int x = !cast(1); }",
        "def A { bits<2> x = {1, 0,}; }",
        "def A\n",
        "#ifdef X\n#endif",
        "def A { int x = 0x1FFFFFFFFFFFFFFFF; }",
        "def A { list<int> x = !foreach(1, [1], 2); }",
    ] {
        eprintln!("{src:?}\n    {:?}", parse_err(src));
    }
}
