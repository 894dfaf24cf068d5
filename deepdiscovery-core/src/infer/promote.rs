//! Metadata-first context construction (paper Eq. 8): an entity gets its metadata
//! card m(e) unless its promotion score u(e | q, C_t) ≥ κ, in which case its text is
//! loaded (the whole file, or the promoted spans when the file does not fit).

use serde::Serialize;

/// Feature weights of u: likely modified, on a confident path, multiply supported,
/// metadata insufficient. They sum to 1 so u is in [0, 1].
const W_MODIFIED: f32 = 0.45;
const W_PATH: f32 = 0.2;
const W_SUPPORT: f32 = 0.15;
const W_INSUFFICIENT: f32 = 0.2;
/// Supporters (distinct anchors and relation kinds) that make support full.
const FULL_SUPPORT: f32 = 3.0;

/// The symbolic features of u(e | q, C_t) (paper §III.E), each in [0, 1].
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct PromotionFeatures {
    /// Likely to be modified: the file's final score, weighted by how likely its role
    /// is to change for this task.
    pub modified: f32,
    /// Lies on a high-confidence path: the confidence with which it was reached.
    pub path: f32,
    /// Supported by several anchors or relation kinds.
    pub support: f32,
    /// Metadata alone looks insufficient: the card says little next to the text.
    pub insufficient: f32,
}

impl PromotionFeatures {
    /// The features of one entity. `supporters` counts distinct anchors and relation
    /// kinds linking it; `card_tokens`/`text_tokens` compare the two views;
    /// `definitions` is how many definitions the card can list.
    pub fn new(
        score: f32,
        role_prior: f32,
        path_confidence: f32,
        supporters: usize,
        card_tokens: usize,
        text_tokens: usize,
        definitions: usize,
    ) -> PromotionFeatures {
        let insufficient = if text_tokens <= 2 * card_tokens.max(1) {
            // The text costs little more than its description.
            1.0
        } else if definitions == 0 {
            // Nothing to list: config, data, templates — the card is only a path.
            0.7
        } else {
            0.0
        };
        PromotionFeatures {
            modified: (score * role_prior).clamp(0.0, 1.0),
            path: path_confidence.clamp(0.0, 1.0),
            support: (supporters as f32 / FULL_SUPPORT).min(1.0),
            insufficient,
        }
    }

    /// u(e | q, C_t): the weighted sum of the features.
    pub fn score(&self) -> f32 {
        W_MODIFIED * self.modified
            + W_PATH * self.path
            + W_SUPPORT * self.support
            + W_INSUFFICIENT * self.insufficient
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_anchor_is_promoted_and_a_weak_neighbour_is_not() {
        let kappa = 0.62;
        let top = PromotionFeatures::new(1.0, 1.0, 1.0, 2, 100, 2_000, 10);
        assert!(top.score() >= kappa, "{top:?} {}", top.score());
        let weak = PromotionFeatures::new(0.3, 1.0, 0.4, 1, 100, 2_000, 10);
        assert!(weak.score() < kappa, "{}", weak.score());
        // A small file is cheap to show whole: insufficiency is full.
        let small = PromotionFeatures::new(0.5, 1.0, 0.5, 1, 100, 150, 2);
        assert_eq!(small.insufficient, 1.0);
        assert!(small.score() > weak.score());
    }

    #[test]
    fn u_stays_in_the_unit_interval() {
        for s in [0.0f32, 0.5, 1.0, 3.0] {
            let f = PromotionFeatures::new(s, s, s, 10, 1, 0, 0);
            assert!((0.0..=1.0).contains(&f.score()));
        }
    }
}
