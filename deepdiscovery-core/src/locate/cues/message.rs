//! Exception names and error messages: the stable fragments of a rendered message.

use super::*;

// ---------------------------------------------------------------------------------
// Messages and exceptions
// ---------------------------------------------------------------------------------

/// Whether a message word is a value that varies between runs (numbers, addresses,
/// ids, paths, assignments) rather than part of the fixed message.
pub(super) fn is_variable_word(word: &str) -> bool {
    word.chars().any(|c| c.is_ascii_digit())
        || word.contains(['/', '\\', '=', '@', '#', '<', '>', '{', '}', '[', ']'])
}

/// The stable fragments of an error message: runs of at least three words between
/// quoted values, variable words and `: ` separators (chained errors), longest first,
/// at most three, each at most 16 words.
pub(super) fn message_fragments(message: &str) -> Vec<String> {
    const SEP: char = '\u{1}';
    let mut masked = String::with_capacity(message.len());
    let mut quote: Option<char> = None;
    for ch in message.chars() {
        match quote {
            Some(q) if ch == q => {
                quote = None;
                masked.push(SEP);
            }
            Some(_) => {}
            None if matches!(ch, '\'' | '"' | '`' | '«' | '“' | '‘') => {
                let close = match ch {
                    '«' => '»',
                    '“' => '”',
                    '‘' => '’',
                    c => c,
                };
                quote = Some(close);
                masked.push(SEP);
            }
            // A parenthesised aside usually carries a value: `(reading 'map')`.
            None if matches!(ch, '(' | ')') => masked.push(SEP),
            None => masked.push(ch),
        }
    }
    let mut fragments: Vec<(usize, String)> = Vec::new();
    let mut order = 0usize;
    for part in masked
        .split(SEP)
        .flat_map(|p| p.split(": "))
        .flat_map(|p| p.split("; "))
    {
        let mut run: Vec<&str> = Vec::new();
        let words: Vec<&str> = part.split_whitespace().collect();
        for (i, word) in words.iter().enumerate() {
            let variable = is_variable_word(word);
            if !variable {
                run.push(word);
            }
            if variable || i + 1 == words.len() {
                let trimmed = trim_run(&run);
                if trimmed.len() >= 3 {
                    let text = trimmed[..trimmed.len().min(16)].join(" ");
                    fragments.push((order, text));
                    order += 1;
                }
                run.clear();
            }
        }
    }
    // Longest first; the earlier fragment wins a tie.
    fragments.sort_by(|a, b| {
        let wa = a.1.split(' ').count();
        let wb = b.1.split(' ').count();
        wb.cmp(&wa).then(a.0.cmp(&b.0))
    });
    let mut out: Vec<String> = Vec::new();
    for (_, text) in fragments {
        if !out.contains(&text) && out.len() < 3 {
            out.push(text);
        }
    }
    out
}

/// Trims punctuation-only words at both ends of a run and punctuation at its edges.
pub(super) fn trim_run<'a>(run: &[&'a str]) -> Vec<&'a str> {
    let is_word = |w: &&str| w.chars().any(|c| c.is_alphanumeric());
    let start = run.iter().position(is_word).unwrap_or(run.len());
    let end = run.iter().rposition(is_word).map_or(start, |e| e + 1);
    let mut words: Vec<&str> = run[start..end.max(start)].to_vec();
    let edge = |c: char| matches!(c, '.' | ',' | ';' | ':' | '!' | '?' | '(' | ')' | '*');
    if let Some(first) = words.first_mut() {
        *first = first.trim_start_matches(edge);
    }
    if let Some(last) = words.last_mut() {
        *last = last.trim_end_matches(edge);
    }
    words.retain(|w| !w.is_empty());
    words
}

pub(super) fn add_message(out: &mut Collector, message: &str, weight: f32) {
    for fragment in message_fragments(message) {
        out.add(CueKind::ErrorMessage, &fragment, weight);
        // A message often ends with the value it reports, written without quotes
        // (`no number is assigned for table` from `… for %s`): its head is a cue too.
        let words: Vec<&str> = fragment.split_whitespace().collect();
        if words.len() > MIN_HEAD_WORDS {
            let head = words[..words.len() - 1].join(" ");
            out.add(CueKind::ErrorMessage, &head, weight * HEAD_SHARE);
        }
    }
}

/// A message fragment's head (all but its last word) is a cue when it keeps this
/// many words.
pub(super) const MIN_HEAD_WORDS: usize = 4;
/// The weight of that head, as a share of the whole fragment's.
pub(super) const HEAD_SHARE: f32 = 0.9;

pub(super) fn is_exception_name(name: &str) -> bool {
    EXCEPTION_NAME.is_match(name)
}

/// Exceptions and messages stated on a whole line. `after_trace` says the line closely
/// follows a stack frame, where a bare `Name: message` is the exception that ended
/// the trace.
pub(super) fn scan_exception_line(
    line: &str,
    after_trace: bool,
    in_code: bool,
    out: &mut Collector,
) {
    if line.len() > 2000 {
        return;
    }
    if let Some(c) = EXCEPTION_LINE.captures(line) {
        let qualified = &c[1];
        let last = qualified
            .rsplit(['.', '\\', ':'])
            .next()
            .unwrap_or(qualified);
        let qualified_type = qualified.contains(['.', '\\'])
            && last
                .chars()
                .next()
                .is_some_and(|ch| ch.is_ascii_uppercase());
        let has_message = c.get(2).is_some();
        let camel = last
            .chars()
            .next()
            .is_some_and(|ch| ch.is_ascii_uppercase())
            && last.len() > 3
            && !is_stop(last);
        let accept = is_exception_name(last)
            || (qualified_type && (has_message || after_trace))
            || (after_trace && camel && has_message);
        if accept && !is_stop(last) {
            let w = if after_trace || in_code {
                weight::TRACE_EXCEPTION
            } else {
                weight::EXCEPTION
            };
            out.add(CueKind::Exception, last, w);
            if let Some(m) = c.get(2) {
                let w = if after_trace || in_code {
                    weight::TRACE_MESSAGE
                } else {
                    weight::PROSE_MESSAGE
                };
                add_message(out, m.as_str(), w);
            }
            return;
        }
    }
    if let Some(c) = ERROR_LINE.captures(line) {
        let w = if after_trace || in_code {
            weight::TRACE_MESSAGE
        } else {
            weight::PROSE_MESSAGE
        };
        add_message(out, &c[1], w);
    }
}
