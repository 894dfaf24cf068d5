//! The JSON options every binding passes (the C ABI's `options_json`, Python's
//! options): session, discover and locate options parse or give a typed error.
#![no_main]

use deepdiscovery_core::options;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = options::session_options(Some(text));
    let _ = options::discover_options(Some(text));
    let _ = options::locate_options(Some(text));
});
