//! The tokenizer of the lexical pass: words are runs of `[A-Za-z0-9_]`, split into
//! their parts at underscores and changes of case, lower-cased, stripped of
//! underscores and lightly stemmed, stop words left out. One pass over bytes, into a
//! fixed buffer: no allocation and no UTF-8 decoding per token.

/// English and code words that carry no task meaning.
pub(super) const STOP: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "can", "could", "do", "does",
    "for", "from", "had", "has", "have", "he", "here", "how", "i", "if", "in", "into", "is", "it",
    "its", "me", "my", "no", "not", "of", "on", "or", "our", "so", "some", "than", "that", "the",
    "their", "them", "then", "there", "these", "they", "this", "those", "to", "too", "us", "was",
    "we", "were", "what", "when", "where", "which", "while", "who", "why", "will", "with", "would",
    "you", "your", "should", "also", "just", "like", "get", "set", "use", "used", "using", "one",
    "two", "new", "self", "none", "true", "false", "null", "nil", "return", "def", "class",
    "import", "var", "let", "const", "func", "fn", "pub", "public", "private", "static", "void",
    "int", "str", "string", "end", "else", "elif", "try", "except", "catch", "py", "js", "ts",
    "rs", "go", "java", "rb", "php", "cpp", "www", "com", "org", "github", "issue", "issues",
    "example", "thanks", "please", "any", "all", "only", "same", "way", "need", "want", "see",
    "seem", "seems", "make", "work", "works",
];

/// The longest word the tokenizer keeps (longer runs are data, not names).
const MAX_TOKEN_LEN: usize = 64;

/// One normalized token, built in place without allocating: lower case,
/// underscores dropped, stemmed.
pub(crate) struct Token {
    bytes: [u8; MAX_TOKEN_LEN],
    len: usize,
}

impl Default for Token {
    fn default() -> Self {
        Token {
            bytes: [0; MAX_TOKEN_LEN],
            len: 0,
        }
    }
}

impl Token {
    /// The token's bytes (ASCII).
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// The token as text (always ASCII, so never empty for a token).
    pub(crate) fn as_str(&self) -> &str {
        std::str::from_utf8(self.as_bytes()).unwrap_or_default()
    }

    fn ends_with(&self, suffix: &[u8]) -> bool {
        self.as_bytes().ends_with(suffix)
    }

    /// Light stemming, in place: plural and common verb endings, so `fields`/`field`,
    /// `entries`/`entry` and `parsing`/`parse` meet. Deliberately conservative: code
    /// names are not English.
    fn stem(&mut self) {
        let n = self.len;
        if n > 4 && self.ends_with(b"ies") {
            self.bytes[n - 3] = b'y';
            self.len = n - 2;
        } else if n > 5 && self.ends_with(b"ing") {
            self.len = n - 3;
        } else if n > 4 && self.ends_with(b"ed") && !self.ends_with(b"eed") {
            self.len = n - 2;
        } else if n > 3 && self.ends_with(b"s") && !self.ends_with(b"ss") && !self.ends_with(b"us")
        {
            self.len = n - 1;
        }
    }

    /// Normalizes one word (a run of `[A-Za-z0-9_]`) into the token: false for stop
    /// words and noise (then the token is meaningless).
    fn normalize(&mut self, word: &[u8]) -> bool {
        if word.len() < 2 || word.len() > MAX_TOKEN_LEN || word.iter().all(u8::is_ascii_digit) {
            return false;
        }
        let mut len = 0;
        for &b in word {
            if b != b'_' {
                self.bytes[len] = b.to_ascii_lowercase();
                len += 1;
            }
        }
        self.len = len;
        if len < 2 || is_stop_bytes(self.as_bytes()) {
            return false;
        }
        self.stem();
        true
    }
}

/// Whether a (lower-case) word is a stop word: one binary search among the stop
/// words packed into integers (the hash lookup it replaces took about 6 % of the
/// pass's samples in `perf record` of a cold query on astropy).
fn is_stop_bytes(word: &[u8]) -> bool {
    static PACKED: std::sync::LazyLock<Vec<u64>> = std::sync::LazyLock::new(|| {
        let mut packed: Vec<u64> = STOP.iter().filter_map(|w| pack(w.as_bytes())).collect();
        packed.sort_unstable();
        packed
    });
    pack(word).is_some_and(|key| PACKED.binary_search(&key).is_ok())
}

/// A word of at most eight bytes as one integer (its bytes are never zero, so
/// words of different lengths differ).
fn pack(word: &[u8]) -> Option<u64> {
    if word.len() > 8 {
        return None;
    }
    let mut bytes = [0u8; 8];
    bytes[..word.len()].copy_from_slice(word);
    Some(u64::from_le_bytes(bytes))
}

