//! Rebuilds ragdownd when the web UI's build changes, so a release binary embeds the current
//! `web/dist` (rust-embed reads it at compile time; debug builds read the checkout's at run time).
//!
//! Debug builds read the files at run time, so only release builds watch them.
//!
//! Watching a path that does not exist would rerun this script, and recompile the crate, on every
//! build; so before the UI is built the whole `web/` folder is watched instead, which changes
//! when `web/dist` appears.
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("PROFILE").as_deref() != Ok("release") {
        return;
    }
    let web = Path::new(env!("CARGO_MANIFEST_DIR")).join("../web");
    let dist = web.join("dist");
    if dist.join("index.html").is_file() {
        println!("cargo:rerun-if-changed={}", dist.display());
    } else if web.is_dir() {
        println!("cargo:rerun-if-changed={}", web.display());
    }
}
