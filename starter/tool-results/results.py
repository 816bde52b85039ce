"""Your file for the tool-results lesson.

When the model asks for tools, the harness runs every call of that turn and
then calls `answer` with the calls, what each one came back with, and any note
the application wants to pass on. Whatever `answer` returns is sent to the
model as the next message. Grade it with `./workshop check tool-results`; once
it is green, replay the tickets with `./workshop watch tool-results`.
"""

from kit.api import Json


def answer(tool_uses: list, outcomes: list, note: str | None = None) -> dict:
    """Build the user message that answers one assistant turn's tool calls."""
    # TODO(workshop): this was written when the agent made one call per turn.
    # A turn can hold several tool_use blocks, and each needs its own result.
    use, outcome = tool_uses[0], outcomes[0]
    content = []
    if note:
        # TODO(workshop): does the API want to read the note first?
        content.append({"type": "text", "text": note})
    content.append(result(use, outcome))
    return {"role": "user", "content": content}


def result(use: Json, outcome: Json) -> Json:
    """One tool_result block, for one call."""
    # TODO(workshop): a failed call should be marked as failed, and a crash's
    # text (a traceback, a connection string) is not for the model's eyes.
    text = outcome["content"] if outcome["ok"] else outcome["message"]
    return {"type": "tool_result", "tool_use_id": use["id"], "content": text}
