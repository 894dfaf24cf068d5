//! The package picture (`infer::picture::svg`): C's `dd_package_svg` and Python's
//! `picture.to_svg` hand it whatever JSON a caller has. Any JSON value must draw a
//! well-formed SVG document, the same bytes twice, with at most `MAX_FILES` file boxes
//! and `MAX_RELATIONS` arrows, and no markup of the input's own in it.
#![no_main]

use deepdiscovery_core::infer::picture::{MAX_FILES, MAX_RELATIONS, svg};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(data) else {
        return;
    };
    let drawn = svg(&value);
    assert_eq!(drawn, svg(&value), "the same JSON draws the same bytes");
    let doc = roxmltree::Document::parse(&drawn).expect("a well-formed SVG");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    let count = |class: &str| {
        doc.descendants()
            .filter(|n| n.has_tag_name("g"))
            .filter(|n| {
                n.attribute("class")
                    .unwrap_or("")
                    .split(' ')
                    .any(|c| c == class)
            })
            .count()
    };
    assert!(count("node") <= MAX_FILES && count("edge") <= MAX_RELATIONS);
    // Only the renderer's own elements: nothing of the input became markup.
    let own = [
        "svg", "title", "defs", "marker", "path", "rect", "g", "text",
    ];
    for node in doc.descendants().filter(|n| n.is_element()) {
        assert!(
            own.contains(&node.tag_name().name()),
            "{:?}",
            node.tag_name()
        );
    }
});
