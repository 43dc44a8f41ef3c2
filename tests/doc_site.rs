//! `regdesc doc`: the site of a small fixture (insta snapshots of every
//! page and SVG, deterministic), the rustdoc links of generated code landing
//! on real pages and anchors, the seed-style Intel files, LLVM 14's AMDGPU
//! description (size and time), the Markdown form and the CLI.
//!
//! The browser test (Chromium over WebDriver) is `tests/doc_browser.rs`.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use regdesc_core::check::CheckOptions;
use regdesc_core::doc::{self, DocInput, Site};
use regdesc_core::driver::{self, Input, Run};

const SMALL: &str = "tests/fixtures/doc/small.td";

fn run(input: &Input) -> Run {
    let run = driver::target_both_modes(input, &CheckOptions::default());
    assert!(
        run.target.is_some() && run.other_target.is_some(),
        "no model:\n{}",
        run.render(false)
    );
    run
}

fn doc_input<'a>(run: &'a Run, name: &str) -> DocInput<'a> {
    DocInput {
        target: run.target.as_ref().unwrap(),
        other: run.other_target.as_ref().unwrap(),
        check: run.check.as_ref().unwrap(),
        sources: &run.sources,
        source_name: name.to_string(),
    }
}

fn site_of(file: &str) -> Site {
    let run = run(&Input::file(file));
    doc::site(&doc_input(&run, file))
}

/// Every generated page and diagram, one snapshot each (the static style
/// sheet and script are source files, not output).
#[test]
fn small_site_snapshot() {
    let site = site_of(SMALL);
    let again = site_of(SMALL);
    assert_eq!(site, again, "two runs differ");
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.set_snapshot_path("snapshots/doc_site");
    settings.bind(|| {
        let paths: Vec<&String> = site.files.keys().collect();
        insta::assert_snapshot!("files", format!("{paths:#?}"));
        for (path, text) in &site.files {
            if path == "assets/site.css" || path == "assets/site.js" {
                continue;
            }
            let name = path.replace(['/', '.'], "_");
            insta::assert_snapshot!(name, text);
        }
    });
}

#[test]
fn small_markdown_snapshot() {
    let run = run(&Input::file(SMALL));
    let text = doc::markdown(&doc_input(&run, SMALL));
    insta::assert_snapshot!("doc_small_markdown", text);
    // The seed's picture: the SIMD4 qword tuple's dwords alternate.
    assert!(text.contains("32: L H L H L H L H"), "{text}");
}

/// The standalone SVG files are well-formed XML (browsers show them as
/// images), and the inline diagrams are on the pages.
#[test]
fn svg_is_well_formed() {
    let site = site_of(SMALL);
    let mut standalone = 0;
    for (path, text) in &site.files {
        if path.ends_with(".svg") {
            standalone += 1;
            let doc = roxmltree::Document::parse(text)
                .unwrap_or_else(|e| panic!("{path} is not well-formed: {e}"));
            assert_eq!(doc.root_element().tag_name().name(), "svg", "{path}");
        }
        if path.ends_with(".html") {
            // Each inline <svg> parses as XML too.
            let mut rest = text.as_str();
            while let Some(start) = rest.find("<svg") {
                let end = rest[start..]
                    .find("</svg>")
                    .map(|e| start + e + 6)
                    .unwrap_or_else(|| panic!("{path}: unclosed <svg>"));
                roxmltree::Document::parse(&rest[start..end])
                    .unwrap_or_else(|e| panic!("{path}: inline SVG is not well-formed: {e}"));
                rest = &rest[end..];
            }
        }
    }
    assert!(standalone > 0);
    let index = &site.files["index.html"];
    assert!(index.contains("class=\"lane-matrix\""));
    let q = &site.files["regs/gpr_q_simd4.html"];
    assert!(q.contains("class=\"layout\""));
}

