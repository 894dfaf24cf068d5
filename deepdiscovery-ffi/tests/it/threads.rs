//! One session, several threads at once: the same answer as one thread alone.

use crate::common::{Handle, TASK, paths};

#[test]
fn concurrent_queries_agree() {
    let handle = Handle::fixture("locate_app");
    let alone: serde_json::Value =
        serde_json::from_str(&handle.discover(TASK, None).unwrap()).unwrap();
    let expected = paths(&alone["ranked_files"]);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4)
            .map(|i| {
                let handle = &handle;
                scope.spawn(move || {
                    if i % 2 == 0 {
                        let json = handle.discover(TASK, None).unwrap();
                        let package: serde_json::Value = serde_json::from_str(&json).unwrap();
                        paths(&package["ranked_files"])
                    } else {
                        let json = handle.locate(TASK, None).unwrap();
                        let location: serde_json::Value = serde_json::from_str(&json).unwrap();
                        paths(&location["anchors"])
                    }
                })
            })
            .collect();
        for (i, worker) in workers.into_iter().enumerate() {
            let got = worker.join().unwrap();
            if i % 2 == 0 {
                assert_eq!(got, expected);
            } else {
                assert_eq!(got.first(), expected.first());
            }
        }
    });
}
