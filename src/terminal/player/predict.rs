//! Predict, then watch: before a replay, a question about what the run will do, answered with
//! one key and judged against the run itself: how many times a tool ran (the lesson's question),
//! or which of a ticket's own choices holds of the run's counts.

use crate::lesson::TicketPredict;
use crate::replay::events::Run;

/// One answer the learner can pick: its key, its words, and whether the run bears it out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    pub key: u8,
    pub words: String,
    pub right: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Question {
    pub ticket: String,
    pub ask: String,
    /// What the learner knows about the code and runtime before guessing.
    pub context: String,
    pub choices: Vec<Choice>,
    /// Which of the shown runs the question is about.
    pub run: usize,
    /// A count question is judged in its own words ("you said once, and it ran twice").
    counted: bool,
}

/// The learner's answer, kept until the verdict of the run is on screen, and remembered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guess {
    pub said: String,
    /// What the run bears out, in the same words.
    pub actual: String,
    right: bool,
    counted: bool,
    /// Which of the shown runs it is judged against.
    pub run: usize,
}

impl Guess {
    pub fn right(&self) -> bool {
        self.right
    }

    /// The same guess, judged under the verdict of the run at this index.
    pub fn against(self, run: usize) -> Guess {
        Guess { run, ..self }
    }

    /// The judgement, as shown under the verdict.
    pub fn judgement(&self) -> String {
        match (self.right, self.counted) {
            (true, true) => format!("Right: you said {}, and it ran {}.", self.said, self.actual),
            (false, true) => {
                format!("Not this time: you said {}, and it ran {}.", self.said, self.actual)
            }
            (true, false) => format!("Right: {}.", self.actual),
            (false, false) => {
                format!("Not this time: you said {}; the run shows {}.", self.said, self.actual)
            }
        }
    }
}

pub(crate) fn times(n: usize) -> String {
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
    /// The lesson's question for a run: how many times a tool ran.
    pub fn for_run(run: &Run, index: usize, ask: &str, context: &str) -> Question {
        let actual = run.verdict.tool_calls;
        let choices = counts(actual)
            .into_iter()
            .enumerate()
            .map(|(i, runs)| Choice { key: i as u8 + 1, words: times(runs), right: runs == actual })
            .collect();
        Question {
            ticket: run.ticket.clone(),
            ask: if ask.is_empty() {
                "Before it plays: how many times will the tool run?".into()
            } else {
                ask.into()
            },
            context: context.into(),
            choices,
            run: index,
            counted: true,
        }
    }

    /// A ticket's own question for a run, its choices judged by the run's counts. `None` when
    /// not exactly one choice holds of the run: a question with no right answer is not asked.
    pub fn for_ticket(
        run: &Run,
        index: usize,
        predict: &TicketPredict,
        context: &str,
    ) -> Option<Question> {
        let facts = run.verdict.counts.value();
        let choices: Vec<Choice> = predict
            .choices
            .iter()
            .enumerate()
            .map(|(i, c)| Choice {
                key: i as u8 + 1,
                words: c.says.trim().to_string(),
                right: crate::replay::story::holds(&c.when, &facts),
            })
            .collect();
        if choices.iter().filter(|c| c.right).count() != 1 {
            return None;
        }
        Some(Question {
            ticket: run.ticket.clone(),
            ask: predict.ask.trim().to_string(),
            context: context.to_string(),
            choices,
            run: index,
            counted: false,
        })
    }

    /// The guess a key makes, if it is one of the choices.
    pub fn answer(&self, key: u8) -> Option<Guess> {
        let actual = self.choices.iter().find(|c| c.right)?.words.clone();
        self.choices.iter().find(|c| c.key == key).map(|c| Guess {
            said: c.words.clone(),
            actual,
            right: c.right,
            counted: self.counted,
            run: self.run,
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
