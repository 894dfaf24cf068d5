//! The words of a listing's paths kept per listing (`PathWords`) and the path-only
//! pass through them: the fuzz input's first line is the task, every other line a
//! path (any bytes, read lossily). Each path's words must be the tokenizer's, and
//! the pass must count the task's terms as scanning each path alone does.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.split('\n');
    let task = lines.next().unwrap_or("");
    let paths: Vec<&str> = lines.take(512).collect();
    deepdiscovery_core::locate::check_path_words(&paths, task);
});
