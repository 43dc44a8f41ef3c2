// A file that does not exist, relative to CARGO_MANIFEST_DIR.
regdesc_macros::regdesc!(include "does/not/exist.td");

fn main() {}
