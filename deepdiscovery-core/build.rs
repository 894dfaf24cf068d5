//! Stamps the build with what the on-disk facts cache must be versioned by: the
//! versions of the parsers (every `tree-sitter*`, `toml`, `yaml-rust2` and `roxmltree`
//! package in the workspace's Cargo.lock) and a hash of the code whose results it
//! keeps (`src/facts/`, its queries included, `src/locate/lexical.rs`, `tokens.rs`,
//! `definitions.rs` and `src/artifact/language.rs`). A change to either gives new
//! cache keys, so a cache written by another build is never read as this build's.
//!
//! No dependencies: a plain FNV-1a, computed once per build.

use std::path::Path;

/// The packages whose code decides the facts of a file.
fn decides_facts(name: &str) -> bool {
    name.starts_with("tree-sitter") || matches!(name, "toml" | "yaml-rust2" | "roxmltree")
}

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let manifest = Path::new(&manifest);
    let lock = manifest.join("../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    println!("cargo:rerun-if-changed=src/facts");
    println!("cargo:rerun-if-changed=src/locate/lexical.rs");
    println!("cargo:rerun-if-changed=src/locate/tokens.rs");
    println!("cargo:rerun-if-changed=src/locate/definitions.rs");
    println!("cargo:rerun-if-changed=src/artifact/language.rs");
    println!("cargo:rerun-if-changed=src/locate/index_codec.rs");
    println!("cargo:rerun-if-changed=build.rs");

    let versions = std::fs::read_to_string(&lock)
        .map(|text| parser_versions(&text))
        .unwrap_or_else(|_| "unknown".to_string());
    let mut hash = Fnv::default();
    hash_dir(&manifest.join("src/facts"), &mut hash);
    // The lexical index kept in the cache is lexical.rs's and tokens.rs's code, the
    // definitions as documents definitions.rs's; the language stored with the facts
    // is language.rs's.
    for file in [
        "src/locate/lexical.rs",
        "src/locate/tokens.rs",
        "src/locate/definitions.rs",
        "src/locate/index_codec.rs",
        "src/artifact/language.rs",
    ] {
        if let Ok(bytes) = std::fs::read(manifest.join(file)) {
            hash.update(&bytes);
        }
    }
    println!("cargo:rustc-env=DEEPDISCOVERY_PARSER_VERSIONS={versions}");
    println!(
        "cargo:rustc-env=DEEPDISCOVERY_FACTS_CODE_HASH={:016x}",
        hash.0
    );
}

/// `name version` of every package that decides facts, sorted, `;`-separated.
fn parser_versions(lock: &str) -> String {
    let mut found = Vec::new();
    let mut name: Option<&str> = None;
    for line in lock.lines() {
        if let Some(value) = line.strip_prefix("name = ") {
            name = Some(value.trim_matches('"'));
        } else if let (Some(n), Some(value)) = (name, line.strip_prefix("version = ")) {
            if decides_facts(n) {
                found.push(format!("{n} {}", value.trim_matches('"')));
            }
            name = None;
        }
    }
    found.sort();
    found.join(";")
}

/// Hashes every file under `dir` (names and bytes), in sorted order.
fn hash_dir(dir: &Path, hash: &mut Fnv) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            hash_dir(&path, hash);
        } else if let Ok(bytes) = std::fs::read(&path) {
            hash.update(path.file_name().map_or(&[][..], |n| n.as_encoded_bytes()));
            hash.update(&[0]);
            hash.update(&bytes);
        }
    }
}

/// FNV-1a, 64 bits.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn update(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}
