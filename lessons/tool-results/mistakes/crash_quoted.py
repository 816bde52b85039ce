"""Mistake: a crash gets a sentence of its own, flagged, but the sentence quotes the traceback's
first line, as if it explained something. No host, no password: still the crash's own words."""


def answer(tool_uses, outcomes, note=None):
    content = []
    for use, outcome in zip(tool_uses, outcomes):
        block = {"type": "tool_result", "tool_use_id": use["id"]}
        if outcome["ok"]:
            block["content"] = outcome["content"]
        elif outcome["kind"] == "crashed":
            first = outcome["message"].strip().splitlines()[0]
            block["content"] = f"The lookup crashed on the shop's side ({first}). Try again later."
            block["is_error"] = True
        else:
            block["content"] = outcome["message"]
            block["is_error"] = True
        content.append(block)
    if note:
        content.append({"type": "text", "text": note})
    return {"role": "user", "content": content}
