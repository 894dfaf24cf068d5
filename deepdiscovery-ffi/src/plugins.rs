//! C callbacks as the core's plug-in traits: a language model and an embedder.
//!
//! A callback that fails (returns NULL or a non-zero code) or answers garbage (text
//! that is not UTF-8, non-finite numbers) is a failed call: the core then takes its
//! deterministic fallback and records a note in the result. Nothing a callback
//! returns can crash the library.

use std::ffi::{CStr, CString, c_char, c_int, c_void};

use deepdiscovery_core::{Embedder, Error, LanguageModel, Result};

/// A language-model callback: completes `prompt`.
///
/// `prompt` is a NUL-terminated UTF-8 string owned by the library and valid only
/// during the call. Return the completion as a NUL-terminated UTF-8 string allocated
/// with `malloc` (or `strdup`, `calloc`, `realloc`) of the C runtime the library is
/// linked with: the library takes ownership and releases it with `free`. Return NULL
/// to report a failure.
pub type DdLlmCompleteFn =
    Option<unsafe extern "C" fn(user_data: *mut c_void, prompt: *const c_char) -> *mut c_char>;

/// An embedder callback: embeds `count` texts into `count * dimension` floats.
///
/// `texts` is an array of `count` NUL-terminated UTF-8 strings, owned by the library
/// and valid only during the call. `vectors_out` is a library-owned buffer of
/// `count * dimension` floats (zeroed), row-major: write the vector of `texts[i]` to
/// `vectors_out[i * dimension ..]`. Return 0 on success, anything else to report a
/// failure. Every number must be finite.
pub type DdEmbedFn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        texts: *const *const c_char,
        count: usize,
        vectors_out: *mut f32,
        dimension: usize,
    ) -> c_int,
>;

unsafe extern "C" {
    /// The C runtime's `free`, for the strings a language-model callback returns.
    fn free(ptr: *mut c_void);
}

/// The caller's `user_data`, passed back to its callbacks untouched.
struct UserData(*mut c_void);

// SAFETY: the library never dereferences `user_data`; it only hands it back to the
// caller's callbacks, which the header documents as called from any thread,
// possibly concurrently.
unsafe impl Send for UserData {}
// SAFETY: as above.
unsafe impl Sync for UserData {}

/// A failed call of the C language-model callback; the core records it as a
/// fallback note.
fn model_error(message: &str) -> Error {
    Error::plugin("C language model", message)
}

/// A failed call of the C embedder callback.
fn embedder_error(message: &str) -> Error {
    Error::plugin("C embedder", message)
}

/// A [`LanguageModel`] over a C callback.
pub(crate) struct CLanguageModel {
    name: String,
    context_window: usize,
    complete: unsafe extern "C" fn(*mut c_void, *const c_char) -> *mut c_char,
    user_data: UserData,
}

impl CLanguageModel {
    /// A model over `complete`.
    pub fn new(
        name: String,
        context_window: usize,
        complete: unsafe extern "C" fn(*mut c_void, *const c_char) -> *mut c_char,
        user_data: *mut c_void,
    ) -> CLanguageModel {
        CLanguageModel {
            name,
            context_window,
            complete,
            user_data: UserData(user_data),
        }
    }
}

impl LanguageModel for CLanguageModel {
    fn name(&self) -> &str {
        &self.name
    }

    fn context_window(&self) -> usize {
        self.context_window
    }

    fn complete(&self, prompt: &str) -> Result<String> {
        let prompt = CString::new(prompt)
            .map_err(|_| model_error("the prompt contains a NUL byte and cannot go to C"))?;
        // SAFETY: the callback's contract (see `DdLlmCompleteFn`); the prompt outlives
        // the call.
        let answer = unsafe { (self.complete)(self.user_data.0, prompt.as_ptr()) };
        if answer.is_null() {
            return Err(model_error("the language-model callback returned NULL"));
        }
        // SAFETY: a NUL-terminated string the callback allocated with `malloc`; it is
        // read once and freed once, here.
        let text = unsafe { CStr::from_ptr(answer) }
            .to_str()
            .map(str::to_string);
        // SAFETY: as above.
        unsafe { free(answer.cast()) };
        text.map_err(|_| model_error("the language-model callback answered invalid UTF-8"))
    }
}

/// An [`Embedder`] over a C callback.
pub(crate) struct CEmbedder {
    dimension: usize,
    embed: unsafe extern "C" fn(*mut c_void, *const *const c_char, usize, *mut f32, usize) -> c_int,
    user_data: UserData,
}

