//! The checks a manifest's data must pass at load, before its world is started: names and
//! paths, hooks, tools and tickets, checks.

use super::hooks::{BUILD_ARGS, KITS};
use super::paths::{inside_folder, plain_file_name, plain_word, resolves_inside};
use super::problems::{Near, Problems};
use super::{Answers, CheckSpec, Hook, Lesson, Notes, Runtime, Ticket, TicketPredict};

/// Words that count: a question before a replay must not give its answer away.
const COUNT_WORDS: [&str; 6] = ["once", "twice", "three", "two", "four", "times"];

/// Whether `text` names a count: a digit, or a count word as a whole word (so "network" and
/// "sometimes" are not counts).
fn names_a_count(text: &str) -> bool {
    let lower = text.to_lowercase();
    let mut words = lower.split(|c: char| !c.is_alphanumeric());
    text.chars().any(|c| c.is_ascii_digit()) || words.any(|w| COUNT_WORDS.contains(&w))
}

/// The question before a replay must not give its answer away.
fn no_count(text: &str, near: Near, problems: &mut Problems) {
    if names_a_count(text) {
        let why =
            "a [predict] text names a count, which gives the answer away: describe, do not count";
        problems.say(near, why);
    }
}

impl Lesson {
    /// Every check of the manifest's own data, each problem said in turn.
    pub(super) fn validate(&self, problems: &mut Problems) {
        self.check_names_and_paths(problems);
        self.refuse_earlier_harness(problems);
        self.check_hooks(problems);
        self.check_mcp(problems);
        self.check_tools_and_tickets(problems);
        self.check_checks(problems);
        let ids: Vec<&str> = self.tickets.iter().map(|t| t.id.as_str()).collect();
        for (i, words) in self.own_words.iter().enumerate() {
            let at = Near::entry("own_words", i).then("id");
            words.problems(&ids).into_iter().for_each(|why| problems.say(at.clone(), why));
        }
    }

    /// Names a shell or a path could misread: ids are plain words, the learner's file a plain
    /// name, the solution a path inside the lesson's folder, functions Python identifiers.
    fn check_names_and_paths(&self, problems: &mut Problems) {
        if !plain_file_name(&self.file) {
            problems.say(
                Near::key("file"),
                format!(
                    "file '{}' must be a plain file name (no folders, no ..): it is created in work/{}/",
                    self.file, self.id
                ),
            );
        }
        if !inside_folder(&self.solution) {
            problems.say(
                Near::key("solution"),
                format!(
                    "solution '{}' must be a path inside the lesson's folder (no leading /, no ..)",
                    self.solution
                ),
            );
        } else if !resolves_inside(&self.dir, &self.solution) {
            problems.say(
                Near::key("solution"),
                format!(
                    "solution '{}' is a link (or lies under one) that leads out of the lesson's folder: put the reference solution itself in lessons/{}/",
                    self.solution, self.id
                ),
            );
        }
        self.check_mistakes(problems);
        for (i, f) in self.functions.iter().enumerate() {
            let identifier = |f: &str| {
                f.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                    && f.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            };
            // `kit:name`: the function `name`, called through a stand-in module of the runner's.
            let (kit, name) = f.split_once(':').map_or((None, f.as_str()), |(k, n)| (Some(k), n));
            if let Some(kit) = kit.filter(|k| !KITS.contains(k)) {
                problems.say(
                    Near::entry("functions", i),
                    format!(
                        "function '{f}' names the kit '{kit}', which the runner does not have: \
                         the kits are {}",
                        KITS.join(", ")
                    ),
                );
            } else if !identifier(name) {
                problems.say(
                    Near::entry("functions", i),
                    format!("function '{f}' is not a Python name"),
                );
            }
        }
        let checks = self.checks.iter().enumerate().map(|(i, c)| ("check", "checks", i, &c.id));
        let tickets = self.tickets.iter().enumerate().map(|(i, t)| ("ticket", "tickets", i, &t.id));
        for (what, key, i, id) in checks.chain(tickets) {
            if !plain_word(id) {
                problems.say(
                    Near::entry(key, i).then("id"),
                    format!("{what} id '{id}' may hold only letters, digits, - and _ (graders and shell completion key on it)"),
                );
            }
        }
    }

