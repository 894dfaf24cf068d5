//! The vocabulary bridge's model reader (`bridge::Bridge::parse`): a model file
//! is whatever a user passes or a build embeds. The first byte chooses the mode: odd,
//! the input is taken as it is (the checksum refuses nearly everything); even, the
//! input's last 8 bytes are replaced by the checksum of the rest, so the structure
//! behind it is what is fuzzed. A model that parses must expand any query into at
//! most `MAX_EXPANSION` finite, non-negative, sorted code terms, none of them the
//! query's own, and write back to a model that parses to the same translations.
#![no_main]

use deepdiscovery_core::bridge::{Bridge, encode};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut bytes = rest.to_vec();
    if mode % 2 == 0 && bytes.len() >= 8 {
        let body = bytes.len() - 8;
        let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..body]);
        bytes[body..].copy_from_slice(&sum.to_le_bytes());
    }
    let Ok(bridge) = Bridge::parse(&bytes) else {
        return;
    };
    // A query of the model's own task terms and of words it does not know.
    let mut terms: Vec<(String, f32)> = Vec::new();
    let mut table: Vec<(String, Vec<(String, f32)>)> = Vec::new();
    for word in ["slow", "cache", "zz"] {
        terms.push((word.to_string(), 1.0));
    }
    for (i, term) in bridge.known_terms().take(64).enumerate() {
        terms.push((term.to_string(), 1.0 + i as f32 / 8.0));
        let list: Vec<(String, f32)> = bridge
            .translations(term)
            .map(|(c, p)| (c.to_string(), p))
            .collect();
        table.push((term.to_string(), list));
    }
    terms.sort_by(|a, b| a.0.cmp(&b.0));
    terms.dedup_by(|a, b| a.0 == b.0);
    let expansion = bridge.expand(&terms);
    assert!(expansion.len() <= deepdiscovery_core::bridge::MAX_EXPANSION);
    assert!(expansion.windows(2).all(|w| w[0].term < w[1].term));
    for e in &expansion {
        assert!(e.weight.is_finite() && e.weight >= 0.0, "{e:?}");
        assert!(!terms.iter().any(|(t, _)| *t == e.term), "{e:?}");
        assert!(e.sources.iter().all(|&(q, _)| (q as usize) < terms.len()));
    }
    // What the model holds writes back and reads the same.
    let borrowed: Vec<(&str, Vec<(&str, f32)>)> = table
        .iter()
        .map(|(t, l)| {
            (
                t.as_str(),
                l.iter().map(|(c, p)| (c.as_str(), *p)).collect(),
            )
        })
        .collect();
    let again = Bridge::parse(&encode(&borrowed)).expect("an encoded model parses");
    for (term, list) in &table {
        let read: Vec<(String, f32)> = again
            .translations(term)
            .map(|(c, p)| (c.to_string(), p))
            .collect();
        let mut want = list.clone();
        want.retain(|(_, p)| (p * f32::from(u16::MAX)).round() > 0.0);
        assert_eq!(read.len(), want.len(), "{term}");
    }
});
