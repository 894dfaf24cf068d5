//! The package as a picture for C: the core's SVG renderer over a package's JSON.

use std::ffi::c_char;

use crate::boundary::{Failure, guard, required_out, str_arg, to_c_string};
use crate::status::DdStatus;

/// Draws a context package as a standalone SVG document: a box per file (anchors
/// apart) and an arrow per relation among them, the same files and relations as the
/// Mermaid diagram that ends `dd_discover_markdown`'s Markdown. Every text is escaped,
/// at most 40 files and 40 relations are drawn (a note counts the rest), and the
/// same JSON always gives the same bytes.
///
/// `package_json` is the JSON `dd_discover` returned (or any JSON object with its
/// `files` and `relations`; a missing field reads as empty). It is not JSON:
/// `DD_STATUS_INVALID_JSON`.
///
/// On success `*svg_out` is owned by the caller: free it with `dd_string_free`. On
/// failure it is NULL and `*error_out` (if `error_out` is not NULL) is an owned
/// message. Thread-safe; needs no session.
///
/// # Safety
/// `package_json` is NULL or a NUL-terminated string; `svg_out` and `error_out` are
/// NULL or valid for a write of one pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dd_package_svg(
    package_json: *const c_char,
    svg_out: *mut *mut c_char,
    error_out: *mut *mut c_char,
) -> DdStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        guard(error_out, || {
            let out = required_out(svg_out, "svg_out")?;
            let text = str_arg(package_json, "package_json")?;
            let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
                Failure::new(
                    DdStatus::InvalidJson,
                    format!("package_json is not JSON: {e}"),
                )
            })?;
            out.write(to_c_string(deepdiscovery_core::infer::picture::svg(&value)));
            Ok(())
        })
    }
}
