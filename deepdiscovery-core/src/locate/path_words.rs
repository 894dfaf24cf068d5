//! The words of a listing's paths, tokenized once per listing: the path-only pass
//! over a million files ([`super::lexical::Scanner::scan_path_words`]) counts a
//! query's terms from them instead of tokenizing every file name again.
//!
//! Every word is kept in one byte arena, without a string per word: some thirty
//! bytes a file. A directory's words are kept once for the files that sit side by
//! side in it (a sorted listing's neighbours), as the pass counts them.

use super::tokens::{Token, tokenize_into};
use crate::resolve::split_path;

/// The normalized words of each path's stem (the file name before its first dot)
/// and of its directory, in the order the tokenizer gives them.
#[derive(Debug, Default)]
pub(crate) struct PathWords {
    /// Per file, its stem's words.
    stems: Lists,
    /// Per directory run (files side by side in one directory), its directory's
    /// words.
    dirs: Lists,
    /// Per file, its directory run.
    run_of: Vec<u32>,
}

/// Lists of words, back to back in one arena.
#[derive(Debug, Default)]
struct Lists {
    /// Every word, back to back.
    bytes: Vec<u8>,
    /// Where each word ends in `bytes` (word `w` is `ends[w - 1]..ends[w]`).
    ends: Vec<u32>,
    /// Where each list's words start in `ends`; the last entry ends the last list.
    starts: Vec<u32>,
}

impl Lists {
    /// Adds the words of `text` as a new list; `None` past 32-bit offsets.
    fn push(&mut self, text: &str, token: &mut Token) -> Option<()> {
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        let mut fits = true;
        tokenize_into(text, token, &mut |t| {
            self.bytes.extend_from_slice(t.as_bytes());
            match u32::try_from(self.bytes.len()) {
                Ok(end) => self.ends.push(end),
                Err(_) => fits = false,
            }
        });
        self.starts.push(u32::try_from(self.ends.len()).ok()?);
        fits.then_some(())
    }

    /// The words of list `i`.
    fn list(&self, i: usize) -> impl Iterator<Item = &[u8]> {
        (self.starts[i] as usize..self.starts[i + 1] as usize).map(|w| {
            let start = if w == 0 { 0 } else { self.ends[w - 1] as usize };
            &self.bytes[start..self.ends[w] as usize]
        })
    }
}

impl PathWords {
    /// Tokenizes the stems and directories of `paths`. `None` when the words would
    /// not fit 32-bit offsets (over 4 GiB of words: no listing a session holds).
    pub(crate) fn of(paths: &[&str]) -> Option<PathWords> {
        let mut words = PathWords::default();
        let mut token = Token::default();
        let mut last_dir: Option<&str> = None;
        for path in paths {
            let (dir, name) = split_path(path);
            let stem = name.split('.').next().unwrap_or(name);
            words.stems.push(stem, &mut token)?;
            if last_dir != Some(dir) {
                words.dirs.push(dir, &mut token)?;
                last_dir = Some(dir);
            }
            let runs = words.dirs.starts.len() - 2;
            words.run_of.push(u32::try_from(runs).ok()?);
        }
        Some(words)
    }

    /// How many paths.
    pub(crate) fn len(&self) -> usize {
        self.run_of.len()
    }

    /// The words of file `i`'s stem.
    pub(crate) fn stem(&self, i: usize) -> impl Iterator<Item = &[u8]> {
        self.stems.list(i)
    }

    /// File `i`'s directory run.
    pub(crate) fn run_of(&self, i: usize) -> u32 {
        self.run_of[i]
    }

    /// The words of a directory run's directory.
    pub(crate) fn dir(&self, run: u32) -> impl Iterator<Item = &[u8]> {
        self.dirs.list(run as usize)
    }
}

/// The fuzz targets' check of [`PathWords`] on any paths and task: each path's stem
/// and directory words are the tokenizer's, and the path-only pass through them
/// counts the task's terms as scanning each path alone does.
#[doc(hidden)]
pub fn check_path_words(paths: &[&str], task: &str) {
    let Some(words) = PathWords::of(paths) else {
        return;
    };
    assert_eq!(words.len(), paths.len());
    let mut token = Token::default();
    let tokens = |text: &str, token: &mut Token| {
        let mut out: Vec<Vec<u8>> = Vec::new();
        tokenize_into(text, token, &mut |t| out.push(t.as_bytes().to_vec()));
        out
    };
    for (i, path) in paths.iter().enumerate() {
        let (dir, name) = split_path(path);
        let stem = name.split('.').next().unwrap_or(name);
        let stem_words: Vec<Vec<u8>> = words.stem(i).map(<[u8]>::to_vec).collect();
        assert_eq!(stem_words, tokens(stem, &mut token));
        let dir_words: Vec<Vec<u8>> = words.dir(words.run_of(i)).map(<[u8]>::to_vec).collect();
        assert_eq!(dir_words, tokens(dir, &mut token));
    }
    let symbols: Vec<String> = task.split_whitespace().map(str::to_string).collect();
    let query = super::lexical::Query::new(task, symbols, Vec::new());
    let scanner = super::lexical::Scanner::new(&query);
    let alone: Vec<std::sync::Arc<super::lexical::FileStats>> = (paths.iter())
        .map(|path| std::sync::Arc::new(scanner.scan_file(path, "")))
        .collect();
    assert_eq!(scanner.scan_path_words(&words), alone);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words_of(text: &str) -> Vec<Vec<u8>> {
        let mut token = Token::default();
        let mut out = Vec::new();
        tokenize_into(text, &mut token, &mut |t| out.push(t.as_bytes().to_vec()));
        out
    }

    /// Each file's stem and directory words are the tokenizer's, whatever the order
    /// of the files; a directory's words are kept once per run of its files.
    #[test]
    fn path_words_are_the_tokenizers_words() {
        let paths = [
            "src/core/readMe.py",
            "src/core/io_util.rs",
            "src/core/sub/x.py",
            "src/core/Main.java",
            "top.txt",
            ".eslintrc",
        ];
        let words = PathWords::of(&paths).unwrap();
        assert_eq!(words.len(), paths.len());
        for (i, path) in paths.iter().enumerate() {
            let (dir, name) = split_path(path);
            let stem = name.split('.').next().unwrap_or(name);
            let stem_words: Vec<Vec<u8>> = words.stem(i).map(<[u8]>::to_vec).collect();
            assert_eq!(stem_words, words_of(stem), "{path}");
            let dir_words: Vec<Vec<u8>> =
                (words.dir(words.run_of(i))).map(<[u8]>::to_vec).collect();
            assert_eq!(dir_words, words_of(dir), "{path}");
        }
        // src/core, src/core/sub, src/core again, the root.
        assert_eq!(words.run_of, [0, 0, 1, 2, 3, 3]);
    }

    proptest::proptest! {
        /// Any paths, any task: the words are the tokenizer's and the pass through
        /// them is each path's own scan.
        #[test]
        fn any_paths_check(
            paths in proptest::collection::vec("\\PC{0,10}(/\\PC{0,6}){0,3}", 0..30),
            task in "\\PC{0,40}",
        ) {
            let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
            check_path_words(&paths, &task);
        }
    }
}
