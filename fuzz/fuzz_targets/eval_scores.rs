//! Task scores as the Python binding passes them to the metrics
//! (`deepdiscovery_core::eval`, `_native.metrics_json`): any JSON array of
//! `{gold_ranks, in_anchors, in_set, set_size}` is scored or refused, never a panic.
#![no_main]

use deepdiscovery_core::eval::{TaskScore, Totals};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(scores) = serde_json::from_slice::<Vec<TaskScore>>(data) else {
        return;
    };
    let mut totals = Totals::new(&[1, 5, 10, usize::MAX]);
    for score in &scores {
        totals.add(score);
        let _ = score.keep(&[0, 2, usize::MAX]);
    }
    let _ = totals.metrics();
});
