//! Gradient-boosted regression trees on the log-odds, evaluated in Rust.
//!
//! The learned parts of the pipeline (the Location stage's scorer and the Inference
//! stage's change-set completion) are tree ensembles trained offline (`make train`,
//! `benches/train_ranker.py`) and committed as JSON. This module reads and checks
//! such a model and scores rows with it: no ML runtime at query time, no randomness,
//! the same row always gives the same score.
//!
//! Every score is explained: the path contributions of each feature (the change of
//! the node value along the path a row takes, summed per feature) add up, with the
//! bias, to the log-odds.

use serde::Deserialize;

/// One regression tree, nodes in preorder (children after their parent).
#[derive(Debug, Deserialize)]
struct Tree {
    feature: Vec<i64>,
    threshold: Vec<f64>,
    left: Vec<i64>,
    right: Vec<i64>,
    value: Vec<f64>,
}

/// A tree ensemble on the log-odds, as `benches/train_ranker.py` writes it.
#[derive(Debug, Deserialize)]
pub(crate) struct Trees {
    kind: String,
    features: Vec<String>,
    init: f64,
    learning_rate: f64,
    trees: Vec<Tree>,
    /// Platt scaling of the raw score into a probability.
    #[serde(default)]
    calibration: Calibration,
    /// Rows and the raw scores the trainer gave them (checked when the model is
    /// read).
    #[serde(default)]
    checks: Vec<Check>,
}

/// σ(scale · raw + offset): the probability a raw score stands for, fitted on the
/// trainer's out-of-fold scores.
#[derive(Debug, Clone, Copy, Deserialize)]
struct Calibration {
    scale: f64,
    offset: f64,
}

impl Default for Calibration {
    fn default() -> Self {
        Calibration {
            scale: 1.0,
            offset: 0.0,
        }
    }
}

/// A row and the raw score the trainer computed for it.
#[derive(Debug, Deserialize)]
struct Check {
    row: Vec<f32>,
    raw: f64,
}

impl Trees {
    /// Reads and checks a model: every feature it reads must be one of `names`
    /// (this build's, in the order of its rows), and every tree well formed
    /// (children after their parent, in range), so that scoring always ends.
    ///
    /// A model trained before this build added features reads the features it knows
    /// (the trees are re-indexed to this build's rows); the new ones never move it
    /// until it is trained again.
    pub(crate) fn parse(text: &str, names: &[&str]) -> Result<Trees, String> {
        let mut model: Trees = serde_json::from_str(text).map_err(|e| e.to_string())?;
        if model.kind != "trees" {
            return Err(format!("unknown model kind {:?}", model.kind));
        }
        let count = model.features.len();
        let mut position = Vec::with_capacity(count);
        for (k, feature) in model.features.iter().enumerate() {
            match names.iter().position(|n| n == feature) {
                Some(p) if !model.features[..k].contains(feature) => position.push(p),
                Some(_) => return Err(format!("the model reads {feature:?} twice")),
                None => return Err(format!("this build has no feature {feature:?}")),
            }
        }
        for tree in &model.trees {
            let n = tree.value.len();
            let lengths = [tree.feature.len(), tree.threshold.len(), tree.left.len()];
            if n == 0 || lengths.iter().chain([&tree.right.len()]).any(|&l| l != n) {
                return Err("a tree's arrays differ in length".into());
            }
            for node in 0..n {
                let (l, r) = (tree.left[node], tree.right[node]);
                let leaf = l < 0 && r < 0;
                let inner = l > node as i64
                    && r > node as i64
                    && (l as usize) < n
                    && (r as usize) < n
                    && (0..count as i64).contains(&tree.feature[node]);
                if !leaf && !inner {
                    return Err(format!("a tree's node {node} is malformed"));
                }
            }
        }
        // In this build's rows.
        for tree in &mut model.trees {
            for node in 0..tree.value.len() {
                if tree.left[node] >= 0 {
                    tree.feature[node] = position[tree.feature[node] as usize] as i64;
                }
            }
        }
        model.features = names.iter().map(|n| n.to_string()).collect();
        // The trainer's own scores of a few rows: a model this code would evaluate
        // differently (another split rule, a lost precision) is not the model.
        for check in &mut model.checks {
            let mut row = vec![0.0f32; names.len()];
            for (k, &p) in position.iter().enumerate() {
                row[p] = check.row.get(k).copied().unwrap_or(0.0);
            }
            check.row = row;
        }
        for check in &model.checks {
            let (raw, _) = model.explain(&check.row);
            if (f64::from(raw) - check.raw).abs() > 1e-3 {
                return Err(format!("scores {raw} where the trainer gave {}", check.raw));
            }
        }
        Ok(model)
    }

    /// The probability of a row (that the file is one the change touches) and, per
    /// feature, its contribution to the log-odds.
    pub(crate) fn score(&self, row: &[f32]) -> (f32, Vec<f32>) {
        let (raw, parts) = self.explain(row);
        let scale = self.calibration.scale as f32;
        let log_odds = scale * raw + self.calibration.offset as f32;
        let probability = 1.0 / (1.0 + (-log_odds).exp());
        (probability, parts.into_iter().map(|c| c * scale).collect())
    }

