//! The renderer: each group's words, as a learner reads them, and its exit code.

use std::path::Path;

use super::*;

fn said(e: impl Into<Error>) -> (String, i32) {
    let e = e.into();
    (e.to_string(), e.exit_code())
}

fn toml_error(text: &str) -> toml::de::Error {
    match toml::from_str::<toml::Table>(text) {
        Err(e) => e,
        Ok(_) => panic!("{text:?} parsed"),
    }
}

#[test]
fn an_unknown_lesson_offers_the_nearest_and_lists_the_rest_by_number() {
    let lessons = vec![
        Numbered { number: Some(1), id: "first-steps".into() },
        Numbered { number: None, id: "broken".into() },
    ];
    let unknown = LessonError::Unknown {
        word: "frist".into(),
        guess: Some("first-steps".into()),
        lessons: lessons.clone(),
    };
    let listed = "Name a lesson by its number or its name:\n    1  first-steps\n       broken";
    let (words, code) = said(unknown);
    assert_eq!(words, format!("there is no lesson 'frist'.\nDid you mean first-steps?\n{listed}"));
    assert_eq!(code, EXIT_COULD_NOT_RUN);
    let (words, _) = said(LessonError::NoNumber { number: 9, lessons: Vec::new() });
    assert_eq!(words, "there is no lesson 9 here.\nThere are no lessons under lessons/ here.");
    let ticket = LessonError::WrongRuntime { ticket: "t1".into(), runtimes: vec!["sdk".into()] };
    assert_eq!(said(ticket).0, "the ticket t1 runs only in the sdk runtime: add --runtime sdk.");
}

#[test]
fn a_work_file_error_names_the_way_on_that_the_command_offers() {
    let absent = |pick: Option<&str>| CourseError::WorkAbsent {
        path: "work/a/x.py".into(),
        lesson: "a".into(),
        pick: pick.map(str::to_string),
    };
    let (words, code) = said(absent(None));
    assert_eq!(words, "work/a/x.py does not exist yet: run ./workshop start a first.");
    assert_eq!(code, EXIT_COULD_NOT_RUN);
    let (words, _) = said(absent(Some("fixed")));
    assert_eq!(
        words,
        "work/a/x.py does not exist yet: run ./workshop start a first, or pick --code starter or \
         fixed."
    );
    let folder = CourseError::WorkNotRegular {
        path: "work/a/x.py".into(),
        what: "a folder",
        lesson: "a".into(),
        pick: None,
    };
    let (words, _) = said(folder);
    assert!(words.ends_with("there (./workshop start a makes one where nothing is)."), "{words}");
    let missing = CourseError::NotAFile { path: "y.py".into(), what: None, flag: "--file".into() };
    assert_eq!(said(missing).0, "there is no file at y.py: check the path given to --file.");
}

#[test]
fn a_flag_refused_says_what_to_give_instead() {
    let (words, code) = said(FlagError::AnswerCount { given: 1, asked: 3 });
    assert!(words.starts_with("--answers has 1 token but the quiz has 3 questions"), "{words}");
    assert_eq!(code, EXIT_COULD_NOT_RUN);
    assert!(said(FlagError::AnswerCount { given: 2, asked: 3 }).0.contains("2 tokens"));
    let range = FlagError::PartitionRange { text: "5/4".into(), most: 4 };
    assert!(said(range).0.ends_with("such as 1/4 to 4/4."));
    let shell = FlagError::Shell { name: "tcsh".into(), choices: vec!["bash", "zsh"] };
    assert_eq!(said(shell).0, "no completions for the shell 'tcsh': choose one of bash, zsh.");
    let token = FlagError::AnswerToken { number: 2, token: "Q".into(), source: "no Q".into() };
    let token: Error = token.into();
    assert_eq!(token.to_string(), "--answers token 2 (\"Q\", for question 2): no Q.");
    assert!(std::error::Error::source(&token).is_some(), "the quiz's error is kept as the source");
}

#[test]
fn grade_says_what_it_found_to_grade_and_what_was_skipped() {
    let nothing = |skipped| GradeError::NothingToGrade {
        paths: vec!["a".into(), "b".into()],
        skipped,
        file: "agent.py".into(),
    };
    let (words, code) = said(nothing(0));
    assert_eq!(
        words,
        "there is no file to grade in a, b: give files, or folders holding agent.py or .py files."
    );
    assert_eq!(code, EXIT_COULD_NOT_RUN);
    assert!(said(nothing(2)).0.contains("a, b (2 skipped: not regular files): give"));
    let closed = GradeError::TempClosed { uid: 65_534, dir: "/r".into(), temp: "/r/t".into() };
    assert!(said(closed).0.contains(
        "(uid 65534), who cannot enter /r to reach its copy in the \
                                     temp folder /r/t:"
    ));
}

