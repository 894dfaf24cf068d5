//! Go manifests: go.mod.

use super::*;

pub(super) fn go_framework(module: &str) -> Option<&'static str> {
    // `github.com/labstack/echo/v4` is `github.com/labstack/echo`.
    let base = match module.rsplit_once('/') {
        Some((head, tail))
            if tail.len() > 1
                && tail.starts_with('v')
                && tail[1..].bytes().all(|b| b.is_ascii_digit()) =>
        {
            head
        }
        _ => module,
    };
    Some(match base {
        "github.com/gin-gonic/gin" => "gin",
        "github.com/labstack/echo" => "echo",
        "github.com/gofiber/fiber" => "fiber",
        "google.golang.org/grpc" => "grpc",
        // Routers that plug into the standard library's handlers.
        "github.com/gorilla/mux"
        | "github.com/go-chi/chi"
        | "github.com/julienschmidt/httprouter" => "go-net-http",
        _ => return None,
    })
}

/// `go.mod`: the `module` directive and `require` lines (single or in a block).
/// Without a `module` directive the file is not a `go.mod` and gives nothing.
pub(super) fn go_mod(text: &str) -> Option<ManifestInfo> {
    let mut info = ManifestInfo::default();
    let mut module: Option<&str> = None;
    let mut in_require = false;
    for raw in text.lines() {
        let line = raw.split("//").next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let required = if in_require {
            if line.starts_with(')') {
                in_require = false;
                continue;
            }
            Some(line)
        } else if let Some(rest) = line.strip_prefix("require") {
            let rest = rest.trim();
            if rest.starts_with('(') {
                in_require = true;
                None
            } else {
                Some(rest)
            }
        } else if let Some(rest) = line.strip_prefix("module") {
            module = rest.split_whitespace().next().map(|m| m.trim_matches('"'));
            None
        } else {
            None
        };
        if let Some(path) = required.and_then(|r| r.split_whitespace().next()) {
            let path = path.trim_matches('"');
            if let Some(framework) = go_framework(path) {
                info.evidence.push((framework, format!("require {path}")));
            }
        }
    }
    let module = module.filter(|m| !m.is_empty())?;
    // The last segment that is not a major version (`example.com/x/v2` → `x`).
    info.name = module
        .rsplit('/')
        .find(|seg| {
            !(seg.len() > 1 && seg.starts_with('v') && seg[1..].bytes().all(|b| b.is_ascii_digit()))
        })
        .map(str::to_string);
    Some(info)
}

// --- Rust
