"""Reference solution: every call of the turn answered once, in one message, results first."""

from kit.api import Json

# What the model reads when a tool crashed. The exception's own text stays out of the message:
# it can hold a stack trace, a host name or a password, and everything sent is kept in logs.
CRASHED = (
    "The tool broke down while handling this call, so there is no answer to give. The fault is on "
    "the shop's side, not in the call: tell the customer it cannot be checked right now and offer "
    "to try again later."
)


def answer(tool_uses: list, outcomes: list, note: str | None = None) -> dict:
    """Build the user message that answers every tool call of one assistant turn."""
    content = [result(use, outcome) for use, outcome in zip(tool_uses, outcomes, strict=True)]
    if note:
        # Text the application adds comes after every result, never before one.
        content.append({"type": "text", "text": note})
    return {"role": "user", "content": content}


def result(use: Json, outcome: Json) -> Json:
    """One tool_result: the tool's answer, or its failure flagged with is_error."""
    block = {"type": "tool_result", "tool_use_id": use["id"]}
    if outcome["ok"]:
        block["content"] = outcome["content"]
        return block
    block["is_error"] = True
    if outcome["kind"] == "crashed":
        block["content"] = CRASHED
    else:
        # invalid_input and failed: the tool's own message already says what to do next.
        block["content"] = outcome["message"]
    return block
