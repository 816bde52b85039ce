#!/usr/bin/env python3
"""Run the same commands with two builds of the workshop and show where their output differs.

    python3 tests/tools/compare-commands.py BEFORE AFTER [--report FILE] [--only WORD]

BEFORE and AFTER are git revisions of this repository. Each is checked out into a folder of its
own, built (debug, both into target/compare, so the second build is incremental) and then asked the
same list of commands, each case in a fresh copy of that revision's tree: the learner's commands
for every lesson (start, check with the starter, the solution and every named mistake, hint,
lesson, quiz, watch in its variants, solution, reset, doctor), grade, list, and the bad inputs of
the README (an unknown lesson, a missing file, a file that does not load, unknown flags).

A command's stdout, stderr and exit code are compared after the folder's own path is replaced by
<root>. The checks draw their samples from a fixed WORKSHOP_SEED, and each build runs every case
twice: a command whose output differs between two runs of the same build (a backup's time
stamp, a duration) is reported as unsteady and compared with its digits and ids masked. A lesson
only one of the two revisions has is skipped, and said. Exit status: 0 when nothing differs, 1
otherwise.
"""

import argparse
import difflib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def sh(args, **kw):
    return subprocess.run(args, check=True, text=True, capture_output=True, **kw)


def checkout_and_build(rev, side, into):
    """A detached worktree of `rev`, built; the path of its binary (copied out of the way)."""
    tree = into / f"tree-{side}"
    sh(["git", "-C", str(REPO), "worktree", "add", "--detach", "--force", str(tree), rev])
    target = REPO / "target" / "compare"
    print(f"building {rev} ...", file=sys.stderr)
    subprocess.run(
        ["cargo", "build", "--quiet", "--bin", "workshop"],
        cwd=tree,
        env={**os.environ, "CARGO_TARGET_DIR": str(target)},
        check=True,
    )
    (into / side).mkdir()
    binary = into / side / "workshop"
    shutil.copy2(target / "debug" / "workshop", binary)
    return tree, binary


def lessons_of(tree):
    found = {}
    for manifest in sorted((tree / "lessons").glob("*/lesson.toml")):
        data = tomllib.loads(manifest.read_text())
        found[data["id"]] = data
    return found


def cases(tree, lessons):
    """(name, lesson or None, [argv...]) for every case; each case runs in a fresh tree."""
    out = [
        ("welcome", None, [[]]),
        ("list", None, [["list"], ["list", "--ascii"]]),
        ("version", None, [["--version"]]),
        ("help", None, [["--help"], ["check", "--help"], ["watch", "--help"]]),
        ("unknown lesson", None, [["start", "no-such-lesson"], ["check", "tool-resuls"]]),
        ("unknown number", None, [["check", "99"], ["watch", "3"]]),
        ("unknown command", None, [["chekc"], ["watch", "--nosuchflag"]]),
        ("completions", None, [["completions", "bash"], ["completions", "zsh"]]),
        ("doctor all", None, [["doctor"]]),
        ("init", None, [["init", "course-copy"], ["init", "course-copy"]]),
    ]
    for lid, data in lessons.items():
        learner = data["file"]
        work = f"work/{lid}/{learner}"
        solution = f"lessons/{lid}/{data['solution']}"
        # The named mistakes, and any other file in the lesson's mistakes/ folder (the tests').
        mistakes = [f"lessons/{lid}/{m['file']}" for m in data.get("mistakes", [])]
        for extra in sorted((tree / "lessons" / lid / "mistakes").glob("*.py")):
            name = f"lessons/{lid}/mistakes/{extra.name}"
            if name not in mistakes:
                mistakes.append(name)
        ticket = next((t["id"] for t in data.get("tickets", [])), None)
        out += [
            (f"{lid}: before start", lid, [
                ["check", lid], ["hint", lid], ["solution", lid], ["watch", lid, "--no-anim"],
            ]),
            (f"{lid}: start, check, hint", lid, [
                ["start", lid], ["check", lid], ["check", lid, "--format", "json"],
                ["hint", lid], ["hint", lid], ["solution", lid], ["list"], [],
            ]),
            (f"{lid}: the solution", lid, [
                ["check", lid, "--file", solution],
                ["check", lid, "--file", solution, "--format", "exercism"],
            ]),
            (f"{lid}: the mistakes", lid, [["check", lid, "--file", m] for m in mistakes]),
            (f"{lid}: fixed, then solution and reset", lid, [
                ["start", lid], ["cp", solution, work], ["check", lid], ["solution", lid],
                ["reset", lid], ["check", lid],
            ]),
            (f"{lid}: a file that does not load", lid, [
                ["start", lid], ["write", work, "def broken(:\n"], ["check", lid], ["hint", lid],
                ["watch", lid, "--no-anim"],
                ["check", lid, "--file", f"work/{lid}/missing.py"],
            ]),
            (f"{lid}: lesson and quiz", lid, [
                ["lesson", lid, "--no-pager"], ["quiz", lid, "--format", "json"],
                ["quiz", lid, "--answers", "A"],
            ]),
            (f"{lid}: watch", lid, [
                ["watch", lid, "--no-anim", "--code", "starter"],
                ["watch", lid, "--no-anim", "--code", "solution"],
                ["watch", lid, "--no-anim", "--compare"],
                ["watch", lid, "--no-anim", "--code", "solution", "--runtime", "sdk"],
                ["watch", lid, "--no-anim", "--code", "solution", "--format", "json"],
                ["watch", lid, "--no-anim", "--ticket", "no-such-ticket"],
            ] + ([["watch", lid, "--no-anim", "--expand", "--ticket", ticket]] if ticket else [])
              + [["watch", lid, "--no-anim", "--code", m] for m in mistakes[:1]]),
            (f"{lid}: grade", lid, [
                ["mkdir", "class"], ["cp", solution, "class/ada.py"],
                ["write", "class/bo.py", "def broken(:\n"],
            ] + [["cp", m, f"class/m{i}.py"] for i, m in enumerate(mistakes)] + [
                ["grade", lid, "class", "--jobs", "1", "--sandbox", "none"],
                ["grade", lid, "class", "--jobs", "2", "--sandbox", "none", "--format", "csv"],
            ]),
            (f"{lid}: doctor", lid, [["doctor", lid]]),
        ]
    return out