/// Splits an identifier into its parts: `parseHTTPResponse_v2` → `parse`, `HTTP`,
/// `Response`, `v2`.
fn split_identifier(ident: &[u8]) -> smallvec::SmallVec<[&[u8]; 8]> {
    let bytes = ident;
    let mut parts = smallvec::SmallVec::new();
    // Most words have one part: parts are cut at underscores and at changes of
    // case only (a digit next to a letter never cuts: the rule that looks at
    // digits below also asks for two letters).
    let mixed_case =
        bytes.iter().any(u8::is_ascii_lowercase) && bytes.iter().any(u8::is_ascii_uppercase);
    if !mixed_case && !bytes.contains(&b'_') {
        parts.push(ident);
        return parts;
    }
    let mut start = 0;
    for i in 1..=bytes.len() {
        let boundary = if i == bytes.len() {
            true
        } else {
            let (prev, cur) = (bytes[i - 1], bytes[i]);
            let next = bytes.get(i + 1).copied();
            cur == b'_'
                || prev == b'_'
                || (prev.is_ascii_lowercase() && cur.is_ascii_uppercase())
                || (prev.is_ascii_digit() != cur.is_ascii_digit()
                    && cur.is_ascii_alphabetic()
                    && prev.is_ascii_lowercase())
                || (prev.is_ascii_uppercase()
                    && cur.is_ascii_uppercase()
                    && next.is_some_and(|n| n.is_ascii_lowercase()))
        };
        if boundary {
            let part = trim_underscores(&ident[start..i]);
            if !part.is_empty() {
                parts.push(part);
            }
            start = i;
        }
    }
    parts
}

fn trim_underscores(mut part: &[u8]) -> &[u8] {
    while let [b'_', rest @ ..] = part {
        part = rest;
    }
    while let [rest @ .., b'_'] = part {
        part = rest;
    }
    part
}

/// Calls `emit` with every normalized token of one word (a run of
/// `[A-Za-z0-9_]`): the word joined and, when it has several parts, each part.
pub(super) fn tokenize_word(word: &[u8], token: &mut Token, emit: &mut impl FnMut(&Token)) {
    let parts = split_identifier(word);
    if parts.len() > 1 {
        if token.normalize(word) {
            emit(token);
        }
        for part in parts {
            if token.normalize(part) {
                emit(token);
            }
        }
    } else if token.normalize(word) {
        emit(token);
    }
}

/// Calls `emit` with every normalized token of `text`: each identifier joined (lower
/// case) and, when it has several parts, each part.
pub fn tokenize(text: &str, mut emit: impl FnMut(String)) {
    tokenize_into(text, &mut Token::default(), &mut |t| {
        emit(t.as_str().to_string())
    });
}

/// Calls `emit` with every normalized token of `text`, each built in `token`.
pub(super) fn tokenize_into(text: &str, token: &mut Token, emit: &mut impl FnMut(&Token)) {
    for word in word_runs(text.as_bytes()) {
        tokenize_word(word, token, emit);
    }
}

/// Whether a byte is part of a word (`[A-Za-z0-9_]`).
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether a word is an identifier: it starts with a letter or `_`.
pub(super) fn is_identifier(word: &[u8]) -> bool {
    word.first()
        .is_some_and(|&b| b.is_ascii_alphabetic() || b == b'_')
}

/// Runs of `[A-Za-z0-9_]` as bytes (ASCII, so every cut is a char boundary).
pub(super) fn word_runs(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    text.split(|&b| !is_word_byte(b)).filter(|w| !w.is_empty())
}

/// Runs of `[A-Za-z0-9_]`, also those that start with a digit
/// (`0011_update_proxy_permissions`, `3d_axes`); all-digit parts are dropped later.
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    word_runs(text.as_bytes()).map(|w| std::str::from_utf8(w).unwrap_or_default())
}

/// The tokenizer as it was before the single byte pass: the oracle the pass is
/// held to (the same tokens in the same order, on any text).
#[cfg(test)]
mod reference {
    use super::STOP;
    use crate::locate::lexical::WordMap;

    /// Light stemming, in place: plural and common verb endings, so `fields`/`field`,
    /// `entries`/`entry` and `parsing`/`parse` meet. Deliberately conservative: code
    /// names are not English.
    fn stem_in_place(word: &mut String) {
        let n = word.len();
        if n > 4 && word.ends_with("ies") {
            word.truncate(n - 3);
            word.push('y');
        } else if n > 5 && word.ends_with("ing") {
            word.truncate(n - 3);
        } else if n > 4 && word.ends_with("ed") && !word.ends_with("eed") {
            word.truncate(n - 2);
        } else if n > 3 && word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("us") {
            word.truncate(n - 1);
        }
    }

    /// Normalizes one word into `buf`: lower case, underscores dropped, stemmed; false
    /// for stop words and noise (then `buf` is meaningless).
    fn normalize_into(word: &str, buf: &mut String) -> bool {
        if word.len() < 2 || word.len() > 64 || word.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
        buf.clear();
        buf.extend(
            word.chars()
                .filter(|&c| c != '_')
                .map(|c| c.to_ascii_lowercase()),
        );
        if buf.len() < 2 || is_stop(buf) {
            return false;
        }
        stem_in_place(buf);
        true
    }

