//! Every configuration reader (YAML, JSON, TOML, XML, properties, INI, .env): the
//! first byte picks the format, the rest is the file. Facts extraction never panics,
//! never recurses as deep as the input, and gives the same facts twice.
#![no_main]

use deepdiscovery_core::Language;
use deepdiscovery_core::facts;
use libfuzzer_sys::fuzz_target;

const FORMATS: [(Language, &str); 7] = [
    (Language::Yaml, "config.yaml"),
    (Language::Json, "config.json"),
    (Language::Toml, "config.toml"),
    (Language::Xml, "config.xml"),
    (Language::Properties, "config.properties"),
    (Language::Ini, "setup.cfg"),
    (Language::Env, ".env"),
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let (language, path) = FORMATS[pick as usize % FORMATS.len()];
    let text = String::from_utf8_lossy(rest);
    let first = facts::extract(language, path, &text);
    assert_eq!(first, facts::extract(language, path, &text));
});
