//! The git log reader of the history (`source/history/log.rs`): records split at
//! their markers, the window cut by commits and bytes, renames followed. A history
//! read whole equals the same history read as new commits on top of an older one,
//! whenever that extension answers; nothing panics.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    deepdiscovery_core::source::check_log_window(data);
});
