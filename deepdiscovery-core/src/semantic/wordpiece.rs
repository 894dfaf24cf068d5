//! BERT's uncased WordPiece tokenization, in our own code (issue 47, item 2): what
//! the `tokenizers` crate does for all-MiniLM-L6-v2's `tokenizer.json`
//! (`BertNormalizer` with lowercasing, `BertPreTokenizer`, `WordPiece` with the `##`
//! prefix), so the static table needs no ML runtime. A test of the `transformer`
//! build checks it token for token against `tokenizers` on the same vocabulary.
//!
//! The steps, in `tokenizers`' order:
//! 0. the special tokens (`[UNK]`, `[CLS]`, ...) written in the text are cut out
//!    first, each its own token;
//! 1. normalize: drop NUL, U+FFFD and control characters, turn whitespace into a
//!    space, put spaces around CJK ideographs, strip accents (NFD, then no
//!    nonspacing marks), lowercase;
//! 2. split at whitespace, and put every punctuation character on its own;
//! 3. per word: longest vocabulary match first, continuing with `##` pieces; a word
//!    with no full cover, or longer than [`MAX_WORD_CHARS`], is `[UNK]`.
//!
//! Bounded by counts: at most `max_tokens` tokens come out of any text.

use unicode_categories::UnicodeCategories;
use unicode_normalization_alignments::UnicodeNormalization;

/// A word of more characters than this is `[UNK]` (`max_input_chars_per_word`).
pub const MAX_WORD_CHARS: usize = 100;
/// The prefix of a piece that continues a word.
const CONTINUES: &str = "##";

/// Looks a token up in a vocabulary.
pub trait Vocabulary {
    /// The token's id, when the vocabulary has it.
    fn id(&self, token: &str) -> Option<u32>;
}

/// The ids of `text`'s tokens, at most `max_tokens`; `unk` (when the vocabulary has
/// one) stands for a word it cannot cover, which is skipped otherwise.
pub fn token_ids(
    text: &str,
    vocabulary: &dyn Vocabulary,
    unk: Option<u32>,
    max_tokens: usize,
) -> Vec<u32> {
    let mut out = Vec::new();
    let mut piece = String::new();
    for (segment, special) in specials_apart(text) {
        if out.len() >= max_tokens {
            break;
        }
        if special {
            out.extend(vocabulary.id(segment));
            continue;
        }
        let normalized = normalize(segment);
        for word in words(&normalized) {
            if out.len() >= max_tokens {
                break;
            }
            let before = out.len();
            if !cover(word, vocabulary, &mut piece, &mut out) {
                out.truncate(before);
                out.extend(unk);
            }
        }
    }
    out.truncate(max_tokens);
    out
}

/// BERT's special tokens: `tokenizers` finds them in the raw text, wherever they
/// are, before anything else, and gives each its own id.
const SPECIALS: [&str; 5] = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];

/// The text cut at its special tokens: (segment, whether it is one), in order.
fn specials_apart(text: &str) -> Vec<(&str, bool)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut at = 0;
    while let Some(k) = text[at..].find('[') {
        let k = at + k;
        match SPECIALS.iter().find(|s| text[k..].starts_with(**s)) {
            Some(special) => {
                if start < k {
                    out.push((&text[start..k], false));
                }
                out.push((&text[k..k + special.len()], true));
                start = k + special.len();
                at = start;
            }
            None => at = k + 1,
        }
    }
    if start < text.len() {
        out.push((&text[start..], false));
    }
    out
}

/// Step 1: `BertNormalizer` (clean text, CJK, accents, lowercase).
fn normalize(text: &str) -> String {
    let mut cleaned = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\0' || c == '\u{fffd}' || is_control(c) {
            continue;
        }
        if is_whitespace(c) {
            cleaned.push(' ');
        } else if is_cjk(c) {
            cleaned.extend([' ', c, ' ']);
        } else {
            cleaned.push(c);
        }
    }
    let stripped: String = if cleaned.is_ascii() {
        cleaned
    } else {
        cleaned
            .nfd()
            .map(|(c, _)| c)
            .filter(|c| !c.is_mark_nonspacing())
            .collect()
    };
    let mut lower = String::with_capacity(stripped.len());
    for c in stripped.chars() {
        lower.extend(c.to_lowercase());
    }
    lower
}

/// Step 2: `BertPreTokenizer`, words apart at whitespace, punctuation alone.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(char::is_whitespace)
        .filter(|w| !w.is_empty())
        .flat_map(|word| {
            let mut parts = Vec::new();
            let mut start = 0;
            for (k, c) in word.char_indices() {
                if is_punctuation(c) {
                    if start < k {
                        parts.push(&word[start..k]);
                    }
                    parts.push(&word[k..k + c.len_utf8()]);
                    start = k + c.len_utf8();
                }
            }
            if start < word.len() {
                parts.push(&word[start..]);
            }
            parts
        })
}

