//! The C ABI returns what the core returns, for the same task and configuration.

use deepdiscovery_core::locate::LocateConfig;
use deepdiscovery_core::{DiscoverConfig, Session, Task};

use crate::common::{Handle, TASK, fixture, paths};

#[test]
fn discover_gives_the_files_of_the_core() {
    let handle = Handle::fixture("locate_app");
    let json = handle.discover(TASK, None).unwrap();
    let package: serde_json::Value = serde_json::from_str(&json).unwrap();

    let session = Session::open(fixture("locate_app")).unwrap();
    let core = session
        .discover(&Task::new(TASK).unwrap(), &DiscoverConfig::default())
        .unwrap();

    assert_eq!(paths(&package["files"]), core.file_paths());
    let core_ranked: Vec<&str> = core.ranked_files.iter().map(|r| r.path.as_str()).collect();
    assert_eq!(paths(&package["ranked_files"]), core_ranked);
    assert_eq!(package["files"][0]["path"], "inventory/pricing/currency.py");
    assert_eq!(
        package["schema_version"],
        deepdiscovery::dd_schema_version()
    );
}

#[test]
fn options_reach_the_core() {
    let handle = Handle::fixture("locate_app");
    let options = r#"{"budget": {"max_tokens": 3000}, "ablation": {"location_only": true}}"#;
    let package: serde_json::Value =
        serde_json::from_str(&handle.discover(TASK, Some(options)).unwrap()).unwrap();

    let mut config = DiscoverConfig::default();
    config.budget.max_tokens = 3000;
    config.ablation.location_only = true;
    let session = Session::open(fixture("locate_app")).unwrap();
    let core = session
        .discover(&Task::new(TASK).unwrap(), &config)
        .unwrap();

    assert_eq!(paths(&package["files"]), core.file_paths());
    assert_eq!(package["budget"]["max_tokens"], 3000);
    assert_eq!(package["budget"]["steps"], 0);
    assert!(
        package["files"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["anchor"] == true)
    );
}

#[test]
fn locate_gives_the_anchors_of_the_core() {
    let handle = Handle::fixture("locate_app");
    let location: serde_json::Value =
        serde_json::from_str(&handle.locate(TASK, Some(r#"{"anchors": 3}"#)).unwrap()).unwrap();

    let session = Session::open(fixture("locate_app")).unwrap();
    let config = LocateConfig {
        anchors: 3,
        ..LocateConfig::default()
    };
    let core = session.locate(&Task::new(TASK).unwrap(), &config).unwrap();
    let core_anchors: Vec<&str> = core.anchors.iter().map(|a| a.path.as_str()).collect();
    assert_eq!(paths(&location["anchors"]), core_anchors);
    assert_eq!(core_anchors.len(), 3);
}

#[test]
fn markdown_is_the_rendering_of_the_same_package() {
    use std::ffi::CString;
    let handle = Handle::fixture("locate_app");
    let task = CString::new(TASK).unwrap();
    let (mut out, mut error) = (std::ptr::null_mut(), std::ptr::null_mut());
    let status = unsafe {
        deepdiscovery::dd_discover_markdown(
            handle.0,
            task.as_ptr(),
            std::ptr::null(),
            &mut out,
            &mut error,
        )
    };
    let markdown = crate::common::outcome(status, out, error).unwrap();
    assert!(markdown.starts_with("# Task context"));
    assert!(markdown.contains("inventory/pricing/currency.py"));
}
