//! The static table in the default path (issue 47): every candidate's row carries the
//! table's similarity, its best definition is named, and the files it ranks best are
//! explained by the definition that matched; the same answer every time.

use deepdiscovery_core::locate::{FEATURE_NAMES, LocateConfig, Location};
use deepdiscovery_core::semantic::{StaticTable, cosine};
use deepdiscovery_core::{MemorySource, Session, Task};

/// A service whose files share few words with the task: what relates them is what
/// the words mean.
const FILES: &[(&str, &str)] = &[
    (
        "service/throttle.py",
        "\"\"\"Guards for the public API.\"\"\"\n\n\
         def limit_request_rate(client, window):\n    \
         \"\"\"Reject a caller that exceeds its allowed calls in the window.\"\"\"\n    \
         return client.calls_in(window) > client.quota\n\n\
         def reset_counters(store):\n    \
         \"\"\"Clear the stored tallies at midnight.\"\"\"\n    store.clear()\n",
    ),
    (
        "service/images.py",
        "def resize_thumbnail(picture, width):\n    \
         \"\"\"Scale a photo down to a small preview.\"\"\"\n    \
         return picture.scaled(width)\n",
    ),
    (
        "service/billing.py",
        "def charge_card(invoice):\n    \
         \"\"\"Take the payment of an invoice from the customer's card.\"\"\"\n    \
         return invoice.pay()\n",
    ),
    (
        "service/mailer.py",
        "def send_welcome_email(user):\n    \
         \"\"\"Greet a new user by email.\"\"\"\n    \
         return user.mail('welcome')\n",
    ),
    (
        "service/api.py",
        "from service.throttle import limit_request_rate\n\n\
         def handle(client, request):\n    \
         \"\"\"Serve one API request.\"\"\"\n    \
         return request.answer()\n",
    ),
];

const TASK: &str =
    "Clients flood the API with thousands of requests per second and nothing stops them";

fn locate() -> Location {
    let session = Session::new(MemorySource::from_files(FILES.iter().copied()).unwrap());
    session
        .locate(&Task::new(TASK).unwrap(), &LocateConfig::default())
        .unwrap()
}

/// `path`'s feature row from the feature named `first` on.
fn features_from<'l>(location: &'l Location, path: &str, first: &str) -> &'l [f32] {
    let k = FEATURE_NAMES.iter().position(|n| *n == first).unwrap();
    let (_, row) = location
        .features
        .rows
        .iter()
        .find(|(p, _)| p == path)
        .unwrap_or_else(|| panic!("{path} has no row"));
    &row[k..]
}

/// The table's features of `path`: (tab_best, tab_top3, tab_rank).
fn table_features(location: &Location, path: &str) -> (f32, f32, f32) {
    let row = features_from(location, path, "tab_best");
    (row[0], row[1], row[2])
}

#[test]
fn the_table_relates_words_the_task_does_not_share() {
    let table = StaticTable::builtin_embedder().expect("the committed table");
    let task = table.embed(TASK).unwrap();
    let near = table
        .embed("Reject a caller that exceeds its allowed calls in the window")
        .unwrap();
    let far = table
        .embed("Scale a photo down to a small preview")
        .unwrap();
    assert!(cosine(&task, &near) > cosine(&task, &far));
}

#[test]
fn every_candidate_row_has_the_table_similarity_and_the_best_file_ranks_first() {
    let location = locate();
    let (best, top3, rank) = table_features(&location, "service/throttle.py");
    assert!(best > 0.0 && top3 > 0.0 && top3 <= best, "{best} {top3}");
    let (photo, _, photo_rank) = table_features(&location, "service/images.py");
    assert!(best > photo, "throttle {best} against images {photo}");
    assert!(
        rank < photo_rank,
        "ln(1 + rank): {rank} against {photo_rank}"
    );
}

#[test]
fn the_files_it_ranks_best_are_explained_by_their_definition() {
    let location = locate();
    let throttle = location
        .ranked
        .iter()
        .find(|f| f.path == "service/throttle.py")
        .unwrap();
    let said: Vec<&String> = throttle
        .signals
        .iter()
        .filter(|s| s.starts_with("semantic match (static)"))
        .collect();
    assert_eq!(said.len(), 1, "{:?}", throttle.signals);
    assert!(said[0].contains("`limit_request_rate`"), "{}", said[0]);
    // Deterministic: the same answer again.
    let again = locate();
    assert_eq!(
        format!("{:?}", location.ranked),
        format!("{:?}", again.ranked)
    );
}

/// The features of the past changes the table finds close to the task, of `path`:
/// (tab_past_best, tab_past).
fn past_features(location: &Location, path: &str) -> (f32, f32) {
    let row = features_from(location, path, "tab_past_best");
    (row[0], row[1])
}

#[test]
fn past_changes_that_mean_what_the_task_means_lend_to_their_files() {
    let Some(mut repo) = crate::history::Repo::new() else {
        return;
    };
    for (path, text) in FILES {
        repo.write(path, text);
    }
    repo.commit(0, "Initial version of the service");
    // A history of a few dozen commits, as a real one has: a standard score over a
    // handful of messages says little (one outlier of 11 is at most 3 sd out).
    repo.filler(1, 20);
    // None of these messages shares a word with the task; one means what it means.
    for (day, path, message) in [
        (
            30,
            "service/throttle.py",
            "Stop abusive callers from hammering endpoints",
        ),
        (
            31,
            "service/images.py",
            "Sharper previews for uploaded pictures",
        ),
        (
            32,
            "service/billing.py",
            "Refund customers whose payment failed",
        ),
        (
            33,
            "service/mailer.py",
            "Greet newcomers in their own language",
        ),
    ] {
        repo.edit(&[path]);
        repo.commit(day, message);
    }
    let session = Session::open(repo.root()).unwrap();
    let task = Task::new(TASK).unwrap();
    let location = session.locate(&task, &LocateConfig::default()).unwrap();
    let (best, lent) = past_features(&location, "service/throttle.py");
    for other in [
        "service/images.py",
        "service/billing.py",
        "service/mailer.py",
    ] {
        let (other_best, other_lent) = past_features(&location, other);
        assert!(
            best > other_best && lent > other_lent,
            "throttle ({best}, {lent}) against {other} ({other_best}, {other_lent})"
        );
    }
    // The past change is named in the file's explanation.
    let throttle = location
        .ranked
        .iter()
        .find(|f| f.path == "service/throttle.py")
        .unwrap();
    assert!(
        throttle
            .signals
            .iter()
            .any(|s| s.starts_with("semantic match (static): commit ")
                && s.contains("'Stop abusive callers from hammering endpoints'")),
        "{:?}",
        throttle.signals
    );
    // Without the history, nothing.
    let mut config = LocateConfig::default();
    config.ablation.no_history = true;
    let plain = session.locate(&task, &config).unwrap();
    assert_eq!(past_features(&plain, "service/throttle.py"), (0.0, 0.0));
}
