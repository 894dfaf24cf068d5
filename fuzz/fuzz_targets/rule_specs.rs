//! The rule-spec TOML a caller adds (`Session::with_rule_specs`): any text parses to
//! rules or gives a clear error, and every rule that parses compiles or is refused.
#![no_main]

use deepdiscovery_core::rules;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(specs) = rules::parse_specs(&text) {
        for spec in &specs {
            let _ = rules::compile(spec);
        }
    }
});
