//! Criterion benchmarks of one query on the generated repository (issue 9, targets
//! 1, 2 and 4), 2,500 files by default (`DD_BENCH_FILES=25000` for the full size):
//!
//! - `read_all`: list and read every file once, the reference of "no slower than
//!   reading what the query needs";
//! - `cold_discover`: a new `Session`, then `discover` (nothing cached);
//! - `cold_discover_1_thread`: the same in a one-thread rayon pool, for the parallel
//!   speed-up (the output is identical, `tests/it/freshness.rs` checks it);
//! - `warm_discover`: a `Session` that answered the task before, after 10 files were
//!   edited and 10 added or deleted; its source watches the tree, as the sessions of
//!   long-lived processes do (Python, the MCP server);
//! - `warm_discover_edits_only`: the same after 10 files were edited (issue 23's
//!   workload);
//! - `warm_discover_unwatched`: `warm_discover` with a full listing per query.
//!
//! ```sh
//! cargo bench -p deepdiscovery-core --bench query
//! DD_BENCH_FILES=25000 cargo bench -p deepdiscovery-core --bench query
//! ```

use std::fs;
use std::hint::black_box;
use std::path::Path;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use deepdiscovery_core::{DiscoverConfig, FsSource, Session, Task};

#[path = "support/synthetic.rs"]
mod synthetic;

fn files() -> usize {
    std::env::var("DD_BENCH_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_500)
}

/// One plain read of every listed file.
fn read_all(root: &Path) -> usize {
    let session = Session::open(root).expect("open");
    session
        .artifacts()
        .expect("list")
        .iter()
        .filter_map(|a| fs::read(root.join(&a.path)).ok())
        .map(|bytes| bytes.len())
        .sum()
}

fn discover(session: &Session, task: &Task) -> usize {
    let package = session
        .discover(task, &DiscoverConfig::default())
        .expect("discover");
    package.files.len()
}

fn bench(c: &mut Criterion) {
    let files = files();
    let root = synthetic::ensure(files);
    let task = Task::new(synthetic::task(files)).expect("task");
    let mut group = c.benchmark_group(format!("query_{files}_files"));
    group.sample_size(10);
    group.bench_function("read_all", |b| b.iter(|| black_box(read_all(&root))));
    group.bench_function("cold_discover", |b| {
        b.iter(|| {
            let session = Session::open(&root).expect("open");
            black_box(discover(&session, &task))
        })
    });
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    group.bench_function("cold_discover_1_thread", |b| {
        b.iter(|| {
            one.install(|| {
                let session = Session::open(&root).expect("open");
                black_box(discover(&session, &task))
            })
        })
    });
    let mut round = 0;
    type Edit = fn(&Path, &mut usize);
    let warm: [(&str, bool, Edit); 3] = [
        ("warm_discover", true, synthetic::edit),
        ("warm_discover_edits_only", true, synthetic::edit_only),
        ("warm_discover_unwatched", false, synthetic::edit),
    ];
    for (name, watch, edit) in warm {
        let source = FsSource::builder(&root).watch(watch).build().expect("open");
        let session = Session::new(source);
        discover(&session, &task);
        group.bench_function(name, |b| {
            b.iter_batched(
                || edit(&root, &mut round),
                |()| black_box(discover(&session, &task)),
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
    // Leave the repository as generated.
    let _ = fs::remove_dir_all(root.join("bench_edits"));
    if round % 2 == 1 {
        synthetic::edit(&root, &mut round);
        let _ = fs::remove_dir_all(root.join("bench_edits"));
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
