//! The reader of the learned models' trees (`ranker.json`, `completion*.json`,
//! `definitions.json`): any text is refused or read into a model that scores every
//! row, deterministically, with a probability in [0, 1]; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    deepdiscovery_core::check_trees_model(&String::from_utf8_lossy(data));
});