    pub(super) fn is_stop(word: &str) -> bool {
        static SET: std::sync::LazyLock<WordMap<&'static str, ()>> =
            std::sync::LazyLock::new(|| STOP.iter().map(|w| (*w, ())).collect());
        word.len() <= MAX_STOP_LEN && SET.contains_key(word)
    }

    /// The longest stop word.
    const MAX_STOP_LEN: usize = {
        let mut max = 0;
        let mut i = 0;
        while i < STOP.len() {
            if STOP[i].len() > max {
                max = STOP[i].len();
            }
            i += 1;
        }
        max
    };

    /// Splits an identifier into its parts: `parseHTTPResponse_v2` → `parse`, `HTTP`,
    /// `Response`, `v2`.
    fn split_identifier(ident: &str) -> smallvec::SmallVec<[&str; 8]> {
        let bytes = ident.as_bytes();
        let mut parts = smallvec::SmallVec::new();
        let mut start = 0;
        for i in 1..=bytes.len() {
            let boundary = if i == bytes.len() {
                true
            } else {
                let (prev, cur) = (bytes[i - 1], bytes[i]);
                let next = bytes.get(i + 1).copied();
                cur == b'_'
                    || prev == b'_'
                    || (prev.is_ascii_lowercase() && cur.is_ascii_uppercase())
                    || (prev.is_ascii_digit() != cur.is_ascii_digit()
                        && cur.is_ascii_alphabetic()
                        && prev.is_ascii_lowercase())
                    || (prev.is_ascii_uppercase()
                        && cur.is_ascii_uppercase()
                        && next.is_some_and(|n| n.is_ascii_lowercase()))
            };
            if boundary {
                let part = &ident[start..i];
                let part = part.trim_matches('_');
                if !part.is_empty() {
                    parts.push(part);
                }
                start = i;
            }
        }
        parts
    }

    /// Calls `emit` with every normalized token of `text`: each identifier joined (lower
    /// case) and, when it has several parts, each part.
    pub(super) fn tokenize(text: &str, mut emit: impl FnMut(String)) {
        let mut buf = String::new();
        tokenize_with(text, &mut buf, |t| emit(t.to_string()));
    }

    /// [`tokenize`] without an allocation per token: each token is written into `buf`
    /// and lent to `emit`.
    pub(super) fn tokenize_with(text: &str, buf: &mut String, mut emit: impl FnMut(&str)) {
        for ident in words(text) {
            let parts = split_identifier(ident);
            if parts.len() > 1 {
                if normalize_into(ident, buf) {
                    emit(buf);
                }
                for part in parts {
                    if normalize_into(part, buf) {
                        emit(buf);
                    }
                }
            } else if normalize_into(ident, buf) {
                emit(buf);
            }
        }
    }

    /// Runs of `[A-Za-z0-9_]`, also those that start with a digit
    /// (`0011_update_proxy_permissions`, `3d_axes`); all-digit parts are dropped later.
    pub(super) fn words(text: &str) -> impl Iterator<Item = &str> {
        // Split on ASCII bytes: every cut is a char boundary, and no char is decoded.
        text.as_bytes()
            .split(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))
            .filter(|w| !w.is_empty())
            .map(|w| std::str::from_utf8(w).unwrap_or_default())
    }

    /// Runs of `[A-Za-z0-9_]` that start with a letter or `_`.
    pub(super) fn identifiers(text: &str) -> impl Iterator<Item = &str> {
        words(text).filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The single byte pass tokenizes exactly as the tokenizer it replaced: the
    /// same tokens, identifiers and word hashes, in the same order.
    fn assert_like_reference(text: &str) {
        let mut new = Vec::new();
        tokenize(text, |t| new.push(t));
        let mut old = Vec::new();
        reference::tokenize(text, |t| old.push(t));
        assert_eq!(new, old, "{text:?}");
        let new_idents: Vec<&[u8]> = word_runs(text.as_bytes())
            .filter(|w| is_identifier(w))
            .collect();
        let old_idents: Vec<&[u8]> = reference::identifiers(text).map(str::as_bytes).collect();
        assert_eq!(new_idents, old_idents, "{text:?}");
        for stop in STOP {
            assert!(
                is_stop_bytes(stop.as_bytes()) && reference::is_stop(stop),
                "{stop}"
            );
        }
    }

    #[test]
    fn the_byte_pass_tokenizes_as_the_reference() {
        for text in [
            "parseHTTPResponse_v2 __init__ _private_ x2y HTTPServer getURLs ABCDef",
            "entries parsing studies used fields ss us bus glasses needed freed",
            "the self return THE Self RETURN __the__ a1 99 0011_update_proxy 3d_axes",
            "é ünïcode naïve_name café·bar x_y_z a__b ___ _ __x__",
            &"longword".repeat(9),
            "CamelCase snake_case kebab-case SCREAMING_CASE mixedCASEWord v1Beta2",
        ] {
            assert_like_reference(text);
        }
    }

    proptest::proptest! {
        #[test]
        fn any_text_tokenizes_as_the_reference(text in "[a-zA-Z0-9_ .:é\\n-]{0,200}") {
            assert_like_reference(&text);
        }
    }
}
