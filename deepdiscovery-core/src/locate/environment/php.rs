//! PHP manifests: composer.json.

use super::*;

pub(super) fn php_framework(name: &str) -> Option<&'static str> {
    Some(match name {
        "laravel/framework" | "laravel/lumen-framework" => "laravel",
        "symfony/framework-bundle" | "symfony/symfony" | "symfony/http-kernel" => "symfony",
        "phpunit/phpunit" => "phpunit",
        _ => return None,
    })
}

pub(super) fn composer(text: &str) -> Option<ManifestInfo> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let object = value.as_object()?;
    let mut info = ManifestInfo::named(
        object
            .get("name")
            .and_then(|v| v.as_str())
            .map(str::to_string),
    );
    for section in ["require", "require-dev"] {
        let deps = object.get(section).and_then(|v| v.as_object());
        for name in deps.into_iter().flat_map(|d| d.keys()) {
            if let Some(framework) = php_framework(&name.to_ascii_lowercase()) {
                info.evidence.push((framework, format!("{section}.{name}")));
            }
        }
    }
    info.own_name(php_framework);
    Some(info)
}

// --- .NET
