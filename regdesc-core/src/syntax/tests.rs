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
    let bytes: usize = loaded.sources.files.iter().map(|f| f.len()).sum();
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
    let runs = if cfg!(debug_assertions) { 1 } else { 7 };
    // Results are dropped after the clock stops (freeing the ASTs is not
    // part of loading).
    let best = |f: &dyn Fn() -> Box<dyn std::any::Any>| {
        (0..runs)
            .map(|_| {
                let t = std::time::Instant::now();
                let keep = f();
                let dt = t.elapsed();
                drop(keep);
                dt
            })
            .min()
            .unwrap_or_default()
    };
    let files = &loaded.sources.files;
    let pres: Vec<String> = files
        .iter()
        .map(|f| preprocessed(f.text().expect("the file is unchanged")).text)
        .collect();
    let tp = best(&|| {
        let v: Vec<_> = files
            .iter()
            .map(|f| preprocessed(f.text().expect("the file is unchanged")).text)
            .collect();
        Box::new(v)
    });
    let tpest = best(&|| {
        for p in &pres {
            assert!(parser::pest_only(p));
        }
        Box::new(())
    });
    let tfull = best(&|| {
        let v: Vec<_> = pres
            .iter()
            .map(|p| parser::parse_preprocessed(0, p))
            .collect();
        Box::new(v)
    });
    let tload = best(&|| Box::new(load_file(&root, &llvm_opts())));
    eprintln!(
        "Target.td + includes ({} files): preprocess {tp:?}, pest alone {tpest:?}, parse (fast path) {tfull:?}, load_file {tload:?}",
        files.len()
    );
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
/// Snippets checked with llvm-tblgen 14.0.6: whether its *parser* accepts
/// them (semantic errors such as undefined names count as accepted).
const LLVM_PARITY: &[(&str, bool)] = &[
    ("class C<int a, string b = \"x\"> { int A = a; string B = b; }\ndef D : C<1>;", true),
    ("def A { int x = 0x1F; int y = -5; int z = +5; bits<4> b = 0b1010; bit t = true; bit f = false; }", true),
    ("def A { string s = \"a\" \"b\" \"c\"; code c = [{ x }]; string e = \"\\t\\n\\\\\\\"\\'\"; }", true),
    ("def A { int x = ?; list<int> l = [1, 2, 3]; list<int> m = []<int>; list<int> n = [1,]; }", true),
    ("def A { bits<2> b = {1, 0}; bits<0> e = {}; }", true),
    ("def op; def A { dag d = (op 1, 2:$a, $b); dag e = (op:$x); dag f = (op); dag g = (? $a); }", true),
    ("def A { bits<8> x = 0; bits<4> y = x{3-0}; bits<4> z = x{0...3}; bits<4> w = x{7, 5-4, 0}; bits<2> v = x{12-11}; }", true),
    ("def A { list<int> x = [1,2,3,4]; list<int> y = x[0-2]; list<int> z = x[1, 3]; int w = x[0]; }", true),
    ("class B { int f = 1; } def A { B b = B; int x = b.f; int y = B.f; }", true),
    ("def A { string x = \"a\" # \"b\"; string y = \"a\" # ; }", true),
    ("def X#Y;", true),
    ("def X#;", true),
    ("multiclass M { def _#NAME#_x; def NAME#_y; def : C0; } class C0; defm Foo : M; defm : M;", true),
    ("foreach i = 0-3 in def R#i;", true),
    ("foreach i = 0...3 in def R#i;", true),
    ("foreach i = {0-3, 7} in def R#i;", true),
    ("foreach i = [1, 2] in { def R#i; def S#i; }", true),
    ("foreach i = 3 in def R#i;", true),
    ("foreach i = 12-0 in def R#i;", true),
    ("foreach i = 0 - 3 in def R#i;", true),
    ("defvar L = [1, 2]; foreach i = L in def R#i;", true),
    ("if 1 then def A; else def B;", true),
    ("if 0 then { def A; } else { def B; }", true),
    ("if 1 then def A;", true),
    ("class C { int x = 0; bits<4> b = 0; } let x = 1, b<1-0> = 2 in { def A : C; } let x = 2 in def B : C;", true),
    ("assert 1, \"ok\"; class C { assert 1, \"m\"; } def A : C;", true),
    ("class C { int a = 1; defvar v = 2; int b = v; let a = 3; }", true),
    ("class C { field int a = 1; } def A : C;", true),
    ("class C; class C { int x = 1; }", true),
    ("defset list<C> S = { def A : C; def B : C; } class C;", true),
    ("class C; defset list<C> S = { def A : C; def B : C; }", true),
    ("def A { int a = !add(1, 2, 3); int b = !sub(5, 1); int c = !mul(2, 3); int d = !and(3, 1); int e = !or(1, 2); int f = !xor(1, 3); int g = !shl(1, 2); int h = !sra(-8, 1); int i = !srl(8, 1); }", true),
    ("def A { bit a = !eq(1, 1); bit b = !ne(1, 2); bit c = !lt(1, 2); bit d = !le(1, 2); bit e = !gt(2, 1); bit f = !ge(2, 1); bit g = !not(0); }", true),
    ("def A { int a = !if(1, 2, 3); int b = !cond(0: 1, 1: 2); int c = !cond(1: 2,); }", true),
    ("def A { list<int> a = !listconcat([1], [2]); list<int> b = !listsplat(1, 3); string c = !strconcat(\"a\", \"b\", \"c\"); int d = !size([1]); bit e = !empty([1]); int f = !head([1]); list<int> g = !tail([1, 2]); }", true),
    ("def A { string a = !subst(\"a\", \"b\", \"abc\"); string b = !substr(\"abc\", 1); string c = !substr(\"abc\", 1, 1); int d = !find(\"abc\", \"b\"); int e = !find(\"abc\", \"b\", 1); string f = !interleave([\"a\", \"b\"], \",\"); }", true),
    ("def A { list<int> a = !foreach(x, [1, 2], !add(x, 1)); list<int> b = !filter(x, [1, 2], !eq(x, 1)); int c = !foldl(0, [1, 2], acc, x, !add(acc, x)); }", true),
    ("def op; def A { dag a = !con((op 1), (op 2)); dag b = !dag(op, [1], [\"a\"]); dag c = !setdagop((op 1), op); dag d = !setop((op 1), op); }", true),
    ("def op; def A { dag d = (op 1); string s = !cast<string>(!getdagop(d)); string t = !cast<string>(!getop(d)); }", true),
    ("class C; def B : C; def A { bit a = !isa<C>(B); C c = !cast<C>(\"B\"); }", true),
    ("def A { int x = !div(4, 2); }", false),
    ("def A { string x = !tolower(\"A\"); }", false),
    ("def A { bit x = !exists<A>(\"A\"); }", false),
    ("def A { int x = !add(1); }", false),
    ("def A { string x = !strconcat(\"a\"); }", false),
    ("def A { int x = !cast(1); }", false),
    ("def A { int x = !head<int>([1]); }", false),
    ("def A { bits<2> x = {1, 0,}; }", false),
    ("def A { list<int> x = [,]; }", false),
    ("def A { dag x = (A 1,); }", false),
    ("class C<int a,>;", false),
    ("let A = 1, in def X;", false),
    ("def A { int x = - 5; }", false),
    ("def A { int in = 1; }", false),
    ("def in;", false),
    ("def A {};", false),
    ("multiclass M {}", false),
    ("foreach i = [1] in { class C; }", false),
    ("foreach i = [1] in multiclass M { def A; }", false),
    ("multiclass M { class C; }", false),
    ("multiclass M { def A; defset list<int> X = {} }", false),
    ("multiclass P { def A; } multiclass M : P;", true),
    ("multiclass M;", false),
    ("def A { string s = \"a\\q\"; }", false),
    ("def A { int x = 0x1FFFFFFFFFFFFFFFF; }", false),
    ("def A { code x = [{ a }] [{ b }]; }", false),
    ("class C; def A : C, ;", false),
    ("def A { int x = 1 }", false),
    ("def A { int x = 1;", false),
    ("def A /* unterminated", false),
    ("def 8i;", true),
    ("def foo#8i;", true),
    ("defvar x = 5; def A { int y = x; }", true),
    ("def A { list<list<int>> x = [[1], [2]]; }", true),
    ("def A { string s = !if(1, \"a\", \"b\") # \"c\"; }", true),
    ("class C<int n> { bits<n> b = 0; }", false),
    ("def A { int x = 0b; }", true),
    ("def A { int x = 1; } def B { int y = A .x; }", true),
    ("include \"x.td", false),
    ("def A { int x = !add(1,2,); }", false),
    ("def A { int x = !foldl(0, [1], a, 1, !add(a,b)); }", false),
    ("def A { int x = (1); }", false),
    ("def A { string x = !substr(\"a\"); }", false),
    ("class A<int x> : B;", true),
    ("def A { bits<4> x = 0; let x{1} = 1; }", true),
    ("def A { int x; let x = 5; }", true),
    ("def A<int x>;", false),
    ("class A<>;", false),
    ("defm X;", false),
    ("defm X : ;", false),
    ("def A { dag d = (!head([1]) 1); }", false),
    ("def A { dag d = ($a 1); }", false),
    ("def A { int x = 08; }", true),
    ("def A { list<int> x = [1, 2][0,]; }", false),
    ("def A { int x = 1; int x = 2; }", true),
    ("def op; def a; def b; def A { dag x = (op a b); }", false),
    ("class C { bits<4> b = 0; } let b{1-0} = 2 in def A : C;", false),
    ("class C { bits<4> b = 0; let b<1-0> = 2; }", false),
];