    /// Each named mistake: a plain label of its own, a file inside the lesson's folder.
    fn check_mistakes(&self, problems: &mut Problems) {
        for (i, mistake) in self.mistakes.iter().enumerate() {
            let at = Near::entry("mistakes", i).then("label");
            let taken = ["starter", "yours", "auto", "solution", self.solution_label.as_str()];
            if !plain_word(&mistake.label) || taken.contains(&mistake.label.as_str()) {
                problems.say(
                    at.clone(),
                    format!(
                        "mistake label '{}' must be a plain word (letters, digits, - and _) other than {}",
                        mistake.label,
                        taken.join(", ")
                    ),
                );
            }
            if self.mistakes.iter().filter(|m| m.label == mistake.label).count() > 1 {
                problems.say(at.clone(), format!("mistake '{}' is declared twice", mistake.label));
            }
            if !inside_folder(&mistake.file) {
                problems.say(
                    Near::entry("mistakes", i).then("file"),
                    format!(
                        "mistake {}'s file '{}' must be a path inside the lesson's folder",
                        mistake.label, mistake.file
                    ),
                );
            } else if !resolves_inside(&self.dir, &mistake.file) {
                problems.say(
                    Near::entry("mistakes", i).then("file"),
                    format!(
                        "mistake {}'s file '{}' is a link (or lies under one) that leads out of the lesson's folder: put the file itself in lessons/{}/",
                        mistake.label, mistake.file, self.id
                    ),
                );
            }
        }
    }

    /// The manifest's earlier `[harness]` form (`build`, `decide`, `give`, `answers`,
    /// `pass_verify`), no longer read: refused with the hooks to write instead.
    fn refuse_earlier_harness(&self, problems: &mut Problems) {
        let keys = self.harness.earlier_keys();
        if keys.is_empty() {
            return;
        }
        let tables = self.harness.hooks_meant();
        let write = if tables.is_empty() {
            "remove them: [hooks.build] and [hooks.decide] say what they said".to_string()
        } else {
            format!(
                "write {} instead, with a [failure] table saying how a failure looks, and remove them from [harness]",
                tables.join(", and ")
            )
        };
        problems.say(
            Near::key("harness"),
            format!(
                "[harness] has {}, the earlier form of the hooks, which is no longer read: {write} (see lessons/README.md)",
                keys.join(", ")
            ),
        );
    }

    fn check_hooks(&self, problems: &mut Problems) {
        let fields: Vec<&str> =
            self.failure.iter().flat_map(|f| &f.fields).map(String::as_str).collect();
        for field in &fields {
            if BUILD_ARGS.contains(field) {
                problems.say(
                    Near::key("failure").then("fields"),
                    format!(
                        "[failure] fields names '{field}', which the build hook is given anyway"
                    ),
                );
            }
        }
        for (place, hook, offered) in self.hooks.all() {
            let offered: Vec<&str> = offered
                .iter()
                .copied()
                .chain(fields.iter().copied().filter(|_| place == "build"))
                .collect();
            self.check_hook(place, hook, &offered, problems);
        }
        if let Some(Answers::Truthy(word)) =
            self.hooks.decide.as_ref().and_then(|h| h.answers.as_ref())
        {
            if word != "truthy" {
                problems.say(
                    Near::key("hooks").then("decide").then("answers"),
                    format!("the decide hook's answers is '{word}': give \"truthy\" or a table of answers"),
                );
            }
        }
        let shape = self.failure.as_ref();
        if self.hooks.build.is_some() && shape.is_none_or(|f| f.flag.is_none() && f.error.is_none())
        {
            problems.say(
                Near::key("hooks").then("build"),
                "the learner's code builds failures, but no [failure] table says how they look: add [failure] with `flag` (the key set to true on a failure) and/or `error` (the key holding the error object), and `category`, `retryable`, `message`, `verify` for the keys inside it that the cards show (see lessons/README.md)",
            );
        }
        if self.hooks.decide.is_some() && self.hooks.build.is_none() {
            problems.say(
                Near::key("hooks").then("decide"),
                "the decide hook judges failures the build hook made: add [hooks.build] too",
            );
        }
        if !(1..=10).contains(&self.harness.max_attempts) {
            let why =
                format!("harness.max_attempts is {}: give 1 to 10", self.harness.max_attempts);
            problems.say(Near::key("harness").then("max_attempts"), why);
        }
    }

    /// One hook: a learner function, given arguments its point of a run offers, with the keys
    /// that belong to that point only.
    /// What the learner's own loop changes: only it is called through a kit, and the hooks whose
    /// decisions it makes itself are never asked.
    fn check_loop_hook(&self, place: &str, hook: &Hook, at: &Near, problems: &mut Problems) {
        if self.hooks.host_loop.is_some() && ["api_error", "go_on", "tell"].contains(&place) {
            problems.say(
                at.clone(),
                format!(
                    "the {place} hook is never asked: the learner's loop ([hooks.loop]) makes \
                     that decision itself. Drop [hooks.{place}], or the loop hook"
                ),
            );
        }
        // The loop is given a client, a clock and run_tool, which only a kit can make; any other
        // hook is given plain values.
        let kit = hook.function.contains(':');
        if (place == "loop") != kit {
            let why = if kit {
                format!(
                    "the {place} hook calls '{}' through a kit, which only [hooks.loop] may: \
                     name the function alone",
                    hook.function
                )
            } else {
                format!(
                    "the loop hook calls '{0}', which names no kit: write \"anthropic:{0}\" \
                     (here and in functions), so the runner gives it a client, a clock and \
                     run_tool",
                    hook.function
                )
            };
            problems.say(at.clone().then("function"), why);
        }
    }

