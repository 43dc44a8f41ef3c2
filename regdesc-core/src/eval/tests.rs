//! Unit tests of the evaluation stage that the fixture files cannot
//! express (the fixtures in `tests/fixtures` check everything else
//! against llvm-tblgen).

use super::*;
use crate::syntax::{load_str, LoadOptions};

fn eval_str(text: &str) -> Result<EvalOutput, Vec<Diagnostic>> {
    let loaded = match load_str("test.td", text, &LoadOptions::default()) {
        Ok(l) => l,
        Err((_, d)) => panic!("syntax errors: {d:?}"),
    };
    evaluate(&loaded)
}

#[test]
fn errors_stop_after_the_limit() {
    let text: String = (0..3 * state::MAX_ERRORS)
        .map(|k| format!("def D{k} : Missing;\n"))
        .collect();
    let errs = eval_str(&text).expect_err("every def names a missing class");
    assert_eq!(errs.len(), state::MAX_ERRORS + 1);
    assert!(errs[..state::MAX_ERRORS]
        .iter()
        .all(|d| d.code == "regdesc::eval::undefined_class"));
    let last = &errs[state::MAX_ERRORS];
    assert_eq!(last.code, "regdesc::eval::limit");
    assert!(last.message.contains("stopping"), "{}", last.message);
}

#[test]
fn independent_errors_are_all_reported() {
    let errs = eval_str("def A : Missing;\ndef B { int x = \"s\"; }\ndef C : A;\n")
        .expect_err("three bad statements");
    let codes: Vec<&str> = errs.iter().map(|d| d.code).collect();
    assert_eq!(
        codes,
        [
            "regdesc::eval::undefined_class",
            "regdesc::eval::type_mismatch",
            "regdesc::eval::undefined_class"
        ]
    );
}

#[test]
fn every_error_converts_with_its_code_and_span() {
    let span = crate::syntax::Span::new(0, 3, 7);
    let e = EvalError::UndefinedVariable {
        name: "NAME".into(),
        is_class: false,
        span,
    };
    let d = e.to_diagnostic();
    assert_eq!(d.code, "regdesc::eval::undefined_variable");
    assert_eq!(d.span, Some(span));
    assert_eq!(d.message, "Variable not defined: 'NAME'");
    assert!(d
        .help
        .is_some_and(|h| h.contains("only available inside classes")));
    let w = EvalError::UnusedTemplateArg {
        name: "C:x".into(),
        span,
    }
    .to_diagnostic();
    assert!(!w.is_error());
}

#[test]
fn defs_sorted_by_prefix_key_then_name() {
    // Names sharing 16-byte prefixes, prefixes of each other, with NULs and
    // bytes over 0x7f: the keyed order is `str`'s order.
    let mut names: Vec<String> = Vec::new();
    for stem in [
        "",
        "a",
        "int_amdgcn_image_",
        "int_amdgcn_image_sample",
        "\u{e9}",
    ] {
        for tail in [
            "",
            "\0",
            "\0b",
            "b",
            "ab",
            "z",
            "\u{e9}x",
            "0123456789abcdef",
        ] {
            names.push(format!("{stem}{tail}"));
        }
    }
    for a in &names {
        for b in &names {
            let (ka, kb) = (record::name_prefix_key(a), record::name_prefix_key(b));
            assert_eq!(ka.cmp(&kb).then_with(|| a.cmp(b)), a.cmp(b), "{a:?} {b:?}");
        }
    }
    let text: String = [
        "b",
        "a_long_name_past_16_bytes_2",
        "a_long_name_past_16_bytes_1",
        "a",
    ]
    .iter()
    .map(|n| format!("def {n};\n"))
    .collect();
    let out = eval_str(&text).expect("valid");
    let sorted: Vec<&str> = out.records.defs().map(|id| out.records.name(id)).collect();
    assert_eq!(
        sorted,
        [
            "a",
            "a_long_name_past_16_bytes_1",
            "a_long_name_past_16_bytes_2",
            "b"
        ]
    );
}