impl CEmbedder {
    /// An embedder over `embed`, giving vectors of `dimension` numbers.
    pub fn new(
        dimension: usize,
        embed: unsafe extern "C" fn(
            *mut c_void,
            *const *const c_char,
            usize,
            *mut f32,
            usize,
        ) -> c_int,
        user_data: *mut c_void,
    ) -> CEmbedder {
        CEmbedder {
            dimension,
            embed,
            user_data: UserData(user_data),
        }
    }
}

impl Embedder for CEmbedder {
    fn dimension(&self) -> usize {
        self.dimension
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let owned = texts
            .iter()
            .map(|t| CString::new(*t))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|_| embedder_error("a text contains a NUL byte and cannot go to C"))?;
        let pointers: Vec<*const c_char> = owned.iter().map(|s| s.as_ptr()).collect();
        let len = texts
            .len()
            .checked_mul(self.dimension)
            .ok_or_else(|| embedder_error("the embedding buffer would overflow"))?;
        let mut buffer = vec![0.0f32; len];
        // SAFETY: the callback's contract (see `DdEmbedFn`): `count` strings that
        // outlive the call, a buffer of exactly `count * dimension` floats.
        let code = unsafe {
            (self.embed)(
                self.user_data.0,
                pointers.as_ptr(),
                texts.len(),
                buffer.as_mut_ptr(),
                self.dimension,
            )
        };
        if code != 0 {
            return Err(embedder_error("the embedder callback reported a failure"));
        }
        Ok(buffer
            .chunks(self.dimension.max(1))
            .map(<[f32]>::to_vec)
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    unsafe extern "C" {
        fn strdup(s: *const c_char) -> *mut c_char;
        fn malloc(size: usize) -> *mut c_void;
    }

    unsafe extern "C" fn answers_null(_: *mut c_void, _: *const c_char) -> *mut c_char {
        std::ptr::null_mut()
    }

    unsafe extern "C" fn echoes(_: *mut c_void, prompt: *const c_char) -> *mut c_char {
        unsafe { strdup(prompt) }
    }

    unsafe extern "C" fn answers_latin1(_: *mut c_void, _: *const c_char) -> *mut c_char {
        let p: *mut u8 = unsafe { malloc(3) }.cast();
        unsafe { p.copy_from(c"\xe9t".as_ptr().cast(), 3) };
        p.cast()
    }

    #[test]
    fn language_model_answers_and_failures() {
        let model = CLanguageModel::new("c".into(), 100, echoes, std::ptr::null_mut());
        assert_eq!(model.complete("hello").unwrap(), "hello");
        let model = CLanguageModel::new("c".into(), 100, answers_null, std::ptr::null_mut());
        assert!(model.complete("hello").is_err());
        let model = CLanguageModel::new("c".into(), 100, answers_latin1, std::ptr::null_mut());
        assert!(model.complete("hello").is_err());
        assert!(model.complete("a\0b").is_err());
    }

    unsafe extern "C" fn counts_bytes(
        user_data: *mut c_void,
        texts: *const *const c_char,
        count: usize,
        out: *mut f32,
        dimension: usize,
    ) -> c_int {
        let calls = unsafe { &*(user_data as *const std::sync::atomic::AtomicUsize) };
        calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        for i in 0..count {
            let len = unsafe { CStr::from_ptr(*texts.add(i)) }.to_bytes().len();
            for d in 0..dimension {
                unsafe { *out.add(i * dimension + d) = (len + d) as f32 };
            }
        }
        0
    }

    unsafe extern "C" fn fails(
        _: *mut c_void,
        _: *const *const c_char,
        _: usize,
        _: *mut f32,
        _: usize,
    ) -> c_int {
        -1
    }

    #[test]
    fn embedder_fills_rows_and_reports_failures() {
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let embedder = CEmbedder::new(2, counts_bytes, (&raw const calls).cast_mut().cast());
        let vectors = embedder.embed(&["a", "abc"]).unwrap();
        assert_eq!(vectors, vec![vec![1.0, 2.0], vec![3.0, 4.0]]);
        assert!(embedder.embed(&[]).unwrap().is_empty());
        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
        assert!(
            CEmbedder::new(2, fails, std::ptr::null_mut())
                .embed(&["a"])
                .is_err()
        );
    }
}
