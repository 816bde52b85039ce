"""Mistake: a crash is flagged, but its result is the one word Error. The host, the password and
the traceback stay out, and so does everything the model could act on."""


def answer(tool_uses, outcomes, note=None):
    content = []
    for use, outcome in zip(tool_uses, outcomes):
        block = {"type": "tool_result", "tool_use_id": use["id"]}
        if outcome["ok"]:
            block["content"] = outcome["content"]
        else:
            block["content"] = "Error" if outcome["kind"] == "crashed" else outcome["message"]
            block["is_error"] = True
        content.append(block)
    if note:
        content.append({"type": "text", "text": note})
    return {"role": "user", "content": content}
