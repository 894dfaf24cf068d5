//! `test_naming`: a test file is named after the file it tests (`test_x.py` → `x.py`,
//! `XTest.java` → `X.java`, `x.spec.ts` → `x.ts`, `x_test.go` → `x.go`…).
//!
//! Parameters: `patterns`, file-name patterns with `{stem}` and `{ext}`. Among the
//! files with the derived name, the ones whose directories look most like the test's
//! (same directory, or a mirrored tree such as `tests/a/b` ↔ `src/a/b` or
//! `src/test/java/p` ↔ `src/main/java/p`) are linked; ties share the confidence.

use crate::artifact::Role;
use crate::graph::{EdgeData, RelationRule, RuleContext};
use crate::resolve::{file_name, parent_dir};
use crate::{Error, Result};

use super::{RuleSpec, string_list};

/// A file name pattern split around its two placeholders.
#[derive(Debug, Clone)]
struct Pattern {
    before_stem: String,
    between: String,
    after_ext: String,
}

impl Pattern {
    fn parse(spec: &RuleSpec, text: &str) -> Result<Pattern> {
        let invalid = |message: String| Error::InvalidRule {
            name: spec.name.clone(),
            message,
        };
        let (before_stem, rest) = text
            .split_once("{stem}")
            .ok_or_else(|| invalid(format!("pattern `{text}` has no {{stem}}")))?;
        let (between, after_ext) = rest
            .split_once("{ext}")
            .ok_or_else(|| invalid(format!("pattern `{text}` has no {{ext}} after {{stem}}")))?;
        Ok(Pattern {
            before_stem: before_stem.to_string(),
            between: between.to_string(),
            after_ext: after_ext.to_string(),
        })
    }

    /// The implementation file name a test file name points at, if it fits.
    fn subject(&self, name: &str) -> Option<String> {
        let rest = name.strip_prefix(&self.before_stem)?;
        let rest = rest.strip_suffix(&self.after_ext)?;
        // The stem ends at the last occurrence of `between` (`a.b.test.ts`).
        let cut = rest.rfind(&self.between)?;
        let (stem, ext) = (&rest[..cut], &rest[cut + self.between.len()..]);
        let valid = |s: &str| !s.is_empty() && !s.contains('/');
        (valid(stem) && valid(ext)).then(|| format!("{stem}.{ext}"))
    }
}

/// The rule.
#[derive(Debug)]
pub(super) struct TestNaming {
    name: String,
    relation: crate::graph::Relation,
    confidence: f32,
    patterns: Vec<Pattern>,
}

impl TestNaming {
    pub(super) fn new(spec: &RuleSpec) -> Result<TestNaming> {
        let patterns = string_list(spec, "patterns")?
            .iter()
            .map(|p| Pattern::parse(spec, p))
            .collect::<Result<Vec<_>>>()?;
        Ok(TestNaming {
            name: spec.name.clone(),
            relation: spec.relation,
            confidence: spec.confidence,
            patterns,
        })
    }
}

/// How alike two directories are: components shared at the start plus components
/// shared at the end (a mirrored test tree shares its tail).
fn closeness(a: &str, b: &str) -> usize {
    if a == b {
        return usize::MAX;
    }
    let a: Vec<&str> = a.split('/').filter(|s| !s.is_empty()).collect();
    let b: Vec<&str> = b.split('/').filter(|s| !s.is_empty()).collect();
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    head + tail
}

impl RelationRule for TestNaming {
    fn name(&self) -> &str {
        &self.name
    }

    fn apply(&self, context: &RuleContext<'_>, out: &mut Vec<(String, String, EdgeData)>) {
        for test in context.artifacts.iter().filter(|a| a.role == Role::Test) {
            let name = file_name(&test.path);
            let Some(subject) = self.patterns.iter().find_map(|p| p.subject(name)) else {
                continue;
            };
            let candidates: Vec<&String> = context
                .index
                .with_name(&subject)
                .iter()
                .filter(|p| *p != &test.path)
                .filter(|p| {
                    context
                        .artifacts
                        .binary_search_by(|a| a.path.as_str().cmp(p.as_str()))
                        .is_ok_and(|i| context.artifacts[i].role != Role::Test)
                })
                .collect();
            let test_dir = parent_dir(&test.path);
            let Some(best) = candidates
                .iter()
                .map(|p| closeness(test_dir, parent_dir(p)))
                .max()
            else {
                continue;
            };
            let chosen: Vec<&&String> = candidates
                .iter()
                .filter(|p| closeness(test_dir, parent_dir(p)) == best)
                .collect();
            if chosen.len() > 3 {
                continue;
            }
            let confidence = self.confidence / (chosen.len() as f32).sqrt();
            for target in chosen {
                out.push((
                    test.path.clone(),
                    (*target).clone(),
                    EdgeData {
                        relation: self.relation,
                        confidence,
                        rationale: format!(
                            "`{name}` is named after `{subject}` (rule {})",
                            self.name
                        ),
                    },
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(text: &str) -> Pattern {
        let spec = RuleSpec {
            name: "t".into(),
            relation: crate::graph::Relation::TestOf,
            confidence: 0.5,
            kind: "test_naming".into(),
            params: toml::Table::new(),
        };
        Pattern::parse(&spec, text).unwrap()
    }

    #[test]
    fn patterns_derive_the_subject_file_name() {
        assert_eq!(
            pattern("test_{stem}.{ext}")
                .subject("test_orders.py")
                .as_deref(),
            Some("orders.py")
        );
        assert_eq!(
            pattern("{stem}_test.{ext}")
                .subject("cart_test.go")
                .as_deref(),
            Some("cart.go")
        );
        assert_eq!(
            pattern("{stem}Test.{ext}")
                .subject("OrderServiceTest.java")
                .as_deref(),
            Some("OrderService.java")
        );
        assert_eq!(
            pattern("{stem}.spec.{ext}")
                .subject("cart.spec.ts")
                .as_deref(),
            Some("cart.ts")
        );
        assert_eq!(pattern("{stem}.spec.{ext}").subject("cart.ts"), None);
        assert_eq!(pattern("test_{stem}.{ext}").subject("test_.py"), None);
    }

    #[test]
    fn mirrored_directories_are_closer_than_unrelated_ones() {
        let test = "src/test/java/com/acme/orders";
        assert!(
            closeness(test, "src/main/java/com/acme/orders")
                > closeness(test, "src/main/java/com/acme/billing")
        );
        assert!(closeness("tests/shop", "src/shop") > closeness("tests/shop", "src/other"));
        assert_eq!(closeness("a/b", "a/b"), usize::MAX);
    }
}
