//! Bad input gives a status and a message, never a crash; out-parameters are
//! always written.

use std::ffi::{CString, c_char};

use deepdiscovery::{
    DdSession, DdStatus, dd_discover, dd_locate, dd_session_free, dd_session_open,
    dd_session_set_embedder, dd_session_set_llm, dd_string_free,
};

use crate::common::{Handle, TASK, fixture, take};

fn status_of<T>(result: Result<T, (DdStatus, String)>) -> (DdStatus, String) {
    match result {
        Ok(_) => panic!("expected a failure"),
        Err(failed) => failed,
    }
}

#[test]
fn a_missing_root_or_a_file_as_root() {
    let (status, message) = status_of(Handle::open("/no/such/repository", None));
    assert_eq!(status, DdStatus::RootNotFound);
    assert!(message.contains("/no/such/repository"), "{message}");

    let file = fixture("locate_app").join("pyproject.toml");
    let (status, _) = status_of(Handle::open(file.to_str().unwrap(), None));
    assert_eq!(status, DdStatus::RootNotDirectory);
}

#[test]
fn null_arguments() {
    let root = CString::new(fixture("locate_app").to_str().unwrap()).unwrap();
    let mut error: *mut c_char = std::ptr::null_mut();
    let status = unsafe {
        dd_session_open(
            root.as_ptr(),
            std::ptr::null(),
            std::ptr::null_mut(),
            &mut error,
        )
    };
    assert_eq!(status, DdStatus::NullArgument);
    assert_eq!(take(error).unwrap(), "out is NULL");

    let mut session: *mut DdSession = std::ptr::dangling_mut::<DdSession>();
    let status =
        unsafe { dd_session_open(std::ptr::null(), std::ptr::null(), &mut session, &mut error) };
    assert_eq!(status, DdStatus::NullArgument);
    assert!(session.is_null(), "out is written on failure too");
    assert_eq!(take(error).unwrap(), "root is NULL");

    // No error_out at all: only the status.
    let status = unsafe {
        dd_session_open(
            std::ptr::null(),
            std::ptr::null(),
            &mut session,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(status, DdStatus::NullArgument);

    let handle = Handle::fixture("locate_app");
    let task = CString::new(TASK).unwrap();
    let mut out: *mut c_char = std::ptr::dangling_mut::<c_char>();
    for call in [dd_discover, dd_locate] {
        let status = unsafe {
            call(
                handle.0,
                std::ptr::null(),
                std::ptr::null(),
                &mut out,
                &mut error,
            )
        };
        assert_eq!(status, DdStatus::NullArgument);
        assert!(out.is_null());
        assert_eq!(take(error).unwrap(), "task is NULL");

        let status = unsafe {
            call(
                std::ptr::null(),
                task.as_ptr(),
                std::ptr::null(),
                &mut out,
                &mut error,
            )
        };
        assert_eq!(status, DdStatus::NullArgument);
        assert_eq!(take(error).unwrap(), "session is NULL");
    }
    let status = unsafe {
        dd_discover(
            handle.0,
            task.as_ptr(),
            std::ptr::null(),
            std::ptr::null_mut(),
            &mut error,
        )
    };
    assert_eq!(status, DdStatus::NullArgument);
    assert_eq!(take(error).unwrap(), "package_json_out is NULL");

    let status = unsafe {
        dd_session_set_llm(
            handle.0,
            std::ptr::null(),
            1000,
            None,
            std::ptr::null_mut(),
            &mut error,
        )
    };
    assert_eq!(status, DdStatus::NullArgument);
    assert_eq!(take(error).unwrap(), "complete is NULL");
    let status =
        unsafe { dd_session_set_embedder(handle.0, 4, None, std::ptr::null_mut(), &mut error) };
    assert_eq!(status, DdStatus::NullArgument);
    take(error);

    // The free functions accept NULL.
    unsafe {
        dd_string_free(std::ptr::null_mut());
        dd_session_free(std::ptr::null_mut());
    }
}

#[test]
fn bad_task_text() {
    let handle = Handle::fixture("locate_app");
    let (status, message) = status_of(handle.discover("  \n ", None));
    assert_eq!(status, DdStatus::EmptyTask);
    assert!(message.contains("empty"), "{message}");
    assert_eq!(status_of(handle.locate("", None)).0, DdStatus::EmptyTask);

    let latin1 = b"caf\xe9 crashes\0";
    let (mut out, mut error) = (std::ptr::null_mut(), std::ptr::null_mut());
    let status = unsafe {
        dd_discover(
            handle.0,
            latin1.as_ptr().cast(),
            std::ptr::null(),
            &mut out,
            &mut error,
        )
    };
    assert_eq!(status, DdStatus::InvalidUtf8);
    assert!(out.is_null());
    assert!(take(error).unwrap().contains("task is not valid UTF-8"));
}

#[test]
fn bad_options() {
    let handle = Handle::fixture("locate_app");
    let cases = [
        (
            "{not json",
            DdStatus::InvalidJson,
            "options_json is not valid JSON",
        ),
        ("[]", DdStatus::InvalidJson, "must be a JSON object"),
        (
            r#"{"taus": 0.2}"#,
            DdStatus::InvalidConfig,
            "unknown key `taus`",
        ),
        (
            r#"{"tau": "0.2"}"#,
            DdStatus::InvalidConfig,
            "options.tau must be a finite number",
        ),
        (r#"{"tau": 2.0}"#, DdStatus::InvalidConfig, "tau"),
        (r#"{"anchors": 0}"#, DdStatus::InvalidConfig, "anchors"),
        (
            r#"{"budget": {"location_share": 1.5}}"#,
            DdStatus::InvalidConfig,
            "location_share",
        ),
    ];
    for (options, expected, words) in cases {
        let (status, message) = status_of(handle.discover(TASK, Some(options)));
        assert_eq!(status, expected, "{options}: {message}");
        assert!(message.contains(words), "{options}: {message}");
    }
    // The session is still fine after errors.
    assert!(handle.discover(TASK, None).is_ok());
}

#[test]
fn bad_session_config() {
    let root = fixture("locate_app");
    let root = root.to_str().unwrap();
    let (status, message) = status_of(Handle::open(root, Some(r#"{"rulez": ""}"#)));
    assert_eq!(status, DdStatus::InvalidConfig);
    assert!(
        message.contains("unknown key `rulez` in config"),
        "{message}"
    );
    let (status, _) = status_of(Handle::open(root, Some("{")));
    assert_eq!(status, DdStatus::InvalidJson);
    let (status, message) = status_of(Handle::open(
        root,
        Some(r#"{"rules": "[[rule]]\nname = 3"}"#),
    ));
    assert_eq!(status, DdStatus::InvalidRule, "{message}");

    let plain = Handle::open(root, Some(r#"{"builtin_rules": false}"#)).unwrap();
    assert!(plain.discover(TASK, None).is_ok());
}

#[test]
fn the_disk_cache_through_the_config() {
    let root = fixture("locate_app");
    let root = root.to_str().unwrap();
    let dir = std::env::temp_dir().join(format!("dd-ffi-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let untimed = |json: String| {
        let mut value: serde_json::Value = serde_json::from_str(&json).unwrap();
        value["budget"]["stages"] = serde_json::Value::Null;
        value
    };
    let off = Handle::open(root, Some(r#"{"cache": false}"#)).unwrap();
    let expected = untimed(off.discover(TASK, None).unwrap());
    let config = serde_json::json!({ "cache_dir": dir }).to_string();
    for _ in 0..2 {
        let on = Handle::open(root, Some(&config)).unwrap();
        assert_eq!(untimed(on.discover(TASK, None).unwrap()), expected);
    }
    assert!(dir.join("facts-v1").is_dir());
    let _ = std::fs::remove_dir_all(&dir);
    let (status, message) = status_of(Handle::open(root, Some(r#"{"cache": "yes"}"#)));
    assert_eq!(status, DdStatus::InvalidConfig);
    assert!(message.contains("config.cache"), "{message}");
}
