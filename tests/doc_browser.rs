//! `regdesc doc` in a real browser: headless Chromium (Debian's `chromium`)
//! driven over WebDriver (`chromedriver`, from `chromium-driver`) with
//! fantoccini, on the site of the small fixture opened from `file://`:
//!
//! - the index and a class page have SVG diagrams of non-zero size (the
//!   class page's layout image loads);
//! - typing a register name into the search box shows its entry and hides
//!   the others;
//! - a register's details open with its sub-registers and aliases;
//! - the browser logs no error;
//! - screenshots are saved under `target/tmp/doc-browser/` and are not blank.
//!
//! Without Chromium or chromedriver the test skips with a message; with
//! `REGDESC_REQUIRE_ORACLES=1` (CI) that is a failure.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::wd::WebDriverCompatibleCommand;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};

const SMALL: &str = "tests/fixtures/doc/small.td";

/// The browser and its driver, following the oracle rule.
fn tools() -> Option<(PathBuf, PathBuf)> {
    let browser = ["chromium", "chromium-browser"]
        .iter()
        .find_map(|n| common::find_on_path(n));
    let driver = common::find_on_path("chromedriver");
    match (browser, driver) {
        (Some(b), Some(d)) => Some((b, d)),
        _ => {
            let what = "Chromium or chromedriver is not on PATH \
                        (apt-get install chromium chromium-driver)";
            if common::oracles_required() {
                panic!("{what}, and REGDESC_REQUIRE_ORACLES=1 makes a missing oracle a failure");
            }
            eprintln!("SKIPPED: {what} (set REGDESC_REQUIRE_ORACLES=1 to make this a failure)");
            None
        }
    }
}

/// chromedriver on a free local port, stopped when dropped.
struct Driver {
    child: Child,
    url: String,
}

impl Driver {
    fn start(path: &Path) -> Driver {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        let child = Command::new(path)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
        Driver {
            child,
            url: format!("http://127.0.0.1:{port}/"),
        }
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// chromedriver's browser log (`goog:loggingPrefs`), read and cleared.
#[derive(Debug)]
struct BrowserLog;

impl WebDriverCompatibleCommand for BrowserLog {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!("session/{}/se/log", session.unwrap_or_default()))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        (
            http::Method::POST,
            Some(r#"{"type":"browser"}"#.to_string()),
        )
    }
}

async fn errors_logged(c: &Client) -> Vec<String> {
    let log = c.issue_cmd(BrowserLog).await.expect("browser log");
    log.as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["level"] == "SEVERE")
        .map(|e| e["message"].as_str().unwrap_or("?").to_string())
        .collect()
}

/// Width and height of every `<svg>` on the page.
async fn svg_sizes(c: &Client) -> Vec<(f64, f64)> {
    let v = c
        .execute(
            "return Array.from(document.querySelectorAll('svg')).map(s => {\
               const r = s.getBoundingClientRect(); return [r.width, r.height]; });",
            vec![],
        )
        .await
        .expect("script runs");
    v.as_array()
        .into_iter()
        .flatten()
        .map(|p| (p[0].as_f64().unwrap_or(0.0), p[1].as_f64().unwrap_or(0.0)))
        .collect()
}

/// The names of the search entries shown.
async fn shown_hits(c: &Client) -> Vec<String> {
    let v = c
        .execute(
            "const ul = document.getElementById('search-results');\
             if (ul.hidden) return [];\
             return Array.from(ul.querySelectorAll('li.hit'))\
               .filter(li => li.getBoundingClientRect().height > 0)\
               .map(li => li.dataset.name);",
            vec![],
        )
        .await
        .expect("script runs");
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s.as_str().map(str::to_string))
        .collect()
}

async fn type_search(c: &Client, text: &str) {
    let input = c.find(Locator::Css("#search")).await.expect("search box");
    input.clear().await.expect("clear");
    input.send_keys(text).await.expect("typing");
}

/// Saves a screenshot and checks it is not blank: the grey levels vary.
async fn screenshot(c: &Client, path: &Path) {
    let png_bytes = c.screenshot().await.expect("screenshot");
    std::fs::write(path, &png_bytes).expect("screenshot saved");
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("PNG size")];
    let info = reader.next_frame(&mut buf).expect("PNG frame");
    let channels = info.color_type.samples();
    let pixels = &buf[..info.buffer_size()];
    let grey: Vec<f64> = pixels
        .chunks(channels)
        .map(|p| p.iter().take(3).map(|&x| x as f64).sum::<f64>() / 3.0)
        .collect();
    let mean = grey.iter().sum::<f64>() / grey.len() as f64;
    let var = grey.iter().map(|g| (g - mean) * (g - mean)).sum::<f64>() / grey.len() as f64;
    assert!(
        info.width > 100 && info.height > 100 && var > 100.0,
        "{} looks blank: {}x{}, grey variance {var:.1}",
        path.display(),
        info.width,
        info.height
    );
}