#[test]
fn record_errors_name_the_ticket_and_runtime_asked_for() {
    let (words, code) = said(RecordError::NoRun { ticket: None, runtime: None });
    assert_eq!(
        words,
        "the script has no run for any ticket: see the [[run]] entries of script.toml."
    );
    assert_eq!(code, EXIT_COULD_NOT_RUN);
    let both = RecordError::NoRun { ticket: Some("t2".into()), runtime: Some("sdk".into()) };
    assert!(said(both).0.starts_with("the script has no run for ticket t2 in the sdk runtime:"));
}

#[test]
fn a_refusal_exits_1_and_says_how_to_go_on_anyway() {
    let edited = Refusal::Edited {
        files: vec!["work/a/x.py".into(), "work/a/y.py".into()],
        command: "start".into(),
        lesson: "a".into(),
    };
    let (words, code) = said(edited);
    assert!(
        words.starts_with(
            "work/a/x.py, work/a/y.py has your edits, so start left it alone. Keep working on it, \
             or run ./workshop start a --force (or ./workshop reset a) to begin again"
        ),
        "{words}"
    );
    assert_eq!(code, EXIT_FAILED);
    let undo = Refusal::ChangedSinceReset {
        file: "x.py".into(),
        backup: "x.backup.py".into(),
        lesson: "a".into(),
    };
    assert!(said(undo).0.ends_with("as a backup too: ./workshop reset a --undo --force"));
}

#[test]
fn corrupt_data_names_the_file_and_line_and_keeps_the_parsers_error() {
    let manifest = Flaw::Manifest { at: Some(3), source: toml_error("id = \n") };
    let corrupt = Corrupt::new(Path::new("/w/lessons/a/lesson.toml"), manifest);
    let e = Error::from(corrupt).relative_to(Path::new("/w"));
    let words = e.to_string();
    assert!(words.starts_with("lessons/a/lesson.toml: is not a valid lesson manifest (line 3): "));
    assert!(words.ends_with(". Fix it, or restore it with git checkout."), "{words}");
    let mut chain = std::error::Error::source(&e);
    while let Some(cause) = chain.filter(|c| !c.is::<toml::de::Error>()) {
        chain = cause.source();
    }
    assert!(chain.is_some(), "the toml error is kept as the source");
    assert_eq!(e.exit_code(), EXIT_COULD_NOT_RUN);
    let script = Corrupt::at("recordings/a/script.toml", 4, Flaw::Script(toml_error("[[run]\n")));
    assert!(said(script).0.starts_with("recordings/a/script.toml:4: is not a valid script: "));
    let problems = Flaw::Problems(vec!["line 2: one".into(), "line 5: two".into()]);
    let (words, _) = said(Corrupt::new(Path::new("l.toml"), problems));
    assert_eq!(words, "l.toml: line 2: one\n  line 5: two");
}

#[test]
fn a_broken_recording_says_what_to_do_by_whose_file_it_is() {
    let turn = |whose| {
        let bad = match serde_json::from_str::<serde_json::Value>("{\"a\": ") {
            Err(e) => e,
            Ok(_) => panic!("a cut-off line parsed"),
        };
        Corrupt::at("r/t.jsonl", 2, Flaw::Recording { problem: Recording::NotATurn(bad), whose })
    };
    let (words, code) = said(turn(Whose::Shipped));
    assert!(words.starts_with("r/t.jsonl:2: is cut off (truncated): "), "{words}");
    assert!(words.ends_with(". Restore the file with git checkout, or record it again."));
    assert_eq!(code, EXIT_COULD_NOT_RUN);
    let (words, _) = said(turn(Whose::Own));
    assert!(
        words.ends_with(
            "(from watch --live): delete it, and run watch --live again to ask \
                             anew."
        ),
        "{words}"
    );
    let key = Flaw::Recording { problem: Recording::KeyMismatch, whose: Whose::Shipped };
    let (words, _) = said(Corrupt::at("r/t.jsonl", 1, key));
    assert!(words.ends_with("Record it again with ./workshop record instead of editing it."));
}

#[test]
fn io_errors_end_with_what_to_do_when_the_disk_is_full() {
    let full = std::io::Error::from_raw_os_error(libc::ENOSPC);
    let (words, code) = said(Error::io("could not write x.py", full));
    assert!(words.starts_with("could not write x.py: "), "{words}");
    assert!(words.ends_with(". The disk is full: make room and try again"), "{words}");
    assert_eq!(code, EXIT_COULD_NOT_RUN);
    let gone = Error::Output(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
    assert_eq!(gone.exit_code(), EXIT_SUCCESS);
}