def run_case(binary, tree, steps, scratch):
    """Each step's (argv, exit code, stdout, stderr), in a fresh copy of `tree`."""
    root = Path(tempfile.mkdtemp(dir=scratch))
    shutil.copytree(tree, root / "w", ignore=shutil.ignore_patterns(".git", "target", "work"))
    home = root / "home"
    home.mkdir()
    env = {
        "PATH": os.environ["PATH"], "HOME": str(home), "XDG_CACHE_HOME": str(home / "cache"),
        "LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1", "WORKSHOP_SEED": "7",
    }
    cwd = root / "w"
    results = []
    for argv in steps:
        if argv and argv[0] in ("cp", "mkdir", "write"):
            if argv[0] == "cp":
                if not (cwd / argv[1]).is_file():
                    results.append((argv, "not in this revision", "", ""))
                    continue
                (cwd / argv[2]).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(cwd / argv[1], cwd / argv[2])
            elif argv[0] == "mkdir":
                (cwd / argv[1]).mkdir(parents=True, exist_ok=True)
            else:
                (cwd / argv[1]).parent.mkdir(parents=True, exist_ok=True)
                (cwd / argv[1]).write_text(argv[2])
            continue
        try:
            done = subprocess.run(
                [str(binary), *argv], cwd=cwd, env=env, capture_output=True, text=True,
                stdin=subprocess.DEVNULL, timeout=300, errors="replace",
            )
            said = (done.returncode, done.stdout, done.stderr)
        except subprocess.TimeoutExpired:
            said = ("timeout", "", "")
        clean = tuple(steady_words(s.replace(str(cwd), "<root>").replace(str(root), "<tmp>"))
                      if isinstance(s, str) else s for s in said)
        results.append((argv, *clean))
    shutil.rmtree(root, ignore_errors=True)
    return results


def steady_words(text):
    """The output with what no two runs share (grade's wall-clock time) put as <time>."""
    return re.sub(r"(graded \d+ files? in )\d+(\.\d+)? s", r"\1<time> s", text)


def masked(text):
    """Digits, and the ids made of hex digits and letters, as #."""
    if not isinstance(text, str):
        return text
    return re.sub(r"\b(?=\w*\d)\w+\b", "#", text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--report", help="write the full report here (default: stdout)")
    parser.add_argument("--only", help="only the cases whose name contains this")
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="compare-"))
    try:
        before_tree, before_bin = checkout_and_build(args.before, "before", scratch)
        after_tree, after_bin = checkout_and_build(args.after, "after", scratch)
        before_lessons = lessons_of(before_tree)
        after_lessons = lessons_of(after_tree)
        report, commands, differ, unsteady = [], 0, 0, 0
        for name, lid, steps in cases(after_tree, after_lessons):
            if args.only and args.only not in name:
                continue
            if lid is not None and lid not in before_lessons:
                report.append(f"## {name}: skipped, {args.before} has no lesson {lid}\n")
                continue
            old = run_case(before_bin, before_tree, steps, scratch)
            old2 = run_case(before_bin, before_tree, steps, scratch)
            new = run_case(after_bin, after_tree, steps, scratch)
            new2 = run_case(after_bin, after_tree, steps, scratch)
            for (argv, *was), (_, *was2), (_, *now), (_, *now2) in zip(old, old2, new, new2):
                commands += 1
                steady = was == was2 and now == now2
                if not steady:
                    unsteady += 1
                    was, now = [masked(x) for x in was], [masked(x) for x in now]
                if was == now:
                    continue
                differ += 1
                report.append(f"## {name}: workshop {' '.join(argv)}"
                              + ("" if steady else " (unsteady: digits masked)") + "\n")
                for label, a, b in zip(("exit", "stdout", "stderr"), was, now):
                    if a == b:
                        continue
                    if label == "exit":
                        report.append(f"exit code {a} -> {b}\n")
                        continue
                    diff = difflib.unified_diff(
                        a.splitlines(), b.splitlines(), f"{label} before", f"{label} after",
                        lineterm="", n=1,
                    )
                    report.append("```diff\n" + "\n".join(diff) + "\n```\n")
        head = (f"# {args.before} -> {args.after}: {commands} commands, {differ} differ, "
                f"{unsteady} unsteady between two runs of one build\n")
        text = head + "\n".join(report)
        if args.report:
            Path(args.report).write_text(text)
            print(head, end="")
        else:
            print(text)
        return 1 if differ else 0
    finally:
        for tree in scratch.glob("tree-*"):
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)],
                           capture_output=True)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