fn file_url(p: &Path) -> String {
    format!("file://{}", p.display())
}

#[test]
fn site_in_chromium() {
    let Some((browser, driver_path)) = tools() else {
        return;
    };
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("doc-browser");
    let _ = std::fs::remove_dir_all(&out);
    let site = out.join("site");
    let status = Command::new(env!("CARGO_BIN_EXE_regdesc"))
        .current_dir(common::repo_root())
        .args(["doc", SMALL, "-o"])
        .arg(&site)
        .stderr(Stdio::null())
        .status()
        .expect("regdesc runs");
    assert!(status.success());
    let site = site.canonicalize().expect("site written");

    let driver = Driver::start(&driver_path);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let mut caps = serde_json::Map::new();
        caps.insert("browserName".into(), json!("chrome"));
        caps.insert(
            "goog:chromeOptions".into(),
            json!({
                "binary": browser,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--window-size=1280,1000"]
            }),
        );
        caps.insert("goog:loggingPrefs".into(), json!({"browser": "ALL"}));
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let c = ClientBuilder::new(connector)
            .capabilities(caps)
            .connect(&driver.url)
            .await
            .expect("a WebDriver session");

        // The index: the lane matrix.
        c.goto(&file_url(&site.join("index.html")))
            .await
            .expect("index");
        let sizes = svg_sizes(&c).await;
        assert!(!sizes.is_empty(), "no SVG on the index");
        assert!(sizes.iter().all(|&(w, h)| w > 0.0 && h > 0.0), "{sizes:?}");
        // Search: a register's entry shows, the others are hidden.
        type_search(&c, "W12").await;
        let hits = shown_hits(&c).await;
        assert_eq!(hits.first().map(String::as_str), Some("W12"), "{hits:?}");
        assert!(
            hits.iter().all(|h| h.to_lowercase().contains("w12")),
            "{hits:?}"
        );
        assert!(!hits.iter().any(|h| h == "W1" || h == "W2"), "{hits:?}");
        type_search(&c, "RegQ_SIMD4").await;
        let hits = shown_hits(&c).await;
        assert_eq!(hits, ["RegQ_SIMD4"], "{hits:?}");
        type_search(&c, "").await;
        assert!(shown_hits(&c).await.is_empty());
        screenshot(&c, &out.join("index.png")).await;
        let errors = errors_logged(&c).await;
        assert!(errors.is_empty(), "index: {errors:?}");

        // A class page: its lane strip inline, its layout as an image.
        c.goto(&file_url(&site.join("classes/RegQ_SIMD4.html")))
            .await
            .expect("class page");
        let sizes = svg_sizes(&c).await;
        assert!(!sizes.is_empty(), "no SVG on the class page");
        assert!(sizes.iter().all(|&(w, h)| w > 0.0 && h > 0.0), "{sizes:?}");
        let img = c
            .execute(
                "const i = document.querySelector('img.layout');\
                 return i && i.complete ? [i.naturalWidth, i.naturalHeight] : null;",
                vec![],
            )
            .await
            .expect("script runs");
        assert!(
            img[0].as_f64().unwrap_or(0.0) > 0.0 && img[1].as_f64().unwrap_or(0.0) > 0.0,
            "layout image: {img}"
        );
        type_search(&c, "W0_W1").await;
        let hits = shown_hits(&c).await;
        assert_eq!(hits.first().map(String::as_str), Some("W0_W1"), "{hits:?}");
        screenshot(&c, &out.join("class.png")).await;
        let errors = errors_logged(&c).await;
        assert!(errors.is_empty(), "class page: {errors:?}");

        // A register page: the layout drawn inline; a register's details
        // open with its sub-registers and aliases.
        c.goto(&file_url(&site.join(
            "regs/gpr_q_simd4.html#W0_W1_W2_W3_W4_W5_W6_W7_W8_W9_W10_W11_W12_W13_W14_W15",
        )))
        .await
        .expect("register page");
        let sizes = svg_sizes(&c).await;
        assert!(sizes.iter().all(|&(w, h)| w > 0.0 && h > 0.0) && !sizes.is_empty());
        let details: Value = c
            .execute(
                "const d = document.querySelector('details.reg-more');\
                 return {open: d.open, items: d.querySelectorAll('.more-body li').length,\
                         text: d.querySelector('.more-body').textContent};",
                vec![],
            )
            .await
            .expect("script runs");
        assert_eq!(details["open"], true, "{details}");
        let text = details["text"].as_str().unwrap_or("");
        assert!(text.contains("subq1 = W4_W5_W6_W7"), "{text}");
        assert!(text.contains("aliases"), "{text}");
        screenshot(&c, &out.join("register.png")).await;
        let errors = errors_logged(&c).await;
        assert!(errors.is_empty(), "register page: {errors:?}");

        c.close().await.expect("session closed");
    });
    drop(driver);
    eprintln!("screenshots in {}", out.display());
}
