//! The static table's reader and tokenizer (`semantic::static_table`,
//! `semantic::wordpiece`): any bytes are refused or read into a table that embeds any
//! text to finite vectors of its dimension, the same twice; never a panic. The first
//! byte chooses: odd, the rest is a table file as it is; even, the rest builds a valid
//! table (tokens from its words, rows from its bytes), whose one byte is then flipped
//! or not. Either way the rest is also the text embedded.
#![no_main]

use deepdiscovery_core::semantic::static_table::{SPLIT_CAMEL, check_table, write_table};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    if mode % 2 == 1 {
        check_table(rest, &text);
        return;
    }
    let mut tokens: Vec<&str> = text
        .split_whitespace()
        .filter(|t| t.len() < 256)
        .take(64)
        .collect();
    tokens.sort_unstable();
    tokens.dedup();
    if tokens.is_empty() {
        return;
    }
    let dims = 1 + usize::from(mode >> 4);
    let cells = tokens.len() * dims;
    let rows: Vec<i8> = rest.iter().cycle().take(cells).map(|&b| b as i8).collect();
    let scales: Vec<f32> = (0..tokens.len()).map(|k| (k % 3) as f32 * 0.5).collect();
    let flags = u32::from(mode >> 1 & 1) * SPLIT_CAMEL;
    let unk = (mode & 4 != 0).then_some(0);
    let mut bytes = write_table(dims as u32, flags, &tokens, unk, &scales, &rows);
    if mode & 8 != 0 {
        let at = rest.len() % bytes.len();
        bytes[at] ^= 1;
    }
    check_table(&bytes, &text);
});
