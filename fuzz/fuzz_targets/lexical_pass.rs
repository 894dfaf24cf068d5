//! The lexical pass over a file's text (the byte tokenizer, identifier hashes,
//! definition lines, phrases) by its two roads: scanning the text directly (a session
//! without an on-disk cache) and through the file's query-independent index (a session
//! with one, which builds `FileIndex`es in maps keyed by the file's own words). The
//! fuzz input is the text of one file of a small in-memory repository, and its first
//! line is part of the task; both sessions must locate alike.
#![no_main]

use std::sync::Arc;

use deepdiscovery_core::cache::DiskCache;
use deepdiscovery_core::{LocateConfig, MemorySource, Session, Task};
use libfuzzer_sys::fuzz_target;

/// The location without its timings.
fn located(session: &Session, task: &Task) -> serde_json::Value {
    let location = session
        .locate(task, &LocateConfig::default())
        .expect("locate");
    let mut value = serde_json::to_value(&location).expect("serializable");
    if let Some(object) = value.as_object_mut() {
        object.remove("millis");
        object.remove("cost");
    }
    value
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data).into_owned();
    let first = text
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(200)
        .collect::<String>();
    let Ok(task) = Task::new(format!("convert_rate fails in the parser {first}")) else {
        return;
    };
    let files = || {
        MemorySource::from_files([
            ("src/fuzzed.py".to_string(), text.clone()),
            (
                "src/rates.py".to_string(),
                "def convert_rate(amount, to):\n    return amount * RATES[to]\n".to_string(),
            ),
            (
                "README.md".to_string(),
                "# Rates\nConverts currencies.\n".to_string(),
            ),
        ])
        .expect("fixture files")
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let disk = Arc::new(DiskCache::open(dir.path()).expect("cache directory"));
    let direct = located(&Session::new(files()), &task);
    let indexed = located(&Session::new(files()).with_disk_cache(disk), &task);
    assert_eq!(direct, indexed);
});
