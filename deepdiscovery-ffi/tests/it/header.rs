//! The committed header matches the crate.

use std::path::PathBuf;
use std::process::Command;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn committed() -> String {
    std::fs::read_to_string(workspace().join("include/deepdiscovery.h")).unwrap()
}

#[test]
fn every_status_and_export_is_in_the_header() {
    let header = committed();
    for code in [0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 15, 16, 17, 99] {
        let name = unsafe { std::ffi::CStr::from_ptr(deepdiscovery::dd_status_str(code)) };
        let line = format!("{} = {code},", name.to_str().unwrap());
        assert!(header.contains(&line), "{line} missing from the header");
    }
    for function in [
        "dd_version(void)",
        "dd_schema_version(void)",
        "dd_string_free(",
        "dd_session_open(",
        "dd_session_free(",
        "dd_session_set_llm(",
        "dd_session_set_embedder(",
        "dd_discover(",
        "dd_discover_markdown(",
        "dd_locate(",
        "dd_package_svg(",
        "dd_status_str(",
    ] {
        assert!(
            header.contains(function),
            "{function} missing from the header"
        );
    }
}

/// Regenerates the header with the pinned cbindgen when it is installed (CI installs
/// it and also diffs the header itself); skipped otherwise.
#[test]
fn the_header_is_up_to_date() {
    let version = Command::new("cbindgen").arg("--version").output();
    match version {
        Ok(out) if String::from_utf8_lossy(&out.stdout).trim() == "cbindgen 0.29.4" => {}
        _ => {
            eprintln!("cbindgen 0.29.4 not on PATH: header freshness not checked here");
            return;
        }
    }
    let dir = std::env::temp_dir().join(format!("dd-header-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fresh = dir.join("deepdiscovery.h");
    let status = Command::new("cbindgen")
        .current_dir(workspace())
        .args([
            "--quiet",
            "--config",
            "deepdiscovery-ffi/cbindgen.toml",
            "--output",
        ])
        .arg(&fresh)
        .arg("deepdiscovery-ffi")
        .status()
        .unwrap();
    assert!(status.success());
    let regenerated = std::fs::read_to_string(&fresh).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        regenerated == committed(),
        "include/deepdiscovery.h is stale: run `cbindgen --config deepdiscovery-ffi/cbindgen.toml --output include/deepdiscovery.h deepdiscovery-ffi`"
    );
}
