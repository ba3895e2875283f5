"""A scripted stand-in for the model runtime, for tests about a method's control flow, citations and rendering
rather than about a model: replies are given in advance and parsed against each call's schema."""
from __future__ import annotations

import json

from docqa_desktop.llm import Completion, ModelInfo, Usage
from docqa_desktop.llm.jsonout import parse_json


class ScriptedModel:
    """Plays the runtime: replies come from `reason` (a list used in order) and fixed select/summary
    replies; every reply is parsed against the call's schema, like a backend without a grammar."""

    def __init__(self, reason: list, select=None, on_select=None):
        self.info = ModelInfo("scripted", "local", 8192, False)
        self.reason, self.select, self.on_select = list(reason), select, on_select
        self.prompts: list[tuple[str, str]] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def chat(self, messages, options, cancel=None):
        prompt = messages[-1].text
        schema = options.schema or {}
        if "selected_pages" in schema.get("properties", {}):
            kind = "select"
            if self.on_select:
                self.on_select()
            reply = self.select or {"document_summary": "The paper studies pivot-based translation.",
                                    "selected_pages": [1, 2]}
        elif "response" in schema.get("properties", {}):
            kind, reply = "reason", self.reason.pop(0)
        else:
            kind, reply = "summary", "A page of a machine translation paper."
        self.prompts.append((kind, prompt))
        text = reply if isinstance(reply, str) else json.dumps(reply)
        completion = Completion(text, "stop", Usage(len(prompt.split()), len(text.split()), 0.01))
        if options.schema:
            completion.parsed = parse_json(text, options.schema)
        return completion

    def close(self):
        pass


class FixedRuntimes:
    def __init__(self, model):
        self.model = model

    def text(self):
        return self.model

    def vision(self):
        return None

    def close(self):
        pass


def reasoning(response="answer", answer="", evidence=(), query_update="", notes="", short_answer=None,
              answer_format=None):
    """A SimpleDoc reasoner reply; an answer's short form defaults to the answer itself, typed Str."""
    answered = response == "answer" and answer
    return {"scratchpad": "Looking at the pages.", "response": response, "evidence": list(evidence),
            "query_update": query_update, "notes": notes, "answer": answer,
            "short_answer": short_answer if short_answer is not None else (answer[:80] if answered else ""),
            "answer_format": answer_format or ("Str" if answered else "None")}
