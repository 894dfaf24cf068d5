//! Plug-ins from C: a failing or nonsensical callback gives the documented fallback
//! and a note, never a crash.

use std::ffi::{CStr, c_char, c_int, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};

use deepdiscovery::{DdStatus, dd_session_set_embedder, dd_session_set_llm};

use crate::common::{Handle, TASK, paths};

unsafe extern "C" fn llm_answers_null(calls: *mut c_void, _: *const c_char) -> *mut c_char {
    unsafe { &*(calls as *const AtomicUsize) }.fetch_add(1, Ordering::SeqCst);
    std::ptr::null_mut()
}

/// Embeds each text as the counts of a few letters: crude, but finite and stable.
unsafe extern "C" fn embed_letters(
    calls: *mut c_void,
    texts: *const *const c_char,
    count: usize,
    out: *mut f32,
    dimension: usize,
) -> c_int {
    unsafe { &*(calls as *const AtomicUsize) }.fetch_add(1, Ordering::SeqCst);
    for i in 0..count {
        let text = unsafe { CStr::from_ptr(*texts.add(i)) }.to_bytes();
        for (d, letter) in b"aeiou".iter().enumerate().take(dimension) {
            let n = text
                .iter()
                .filter(|b| b.eq_ignore_ascii_case(letter))
                .count();
            unsafe { *out.add(i * dimension + d) = n as f32 + 1.0 };
        }
    }
    0
}

unsafe extern "C" fn embed_fails(
    calls: *mut c_void,
    _: *const *const c_char,
    _: usize,
    _: *mut f32,
    _: usize,
) -> c_int {
    unsafe { &*(calls as *const AtomicUsize) }.fetch_add(1, Ordering::SeqCst);
    1
}

unsafe extern "C" fn embed_nan(
    calls: *mut c_void,
    _: *const *const c_char,
    count: usize,
    out: *mut f32,
    dimension: usize,
) -> c_int {
    unsafe { &*(calls as *const AtomicUsize) }.fetch_add(1, Ordering::SeqCst);
    for k in 0..count * dimension {
        unsafe { *out.add(k) = f32::NAN };
    }
    0
}

type EmbedFn =
    unsafe extern "C" fn(*mut c_void, *const *const c_char, usize, *mut f32, usize) -> c_int;

fn notes(package: &serde_json::Value) -> Vec<String> {
    package["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect()
}

fn with_embedder(embed: EmbedFn, calls: &AtomicUsize) -> serde_json::Value {
    let handle = Handle::fixture("locate_app");
    let mut error = std::ptr::null_mut();
    let status = unsafe {
        dd_session_set_embedder(
            handle.0,
            5,
            Some(embed),
            (calls as *const AtomicUsize).cast_mut().cast(),
            &mut error,
        )
    };
    assert_eq!(status, DdStatus::Ok);
    assert!(error.is_null());
    serde_json::from_str(&handle.discover(TASK, None).unwrap()).unwrap()
}

#[test]
fn a_failing_or_garbage_embedder_falls_back_with_a_note() {
    let plain: serde_json::Value =
        serde_json::from_str(&Handle::fixture("locate_app").discover(TASK, None).unwrap()).unwrap();
    for embed in [embed_fails as EmbedFn, embed_nan] {
        let calls = AtomicUsize::new(0);
        let package = with_embedder(embed, &calls);
        assert!(calls.load(Ordering::SeqCst) > 0, "the callback was called");
        assert!(
            notes(&package)
                .iter()
                .any(|n| n.contains("embedder failed")),
            "{:?}",
            notes(&package)
        );
        assert_eq!(paths(&package["files"]), paths(&plain["files"]));
    }
}

#[test]
fn a_working_embedder_is_used() {
    let calls = AtomicUsize::new(0);
    let package = with_embedder(embed_letters, &calls);
    assert!(calls.load(Ordering::SeqCst) > 0);
    assert!(
        !notes(&package)
            .iter()
            .any(|n| n.contains("embedder failed"))
    );
    assert_eq!(package["files"][0]["path"], "inventory/pricing/currency.py");
}

#[test]
fn a_language_model_that_answers_null_is_harmless() {
    let handle = Handle::fixture("locate_app");
    let calls = AtomicUsize::new(0);
    let mut error = std::ptr::null_mut();
    let status = unsafe {
        dd_session_set_llm(
            handle.0,
            c"null-model".as_ptr(),
            8192,
            Some(llm_answers_null),
            (&calls as *const AtomicUsize).cast_mut().cast(),
            &mut error,
        )
    };
    assert_eq!(status, DdStatus::Ok);
    let package: serde_json::Value =
        serde_json::from_str(&handle.discover(TASK, None).unwrap()).unwrap();
    assert_eq!(package["files"][0]["path"], "inventory/pricing/currency.py");
    // Asked, and every NULL answer counted as a failed call with a fallback.
    let made = calls.load(std::sync::atomic::Ordering::SeqCst);
    let usage = &package["budget"]["llm"];
    assert!(made > 0);
    assert_eq!(usage["calls"], made);
    assert_eq!(usage["failures"], made);
    assert!(
        usage["notes"]
            .as_array()
            .unwrap()
            .iter()
            .all(|n| n.as_str().unwrap().contains("deterministic path kept"))
    );
}

#[test]
fn a_zero_dimension_is_rejected() {
    let handle = Handle::fixture("locate_app");
    let mut error = std::ptr::null_mut();
    let status = unsafe {
        dd_session_set_embedder(
            handle.0,
            0,
            Some(embed_fails),
            std::ptr::null_mut(),
            &mut error,
        )
    };
    assert_eq!(status, DdStatus::InvalidConfig);
    assert!(crate::common::take(error).unwrap().contains("dimension"));
}
