//! Repository sources: what `FsSource` lists, skips and refuses; `MemorySource`.

use std::fs;
use std::path::Path;

use deepdiscovery_core::source::{SkipReason, validate_relative};
use deepdiscovery_core::{Error, FsSource, MemorySource, RepoSource, Session};

fn write(root: &Path, rel: &str, content: &[u8]) {
    let path = root.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, content).unwrap();
}

fn paths(source: &dyn RepoSource) -> Vec<String> {
    source
        .list()
        .unwrap()
        .entries
        .into_iter()
        .map(|e| e.path)
        .collect()
}

#[test]
fn fs_source_honours_gitignore_and_skips_vcs_dirs_but_lists_hidden_config() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, ".gitignore", b"build/\n*.log\n");
    write(root, "src/app.py", b"x = 1\n");
    write(root, "build/out.py", b"x = 1\n");
    write(root, "debug.log", b"noise\n");
    write(root, ".git/config", b"[core]\n");
    write(root, ".env", b"KEY=1\n");
    write(root, ".github/workflows/ci.yml", b"on: push\n");
    write(root, "sub/.ignore", b"secret.txt\n");
    write(root, "sub/secret.txt", b"x\n");
    write(root, "sub/kept.txt", b"x\n");
    let source = FsSource::new(root).unwrap();
    assert_eq!(
        paths(&source),
        [
            ".env",
            ".github/workflows/ci.yml",
            ".gitignore",
            "src/app.py",
            "sub/.ignore",
            "sub/kept.txt"
        ]
    );
    let unfiltered = FsSource::builder(root)
        .honor_ignore_files(false)
        .build()
        .unwrap();
    assert!(paths(&unfiltered).contains(&"build/out.py".to_string()));
    assert!(!paths(&unfiltered).iter().any(|p| p.starts_with(".git/")));
}

#[test]
fn fs_source_skips_binaries_and_huge_files_and_counts_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "logo.png", b"\x89PNG\r\n");
    write(root, "big.py", &vec![b'#'; 2048]);
    write(root, "small.py", b"x = 1\n");
    write(root, "data.txt", b"abc\0def");
    let source = FsSource::builder(root).max_file_size(1024).build().unwrap();
    let listing = source.list().unwrap();
    assert_eq!(listing.skipped.count(SkipReason::Binary), 1);
    assert_eq!(listing.skipped.count(SkipReason::TooLarge), 1);
    assert_eq!(listing.skipped.examples[&SkipReason::TooLarge], ["big.py"]);
    // A NUL byte is only seen when reading: the session counts it then.
    let session = Session::new(source);
    session.graph().unwrap();
    let artifacts = session.artifacts().unwrap();
    let names: Vec<&str> = artifacts.iter().map(|a| a.path.as_str()).collect();
    assert_eq!(names, ["small.py"]);
    let stats = session.stats();
    assert_eq!(stats.skipped.count(SkipReason::Binary), 2);
    assert_eq!(stats.skipped.count(SkipReason::TooLarge), 1);
}

#[cfg(unix)]
#[test]
fn fs_source_never_follows_links_out_of_the_root_and_survives_loops() {
    use std::os::unix::fs::symlink;
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.py", b"password = 1\n");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "src/real.py", b"x = 1\n");
    symlink(outside.path().join("secret.py"), root.join("leak.py")).unwrap();
    symlink(outside.path(), root.join("leakdir")).unwrap();
    symlink(root.join("src/real.py"), root.join("alias.py")).unwrap();
    symlink(root.join("loop"), root.join("loop")).unwrap();
    fs::create_dir(root.join("cycle")).unwrap();
    symlink(root, root.join("cycle/up")).unwrap();
    let source = FsSource::new(root).unwrap();
    let listing = source.list().unwrap();
    let listed: Vec<&str> = listing.entries.iter().map(|e| e.path.as_str()).collect();
    assert!(listed.contains(&"src/real.py"));
    assert!(
        listed.contains(&"alias.py"),
        "a link inside the root is kept: {listed:?}"
    );
    assert!(
        !listed
            .iter()
            .any(|p| p.contains("leak") || p.contains("secret")),
        "{listed:?}"
    );
    assert_eq!(listing.skipped.count(SkipReason::OutsideRoot), 2);
    assert!(
        listing.skipped.count(SkipReason::BrokenLink) >= 2,
        "{:?}",
        listing.skipped
    );
    // Reading through a link that leaves the root is refused too, whether the link
    // is the file or a directory on its way, absolute or relative; links that stay
    // inside are read, absolute or relative.
    symlink("src/real.py", root.join("near.py")).unwrap();
    let relative_out = std::path::Path::new("..").join(outside.path().strip_prefix("/").unwrap());
    let up = (0..root.components().count()).fold(std::path::PathBuf::new(), |p, _| p.join(".."));
    symlink(
        up.join(&relative_out).join("secret.py"),
        root.join("src/up.py"),
    )
    .unwrap();
    assert_eq!(source.read("alias.py").unwrap(), b"x = 1\n");
    assert_eq!(source.read("near.py").unwrap(), b"x = 1\n");
    assert_eq!(fs::read(root.join("src/up.py")).unwrap(), b"password = 1\n");
    assert!(source.read("src/up.py").is_err());
    assert!(source.read("leakdir/secret.py").is_err());
    assert!(source.read("leak.py").is_err());
    assert!(source.read("../etc/passwd").is_err());
    assert!(source.read("/etc/passwd").is_err());
}

#[test]
fn bad_roots_give_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    assert!(matches!(FsSource::new(&missing), Err(Error::RootNotFound(p)) if p == missing));
    let file = dir.path().join("file.txt");
    fs::write(&file, "x").unwrap();
    let err = FsSource::new(&file).unwrap_err();
    assert!(matches!(err, Error::RootNotDirectory(_)));
    assert!(err.to_string().contains("file.txt"));
}

#[test]
fn an_empty_repository_gives_an_empty_graph() {
    let dir = tempfile::tempdir().unwrap();
    let session = Session::open(dir.path()).unwrap();
    let graph = session.graph().unwrap();
    assert_eq!((graph.node_count(), graph.edge_count()), (0, 0));
}

#[test]
fn broken_utf8_is_read_lossily_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "latin1.py",
        b"# caf\xe9\ndef brewed():\n    return 1\n",
    );
    let session = Session::open(dir.path()).unwrap();
    let facts = session.facts("latin1.py").unwrap();
    assert_eq!(facts.definitions[0].name, "brewed");
    assert_eq!(session.stats().lossy_utf8, 1);
}

#[test]
fn memory_source_lists_sorted_and_rejects_escaping_paths() {
    let source =
        MemorySource::from_files([("b.py", "x"), ("a/c.py", "y"), ("img.png", "z")]).unwrap();
    assert_eq!(paths(&source), ["a/c.py", "b.py"]);
    assert_eq!(source.list().unwrap().skipped.count(SkipReason::Binary), 1);
    assert!(MemorySource::from_files([("../x.py", "")]).is_err());
    assert!(MemorySource::from_files([("/abs.py", "")]).is_err());
    assert!(validate_relative("a//b").is_err());
    assert!(validate_relative("a/./b").is_err());
    assert!(validate_relative("a/b.py").is_ok());
    assert!(matches!(
        source.read("missing.py"),
        Err(Error::NoSuchArtifact(_))
    ));
}
