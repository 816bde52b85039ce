//! `workshop completions` and the help of every command.

use crate::common::*;

#[test]
fn completions_are_printed_for_bash_zsh_and_fish() {
    let w = Workshop::new();
    for (shell, marker) in
        [("bash", "_workshop()"), ("zsh", "#compdef workshop"), ("fish", "complete -c workshop")]
    {
        let run = w.run(&["completions", shell]);
        assert_eq!(run.code, 0, "{shell}: {}", run.stderr);
        assert!(run.stdout.contains(marker), "{shell}: {}", run.stdout);
        assert!(run.stdout.contains("solution"), "{shell} completes the subcommands");
    }
}

#[test]
fn completions_for_an_unknown_shell_list_the_valid_ones() {
    let w = Workshop::new();
    let run = w.run(&["completions", "tcsh"]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.contains("'tcsh'") && run.stderr.contains("bash, zsh, fish"),
        "{}",
        run.stderr
    );
}

/// The subcommands listed in the top-level help, so a new command is covered without a change here.
fn subcommands(w: &Workshop) -> Vec<String> {
    let run = w.run(&["--help"]);
    assert_eq!(run.code, 0);
    run.stdout
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        // A wrapped description is indented further than a command name.
        .filter(|l| !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(String::from)
        .collect()
}

#[test]
fn every_subcommand_help_has_an_example() {
    let w = Workshop::new();
    let names = subcommands(&w);
    for expected in ["lesson", "quiz", "hint", "solution", "completions"] {
        assert!(names.iter().any(|n| n == expected), "{expected} is listed: {names:?}");
    }
    for name in &names {
        let run = w.run(&[name, "--help"]);
        assert_eq!(run.code, 0, "{name} --help: {}", run.stderr);
        assert!(run.stdout.contains("Example"), "{name} --help has no example:\n{}", run.stdout);
        assert!(
            run.stdout.contains(&format!("./workshop {name}")),
            "{name}'s example runs it:\n{}",
            run.stdout
        );
    }
}

#[test]
fn quiz_and_solution_help_say_what_happens_off_a_terminal() {
    let w = Workshop::new();
    let quiz = w.run(&["quiz", "--help"]).stdout.clone();
    assert!(quiz.contains("Off a terminal") && quiz.contains("--answers"), "{quiz}");
    let solution = w.run(&["solution", "--help"]).stdout.clone();
    assert!(
        solution.contains("off a terminal") && solution.contains("without asking"),
        "{solution}"
    );
}

#[test]
fn completions_offer_lesson_ids_ticket_ids_and_codes_as_values() {
    let w = Workshop::new();
    let fish = w.run(&["completions", "fish"]);
    assert_eq!(fish.code, 0, "{}", fish.stderr);
    for value in [
        "old-order\\t''",
        "flaky-payment\\t''",
        "structured\\t''",
        "yours\\t''",
        "fail-retry-hint\\t''",
    ] {
        assert!(fish.stdout.contains(value), "{value} in:\n{}", fish.stdout);
    }
    let bash = w.run(&["completions", "bash"]);
    assert!(bash.stdout.contains("structured-errors"), "lesson ids in bash:\n{}", bash.stdout);
    // Parsing is unchanged: a path is still a valid --code.
    let run = w.run(&[
        "watch",
        "structured-errors",
        "--ticket",
        "old-order",
        "--code",
        "lessons/structured-errors/solution/errors.py",
        "--format",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

#[test]
fn completions_offer_no_value_a_shell_would_run() {
    let w = Workshop::lesson5();
    let manifest = "lessons/structured-errors/lesson.toml";
    let text = w
        .read(manifest)
        .replace("id = \"fail-keeps-message\"", "id = \"x$(touch pwned)`touch pwned2`\"");
    w.write(manifest, &text);
    for shell in ["bash", "zsh", "fish"] {
        let run = w.run(&["completions", shell]);
        assert_eq!(run.code, 0, "{shell}: {}", run.stderr);
        assert!(
            !run.stdout.contains("touch pwned"),
            "{shell} offers a value that runs a command:\n{}",
            run.stdout
        );
    }
    // And the bash script, sourced and asked to complete, runs nothing.
    let script = w.run(&["completions", "bash"]).stdout.clone();
    w.write("completion.bash", &script);
    let status = std::process::Command::new("bash")
        .args([
            "-c",
            "source ./completion.bash; COMP_WORDS=(workshop hint --check ''); COMP_CWORD=3; _workshop workshop '' --check; echo \"${COMPREPLY[@]}\"",
        ])
        .current_dir(w.root())
        .output()
        .unwrap();
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    assert!(!w.path("pwned").exists() && !w.path("pwned2").exists(), "completing ran a command");
}

#[test]
fn help_names_no_one_lessons_file_and_speaks_of_its_own_command() {
    let w = Workshop::new();
    let names = subcommands(&w);
    // Any lesson's file named in a help is wrong for the others.
    let files: Vec<String> = std::fs::read_dir(w.path("starter"))
        .unwrap()
        .flatten()
        .flat_map(|d| std::fs::read_dir(d.path()).unwrap().flatten())
        .map(|f| f.file_name().to_string_lossy().into_owned())
        .collect();
    for name in &names {
        let help = w.run(&[name, "--help"]).stdout.clone();
        for file in &files {
            assert!(!help.contains(file.as_str()), "{name} --help names {file}:\n{help}");
        }
    }
    let grade = w.run(&["grade", "--help"]).stdout.clone();
    assert!(flat(&grade).contains("every file named like the lesson's work file"), "{grade}");
    let record = w.run(&["record", "--help"]).stdout.clone();
    assert!(!record.contains("watch asks"), "{record}");
    let live = record.lines().find(|l| l.trim_start().starts_with("--live ")).unwrap_or_default();
    assert!(flat(live).starts_with("--live Ask the model for every turn"), "{record}");
    let watch = flat(&w.run(&["watch", "--help"]).stdout);
    assert!(watch.contains("asks only where no recording answers"), "{watch}");
}