    fn check_hook(&self, place: &str, hook: &Hook, offered: &[&str], problems: &mut Problems) {
        let at = Near::key("hooks").then(place);
        self.check_loop_hook(place, hook, &at, problems);
        if !self.functions.contains(&hook.function) {
            problems.say(
                at.clone().then("function"),
                format!(
                    "the {place} hook calls '{}', which is not among the learner's functions {:?}",
                    hook.function, self.functions
                ),
            );
        }
        for arg in &hook.args {
            if !offered.contains(&arg.as_str()) {
                problems.say(
                    at.clone().then("args"),
                    format!(
                        "the {place} hook is given '{arg}', which that point of a run cannot give: choose from {}",
                        offered.join(", ")
                    ),
                );
            }
        }
        if hook.answers.is_some() != (place == "decide") {
            if place == "decide" {
                problems.say(
                    at.clone(),
                    "the decide hook needs `answers`: \"truthy\" or a table of answers",
                );
            } else {
                problems.say(
                    at.clone().then("answers"),
                    format!("`answers` belongs to the decide hook, not to {place}"),
                );
            }
        }
        if !hook.kinds.is_empty() && place != "answer" {
            problems.say(
                at.then("kinds"),
                format!("`kinds` belongs to the answer hook, not to {place}"),
            );
        }
    }

    fn check_tools_and_tickets(&self, problems: &mut Problems) {
        let tool_names: Vec<&str> = self.tools.iter().map(|t| t.name.as_str()).collect();
        for (i, tool) in self.tools.iter().enumerate() {
            if let Some(runs) = &tool.runs {
                if !tool_names.contains(&runs.as_str()) {
                    let why = format!("tool {} runs an unknown tool '{runs}'", tool.name);
                    problems.say(Near::entry("tools", i).then("runs"), why);
                }
            }
        }
        for (i, ticket) in self.tickets.iter().enumerate() {
            self.check_ticket(ticket, Near::entry("tickets", i), &tool_names, problems);
        }
        for (runtime, text) in &self.predict.context {
            no_count(text, Near::key("predict").then("context").then(runtime), problems);
        }
    }

    /// One ticket: the tools it names, its probe, its runtimes, its notes and its question.
    fn check_ticket(
        &self,
        ticket: &Ticket,
        entry: Near,
        tool_names: &[&str],
        problems: &mut Problems,
    ) {
        let at = entry.clone().then("id");
        let probed = ticket.probes().iter().map(|p| &p.tool);
        for tool in ticket.tools.iter().chain(probed) {
            if !tool_names.contains(&tool.as_str()) {
                problems.say(
                    at.clone(),
                    format!("ticket {} names an unknown tool '{tool}'", ticket.id),
                );
            }
        }
        if ticket.probes().is_empty() {
            problems.say(
                entry.clone().then("probe"),
                format!(
                    "ticket {} has an empty probe: give one call, or a list of calls",
                    ticket.id
                ),
            );
        }
        for runtime in &ticket.runtimes {
            if Runtime::parse(runtime).is_none() {
                problems.say(
                    entry.clone().then("runtimes"),
                    format!("ticket {} names an unknown runtime '{runtime}'", ticket.id),
                );
            }
        }
        if let Notes::ByCode(by_code) = &ticket.notes {
            let codes: Vec<&str> = by_code.keys().map(String::as_str).collect();
            problems.say(
                entry.clone().then("notes"),
                format!(
                    "ticket {}: notes are keyed by code ({}), but a note now says when it applies by what the run did, so that any code that behaves like the fix gets the fix's note: write notes = [{{ when = {{ attempts = 2, reads = \">=1\" }}, says = \"...\" }}, ..., {{ says = \"for any other run\" }}] (the keys are in lessons/README.md)",
                    ticket.id,
                    codes.join(", ")
                ),
            );
        }
        if let Some(predict) = &ticket.predict {
            self.check_ticket_predict(ticket, predict, entry.then("predict"), problems);
        }
    }