#[test]
fn accepts_and_rejects_like_llvm_tblgen() {
    let mut wrong = Vec::new();
    for (src, accepted) in LLVM_PARITY {
        let r = parse(0, src);
        if r.is_ok() != *accepted {
            wrong.push(format!(
                "{src}\n    llvm accepts: {accepted}, we: {:?}",
                r.err()
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A compact rendering of an expression, for shape tests.
fn sx(e: &Expr) -> String {
    let ranges = |r: &[RangePiece]| {
        r.iter()
            .map(|p| match &p.end {
                Some(end) => format!("{}..{}", sx(&p.start), sx(end)),
                None => sx(&p.start),
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    let list = |v: &[Expr]| v.iter().map(sx).collect::<Vec<_>>().join(" ");
    let dagarg = |a: &DagArg| {
        let v = a.value.as_ref().map(sx).unwrap_or_default();
        match &a.name {
            Some(n) => format!("{v}:${}", n.name),
            None => v,
        }
    };
    match &e.kind {
        ExprKind::Int(i) => i.to_string(),
        ExprKind::BinaryBits(b) => format!(
            "0b{}",
            b.iter()
                .map(|&x| if x { '1' } else { '0' })
                .collect::<String>()
        ),
        ExprKind::Bool(b) => b.to_string(),
        ExprKind::Str(s) => format!("{s:?}"),
        ExprKind::Code(s) => format!("[{{{s}}}]"),
        ExprKind::Unset => "?".into(),
        ExprKind::Bits(v) => format!("{{{}}}", list(v)),
        ExprKind::List { elems, elem_type } => format!(
            "[{}]{}",
            list(elems),
            if elem_type.is_some() { "<T>" } else { "" }
        ),
        ExprKind::Dag { op, args } => format!(
            "({}{}{})",
            dagarg(op),
            if args.is_empty() { "" } else { " " },
            args.iter().map(dagarg).collect::<Vec<_>>().join(" ")
        ),
        ExprKind::Id(i) => i.name.to_string(),
        ExprKind::ClassInst { class, args } => format!("{}<{}>", class.name, list(args)),
        ExprKind::Bang {
            op, type_arg, args, ..
        } => format!(
            "({op}{} {})",
            if type_arg.is_some() { "<T>" } else { "" },
            list(args)
        ),
        ExprKind::Cond { clauses } => format!(
            "(!cond {})",
            clauses
                .iter()
                .map(|(a, b)| format!("{}:{}", sx(a), sx(b)))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        ExprKind::BitSlice { base, ranges: r } => format!("{}{{{}}}", sx(base), ranges(r)),
        ExprKind::ListSlice { base, ranges: r } => format!("{}[{}]", sx(base), ranges(r)),
        ExprKind::Field { base, field } => format!("{}.{}", sx(base), field.name),
        ExprKind::Paste { lhs, rhs } => match rhs {
            Some(r) => format!("(# {} {})", sx(lhs), sx(r)),
            None => format!("(# {})", sx(lhs)),
        },
    }
}

fn val(src: &str) -> Expr {
    match parse_value(0, src) {
        Ok(e) => e,
        Err(e) => panic!("{src}: {e:?}"),
    }
}

fn span_text(src: &str, s: Span) -> &str {
    &src[s.start as usize..s.end as usize]
}

#[test]
fn value_shapes() {
    let cases = [
        ("a # b # c", "(# a (# b c))"),
        ("\"a\" #", "(# \"a\")"),
        ("a # b #", "(# a (# b))"),
        // The right-hand side of `#` stops at `{`: the slice applies to the
        // whole paste (llvm-tblgen 14's "name mode").
        ("x.y # z{3-0}", "(# x.y z){3..0}"),
        ("a # b[1]", "(# a b[1])"),
        ("a # b.c # d", "(# a (# b.c d))"),
        ("a # b{1} # c", "(# (# a b){1} c)"),
        ("{0} # {1, 0}", "(# {0}){1,0}"),
        ("a # b # {1}", "(# a (# b)){1}"),
        ("foo#8i", "(# foo 8i)"),
        ("8i", "8i"),
        ("0x1F", "31"),
        ("-5", "-5"),
        ("+5", "5"),
        ("08", "8"),
        ("0b0110", "0b0110"),
        ("0xFFFFFFFFFFFFFFFF", "-1"),
        ("99999999999999999999", "9223372036854775807"),
        ("-99999999999999999999", "-9223372036854775808"),
        ("true", "true"),
        ("false", "false"),
        ("?", "?"),
        ("\"a\" \"b\"  \"c\"", "\"abc\""),
        ("\"\\t\\n\\\\\\\"\\'\"", "\"\\t\\n\\\\\\\"'\""),
        ("[{ x\n y }]", "[{ x\n y }]"),
        ("{1, 0, a}", "{1 0 a}"),
        ("{}", "{}"),
        ("[1, 2,]", "[1 2]"),
        ("[]<int>", "[]<T>"),
        ("[[1], [2]]", "[[1] [2]]"),
        ("(op 1, 2:$a, $b)", "(op 1 2:$a :$b)"),
        ("(op:$x)", "(op:$x)"),
        ("(? $a)", "(? :$a)"),
        ("(!cast<X>(\"x\") 1)", "((!cast<T> \"x\") 1)"),
        ("Foo<1, \"x\">", "Foo<1 \"x\">"),
        ("Foo<>", "Foo<>"),
        ("Foo<1>.bar", "Foo<1>.bar"),
        ("x{3-0}", "x{3..0}"),
        ("x{0...3}", "x{0..3}"),
        ("x{0 - 3}", "x{0..3}"),
        ("x{7, 5-4, 0}", "x{7,5..4,0}"),
        ("x[0-2]", "x[0..2]"),
        ("x[1, 3]", "x[1,3]"),
        ("a.b.c", "a.b.c"),
        ("!add(1, 2, 3)", "(!add 1 2 3)"),
        ("!cast<string>(x)", "(!cast<T> x)"),
        ("!getop(d)", "(!getdagop d)"),
        ("!setop(d, o)", "(!setdagop d o)"),
        ("!getdagop<X>(d)", "(!getdagop<T> d)"),
        ("!isa<C>(x)", "(!isa<T> x)"),
        ("!cond(a: 1, b: 2,)", "(!cond a:1 b:2)"),
        ("!foreach(i, l, !add(i, 1))", "(!foreach i l (!add i 1))"),
        (
            "!foldl(0, l, acc, x, !add(acc, x))",
            "(!foldl 0 l acc x (!add acc x))",
        ),
        ("!if(c, a, b) # \"x\"", "(# (!if c a b) \"x\")"),
        ("!strconcat(\"a\", \"b\")", "(!strconcat \"a\" \"b\")"),
    ];
    for (src, want) in cases {
        assert_eq!(sx(&val(src)), want, "{src}");
    }
}

#[test]
fn value_spans() {
    let src = "a # b.c # d{1-0}";
    let e = val(src);
    assert_eq!(span_text(src, e.span), src);
    let ExprKind::BitSlice { base, ranges } = &e.kind else {
        panic!()
    };
    assert_eq!(span_text(src, base.span), "a # b.c # d");
    assert_eq!(span_text(src, ranges[0].span), "1-0");
    let ExprKind::Paste {
        lhs,
        rhs: Some(rhs),
    } = &base.kind
    else {
        panic!()
    };
    assert_eq!(span_text(src, lhs.span), "a");
    assert_eq!(span_text(src, rhs.span), "b.c # d");
    let ExprKind::Paste {
        lhs: l2,
        rhs: Some(r2),
    } = &rhs.kind
    else {
        panic!()
    };
    assert_eq!(span_text(src, l2.span), "b.c");
    assert_eq!(span_text(src, r2.span), "d");
    let src = "x # ";
    let e = val(src);
    assert_eq!(span_text(src, e.span), "x #");

    let src = "!cast<int>(x # \"s\" \"t\")";
    let e = val(src);
    let ExprKind::Bang {
        op_span,
        type_arg,
        args,
        ..
    } = &e.kind
    else {
        panic!()
    };
    assert_eq!(span_text(src, *op_span), "!cast");
    assert_eq!(
        span_text(src, type_arg.as_ref().map(|t| t.span).unwrap_or_default()),
        "int"
    );
    let ExprKind::Paste { rhs: Some(rhs), .. } = &args[0].kind else {
        panic!()
    };
    assert_eq!(span_text(src, rhs.span), "\"s\" \"t\"");

    let src = "(op:$o a:$x, $y)";
    let ExprKind::Dag { op, args } = val(src).kind else {
        panic!()
    };
    assert_eq!(span_text(src, op.span), "op:$o");
    assert_eq!(span_text(src, args[0].span), "a:$x");
    assert_eq!(span_text(src, args[1].span), "$y");
    assert_eq!(args[1].name.as_ref().map(|n| &*n.name), Some("y"));
}

fn stmts(src: &str) -> Vec<Stmt> {
    parse_ok(src).stmts
}

#[test]
fn statement_shapes() {
    let src = "class C; class D<int a, string b = \"x\"> : C { field int f = a; let g{3-0} = 1; defvar v = 2; assert 1, \"m\"; }";
    let s = stmts(src);
    let Stmt::Class(c) = &s[0] else { panic!() };
    assert!(c.is_forward_decl);
    let Stmt::Class(d) = &s[1] else { panic!() };
    assert!(!d.is_forward_decl);
    assert_eq!(d.targs.len(), 2);
    assert_eq!(
        d.targs[1].default.as_ref().map(sx).as_deref(),
        Some("\"x\"")
    );
    assert_eq!(&*d.body.parents[0].name.name, "C");
    assert!(matches!(
        d.body.items[0],
        BodyItem::Field { is_field: true, .. }
    ));
    let BodyItem::Let(l) = &d.body.items[1] else {
        panic!()
    };
    assert_eq!(l.bits.as_ref().map(|b| b.len()), Some(1));
    assert!(matches!(d.body.items[2], BodyItem::Defvar(_)));
    assert!(matches!(d.body.items[3], BodyItem::Assert(_)));
    assert_eq!(span_text(src, d.span), &src[9..]);
    assert_eq!(span_text(src, d.body.parents[0].span), "C");

    // Def names: anonymous, pasted, with a body right after the name.
    let src = "def : C; def; def A#B{ } def NAME#\"_x\" : C<1>; def !strconcat(\"a\", \"b\");";
    let s = stmts(src);
    let names: Vec<_> = s
        .iter()
        .map(|st| match st {
            Stmt::Def(d) => d.name.as_ref().map(sx).unwrap_or_default(),
            _ => panic!(),
        })
        .collect();
    assert_eq!(
        names,
        [
            "",
            "",
            "(# A B)",
            "(# NAME \"_x\")",
            "(!strconcat \"a\" \"b\")"
        ]
    );

    let s = stmts(
        "multiclass M<int n> : P<n>, Q { def _#NAME; defm : R; } defm X : M<1>, C; defm : M<2>;",
    );
    let Stmt::Multiclass(m) = &s[0] else { panic!() };
    assert_eq!(m.parents.len(), 2);
    assert_eq!(m.body.len(), 2);
    let Stmt::Defm(x) = &s[1] else { panic!() };
    assert_eq!(x.name.as_ref().map(sx).as_deref(), Some("X"));
    assert_eq!(x.parents.len(), 2);
    let Stmt::Defm(anon) = &s[2] else { panic!() };
    assert!(anon.name.is_none());

    let s = stmts("defset list<C> S = { def A : C; } defvar v = [1];");
    assert!(matches!(&s[0], Stmt::Defset(d) if &*d.name.name == "S" && d.body.len() == 1));
    assert!(matches!(&s[1], Stmt::Defvar(d) if &*d.name.name == "v"));

    let foreach_iter = |src: &str| match &stmts(src)[0] {
        Stmt::Foreach(f) => match &f.iter {
            ForeachIter::Ranges(r) => format!(
                "ranges {}",
                r.iter()
                    .map(|p| match &p.end {
                        Some(e) => format!("{}..{}", sx(&p.start), sx(e)),
                        None => sx(&p.start),
                    })
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            ForeachIter::Value(v) => format!("value {}", sx(v)),
        },
        _ => panic!(),
    };
    assert_eq!(foreach_iter("foreach i = 0-15 in def A#i;"), "ranges 0..15");
    assert_eq!(
        foreach_iter("foreach i = 0 - 15 in def A#i;"),
        "ranges 0..15"
    );
    assert_eq!(foreach_iter("foreach i = 12-0 in def A#i;"), "ranges 12..0");
    assert_eq!(
        foreach_iter("foreach i = 0...31 in def A#i;"),
        "ranges 0..31"
    );
    assert_eq!(
        foreach_iter("foreach i = {0-3, 7} in def A#i;"),
        "ranges 0..3,7"
    );
    assert_eq!(foreach_iter("foreach i = 3 in def A#i;"), "ranges 3");
    assert_eq!(
        foreach_iter("foreach i = [1, 2] in def A#i;"),
        "value [1 2]"
    );
    assert_eq!(
        foreach_iter("foreach i = L in { def A#i; def B#i; }"),
        "value L"
    );
    assert_eq!(
        foreach_iter("foreach i = !listconcat(a, b) in def A#i;"),
        "value (!listconcat a b)"
    );

    let s = stmts("if c then def A; else { def B; def C; } if d then { }");
    let Stmt::If(i) = &s[0] else { panic!() };
    assert_eq!(i.then_body.len(), 1);
    assert_eq!(i.else_body.as_ref().map(|b| b.len()), Some(2));
    let Stmt::If(j) = &s[1] else { panic!() };
    assert!(j.else_body.is_none() && j.then_body.is_empty());

    let s = stmts(
        "let A = 1, B<3-0> = 2 in { def X; def Y; } let C = 3 in def Z; assert !eq(1, 1), \"m\";",
    );
    let Stmt::Let(l) = &s[0] else { panic!() };
    assert_eq!(l.items.len(), 2);
    assert!(l.items[0].bits.is_none());
    assert_eq!(l.items[1].bits.as_ref().map(|b| b.len()), Some(1));
    assert_eq!(l.body.len(), 2);
    assert!(matches!(&s[1], Stmt::Let(l) if l.body.len() == 1));
    assert!(matches!(&s[2], Stmt::Assert(_)));

    // Types.
    let s = stmts("class T { bit a; int b; string c; code d; dag e; bits<8> f; list<list<int>> g; C h; bits<0x10> i; }");
    let Stmt::Class(c) = &s[0] else { panic!() };
    let kinds: Vec<String> = c
        .body
        .items
        .iter()
        .map(|i| match i {
            BodyItem::Field { ty, .. } => format!("{:?}", ty.kind),
            _ => panic!(),
        })
        .collect();
    assert_eq!(
        kinds[..6],
        ["Bit", "Int", "String", "Code", "Dag", "Bits(8)"]
    );
    assert!(kinds[6].starts_with("List(Type { kind: List("));
    assert!(kinds[7].starts_with("Class(Ident { name: \"h\"") || kinds[7].contains("\"C\""));
    assert_eq!(kinds[8], "Bits(16)");
}

#[test]
fn keywords_are_not_identifiers() {
    for src in [
        "def in;",
        "def A { int in = 1; }",
        "class C<int let>;",
        "def A { int x = true<1>; }",
    ] {
        assert!(parse(0, src).is_err(), "{src}");
    }
    // ... but a keyword may start an identifier, and `$` names may be keywords.
    parse_ok("def inx; def A { dag d = (inx $in, $let); }");
}

#[test]
fn unknown_bang_operators_are_errors() {
    for op in [
        "div",
        "tolower",
        "toupper",
        "exists",
        "range",
        "repr",
        "getdagarg",
        "setdagarg",
        "logtwo",
    ] {
        let src = format!("def A {{ int x = !{op}(1, 2); }}");
        let errs = parse_err(&src);
        assert!(
            errs[0].contains(&format!("unknown operator `!{op}`")),
            "{errs:?}"
        );
    }
}

#[test]
fn error_messages() {
    let cases = [
        ("def A { int x }", "14..15: expected `;` or `=` in field declaration, found `}`"),
        ("def A { int x = ; }", "16..17: expected a value, found `;`"),
        ("def A : B<1>, C", "15..15: expected `,`, `;`, `<` or `{` in record body, found end of file"),
        ("def A { list<int> x = [1, 2; }", "27..28: expected `,` or `]`, found `;`"),
        ("let x = 1 def A;", "10..13: expected `,` or `in` in `let` statement, found `def`"),
        ("def A { int in = 1; }", "12..14: expected an identifier, found keyword `in`"),
        ("def A { string s = \"a\\q\"; }", "21..23: invalid escape sequence `\\q` in string literal"),
        ("def A {};", "8..9: a class or def body should not end with a semicolon"),
        ("multiclass M {}", "13..15: multiclass must contain at least one def"),
        ("foreach i = [1] in { class C; }", "21..26: `class` is not allowed inside a `foreach` or `if` body"),
        ("def A { int x = !add(1); }", "16..22: `!add` expects two or more operands, found 1"),
        ("def A { int x = !cast(1); }", "16..21: `!cast` requires a type argument: `!cast<Type>(...)`"),
        ("def A { int x = !head<int>([1]); }", "22..25: `!head` does not take a type argument"),
        ("def A { int x = 0x1FFFFFFFFFFFFFFFF; }", "16..35: hexadecimal number out of range"),
        ("def A { list<int> x = !foreach(1, [1], 2); }", "31..32: the first operand of `!foreach` must be an identifier"),
        ("#ifdef X\n#endif", "0..8: reached end of file without matching `#endif`"),
        ("def A { int x = 1;\n", "19..19: expected an identifier, `assert`, `defvar`, `field`, `let` or `}`, found end of file"),
    ];
    let mut wrong = Vec::new();
    for (src, want) in cases {
        let got = parse_err(src);
        if got.first().map(String::as_str) != Some(want) {
            wrong.push(format!("{src:?}\n   want {want}\n   got  {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A fresh temporary directory for one test.
fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("regdesc-syntax-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create temp dir");
    d
}

fn write(path: &Path, text: &str) {
    if let Some(p) = path.parent() {
        std::fs::create_dir_all(p).expect("mkdir");
    }
    std::fs::write(path, text).expect("write");
}

fn def_names(l: &Loaded) -> Vec<String> {
    fn walk(stmts: &[Stmt], l: &Loaded, out: &mut Vec<String>) {
        for s in stmts {
            match s {
                Stmt::Def(d) => out.push(d.name.as_ref().map(sx).unwrap_or_default()),
                Stmt::Include(i) => {
                    if let Some(f) = i.file {
                        walk(&l.take_ast(f).stmts, l, out);
                    }
                }
                Stmt::Let(x) => walk(&x.body, l, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(&l.take_ast(l.root).stmts, l, &mut out);
    out
}

fn load_ok(path: &Path, opts: &LoadOptions) -> Loaded {
    match load_file(path, opts) {
        Ok(l) => l,
        Err((s, d)) => panic!("{}", crate::diag::render(&s, &d, false)),
    }
}

#[test]
fn include_search_order() {
    let d = temp_dir("order");
    write(&d.join("main/main.td"), "include \"b.td\"\n");
    write(&d.join("main/b.td"), "def FromMainDir;\n");
    write(&d.join("i1/b.td"), "def FromI1;\n");
    write(&d.join("i2/b.td"), "def FromI2;\n");
    let main = d.join("main/main.td");
    // -I directories in order; the including file's directory is not searched.
    let opts = |dirs: &[&str]| LoadOptions {
        include_dirs: dirs.iter().map(|x| d.join(x)).collect(),
        ..Default::default()
    };
    assert_eq!(def_names(&load_ok(&main, &opts(&["i1", "i2"]))), ["FromI1"]);
    assert_eq!(def_names(&load_ok(&main, &opts(&["i2", "i1"]))), ["FromI2"]);
    let (sources, errs) = load_file(&main, &opts(&[])).expect_err("not found");
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].code, "regdesc::syntax::include_not_found");
    let sp = errs[0].span.expect("located");
    assert_eq!(
        &sources.file(sp.file).text().expect("the file is unchanged")
            [sp.start as usize..sp.end as usize],
        "\"b.td\""
    );
    assert!(errs[0]
        .help
        .as_deref()
        .unwrap_or("")
        .contains("current directory"));
    let (_, errs) = load_file(&main, &opts(&["i9"])).expect_err("not found");
    assert!(errs[0].help.as_deref().unwrap_or("").contains("i9"));

    // The path as written is tried first, relative to the current directory.
    let cwd = std::env::current_dir().expect("cwd");
    let up = "../".repeat(cwd.components().count().saturating_sub(1));
    let rel = format!(
        "{up}{}",
        d.join("i2/b.td")
            .display()
            .to_string()
            .trim_start_matches('/')
    );
    write(&d.join("main/rel.td"), &format!("include \"{rel}\"\n"));
    assert_eq!(
        def_names(&load_ok(&d.join("main/rel.td"), &opts(&["i1"]))),
        ["FromI2"]
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn include_links_and_notes() {
    let d = temp_dir("links");
    write(&d.join("a.td"), "def A;\n");
    write(
        &d.join("main.td"),
        "def M;\nlet x = 1 in {\n  include \"a.td\"\n}\ninclude \"a.td\"\n",
    );
    let l = load_ok(
        &d.join("main.td"),
        &LoadOptions {
            include_dirs: vec![d.clone()],
            ..Default::default()
        },
    );
    assert_eq!(l.sources.files.len(), 3);
    assert_eq!(def_names(&l), ["M", "A", "A"]);
    for f in &l.sources.files[1..] {
        let from = f.included_from.expect("included");
        assert_eq!(from.file, 0);
        assert!(
            l.sources.file(0).text().expect("the file is unchanged")[from.start as usize..]
                .starts_with("include")
        );
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn builtin_files_are_a_fallback() {
    let opts = LoadOptions {
        builtin_files: vec![("llvm/Target/Target.td".into(), "def Builtin;\n".into())],
        ..Default::default()
    };
    let l = match load_str(
        "main.td",
        "include \"llvm/Target/Target.td\"\ninclude \"llvm/Target/Target.td\"\ndef Main;\n",
        &opts,
    ) {
        Ok(l) => l,
        Err((s, d)) => panic!("{}", crate::diag::render(&s, &d, false)),
    };
    assert_eq!(def_names(&l), ["Builtin", "Builtin", "Main"]);
    assert_eq!(l.diagnostics.len(), 1, "one note, however often it is used");
    assert_eq!(l.diagnostics[0].severity, crate::diag::Severity::Note);
    assert!(l.diagnostics[0].message.contains("llvm/Target/Target.td"));
    assert!(l
        .sources
        .file(1)
        .path
        .display()
        .to_string()
        .contains("<builtin>"));
}

#[test]
fn macros_are_shared_in_include_order() {
    let d = temp_dir("macros");
    write(&d.join("a.td"), "#define FROM_A\n");
    write(
        &d.join("main.td"),
        "#ifdef FROM_A\ndef Before;\n#endif\ninclude \"a.td\"\n#ifdef FROM_A\ndef After;\n#endif\n#ifdef CLI\ndef Cli;\n#endif\n",
    );
    let mut opts = LoadOptions {
        include_dirs: vec![d.clone()],
        ..Default::default()
    };
    assert_eq!(def_names(&load_ok(&d.join("main.td"), &opts)), ["After"]);
    opts.defines.push("CLI".into());
    assert_eq!(
        def_names(&load_ok(&d.join("main.td"), &opts)),
        ["After", "Cli"]
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn include_cycles() {
    let d = temp_dir("cycle");
    let opts = LoadOptions {
        include_dirs: vec![d.clone()],
        ..Default::default()
    };
    write(&d.join("a.td"), "include \"b.td\"\n");
    write(&d.join("b.td"), "include \"a.td\"\n");
    let (_, errs) = load_file(&d.join("a.td"), &opts).expect_err("cycle");
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].code, "regdesc::syntax::include_depth");
    assert!(errs[0].message.contains("cycle"), "{}", errs[0].message);
    // With include guards, a cycle is harmless (as with llvm-tblgen).
    write(
        &d.join("g.td"),
        "#ifndef G\n#define G\ninclude \"h.td\"\ndef G1;\n#endif\n",
    );
    write(
        &d.join("h.td"),
        "#ifndef H\n#define H\ninclude \"g.td\"\ndef H1;\n#endif\n",
    );
    assert_eq!(def_names(&load_ok(&d.join("g.td"), &opts)), ["H1", "G1"]);
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn every_file_reports_its_errors() {
    let d = temp_dir("errors");
    write(&d.join("a.td"), "def A { int x }\n");
    write(&d.join("b.td"), "def B : ;\n");
    write(
        &d.join("main.td"),
        "include \"a.td\"\ninclude \"b.td\"\ndef M { int y = !div(1, 2); }\n",
    );
    let opts = LoadOptions {
        include_dirs: vec![d.clone()],
        ..Default::default()
    };
    let (sources, errs) = load_file(&d.join("main.td"), &opts).expect_err("errors");
    assert_eq!(errs.len(), 3, "{errs:#?}");
    // Errors in included files say where they were included from (notes
    // added at rendering, for every stage's diagnostics).
    let noted = errs
        .iter()
        .map(|e| crate::diag::with_include_notes(&sources, e))
        .filter(|e| e.related.len() == 1)
        .count();
    assert_eq!(noted, 2);
    let out = crate::diag::render(&sources, &errs, false);
    assert!(out.contains("a.td:1:15"), "{out}");
    assert!(out.contains("b.td:1:9"), "{out}");
    assert!(out.contains("main.td:3:17"), "{out}");
    assert!(out.contains("included from here"), "{out}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn missing_root_file_is_an_error() {
    let (_, errs) = load_file(
        Path::new("/nonexistent/regdesc/x.td"),
        &LoadOptions::default(),
    )
    .expect_err("io");
    assert_eq!(errs[0].code, "regdesc::syntax::io");
    assert!(errs[0].span.is_none());
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!("defvar x = {}1{};", "[".repeat(5000), "]".repeat(5000));
    let (_, errs) = load_str("deep.td", &deep, &LoadOptions::default()).expect_err("too deep");
    assert_eq!(errs[0].code, "regdesc::syntax::nesting_too_deep");
    // Just under the limit still parses.
    let n = preprocess::MAX_NESTING - 1;
    let ok = format!("defvar x = {}1{};", "[".repeat(n), "]".repeat(n));
    assert!(load_str("ok.td", &ok, &LoadOptions::default()).is_ok());
    let chain = format!(
        "{}def X;",
        "let a = 1 in ".repeat(preprocess::MAX_NESTING - 1)
    );
    assert!(load_str("chain.td", &chain, &LoadOptions::default()).is_ok());
}

#[test]
fn parse_runs_deep_inputs_on_a_big_stack() {
    // `parse` is called on the test's small-stack thread.
    let n = preprocess::MAX_NESTING - 1;
    let deep = format!(
        "defvar x = {}1{};",
        "!add(1, ".repeat(n / 2),
        ")".repeat(n / 2)
    );
    assert!(parse(0, &deep).is_ok());
    let deep = format!("defvar x = {}1{};", "[".repeat(n), "]".repeat(n));
    assert!(parse(0, &deep).is_ok());
}

#[test]
fn comments_nest_and_hide_nothing_else() {
    // Checked with llvm-tblgen 14: all four defs exist.
    let s = stmts(
        "/* a /* b */ c */ def A;\n/* // */ def B;\ndef C { string s = \"/*\"; }\n// /*\ndef D;\n",
    );
    assert_eq!(s.len(), 4);
    let Stmt::Def(c) = &s[2] else { panic!() };
    let BodyItem::Field { value: Some(v), .. } = &c.body.items[0] else {
        panic!()
    };
    assert_eq!(sx(v), "\"/*\"");
    // Code blocks keep comments and newlines verbatim.
    let e = val("[{ a /* b */ // c\n d }]");
    assert_eq!(sx(&e), "[{ a /* b */ // c\n d }]");
}

#[test]
fn trailing_paste_only_before_colon_semicolon_or_brace() {
    // As llvm-tblgen 14: `a #` pastes nothing before `;`, `:` and `{` only.
    parse_ok("def X#; def Y# : C; def Z# { } class C { string s = \"a\" #; }");
    // After `# ` a `{` is a bit slice of the paste (llvm-tblgen then
    // reports an invalid bit range, a semantic error).
    parse_ok("def A { bits<3> x = {0} # {1,0}; }");
    for bad in [
        "def A { list<string> x = [\"a\" #, \"b\"]; }",
        "def A { list<string> x = [\"a\" #]; }",
        "def A : C<\"a\" #>;",
        "def A { dag d = (op \"a\" #); }",
    ] {
        assert!(parse(0, bad).is_err(), "{bad}");
    }
}

#[test]
fn odd_inputs() {
    assert!(stmts("").is_empty());
    assert!(stmts("  // only a comment\n/* and another */\n").is_empty());
    assert_eq!(stmts("def A;\r\ndef B;\r\n").len(), 2);
    let e = parse(0, "def A { include \"x.td\" }").expect_err("include in a body");
    let SyntaxError::Expected { help, .. } = &e[0] else {
        panic!("{e:?}")
    };
    assert!(help.as_deref().unwrap_or("").contains("statement"));
    let e = parse_err("def A { int x = 1 @ 2; }");
    assert!(e[0].contains("found `@`"), "{e:?}");
    let e = parse_err("def Aé;");
    assert!(e[0].contains("found `é`"), "{e:?}");
}

/// Preprocesses `text` with no macros defined (includes left unresolved).
fn preprocessed(text: &str) -> preprocess::Preprocessed {
    struct H;
    impl preprocess::PreprocessHost for H {
        fn is_defined(&self, _: &str) -> bool {
            false
        }
        fn define(&mut self, _: &str) {}
        fn include(&mut self, _: &str, _: Span, _: Span) {}
    }
    preprocess::preprocess(0, text, &mut H)
}

/// Whether the fast parser keeps its promise on preprocessed `text`: what
/// it accepts, pest accepts with the same tree. Returns whether it took
/// the text.
fn descent_agrees(text: &str, what: &str) -> bool {
    let fast = descent::parse(0, text);
    let Some(fast) = fast else {
        return false;
    };
    match parser::parse_with_pest(0, text) {
        Ok(slow) => assert!(fast == slow, "{what}: the two parsers' trees differ"),
        Err(e) => panic!("{what}: the fast parser accepted what pest rejects: {e:?}"),
    }
    true
}

/// Every `.td` file of LLVM's include directory, of the repository's
/// fixtures and (when prepared) of the LLVM 14 corpus: the fast parser
/// gives pest's tree, and takes every file pest accepts but a known few.
#[test]
fn fast_parser_matches_pest_on_every_td_file() {
    let mut files = Vec::new();
    td_files(Path::new(LLVM_INCLUDE), &mut files);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    td_files(&root.join("tests/fixtures"), &mut files);
    td_files(&root.join("examples"), &mut files);
    td_files(&root.join("targets"), &mut files);
    let corpus = std::env::var_os("REGDESC_LLVM_SRC")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/llvm-14-src"));
    td_files(&corpus.join("llvm/lib/Target"), &mut files);
    td_files(&corpus.join("llvm/test/TableGen"), &mut files);
    files.sort();
    let mut left_to_pest = Vec::new();
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let pre = preprocessed(&text);
        if !pre.errors.is_empty() {
            continue;
        }
        let what = f.display().to_string();
        if !descent_agrees(&pre.text, &what) && parser::parse_with_pest(0, &pre.text).is_ok() {
            left_to_pest.push(what);
        }
    }
    eprintln!(
        "{} files; left to pest though valid: {left_to_pest:#?}",
        files.len()
    );
    assert!(files.len() > 100 || !Path::new(LLVM_INCLUDE).exists());
    assert!(left_to_pest.is_empty(), "{left_to_pest:#?}");
}

/// Mutated inputs (bytes deleted, repeated or replaced by TableGen's
/// punctuation, from a fixed seed): whatever the fast parser accepts, pest
/// accepts with the same tree.
#[test]
fn fast_parser_never_accepts_what_pest_rejects() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    td_files(&root.join("tests/fixtures/pass"), &mut files);
    td_files(&root.join("tests/fixtures/fail"), &mut files);
    files.sort();
    const PUNCT: &[u8] = b" :;,<>{}[]()#.!?$=-+\"0x1bai_";
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n.max(1) as u64) as usize
    };
    let (mut taken, mut tried) = (0, 0);
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        let pre = preprocessed(&text);
        if !pre.errors.is_empty() || pre.text.is_empty() {
            continue;
        }
        let base = pre.text.into_bytes();
        for _ in 0..60 {
            let mut m = base.clone();
            for _ in 0..1 + next(3) {
                let at = next(m.len());
                match next(3) {
                    0 => {
                        let len = 1 + next(4);
                        m.drain(at..(at + len).min(m.len()));
                    }
                    1 => {
                        let len = 1 + next(6);
                        let piece: Vec<u8> = m[at..(at + len).min(m.len())].to_vec();
                        m.splice(at..at, piece);
                    }
                    _ => m.insert(at, PUNCT[next(PUNCT.len())]),
                }
            }
            let Ok(text) = String::from_utf8(m) else {
                continue;
            };
            tried += 1;
            if descent_agrees(&text, &format!("{} mutated: {text:?}", f.display())) {
                taken += 1;
            }
        }
    }
    eprintln!("{tried} mutations, {taken} taken by the fast parser");
    assert!(tried > 1000);
}

/// A file read statement by statement ([`Loaded::statements`]) gives the
/// statements of its whole tree, also where the fast parser hands over to
/// pest after the first statement (`{}` after `foreach i =` is an empty
/// bits value to pest, which the fast parser leaves to it).
#[test]
fn statements_one_at_a_time_are_the_whole_tree() {
    let dir = temp_dir("statements");
    for (k, text) in [
        "class Z;\ndef A;\nforeach i = {} in def B;\ndef C : Z;\n",
        "class Z;\ndef A : Z;\nlet x = 1 in { def C; }\n",
    ]
    .into_iter()
    .enumerate()
    {
        let root = dir.join(format!("s{k}.td"));
        write(&root, text);
        let (loaded, streamed) = match load_file_then(&root, &LoadOptions::default(), |l| {
            l.statements(l.root).collect::<Vec<_>>()
        }) {
            Ok(r) => r,
            Err((s, d)) => panic!("{}", first_errors(&s, &d)),
        };
        let pre = preprocessed(
            loaded
                .sources
                .file(loaded.root)
                .text()
                .expect("the file is unchanged"),
        );
        let whole = parser::parse_with_pest(loaded.root, &pre.text).expect("pest parses it");
        assert_eq!(streamed, whole.stmts, "{text}");
        assert_eq!(descent::parse(loaded.root, &pre.text).is_some(), k == 1);
    }
}

/// A file with a syntax error in `a.td`, included from `main.td`.
fn freed_text_case(name: &str) -> (PathBuf, PathBuf, LoadOptions) {
    let d = temp_dir(name);
    write(&d.join("a.td"), "class A {\n  int x = 1\n}\n");
    write(&d.join("main.td"), "include \"a.td\"\ndef X;\n");
    let opts = LoadOptions {
        include_dirs: vec![d.clone()],
        ..Default::default()
    };
    (d.clone(), d.join("main.td"), opts)
}

#[test]
fn diagnostics_show_source_read_again_after_it_was_freed() {
    let (d, main, opts) = freed_text_case("freed");
    let (sources, errs) = load_file(&main, &opts).expect_err("syntax error");
    let sp = errs[0].span.expect("located");
    assert!(sources.file(sp.file).path.ends_with("a.td"));
    let (line, col) = sources.line_col(sp.file, sp.start);
    assert_eq!((line, col), (3, 1));
    let fancy = crate::diag::render(&sources, &errs, false);
    assert!(fancy.contains("int x = 1"), "{fancy}");
    assert!(fancy.contains("a.td:3:1"), "{fancy}");
    let llvm = crate::diag::render_llvm(&sources, &errs);
    assert!(llvm.contains("a.td:3:1: error: "), "{llvm}");
    assert!(llvm.contains("\n}\n^\n"), "{llvm}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn diagnostics_on_a_file_changed_on_disk_go_without_source() {
    // Same length, other text: the hash tells.
    for changed in ["class A {\n  int y = 1\n}\n", "gone\n"] {
        let (d, main, opts) = freed_text_case("changed");
        let (sources, errs) = load_file(&main, &opts).expect_err("syntax error");
        write(&d.join("a.td"), changed);
        let sp = errs[0].span.expect("located");
        assert_eq!(sources.line_col(sp.file, sp.start), (3, 1));
        assert!(sources.file(sp.file).text().is_none());
        let fancy = crate::diag::render(&sources, &errs, false);
        assert!(fancy.contains("a.td:3:1: "), "{fancy}");
        assert!(!fancy.contains("int "), "{fancy}");
        // The including file did not change: its note keeps its snippet.
        assert!(fancy.contains("include \"a.td\""), "{fancy}");
        let llvm = crate::diag::render_llvm(&sources, &errs);
        assert!(llvm.contains("a.td:3:1: error: "), "{llvm}");
        assert!(!llvm.contains('^'), "{llvm}");
        std::fs::remove_file(d.join("a.td")).expect("remove");
        assert!(!crate::diag::render(&sources, &errs, false).is_empty());
        let _ = std::fs::remove_dir_all(&d);
    }
}
