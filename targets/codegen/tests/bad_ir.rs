//! Inputs outside the subset or invalid IR (`tests/bad/*.ll`): each gets a
//! located error, `file:line:col` with a label and a help line where one
//! helps; the rendered diagnostics are insta snapshots.

#[path = "support/mod.rs"]
mod support;

#[test]
fn bad_inputs_get_located_errors() {
    let files = support::ll_files("tests/bad");
    assert!(files.len() >= 30, "bad inputs missing: {}", files.len());
    for path in files {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(&path).expect("readable");
        let Err(e) = regdesc_codegen::read_module(&name, &text) else {
            panic!("{name} was accepted");
        };
        assert!(!e.diags.is_empty());
        for d in &e.diags {
            assert!(d.span.is_some(), "{name}: unlocated error {}", d.message);
            assert!(
                !d.label.is_empty(),
                "{name}: error without a label: {}",
                d.message
            );
        }
        let rendered = e.render(false);
        assert!(
            rendered.contains(&format!("[{name}:")),
            "{name}: no file:line:col in\n{rendered}"
        );
        let stem = name.trim_end_matches(".ll").to_string();
        insta::assert_snapshot!(stem, rendered);
    }
}
