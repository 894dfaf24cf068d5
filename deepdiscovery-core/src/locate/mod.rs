//! The Location stage (paper §III.C): environment-aware analysis, adaptive repository
//! compression and anchor scoring (Eq. 6).

pub mod cues;
pub mod environment;
pub mod task_type;
