//! The check engine's expectations, on a lesson that uses them all: the toy lesson of
//! `tests/fixtures/toy/` with a third learner function, `answer`, which builds the user message
//! answering a turn's tool calls (the shape lesson 4 grades), and a ticket check on lists.

use crate::common::Workshop;

const MANIFEST: &str = "lessons/parcel-desk/lesson.toml";

/// Checks on lists: positions in paths, `@args` positions, each, any, contains, lengths, a
/// negated expectation, any-order equality, and guidance that recognises a mistake by them.
const CHECKS: &str = r#"
[[checks]]
id = "answer-every-call"
name = "one tool_result per call, in the order of the calls"
hints = ["Answer every tool_use block.", "One tool_result per call, in the same order, each naming its call's id."]
call = "answer"
cases = [
  { args = [[{ type = "tool_use", id = "toolu_1", name = "refund_parcel", input = { order_id = "2001" } }, { type = "tool_use", id = "toolu_2", name = "refund_parcel", input = { order_id = "2002" } }]], expect = [
    { path = "role", equals = "user" },
    { path = "content", each = [{ path = "type", equals = "text", not = true }] },
    { path = "content", len = 2 },
    { path = "content", each = [{ path = "type", equals = "tool_result" }, { path = "content", contains = "parcel" }] },
    { path = "content", any = [{ path = "tool_use_id", equals = "@args.0.1.id" }] },
    { path = "content.0.tool_use_id", equals = "@args.0.0.id" },
    { path = "content.1.tool_use_id", equals = "@args.0.1.id" },
  ] },
]
guidance = [
  { mistake = "results out of order", when = [{ path = "content", min_len = 2 }, { path = "content.0.tool_use_id", equals = "@args.0.0.id", not = true }, { path = "content", any = [{ path = "tool_use_id", equals = "@args.0.0.id" }] }], says = "Every call is answered, but not in the order the calls came: keep their order." },
]

[[checks]]
id = "slow-card-lists"
name = "slow-card: one answer, again"
hints = ["The hiccup is transient.", "next_move must say again once."]
ticket = "slow-card"
expect = [
  { path = "answers", len = 1 },
  { path = "answers.0", equals = "again" },
  { path = "answers", contains = "again" },
  { path = "answers", equals = ["again"], any_order = true },
  { path = "answers", each = [{ one_of = ["again", "halt"] }] },
]
"#;

/// The toy lesson with the `answer` function and the checks above, and a learner file: the
/// toy's solution, with an `answer` of the given body.
fn lesson_with_answer(body: &str) -> Workshop {
    let ws = Workshop::from_fixture("toy");
    let manifest = ws.read(MANIFEST).replace(
        "functions = [\"problem\", \"next_move\"]",
        "functions = [\"problem\", \"next_move\", \"answer\"]",
    );
    ws.write(MANIFEST, &format!("{manifest}{CHECKS}"));
    let desk = ws.read("lessons/parcel-desk/solution/desk.py");
    ws.write("mine.py", &format!("{desk}\n\ndef answer(calls):\n{body}\n"));
    ws
}

const RIGHT: &str = r#"    return {"content": [
        {"type": "tool_result", "tool_use_id": c["id"], "content": "Done for parcel " + c["input"]["order_id"]}
        for c in calls
    ], "role": "user"}"#;

fn check(ws: &Workshop) -> serde_json::Value {
    let run = ws.run(&["check", "parcel-desk", "--file", "mine.py", "--format", "json"]);
    run.gave_a_verdict("check mine.py");
    run.json()
}

fn result<'r>(report: &'r serde_json::Value, id: &str) -> &'r serde_json::Value {
    report["checks"].as_array().unwrap().iter().find(|c| c["id"] == id).unwrap()
}

#[test]
fn a_lesson_using_list_expectations_loads_and_passes_a_right_answer() {
    let ws = lesson_with_answer(RIGHT);
    let report = check(&ws);
    assert_eq!(report["status"], "pass", "{report:#}");
    assert_eq!(report["total"], 5);
}

#[test]
fn results_out_of_order_fail_at_the_first_position_and_get_their_guidance() {
    let ws = lesson_with_answer(&RIGHT.replace("for c in calls", "for c in reversed(calls)"));
    let report = check(&ws);
    let answer = result(&report, "answer-every-call");
    assert_eq!(answer["status"], "fail");
    assert_eq!(answer["message"], "content.0.tool_use_id: expected 'toolu_1', got 'toolu_2'");
    assert_eq!(answer["guidance"]["mistake"], "results out of order");
    // The expected shape puts list positions in lists, and leaves out what must not be.
    assert_eq!(answer["expected"]["role"], "user");
    assert_eq!(
        answer["expected"]["content"][0]["tool_use_id"], "toolu_1",
        "an argument reference shows what it names"
    );
    assert_eq!(answer["expected"]["content"].as_array().unwrap().len(), 2, "{answer:#}");
    assert_eq!(result(&report, "slow-card-lists")["status"], "pass");
}

#[test]
fn a_negated_expectation_inside_each_says_must_not_be() {
    let ws = lesson_with_answer(&RIGHT.replace(
        "for c in calls\n",
        "for c in calls\n    ] + [{\"type\": \"text\", \"text\": \"done\"}\n",
    ));
    let report = check(&ws);
    let answer = result(&report, "answer-every-call");
    assert_eq!(answer["message"], "content.2.type: must not be 'text', got 'text'", "{answer:#}");
    assert!(answer["guidance"].is_null(), "{answer:#}");
}

