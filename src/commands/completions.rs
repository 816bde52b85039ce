//! `workshop completions`: a shell completion script, generated from the command line definition.

use clap::CommandFactory;
use clap_complete::Shell;

use crate::cli::{Cli, CompletionsArgs};
use crate::commands::Context;
use crate::error::{Error, FlagError, EXIT_SUCCESS};
use crate::lesson::{self, Lesson};

/// The shells we generate for, as they are named on the command line.
const SHELLS: [(&str, Shell); 3] =
    [("bash", Shell::Bash), ("zsh", Shell::Zsh), ("fish", Shell::Fish)];

pub(super) fn run(ctx: &Context, args: CompletionsArgs) -> Result<i32, Error> {
    let shell = shell(&args.shell)?;
    let mut command = with_values(Cli::command(), &values(ctx));
    // Into memory first: clap_complete panics when its writer fails, and a closed pipe is not a panic.
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "workshop", &mut script);
    crate::output::bytes(&script)?;
    Ok(EXIT_SUCCESS)
}

/// What the lessons here offer as values: lesson ids, ticket ids, codes and check ids. A lesson
/// that does not load offers nothing (completion must never fail).
#[derive(Default)]
struct Values {
    lessons: Vec<String>,
    tickets: Vec<String>,
    codes: Vec<String>,
    checks: Vec<String>,
}

fn values(ctx: &Context) -> Values {
    let mut v = Values { codes: vec!["starter".into(), "yours".into()], ..Values::default() };
    for id in lesson::known_ids(&ctx.root) {
        let Ok(lesson) = Lesson::load_listed(&ctx.root, &id) else { continue };
        v.tickets.extend(lesson.tickets.iter().map(|t| t.id.clone()));
        v.checks.extend(lesson.checks.iter().map(|c| c.id.clone()));
        v.codes.push(lesson.solution_label.clone());
        v.lessons.push(id);
    }
    for list in [&mut v.lessons, &mut v.tickets, &mut v.codes, &mut v.checks] {
        // The scripts hand the values to the shell (bash's compgen expands them again): only
        // plain words are offered, so a value from a lesson can never run as a command.
        list.retain(|value| plain(value));
        list.sort();
        list.dedup();
    }
    v
}

/// Letters, digits, `.`, `_` and `-`: a word no shell reads as anything but itself.
fn plain(value: &str) -> bool {
    !value.is_empty()
        && !value.starts_with('-')
        && value.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

/// The command line with those values offered where they belong. Only the generated script
/// sees them: parsing stays as it is, so a path is still a valid `--code`.
fn with_values(command: clap::Command, v: &Values) -> clap::Command {
    let offer = |arg: clap::Arg, values: &[String]| {
        if values.is_empty() {
            return arg;
        }
        let parser = clap::builder::PossibleValuesParser::new(
            values.iter().map(|s| clap::builder::PossibleValue::new(s.clone())),
        );
        arg.value_parser(parser)
    };
    command.mut_subcommands(|sub| {
        let mut sub = sub;
        for name in ["lesson", "ticket", "code", "check"] {
            let values = match name {
                "lesson" => &v.lessons,
                "ticket" => &v.tickets,
                "code" => &v.codes,
                _ => &v.checks,
            };
            if sub.get_arguments().any(|a| a.get_id() == name) {
                sub = sub.mut_arg(name, |arg| offer(arg, values));
            }
        }
        sub
    })
}

fn shell(name: &str) -> Result<Shell, Error> {
    let wanted = name.trim().to_ascii_lowercase();
    SHELLS.iter().find(|(n, _)| *n == wanted).map(|(_, s)| *s).ok_or_else(|| {
        let choices = SHELLS.iter().map(|(n, _)| *n).collect();
        FlagError::Shell { name: name.to_string(), choices }.into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_words_are_offered() {
        for word in ["old-order", "structured", "fail-keeps-message", "lesson_4", "v1.2"] {
            assert!(plain(word), "{word}");
        }
        for word in ["x$(touch pwned)", "`id`", "a b", "semi;colon", "--help", "", "quo\"te", "é"]
        {
            assert!(!plain(word), "{word}");
        }
    }
}