/// Step 3: one word's pieces, longest match first; `false` when the word has no full
/// cover (or is too long), with `out` holding what was pushed before failing.
fn cover(word: &str, vocabulary: &dyn Vocabulary, piece: &mut String, out: &mut Vec<u32>) -> bool {
    if word.chars().count() > MAX_WORD_CHARS {
        return false;
    }
    let mut start = 0;
    while start < word.len() {
        let mut end = word.len();
        let mut found = None;
        while start < end {
            piece.clear();
            if start > 0 {
                piece.push_str(CONTINUES);
            }
            piece.push_str(&word[start..end]);
            if let Some(id) = vocabulary.id(piece) {
                found = Some(id);
                break;
            }
            // One character back (end is always a character boundary).
            end = word[..end]
                .char_indices()
                .next_back()
                .map_or(start, |(k, _)| k);
        }
        match found {
            Some(id) => out.push(id),
            None => return false,
        }
        start = end;
    }
    true
}

/// `tokenizers`' whitespace: tab, newline, carriage return, or Unicode whitespace.
fn is_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

/// `tokenizers`' control characters: Unicode's "other" categories, but for tab,
/// newline and carriage return.
fn is_control(c: char) -> bool {
    !matches!(c, '\t' | '\n' | '\r') && c.is_other()
}

/// `BertPreTokenizer`'s punctuation: ASCII punctuation, or Unicode's.
fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation() || c.is_punctuation()
}

