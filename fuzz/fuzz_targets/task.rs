//! Task text: cleaning, cue extraction (nine trace formats, symbols, paths, messages),
//! the task type, and the whole Location stage and package rendering on a small
//! in-memory repository. Any text gets an answer or `EmptyTask`, never a panic.
#![no_main]

use std::sync::LazyLock;

use deepdiscovery_core::locate::{cues, task_type};
use deepdiscovery_core::{DiscoverConfig, Error, LocateConfig, MemorySource, Session, Task};
use libfuzzer_sys::fuzz_target;

static SESSION: LazyLock<Session> = LazyLock::new(|| {
    let files = [
        (
            "app/orders.py",
            "from app.mail import send\n\ndef place_order(order):\n    send(order.email)\n",
        ),
        (
            "app/mail.py",
            "def send(to):\n    raise ValueError('no mail server')\n",
        ),
        (
            "app/settings.yaml",
            "mail:\n  host: localhost\n  handler: app.mail.send\n",
        ),
        (
            "tests/test_orders.py",
            "from app.orders import place_order\n\ndef test_place():\n    place_order(None)\n",
        ),
        (
            "src/Main.java",
            "package app;\nclass Main { void run() { throw new IllegalStateException(); } }\n",
        ),
        ("README.md", "# Orders\nPlaces orders and sends mail.\n"),
    ];
    Session::new(MemorySource::from_files(files).expect("fixture files"))
});

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = cues::extract(&text);
    let _ = task_type::classify(&text);
    let task = match Task::new(text.as_ref()) {
        Ok(task) => task,
        Err(Error::EmptyTask) => return,
        Err(e) => panic!("unexpected error: {e}"),
    };
    let location = SESSION
        .locate(&task, &LocateConfig::default())
        .expect("locate");
    assert!(location.anchors.len() <= 8);
    let package = SESSION
        .discover(&task, &DiscoverConfig::default())
        .expect("discover");
    let markdown = package.to_markdown();
    assert!(deepdiscovery_core::task::estimate_tokens(&markdown) <= package.budget.max_tokens);
    let _ = package.to_json();
});
