//! The pieces of evidence that make s_rule (Eq. 6), each tagged with the channel it
//! came from, so that the learned scorer can weigh channels apart while the
//! explanation keeps its sentences.

use super::score::noisy_or;

/// Where a piece of rule evidence came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Channel {
    /// A path the task writes resolves to the file.
    Path,
    /// A stack frame of the task resolves to the file.
    Trace,
    /// The file defines a symbol the task names.
    Defines,
    /// The file only uses a symbol the task names.
    Uses,
    /// Another cue of the task resolves to the file (a configuration key, a route, a
    /// flag, an error message, a test id, a symbol nobody defines).
    OtherCue,
    /// The file is a module of a package the task names.
    Package,
    /// The file's name is written in the task as code.
    Stem,
    /// The file's name or directory matches a task term.
    NameTerm,
    /// The file changed together with a strongly cued file before (history).
    CoChange,
    /// A past commit whose message matches the task changed the file (history).
    /// Explained, and kept with its strength for a learned scorer trained with it,
    /// but not part of s_rule: measured there, it moved FRR@1 on the development
    /// tasks by -1 point (see `locate::past_changes`).
    PastChange,
    /// The task's words translate to words the file holds (the vocabulary bridge,
    /// `locate::bridge`). Explained, and kept with its strength for a learned scorer,
    /// not part of s_rule: it is no rule, but learned lexical evidence.
    Bridge,
    /// A test that matches the task is named after the file.
    TestLend,
    /// The file is a counterpart of a strong candidate.
    Counterpart,
    /// Shown in the explanation, never scored (strength 0).
    Remark,
    /// A semantic match (an embedder's, or the static table's): shown in the
    /// explanation whatever the file's other evidence, never scored (strength 0); the
    /// learned scorer reads the similarity as features of its own.
    Semantic,
}

impl Channel {
    /// The scored channels, in feature order.
    pub(crate) const SCORED: [Channel; 11] = [
        Channel::Path,
        Channel::Trace,
        Channel::Defines,
        Channel::Uses,
        Channel::OtherCue,
        Channel::Package,
        Channel::Stem,
        Channel::NameTerm,
        Channel::CoChange,
        Channel::TestLend,
        Channel::Counterpart,
    ];

    /// A short name, as in the feature names.
    #[cfg(test)]
    pub(crate) fn name(self) -> &'static str {
        match self {
            Channel::Path => "path",
            Channel::Trace => "trace",
            Channel::Defines => "defines",
            Channel::Uses => "uses",
            Channel::OtherCue => "other_cue",
            Channel::Package => "package",
            Channel::Stem => "stem",
            Channel::NameTerm => "name_term",
            Channel::CoChange => "co_change",
            Channel::PastChange => "past_change",
            Channel::Bridge => "bridge",
            Channel::TestLend => "test_lend",
            Channel::Counterpart => "counterpart",
            Channel::Remark => "remark",
            Channel::Semantic => "semantic",
        }
    }
}

/// One piece of evidence: how strong, from where, and the sentence that explains it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Signal {
    /// Strength in [0, 1] (0 for remarks).
    pub strength: f32,
    /// Where it came from.
    pub channel: Channel,
    /// What the explanation says.
    pub what: String,
}

impl Signal {
    /// A piece of evidence.
    pub(crate) fn new(channel: Channel, strength: f32, what: impl Into<String>) -> Signal {
        Signal {
            strength,
            channel,
            what: what.into(),
        }
    }

    /// A remark of strength 0: explained, not scored.
    pub(crate) fn remark(what: impl Into<String>) -> Signal {
        Signal::new(Channel::Remark, 0.0, what)
    }

    /// A semantic match of strength 0: explained (always shown), not scored.
    pub(crate) fn semantic(what: impl Into<String>) -> Signal {
        Signal::new(Channel::Semantic, 0.0, what)
    }
}

/// s_rule of a file: the noisy-or of its evidence (past changes and the bridge left
/// out, see [`Channel::PastChange`] and [`Channel::Bridge`]).
pub(crate) fn rule_term(signals: &[Signal]) -> f32 {
    noisy_or(
        signals
            .iter()
            .filter(|s| !matches!(s.channel, Channel::PastChange | Channel::Bridge))
            .map(|s| s.strength),
    )
}

/// The strongest evidence of one channel (0 when there is none).
pub(crate) fn strongest(signals: &[Signal], channel: Channel) -> f32 {
    signals
        .iter()
        .filter(|s| s.channel == channel)
        .map(|s| s.strength)
        .fold(0.0, f32::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channels_keep_their_strongest_and_rule_adds_up() {
        let signals = vec![
            Signal::new(Channel::Defines, 0.5, "a"),
            Signal::new(Channel::Defines, 0.8, "b"),
            Signal::new(Channel::Uses, 0.2, "c"),
            Signal::remark("d"),
        ];
        assert_eq!(strongest(&signals, Channel::Defines), 0.8);
        assert_eq!(strongest(&signals, Channel::Path), 0.0);
        let rule = rule_term(&signals);
        assert!((rule - (1.0 - 0.5 * 0.2 * 0.8)).abs() < 1e-6, "{rule}");
        let mut with_past = signals.clone();
        with_past.push(Signal::new(Channel::PastChange, 0.9, "e"));
        with_past.push(Signal::new(Channel::Bridge, 0.9, "f"));
        assert_eq!(rule_term(&with_past), rule);
        assert_eq!(Channel::SCORED.len(), 11);
        assert!(!Channel::SCORED.contains(&Channel::Remark));
    }
}