    /// The raw score of a row and, per feature, its contribution to it.
    fn explain(&self, row: &[f32]) -> (f32, Vec<f32>) {
        let mut contributions = vec![0.0f64; self.features.len()];
        let mut total = self.init;
        for tree in &self.trees {
            let mut node = 0usize;
            // Preorder with children after parents (checked in `parse`): ends.
            while tree.left[node] >= 0 {
                let feature = tree.feature[node] as usize;
                let x = f64::from(row.get(feature).copied().unwrap_or(0.0));
                let next = if x <= tree.threshold[node] {
                    tree.left[node]
                } else {
                    tree.right[node]
                } as usize;
                contributions[feature] +=
                    self.learning_rate * (tree.value[next] - tree.value[node]);
                node = next;
            }
            total += self.learning_rate * tree.value[0];
        }
        let total: f64 = total + contributions.iter().sum::<f64>();
        (
            total as f32,
            contributions.into_iter().map(|c| c as f32).collect(),
        )
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::locate::features::{FEATURE_COUNT, FEATURE_NAMES};

    fn parse(text: &str) -> Result<Trees, String> {
        Trees::parse(text, &FEATURE_NAMES)
    }

    fn model(trees: &str) -> String {
        let names: Vec<String> = FEATURE_NAMES.iter().map(|n| format!("{n:?}")).collect();
        format!(
            r#"{{"kind":"trees","features":[{}],"init":-1.0,"learning_rate":0.5,"trees":[{trees}]}}"#,
            names.join(",")
        )
    }

    /// The trainer's own scores: the Rust evaluation of the trees is the model.
    pub(crate) fn assert_faithful(ranker: &Trees) {
        assert!(!ranker.trees.is_empty());
        assert!(!ranker.checks.is_empty());
        for check in &ranker.checks {
            let (raw, parts) = ranker.explain(&check.row);
            assert!(
                (f64::from(raw) - check.raw).abs() < 1e-3,
                "{raw} != {}",
                check.raw
            );
            let sum: f32 = parts.iter().sum::<f32>() + ranker.init as f32;
            let roots: f64 = ranker.trees.iter().map(|t| t.value[0]).sum();
            let expected = sum + (ranker.learning_rate * roots) as f32;
            assert!((expected - raw).abs() < 1e-3, "{expected} != {raw}");
        }
    }

    #[test]
    fn contributions_add_up_to_the_log_odds() {
        // One split on feature 0 at 0.5: left leaf 1.0, right leaf 3.0, root 2.0.
        let tree = r#"{"feature":[0,-2,-2],"threshold":[0.5,-2,-2],"left":[1,-1,-1],"right":[2,-1,-1],"value":[2.0,1.0,3.0]}"#;
        let ranker = parse(&model(tree)).unwrap();
        let mut row = vec![0.0f32; FEATURE_COUNT];
        let (low, parts) = ranker.explain(&row);
        assert!((low - (-1.0 + 0.5)).abs() < 1e-6, "{low}");
        assert!((parts[0] + 0.5).abs() < 1e-6);
        row[0] = 0.9;
        let (high, parts) = ranker.explain(&row);
        assert!((high - (-1.0 + 1.5)).abs() < 1e-6, "{high}");
        assert!((parts[0] - 0.5).abs() < 1e-6);
        let (p_high, _) = ranker.score(&row);
        let (p_low, _) = ranker.score(&[0.0; FEATURE_COUNT]);
        assert!(p_high > p_low && (0.0..=1.0).contains(&p_low));
    }

    #[test]
    fn malformed_models_are_refused() {
        // A child before its parent would loop.
        let cycle =
            r#"{"feature":[0,0],"threshold":[0.5,0.5],"left":[1,0],"right":[1,0],"value":[0,0]}"#;
        assert!(parse(&model(cycle)).is_err());
        let short = r#"{"feature":[0],"threshold":[],"left":[-1],"right":[-1],"value":[0]}"#;
        let unfaithful =
            model(r#"{"feature":[-2],"threshold":[-2],"left":[-1],"right":[-1],"value":[1.0]}"#)
                .replace(
                    "\"trees\":[",
                    &format!(
                        "\"checks\":[{{\"row\":{:?},\"raw\":5.0}}],\"trees\":[",
                        vec![0.0; FEATURE_COUNT]
                    ),
                );
        assert!(parse(&unfaithful).unwrap_err().contains("trainer"));
        assert!(parse(&model(short)).is_err());
        let bad_feature = r#"{"feature":[999,-2,-2],"threshold":[0.5,-2,-2],"left":[1,-1,-1],"right":[2,-1,-1],"value":[0,0,0]}"#;
        assert!(parse(&model(bad_feature)).is_err());
        assert!(parse("{}").is_err());
        assert!(parse(&model("").replace("\"sem\"", "\"other\"")).is_err());
        assert!(parse(&model("").replace("\"sum\"", "\"sem\"")).is_err());
    }

    #[test]
    fn a_model_of_fewer_features_reads_them_where_this_build_has_them() {
        // The model knows two features, in its own order; the split is on its
        // feature 1, which is this build's `rule` (index 2).
        let text = r#"{"kind":"trees","features":["prior","rule"],"init":0.0,"learning_rate":1.0,
            "checks":[{"row":[0.0,0.9],"raw":3.0}],
            "trees":[{"feature":[1,-2,-2],"threshold":[0.5,-2,-2],"left":[1,-1,-1],"right":[2,-1,-1],"value":[2.0,1.0,3.0]}]}"#;
        let ranker = parse(text).unwrap();
        assert_faithful(&ranker);
        let mut row = vec![0.0f32; FEATURE_COUNT];
        row[2] = 0.9;
        let (raw, parts) = ranker.explain(&row);
        assert!((raw - 3.0).abs() < 1e-6, "{raw}");
        assert!((parts[2] - 1.0).abs() < 1e-6);
        // This build's `prior` (index 3) does not move it.
        row[3] = 1.0;
        assert!((ranker.explain(&row).0 - 3.0).abs() < 1e-6);
    }
}
