//! Task files as every evaluation driver reads them
//! (`deepdiscovery_core::eval::parse_tasks`, `_native.load_tasks_json`,
//! `check_task_json`): any text is a list of tasks or an error naming a line, never a
//! panic; every task read keeps the fields it was given.
#![no_main]

use deepdiscovery_core::eval::{EvalTask, parse_tasks};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match parse_tasks(&text, "fuzz.jsonl") {
        Ok(tasks) => {
            for task in &tasks {
                let _ = task.gold_including_new();
                // A task read back from its own JSON is the same task.
                let value = serde_json::to_value(task).expect("a task serializes");
                assert_eq!(EvalTask::from_value(&value, "again").as_ref(), Ok(task));
            }
        }
        Err(e) => assert!(e.0.starts_with("fuzz.jsonl:"), "{e}"),
    }
});
