//! .NET manifests: project files (.csproj).

use super::*;

pub(super) fn dotnet_framework(package: &str) -> Option<&'static str> {
    let package = package.to_ascii_lowercase();
    Some(match package.as_str() {
        p if p.starts_with("microsoft.aspnetcore") => "dotnet-aspnetcore",
        p if p == "xunit" || p.starts_with("xunit.") => "xunit",
        p if p == "nunit" || p.starts_with("nunit3") => "nunit",
        _ => return None,
    })
}

pub(super) fn csproj(path: &str, text: &str) -> Option<ManifestInfo> {
    let doc = xml_document(text)?;
    let root = doc.root_element();
    let mut info = ManifestInfo::default();
    let stem = file_name(path).trim_end_matches(".csproj");
    info.name = root
        .descendants()
        .find(|n| n.is_element() && n.tag_name().name() == "AssemblyName")
        .and_then(|n| n.text())
        .map(str::trim)
        .filter(|n| !n.is_empty() && !n.contains("$("))
        .or((!stem.is_empty()).then_some(stem))
        .map(str::to_string);
    if let Some(sdk) = root.attribute("Sdk")
        && (sdk.starts_with("Microsoft.NET.Sdk.Web")
            || sdk.starts_with("Microsoft.NET.Sdk.Razor")
            || sdk.starts_with("Microsoft.NET.Sdk.BlazorWebAssembly"))
    {
        info.evidence
            .push(("dotnet-aspnetcore", format!("Sdk={sdk}")));
    }
    for node in root.descendants().filter(|n| {
        n.is_element()
            && matches!(
                n.tag_name().name(),
                "PackageReference" | "FrameworkReference"
            )
    }) {
        let Some(package) = node
            .attribute("Include")
            .or_else(|| node.attribute("Update"))
        else {
            continue;
        };
        if let Some(framework) = dotnet_framework(package) {
            info.evidence
                .push((framework, format!("{} {package}", node.tag_name().name())));
        }
    }
    Some(info)
}

// --- C / C++ (names only)
