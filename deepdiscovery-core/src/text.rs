//! Small text helpers shared by the readers.

/// The longest prefix of `text` of at most `max` bytes that ends on a character
/// boundary.
pub(crate) fn prefix(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::prefix;

    #[test]
    fn a_prefix_never_cuts_a_character() {
        assert_eq!(prefix("héllo", 2), "h");
        assert_eq!(prefix("héllo", 3), "hé");
        assert_eq!(prefix("abc", 10), "abc");
        assert_eq!(prefix("", 0), "");
    }
}