/// The CJK ideograph blocks BERT sets apart.
fn is_cjk(c: char) -> bool {
    matches!(
        c as u32,
        0x4E00..=0x9FFF
            | 0x3400..=0x4DBF
            | 0x20000..=0x2A6DF
            | 0x2A700..=0x2B73F
            | 0x2B740..=0x2B81F
            | 0x2B920..=0x2CEAF
            | 0xF900..=0xFAFF
            | 0x2F800..=0x2FA1F
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct Words(HashMap<&'static str, u32>);

    impl Vocabulary for Words {
        fn id(&self, token: &str) -> Option<u32> {
            self.0.get(token).copied()
        }
    }

    fn vocabulary() -> Words {
        let tokens = [
            "[UNK]", "read", "##_", "csv", "_", "slow", "when", "data", "##frame", "has", "many",
            "columns", "(", ")", ".", "##s", "cafe", "un", "##able", "世",
        ];
        Words(
            tokens
                .iter()
                .enumerate()
                .map(|(k, t)| (*t, k as u32))
                .collect(),
        )
    }

    fn tokens(text: &str) -> Vec<u32> {
        token_ids(text, &vocabulary(), Some(0), 64)
    }

    #[test]
    fn words_pieces_and_punctuation() {
        // read _ csv ( ) : punctuation stands alone.
        assert_eq!(tokens("read_csv()"), vec![1, 4, 3, 12, 13]);
        // Lowercased, "##frame" continues "data", "columns" is whole.
        assert_eq!(
            tokens("Slow when DataFrame has many columns."),
            vec![5, 6, 7, 8, 9, 10, 11, 14]
        );
        // Longest match first: "unable" is un ##able.
        assert_eq!(tokens("Unable"), vec![17, 18]);
    }

    #[test]
    fn accents_controls_and_cjk() {
        assert_eq!(tokens("Café"), vec![16]);
        // Controls go (the words join: "readcsv" has no cover), whitespace splits.
        assert_eq!(tokens("read\u{0}\u{7}csv"), vec![0]);
        assert_eq!(tokens("read\u{7}\u{a0}csv"), vec![1, 3]);
        assert_eq!(tokens("世界"), vec![19, 0]);
    }

    #[test]
    fn unknown_words_and_bounds() {
        // No cover for "xyz": [UNK]; without an [UNK] token, skipped.
        assert_eq!(tokens("read xyz"), vec![1, 0]);
        assert_eq!(token_ids("read xyz", &vocabulary(), None, 64), vec![1]);
        // A word over the length bound is [UNK] even when it could be covered.
        let long = "s".repeat(MAX_WORD_CHARS + 1);
        assert_eq!(tokens(&format!("slow{long}")), vec![0]);
        // At most max_tokens.
        assert_eq!(
            token_ids("read read read read", &vocabulary(), Some(0), 2),
            vec![1, 1]
        );
        assert!(tokens("").is_empty());
        assert!(tokens(" \t\n ").is_empty());
    }

    #[test]
    fn special_tokens_in_the_text_are_their_own() {
        // "[UNK]" written in the text is the [UNK] token, even inside a word.
        assert_eq!(tokens("read[UNK]csv"), vec![1, 0, 3]);
        // "[CLS]" is not in this vocabulary: nothing; "[x]" is punctuation and a word.
        assert_eq!(tokens("[CLS] read"), vec![1]);
        assert_eq!(tokens("[read]"), vec![0, 1, 0]);
    }
}

/// Token for token against the `tokenizers` crate, on the tokenizer we ship
/// (`python/deepdiscovery/embedder/tokenizer.json`, all-MiniLM-L6-v2's).
#[cfg(all(test, feature = "transformer"))]
mod parity {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    struct Vocab(HashMap<String, u32>);

    impl Vocabulary for Vocab {
        fn id(&self, token: &str) -> Option<u32> {
            self.0.get(token).copied()
        }
    }

    fn shipped() -> &'static (tokenizers::Tokenizer, Vocab) {
        static SHIPPED: std::sync::OnceLock<(tokenizers::Tokenizer, Vocab)> =
            std::sync::OnceLock::new();
        SHIPPED.get_or_init(load)
    }

    fn load() -> (tokenizers::Tokenizer, Vocab) {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../python/deepdiscovery/embedder/tokenizer.json"
        );
        let mut tok = tokenizers::Tokenizer::from_file(path).expect("the shipped tokenizer");
        tok.with_padding(None);
        tok.with_truncation(None).unwrap();
        let vocab = Vocab(tok.get_vocab(true).into_iter().collect());
        (tok, vocab)
    }

    fn assert_same(tok: &tokenizers::Tokenizer, vocab: &Vocab, text: &str) {
        let theirs = tok.encode(text, false).unwrap().get_ids().to_vec();
        let ours = token_ids(text, vocab, vocab.id("[UNK]"), usize::MAX);
        if ours != theirs {
            let at = ours.iter().zip(&theirs).take_while(|(a, b)| a == b).count();
            let near = |ids: &[u32]| ids[at.saturating_sub(3)..(at + 3).min(ids.len())].to_vec();
            panic!(
                "differ at token {at} of {} / {}: ours {:?}, theirs {:?}, in {:?}",
                ours.len(),
                theirs.len(),
                near(&ours),
                near(&theirs),
                text.chars().take(200).collect::<String>()
            );
        }
    }

    #[test]
    fn equals_the_tokenizers_crate_on_code_and_prose() {
        let (tok, vocab) = shipped();
        let texts = [
            "Slow performance when a DataFrame has many columns: df.reindex(columns=cols)",
            "def _reindex_columns(self, columns, fill_value=None):\n    \"\"\"Reindex.\"\"\"",
            "fn parse(bytes: &[u8]) -> Result<StaticTable, String> { todo!() }",
            "CurrencyMismatchError: cannot convert EUR to GBP in `convert_currency`",
            "Café naïve résumé façade Ærøskøbing straße ẞ İstanbul ΣΊΣΥΦΟΣ",
            "“quoted” — dash, «guillemets», ¿qué? ¡sí! … ‘single’ •bullet",
            "日本語のテキスト 中文 한국어 emoji 🚀✨ math ∑∫√ ©®™ °C",
            "tab\there\r\nnewline\u{0}nul\u{7}bell\u{200b}zero-width\u{feff}bom\u{fffd}",
            "combining e\u{301} a\u{308} n\u{303} and Hangul \u{1100}\u{1161}",
            "pneumonoultramicroscopicsilicovolcanoconiosispneumonoultramicroscopicsilicovolcanoconiosisxxxxxxxxxxxxxxxx",
            "",
            "   ",
            "special [UNK] [CLS]x[SEP] [MASK][PAD] [unused1] [cls] [UNK",
        ];
        for text in texts {
            assert_same(tok, vocab, text);
        }
        // Whole files: this module and the README.
        for file in ["src/semantic/wordpiece.rs", "../README.md"] {
            let text = std::fs::read_to_string(file).unwrap();
            assert_same(tok, vocab, &text);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn equals_the_tokenizers_crate_on_any_text(text in "(?s)[a-zA-Z0-9 _.,;:()\\[\\]{}<>\"'`~!@#$%^&*+=|/\\\\?\t\n\r\u{0}-\u{1f}\u{80}-\u{2ff}\u{300}-\u{36f}\u{2000}-\u{206f}\u{3000}-\u{30ff}\u{4e00}-\u{4e2f}\u{ac00}-\u{ac2f}\u{1f600}-\u{1f60f}\u{fff0}-\u{ffff}]{0,80}") {
            let (tok, vocab) = shipped();
            assert_same(tok, vocab, &text);
        }
    }
}
