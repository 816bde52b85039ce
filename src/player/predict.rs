//! Predict, then watch: before the first starter replay of a ticket, a question about what the
//! run will do, answered with one key and judged against the run's own verdict.

use crate::events::Replay;

/// One answer the learner can pick: the key, the number of tool runs it stands for, its words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    pub key: u8,
    pub runs: usize,
    pub words: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Question {
    pub ticket: String,
    pub ask: String,
    /// What the learner knows about the code and runtime before guessing.
    pub context: String,
    pub choices: Vec<Choice>,
    /// How many times the tool really ran, from the verdict.
    pub actual: usize,
}

/// The learner's answer, kept until the verdict of the run is on screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guess {
    pub said: usize,
    pub actual: usize,
    pub verdict: String,
}

impl Guess {
    pub fn right(&self) -> bool {
        self.said == self.actual
    }

    /// The judgement, as shown under the verdict.
    pub fn judgement(&self) -> String {
        if self.right() {
            format!("Right: you said {}, and it ran {}.", times(self.said), times(self.actual))
        } else {
            format!("Not this time: you said {}, and it ran {}.", times(self.said), times(self.actual))
        }
    }
}

pub fn times(n: usize) -> String {
    match n {
        0 => "not at all".into(),
        1 => "once".into(),
        2 => "twice".into(),
        3 => "three times".into(),
        n => format!("{n} times"),
    }
}

/// Three counts to choose from, the real one among them.
fn counts(actual: usize) -> Vec<usize> {
    let mut counts = if actual <= 3 { vec![1, 2, 3] } else { vec![1, 3, actual] };
    if !counts.contains(&actual) {
        counts[0] = actual;
    }
    counts.sort_unstable();
    counts.dedup();
    counts
}

impl Question {
    /// The question for a starter run of a ticket.
    pub fn for_run(run: &Replay, ask: &str, context: &str) -> Question {
        let actual = run.verdict.tool_calls;
        let choices = counts(actual)
            .into_iter()
            .enumerate()
            .map(|(i, runs)| Choice { key: i as u8 + 1, runs, words: times(runs) })
            .collect();
        Question {
            ticket: run.ticket.clone(),
            ask: if ask.is_empty() { "Before it plays: how many times will the tool run?".into() } else { ask.into() },
            context: context.into(),
            choices,
            actual,
        }
    }

    /// The guess a key makes, if it is one of the choices.
    pub fn answer(&self, key: u8, verdict: &str) -> Option<Guess> {
        self.choices.iter().find(|c| c.key == key).map(|c| Guess {
            said: c.runs,
            actual: self.actual,
            verdict: verdict.to_string(),
        })
    }

    pub fn keys(&self) -> String {
        let keys: Vec<String> = self.choices.iter().map(|c| c.key.to_string()).collect();
        match keys.as_slice() {
            [] => String::new(),
            [one] => one.clone(),
            [init @ .., last] => format!("{} or {last}", init.join(", ")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_real_count_is_always_a_choice() {
        for actual in 0..8 {
            let c = counts(actual);
            assert!(c.contains(&actual), "{actual}: {c:?}");
            assert!((2..=3).contains(&c.len()), "{actual}: {c:?}");
        }
        assert_eq!(counts(3), vec![1, 2, 3]);
        assert_eq!(counts(12), vec![1, 3, 12]);
    }
}