#[test]
fn a_missing_element_is_named_by_its_length_and_a_wrong_element_by_each() {
    let ws = lesson_with_answer(&RIGHT.replace("for c in calls", "for c in calls[:1]"));
    let answer = result(&check(&ws), "answer-every-call").clone();
    assert_eq!(
        answer["message"],
        "content: expected a length of 2, got [{'type': 'tool_result', 'tool_use_id': 'toolu_1', 'content': 'Done for parcel 2001'}]"
    );
    let ws = lesson_with_answer(
        &RIGHT.replace("\"Done for parcel \" + c[\"input\"][\"order_id\"]", "\"Done\""),
    );
    let answer = result(&check(&ws), "answer-every-call").clone();
    assert_eq!(
        answer["message"],
        "content.0.content: expected a string containing 'parcel', got 'Done'"
    );
}

#[test]
fn a_ticket_check_reads_list_positions_lengths_and_contents() {
    let ws = lesson_with_answer(RIGHT);
    let desk = ws.read("mine.py").replace("return \"again\" if", "return \"halt\" if");
    ws.write("mine.py", &desk);
    let lists = result(&check(&ws), "slow-card-lists").clone();
    assert_eq!(lists["status"], "fail");
    assert_eq!(lists["message"], "answers.0: expected 'again', got 'halt'", "{lists:#}");
}

#[test]
fn malformed_paths_and_shapes_are_refused_at_load_with_the_line() {
    for (from, to, says) in [
        (
            "{ path = \"content.0.tool_use_id\"",
            "{ path = \"content..tool_use_id\"",
            "check answer-every-call: the path 'content..tool_use_id' has an empty part",
        ),
        (
            "equals = \"@args.0.0.id\" },",
            "equals = \"@args.first.id\" },",
            "the value of 'content.0.tool_use_id': the path '@args.first.id' starts with '@': only @args.N",
        ),
        (
            "{ path = \"type\", equals = \"text\", not = true }",
            "{ path = \"type\", not = true }",
            "in each of 'content': an expectation on 'type' must say exactly one of",
        ),
        (
            "{ path = \"answers\", len = 1 }",
            "{ path = \"answers\", len = 1, max_len = 2 }",
            "either an exact length or bounds",
        ),
        (
            "equals = [\"again\"], any_order",
            "equals = \"again\", any_order",
            "any_order on 'answers' goes with equals of a list",
        ),
        (
            "{ path = \"answers\", each = [{ one_of",
            "{ path = \"answers\", any = [], each = [{ one_of",
            "exactly one of",
        ),
    ] {
        let ws = lesson_with_answer(RIGHT);
        let text = ws.read(MANIFEST);
        assert!(text.contains(from), "{from}");
        ws.write(MANIFEST, &text.replacen(from, to, 1));
        let run = ws.run(&["check", "parcel-desk", "--file", "mine.py"]);
        assert_eq!(run.code, 2, "{to}: {}", run.stdout);
        assert!(run.stderr.contains(MANIFEST), "{}", run.stderr);
        assert!(run.stderr.contains(says), "{to}: {}", run.stderr);
        let id_line = ws.read(MANIFEST).lines().position(|l| l.starts_with("id = \"answer-every-call\"")).unwrap() + 1;
        let ticket_line =
            ws.read(MANIFEST).lines().position(|l| l.starts_with("id = \"slow-card-lists\"")).unwrap() + 1;
        assert!(
            run.stderr.contains(&format!("line {id_line}: ")) || run.stderr.contains(&format!("line {ticket_line}: ")),
            "{to}: the check's line: {}",
            run.stderr
        );
    }
}

#[test]
fn a_role_is_read_from_the_lessons_wording_and_one_no_wording_declares_is_refused_with_the_line() {
    // Each result must say its parcel is done, in the words of the lesson's own wording.
    let ws = lesson_with_answer(RIGHT);
    let asked = "{ path = \"content\", len = 2 },\n    \
        { path = \"content.0.content\", names = \"@args.0.0.input.order_id\", as = \"refunded\" },";
    let text = ws.read(MANIFEST).replacen("{ path = \"content\", len = 2 },", asked, 1);
    let one_role = "\n[[wording]]\nid = \"parcels\"\n\
        roles = [{ id = \"lost\", words = [\"not\"] }]\n";
    ws.write(MANIFEST, &format!("{text}{one_role}"));
    let run = ws.run(&["check", "parcel-desk", "--file", "mine.py"]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    let lines = ws.read(MANIFEST);
    let line_of = |start: &str| lines.lines().position(|l| l.starts_with(start)).unwrap() + 1;
    let refused = format!(
        "line {}: answer-every-call: no [[wording]] declares the role 'refunded' (declared: lost)",
        line_of("id = \"answer-every-call\"")
    );
    assert!(run.stderr.contains(&refused), "{}", run.stderr);
    let alone = "wording parcels: give at least two roles";
    let alone = format!("line {}: {alone}", line_of("id = \"parcels\""));
    assert!(run.stderr.contains(&alone), "{}", run.stderr);

    let two_roles = "\n[[wording]]\nid = \"parcels\"\n\
        roles = [{ id = \"lost\", words = [\"not\"] }, \
        { id = \"refunded\", words = [\"done\"] }]\n";
    ws.write(MANIFEST, &format!("{text}{two_roles}"));
    assert_eq!(result(&check(&ws), "answer-every-call")["status"], "pass");
    let not_done = RIGHT.replace("\"Done for parcel \"", "\"Not done: parcel \"");
    ws.write("mine.py", &ws.read("mine.py").replace(RIGHT, &not_done));
    let failed = check(&ws);
    let message = result(&failed, "answer-every-call")["message"].as_str().unwrap().to_string();
    let said = "named as refunded: it is named as lost, in 'Not done: parcel 20";
    assert!(message.contains(said), "{message}");
}
