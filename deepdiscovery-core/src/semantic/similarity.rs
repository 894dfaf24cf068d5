//! What a file's definitions' vectors say of the task (DESIGN, "Pretrained
//! semantics"): the cosine of its best definition, the mean of its three best, and
//! which definition is best. These are features of the learned scorers, never a
//! change to `sem`, which stays lexical.

pub use crate::plugins::cosine;

/// How a file's definitions match the task by their vectors.
#[derive(Debug, Clone, PartialEq)]
pub struct FileSimilarity {
    /// The best definition's cosine with the task (-1..=1).
    pub best: f32,
    /// The mean cosine of its three best definitions (of all it has, when fewer).
    pub top3: f32,
    /// The best definition's qualified name (its name where there is none).
    pub name: String,
}

/// The grid cosines are rounded to (1/1024). A vector computed on another machine may
/// differ in its last bits (the matrix kernels block their sums by the cache sizes they
/// find), and a learned threshold must not see that: on the grid, it takes a cosine
/// right at a rounding boundary to move.
const GRID: f32 = 1024.0;

/// One definition's cosine with the task (on the grid), with what ties it to the
/// facts' definition: its name and its last line.
#[derive(Debug, Clone, PartialEq)]
pub struct DefinitionCosine {
    /// The defined name as written.
    pub name: Box<str>,
    /// Its last line (1-based).
    pub end: u32,
    /// Its cosine with the task, on the 1/1024 grid.
    pub cosine: f32,
}

/// A cosine rounded to the grid of 1/1024 (see [`file_similarity`]).
pub fn on_grid(cosine: f32) -> f32 {
    (cosine * GRID).round() / GRID
}

/// A file's similarity from its definitions' names and vectors; `None` when it has
/// none. Cosines are rounded to 1/1024; ties keep the first definition (the file's
/// order): deterministic.
pub fn file_similarity<'a>(
    task: &[f32],
    definitions: impl IntoIterator<Item = (&'a str, &'a [f32])>,
) -> Option<FileSimilarity> {
    let mut cosines: Vec<(f32, &str)> = definitions
        .into_iter()
        .map(|(name, v)| (on_grid(cosine(task, v)), name))
        .collect();
    if cosines.is_empty() {
        return None;
    }
    // Stable: equal cosines keep the file's order.
    cosines.sort_by(|a, b| b.0.total_cmp(&a.0));
    let top = cosines.len().min(3);
    Some(FileSimilarity {
        best: cosines[0].0,
        top3: cosines[..top].iter().map(|c| c.0).sum::<f32>() / top as f32,
        name: cosines[0].1.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_and_the_mean_of_three() {
        let task = [1.0, 0.0];
        let defs: Vec<(&str, Vec<f32>)> = vec![
            ("a", vec![0.0, 1.0]),
            ("b", vec![1.0, 0.0]),
            ("c", vec![1.0, 1.0]),
            ("d", vec![-1.0, 0.0]),
        ];
        let s = file_similarity(&task, defs.iter().map(|(n, v)| (*n, v.as_slice()))).unwrap();
        assert_eq!(s.name, "b");
        assert!((s.best - 1.0).abs() < 1e-6);
        let expected = (1.0 + std::f32::consts::FRAC_1_SQRT_2 + 0.0) / 3.0;
        assert!((s.top3 - expected).abs() < 1.0 / 1024.0, "{}", s.top3);
        // On the grid: 0.7071 is 724/1024.
        let only = file_similarity(&task, [("c", &defs[2].1[..])]).unwrap();
        assert_eq!(only.best, 724.0 / 1024.0);
        assert_eq!(file_similarity(&task, std::iter::empty()), None);
    }

    #[test]
    fn ties_keep_the_first_definition_and_mismatches_are_zero() {
        let task = [0.0, 1.0];
        let same = [0.0f32, 2.0];
        let s = file_similarity(&task, [("first", &same[..]), ("second", &same[..])]).unwrap();
        assert_eq!(s.name, "first");
        assert_eq!(cosine(&[1.0], &[1.0, 0.0]), 0.0);
        assert_eq!(cosine(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
    }
}