    /// A ticket's question: about a code the lesson has, with 2 to 9 choices, and context that
    /// does not give the answer away.
    fn check_ticket_predict(
        &self,
        ticket: &Ticket,
        predict: &TicketPredict,
        at: Near,
        problems: &mut Problems,
    ) {
        if predict.code != "starter" && predict.code != self.solution_label {
            problems.say(
                at.clone().then("code"),
                format!(
                    "ticket {}'s question is about the code '{}': ask about starter or {}",
                    ticket.id, predict.code, self.solution_label
                ),
            );
        }
        if !(2..=9).contains(&predict.choices.len()) {
            let why = format!(
                "ticket {}'s question has {} choices: give 2 to 9",
                ticket.id,
                predict.choices.len()
            );
            problems.say(at.clone().then("choices"), why);
        }
        for (runtime, text) in &predict.context {
            let near = at.clone().then("context").then(runtime);
            if Runtime::parse(runtime).is_none() {
                let why = format!(
                    "ticket {}'s question has context for an unknown runtime '{runtime}'",
                    ticket.id
                );
                problems.say(near.clone(), why);
            }
            no_count(text, near, problems);
        }
    }

    /// Each `case_ids` prefix says how some ids of the cases begin: never empty (every string
    /// would be an id), and it must begin one, or nothing is drawn for it.
    fn check_case_ids(&self, problems: &mut Problems) {
        fn begins(value: &serde_json::Value, prefix: &str) -> bool {
            match value {
                serde_json::Value::String(s) => s.starts_with(prefix),
                serde_json::Value::Array(items) => items.iter().any(|v| begins(v, prefix)),
                serde_json::Value::Object(map) => map.values().any(|v| begins(v, prefix)),
                _ => false,
            }
        }
        for (i, prefix) in self.case_ids.iter().enumerate() {
            let at = Near::entry("case_ids", i);
            let args = || self.checks.iter().flat_map(|c| &c.cases).flat_map(|case| &case.args);
            if prefix.trim().is_empty() {
                let why = "case_ids holds an empty prefix: say how ids begin, such as \"toolu_\"";
                problems.say(at, why);
            } else if !args().any(|a| begins(a, prefix)) {
                let why = format!("case_ids: no case argument holds an id beginning '{prefix}'");
                problems.say(at, why);
            }
        }
    }

    fn check_checks(&self, problems: &mut Problems) {
        self.check_case_ids(problems);
        let mut seen = std::collections::HashSet::new();
        for (i, check) in self.checks.iter().enumerate() {
            let at = Near::entry("checks", i).then("id");
            if !seen.insert(&check.id) {
                problems.say(at.clone(), format!("check {} is declared twice", check.id));
            }
            if check.hints.is_empty() {
                problems.say(at.clone(), format!("check {} has no hints", check.id));
            }
            match (&check.call, &check.ticket) {
                (Some(function), None) => {
                    self.check_call_check(check, function, at.clone(), problems)
                }
                (None, Some(ticket)) => {
                    if self.ticket(ticket).is_none() {
                        problems.say(
                            at.clone(),
                            format!("check {} runs an unknown ticket '{ticket}'", check.id),
                        );
                    }
                    if check.expect.is_empty() {
                        problems.say(
                            at.clone(),
                            format!("check {} expects nothing of its run", check.id),
                        );
                    }
                }
                _ => problems.say(
                    at.clone(),
                    format!("check {} must have either `call` (with cases) or `ticket`", check.id),
                ),
            }
            for g in &check.guidance {
                if g.when.is_empty() == g.raises.is_none() {
                    problems.say(
                        at.clone(),
                        format!(
                            "check {}: guidance '{}' needs either `when` or `raises`",
                            check.id, g.mistake
                        ),
                    );
                }
            }
            let malformed = check
                .cases
                .iter()
                .flat_map(|c| c.expect.malformed())
                .chain(check.expect.malformed())
                .chain(check.guidance.iter().flat_map(|g| g.when.malformed()));
            for why in malformed {
                problems.say(at.clone(), format!("check {}: {why}", check.id));
            }
        }
    }

    fn check_call_check(
        &self,
        check: &CheckSpec,
        function: &str,
        at: Near,
        problems: &mut Problems,
    ) {
        if !self.functions.iter().any(|f| f == function) {
            problems.say(
                at.clone(),
                format!("check {} calls '{function}', which is not a learner function", check.id),
            );
        }
        if check.cases.is_empty() {
            problems
                .say(at.clone(), format!("check {} calls {function} but has no cases", check.id));
        }
        for case in &check.cases {
            if case.expect.is_empty() {
                problems.say(
                    at.clone(),
                    format!("check {} has a case with nothing expected", check.id),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::names_a_count;

    #[test]
    fn a_count_word_counts_only_as_a_whole_word() {
        for text in
            ["The network sometimes drops a call.", "Network outages: sometimes, it retries."]
        {
            assert!(!names_a_count(text), "{text}");
        }
        for text in ["It runs twice.", "Two attempts", "three-step", "at most 3", "Times up"] {
            assert!(names_a_count(text), "{text}");
        }
    }
}
