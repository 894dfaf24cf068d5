//! Runs the Location stage on a repository and prints the anchors with their
//! explanation (the contribution of each term of Eq. 6 and the matched cues).
//!
//! ```sh
//! cargo run --release -p deepdiscovery-core --example locate -- REPO "task text"
//! cargo run --release -p deepdiscovery-core --example locate -- REPO @task.txt
//! ```

use deepdiscovery_core::locate::LocateConfig;
use deepdiscovery_core::{Session, Task};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(root), Some(text)) = (args.first(), args.get(1)) else {
        eprintln!("usage: locate REPO \"task text\" | @file");
        std::process::exit(2);
    };
    let text = match text.strip_prefix('@') {
        Some(file) => std::fs::read_to_string(file).unwrap_or_else(|e| {
            eprintln!("error: {file}: {e}");
            std::process::exit(1)
        }),
        None => text.clone(),
    };
    if let Err(e) = run(root, &text) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run(root: &str, text: &str) -> deepdiscovery_core::Result<()> {
    let session = Session::open(root)?;
    let location = session.locate(&Task::new(text)?, &LocateConfig::default())?;
    for note in &location.notes {
        println!("note: {note}");
    }
    let w = location.weights;
    println!(
        "task type {:?} ({:.2}); weights α={:.2} β={:.2} γ={:.2} δ={:.2}; {} files read, {} parsed, {:.0} ms",
        location.task_type.0,
        location.task_type.1,
        w.sem,
        w.sum,
        w.rule,
        w.prior,
        location.cost.files_read,
        location.cost.files_parsed,
        location.cost.millis
    );
    let frameworks: Vec<&str> = location
        .environment
        .frameworks
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    println!("frameworks: {}", frameworks.join(", "));
    for cue in &location.cues {
        println!(
            "cue {:?} `{}` → {}",
            cue.cue.kind,
            cue.cue.text,
            cue.files.join(", ")
        );
    }
    for (rank, a) in location.anchors.iter().enumerate() {
        let t = a.terms;
        println!(
            "{:>2}. {:<60} {:.3} = {:.2}·sem {:.2} + {:.2}·sum {:.2} + {:.2}·rule {:.2} + {:.2}·π {:.2} [{}]",
            rank + 1,
            a.path,
            a.score,
            w.sem,
            t.sem,
            w.sum,
            t.sum,
            w.rule,
            t.rule,
            w.prior,
            t.prior,
            a.role
        );
        for s in &a.signals {
            println!("      {s}");
        }
    }
    Ok(())
}