/// `href`s and `src`s of every page lead to files of the site, and their
/// fragments to ids on those pages.
#[test]
fn internal_links_resolve() {
    let site = site_of(SMALL);
    let ids = ids_by_page(&site);
    let mut checked = 0;
    for (path, text) in &site.files {
        if !path.ends_with(".html") {
            continue;
        }
        let dir = Path::new(path).parent().unwrap_or(Path::new(""));
        for attr in ["href=\"", "src=\""] {
            for link in text.split(attr).skip(1) {
                let link = &link[..link.find('"').unwrap()];
                let (file, frag) = link.split_once('#').unwrap_or((link, ""));
                let target = normalize(&dir.join(file));
                assert!(
                    site.files.contains_key(&target),
                    "{path}: {link} -> {target} is not in the site"
                );
                if !frag.is_empty() {
                    assert!(
                        ids.contains(&(target.clone(), frag.to_string())),
                        "{path}: no id {frag} on {target}"
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked}");
}

fn normalize(p: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
            _ => {}
        }
    }
    parts.join("/")
}

fn ids_by_page(site: &Site) -> BTreeSet<(String, String)> {
    let mut ids = BTreeSet::new();
    for (path, text) in &site.files {
        for part in text.split(" id=\"").skip(1) {
            ids.insert((path.clone(), part[..part.find('"').unwrap()].to_string()));
        }
    }
    ids
}

/// The rustdoc of generated items (`regdesc emit --doc-url`) links to pages
/// and anchors that exist, one link per register, index and class.
#[test]
fn emitted_doc_links_land_on_pages() {
    for file in [SMALL, "examples/intel_grf.td"] {
        let run = run(&Input::file(file));
        let target = run.target.as_ref().unwrap();
        let site = doc::site(&doc_input(&run, file));
        let ids = ids_by_page(&site);
        let base = "https://example.org/regdesc-docs/";
        let opts = regdesc_core::emit::EmitOptions {
            min_lane_bits: 32,
            doc_url: Some(base.to_string()),
        };
        let code = regdesc_core::emit::file(target, &opts, "test").expect("emit");
        let links: Vec<&str> = code
            .split("(https://example.org/regdesc-docs/")
            .skip(1)
            .map(|l| &l[..l.find(')').unwrap()])
            .collect();
        let items = target.registers.len() + target.sub_reg_indices.len() + target.classes.len();
        assert_eq!(links.len(), items, "{file}: one link per item");
        for link in links {
            let (page, frag) = link.split_once('#').unwrap_or((link, ""));
            assert!(
                site.files.contains_key(page),
                "{file}: {link}: no page {page}"
            );
            if !frag.is_empty() {
                assert!(
                    ids.contains(&(page.to_string(), frag.to_string())),
                    "{file}: {link}: no anchor {frag} on {page}"
                );
            }
        }
    }
}

/// The seed-style Intel files: an index and at least 5 pages with SVG each,
/// registers grouped (no page per register).
#[test]
fn intel_examples() {
    for file in [
        "examples/intel_grf.td",
        "examples/intel_grf_simd16.td",
        "examples/intel_grf_bytes_simd16.td",
    ] {
        let run = run(&Input::file(file));
        let site = doc::site(&doc_input(&run, file));
        let target = run.target.as_ref().unwrap();
        assert!(site.files.contains_key("index.html"), "{file}");
        let with_svg = site
            .files
            .iter()
            .filter(|(p, t)| p.ends_with(".html") && t.contains("<svg"))
            .count();
        assert!(with_svg >= 5, "{file}: {with_svg} pages with SVG");
        let pages = site.files.keys().filter(|p| p.ends_with(".html")).count();
        assert!(
            pages < 100,
            "{file}: {pages} pages for {} registers",
            target.registers.len()
        );
        // Every class has its page.
        for c in &target.classes {
            assert!(site.files.contains_key(&format!("classes/{}.html", c.name)));
        }
    }
    // The seed's picture: the SIMD8 qword tuple is two 256-bit GRF rows
    // (r10, r11), each with its dwords L H L H L H L H under subq0-3 and
    // subq4-7.
    let run = run(&Input::file("examples/intel_grf.td"));
    let text = doc::markdown(&doc_input(&run, "examples/intel_grf.td"));
    let simd8 = &text[text.find("(tuple gpr_q_simd8)").expect("its layout")..];
    for row in [
        "bits 0–255:\n   256: L\n    64: subq0 subq1 subq2 subq3\n    32: L H L H L H L H\n",
        "bits 256–511:\n   256: H\n    64: subq4 subq5 subq6 subq7\n    32: L H L H L H L H\n",
    ] {
        assert!(simd8.contains(row), "{simd8}");
    }
}

/// LLVM 14's AMDGPU description (~7000 registers, 470 classes): the site
/// stays under 50 MB and is generated quickly.
#[test]
fn amdgpu_real_target() {
    let (Some(src), Some(include)) = (common::llvm_src(), common::llvm_include_dir()) else {
        return;
    };
    let input = Input::file("tests/fixtures/real_targets/AMDGPU-regs.td")
        .include(include)
        .include(src.join("llvm/lib/Target/AMDGPU"));
    let start = Instant::now();
    let run = run(&input);
    let pipeline = start.elapsed();
    let start = Instant::now();
    let site = doc::site(&doc_input(&run, "AMDGPU-regs.td"));
    let docs = start.elapsed();
    let target = run.target.as_ref().unwrap();
    eprintln!(
        "AMDGPU: {} registers, {} classes: pipeline {:.2} s, docs {:.2} s, {} files, {:.1} MB",
        target.registers.len(),
        target.classes.len(),
        pipeline.as_secs_f64(),
        docs.as_secs_f64(),
        site.files.len(),
        site.size() as f64 / 1e6
    );
    assert!(target.registers.len() > 6000);
    assert!(site.size() < 50_000_000, "{} bytes", site.size());
    let group_pages = site.files.keys().filter(|p| p.starts_with("regs/")).count();
    assert!(group_pages < 100, "{group_pages} register pages");
    // Generous: the figure is recorded in BENCHMARKS.md; this catches blowups.
    assert!(docs.as_secs_f64() < 30.0, "docs took {docs:?}");
}

fn regdesc() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_regdesc"));
    c.current_dir(common::repo_root());
    c
}

fn out_dir(name: &str) -> std::path::PathBuf {
    let dir = common::repo_root().join("target/doc-tests").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn cli_html_and_markdown() {
    let dir = out_dir("cli");
    let out = regdesc()
        .args(["doc", SMALL, "-o"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for page in [
        "index.html",
        "indices.html",
        "regs.html",
        "classes/RegQ_SIMD4.html",
    ] {
        assert!(dir.join(page).is_file(), "{page}");
    }
    // --format markdown: a file, a directory, or stdout.
    let md = dir.join("README.md");
    let out = regdesc()
        .args(["doc", SMALL, "--format", "markdown", "-o"])
        .arg(&md)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(text.starts_with("# Mini register description"));
    let out = regdesc()
        .args([
            "doc", SMALL, "--format", "markdown", "--lanes", "llvm", "-o", "-",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("## Sub-register indices"));
}

/// A description that cannot be built is reported, not documented.
#[test]
fn cli_bad_input_fails_cleanly() {
    let dir = out_dir("bad");
    let bad = dir.join("bad.td");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(&bad, "def X : Register<\"x\">;\n").unwrap();
    let out = regdesc()
        .arg("doc")
        .arg(&bad)
        .arg("-o")
        .arg(dir.join("site"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("regdesc::"), "{err}");
    assert!(!dir.join("site/index.html").exists());
}
