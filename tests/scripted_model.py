"""A scripted stand-in for the model runtime, for tests about a method's control flow, citations and rendering
rather than about a model: replies are given in advance and parsed against each call's schema."""
from __future__ import annotations

import json
import re
import threading
import zlib

from docqa_desktop.llm import Completion, ModelInfo, Usage
from docqa_desktop.llm.jsonout import parse_json


NO_PROOF = {"proof": [], "computation": ""}  # a final answer's proof fields (methods/proof), empty


def scripted_completion(prompt: str, reply, options) -> Completion:
    """A reply (text, or JSON as a dict) as the backend returns it: usage counted in words, parsed against the
    call's schema when it has one. A final answer written without the proof fields gets them empty: the tests
    using these scripts are about a method's steps, with the proof check off (conftest.make_settings)."""
    if isinstance(reply, dict) and options.schema:
        wanted = options.schema.get("properties", {})
        # after the reply's own keys: a test that stops a stream at an offset of json.dumps(reply) stays right
        reply = {**reply, **{key: value for key, value in NO_PROOF.items() if key in wanted and key not in reply}}
    text = reply if isinstance(reply, str) else json.dumps(reply)
    completion = Completion(text, "stop", Usage(len(prompt.split()), len(text.split()), 0.01))
    if options.schema:
        completion.parsed = parse_json(text, options.schema)
    return completion


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
        return scripted_completion(prompt, reply, options)

    def close(self):
        pass


class StreamingModel(ScriptedModel):
    """A scripted model that hands its reply to on_text in pieces, like a backend that generates it; with
    `stop_after` pieces it sets `cancel` there and ends the call as Stop does."""

    def __init__(self, reason, pieces: int = 8, stop_after: int | None = None):
        super().__init__(reason)
        self.pieces, self.stop_after = pieces, stop_after
        self.cancel = threading.Event()

    def chat(self, messages, options, cancel=None):
        completion = super().chat(messages, options, cancel)
        if options.on_text is None:
            return completion
        text = completion.text
        size = max(1, len(text) // self.pieces)
        for i, end in enumerate(range(size, len(text) + size, size), 1):
            options.on_text(text[:end])
            if i == self.stop_after:
                self.cancel.set()
                return Completion(text[:end], "cancelled", Usage(1, i, 0.01))
        return completion


class FixedRuntimes:
    def __init__(self, model, vision=None):
        self.model, self.vision_model = model, vision

    def text(self):
        return self.model

    def vision(self):
        return self.vision_model

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


# -- DocLens ------------------------------------------------------------------------------------------


def navigation(*located, analysis="Looking for the pivot languages."):
    return {"analysis": analysis, "located_pages": list(located), "prediction": "English"}


def sample(answer="English", analysis="Page 1 says English is the pivot.", quote="pivot", page=1,
           short=None, fmt="Str"):
    answerable = fmt != "None"
    return {"analysis": analysis, "evidence": [{"page": page, "quote": quote}] if answerable else [],
            "answer": answer if answerable else "", "short_answer": short or (answer if answerable else
                                                                              "Not answerable"),
            "answer_format": fmt}


class DocLensScript:
    """Plays the runtime for DocLens: navigator, sampler and adjudicator replies come from their own lists, in
    order (one per sample); every prompt, sample count and image count is recorded."""

    def __init__(self, navigate=(), answers=(), adjudicate=(), context=8192, vision=False, locate=None):
        self.info = ModelInfo("scripted", "local", context, vision)
        self.replies = {"navigate": list(navigate), "answer": list(answers), "adjudicate": list(adjudicate)}
        self.locate = locate  # pages every navigator sample locates among those its batch shows
        self.seen: list[dict] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def sample(self, messages, options, n=1, cancel=None):
        properties = (options.schema or {}).get("properties", {})
        kind = ("navigate" if "located_pages" in properties else "answer" if "evidence" in properties
                else "adjudicate")
        self.seen.append({"kind": kind, "prompt": messages[-1].text, "n": n, "images": len(messages[-1].images),
                          "temperature": options.temperature, "schema": options.schema})
        out = []
        for _ in range(n):
            if kind == "navigate" and self.locate is not None:
                shown = properties["located_pages"]["items"]["enum"]
                reply = navigation(*[page for page in shown if page in self.locate])
            else:
                reply = self.replies[kind].pop(0) if self.replies[kind] else navigation()
            out.append(scripted_completion(messages[-1].text, reply, options))
        return out

    def chat(self, messages, options, cancel=None):
        return self.sample(messages, options, 1, cancel)[0]

    def kinds(self) -> list[str]:
        return [s["kind"] for s in self.seen]

    def close(self):
        pass


# -- MDocAgent ----------------------------------------------------------------------------------------

AGENT_ROLES = {"You are a text analysis agent": "text agent", "You are an advanced image processing agent": "image agent",
               "You are an advanced agent capable of analyzing": "general agent"}


class MDocAgentScript:
    """Plays one runtime for MDocAgent: each agent's reply by agent name ("general agent", "text agent", "image
    agent", "critical agent", "summarize"); every call's agent, prompt, image count and schema is recorded."""

    def __init__(self, replies: dict, vision=False, name="scripted"):
        self.info = ModelInfo(name, "local", 8192, vision)
        self.replies = replies
        self.seen: list[dict] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def chat(self, messages, options, cancel=None):
        properties = (options.schema or {}).get("properties", {})
        prompt = messages[-1].text
        agent = ("summarize" if "reasoning" in properties else "critical agent" if "evidence" not in properties
                 else next(a for role, a in AGENT_ROLES.items() if role in prompt))
        self.seen.append({"agent": agent, "prompt": prompt, "images": len(messages[-1].images),
                          "schema": options.schema})
        return scripted_completion(prompt, self.replies[agent], options)

    def sample(self, messages, options, n=1, cancel=None):
        return [self.chat(messages, options, cancel) for _ in range(n)]

    def call(self, agent: str) -> dict:
        return next(s for s in self.seen if s["agent"] == agent)

    def close(self):
        pass


# -- MMRAG-DocQA --------------------------------------------------------------------------------------


class RecordingScript:
    """What a scripted model keeps: every call as (kind, prompt) in `seen`; words count as tokens."""

    def __init__(self, name: str = "scripted", backend: str = "local", vision: bool = False):
        self.info = ModelInfo(name, backend, 8192, vision)
        self.seen: list[tuple[str, str]] = []

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def calls(self, kind: str) -> list[str]:
        return [prompt for k, prompt in self.seen if k == kind]

    def close(self):
        pass


SUMMARY_REPLY = re.compile(r"summary [0-9a-f]{8} of the pivot translation paper")


def summary_reply(prompt: str) -> str:
    """A tree summary as a model at temperature 0 writes it: a function of the prompt alone, never of how many
    calls came before. (Numbering replies by call made a build resumed by a new process write other texts for
    the same clusters than a clean build, and so cluster the next layer differently.)"""
    return f"summary {zlib.crc32(prompt.encode()):08x} of the pivot translation paper"


class MMRAGScript(RecordingScript):
    """Plays the text model for MMRAG-DocQA: summaries for the tree (summary_reply(prompt) unless `fail_after`
    summaries were written, then it raises, like a crash mid-build), re-ranking scores by page from `scores`
    (default 0.5), and the answer `answer`. Every call is kept in `seen` (kind, prompt)."""

    def __init__(self, scores: dict[int, float] | None = None, answer: dict | None = None,
                 fail_after: int | None = None, vision: bool = False, name: str = "scripted"):
        super().__init__(name, vision=vision)
        self.scores, self.answer, self.fail_after = scores or {}, answer, fail_after
        self.images: list[int] = []  # images sent with each call

    def chat(self, messages, options, cancel=None):
        prompt = messages[-1].text
        properties = (options.schema or {}).get("properties", {})
        if "verdicts" in properties:
            kind = "rerank"
            pages = properties["verdicts"]["items"]["properties"]["page"]["enum"]
            reply = {"verdicts": [{"page": p, "reasoning": f"page {p} looked at",
                                   "relevance_score": self.scores.get(p, 0.5)} for p in pages]}
        elif "step_by_step_analysis" in properties:
            kind = "answer"
            reply = self.answer or mmrag_answer()
        else:
            kind = "summary"
            if self.fail_after is not None and len(self.calls("summary")) >= self.fail_after:
                raise RuntimeError("the process was killed")
            reply = summary_reply(prompt)
        self.seen.append((kind, prompt))
        self.images.append(len(messages[-1].images))
        return scripted_completion(prompt, reply, options)


def mmrag_answer(answer="English", relevant=(1,), fmt="Str"):
    answerable = fmt != "None"
    return {"step_by_step_analysis": ["The question asks for the pivot.", "Page 1 names English.", "It is a language.",
                                      "No other page disagrees.", "So the answer is English."],
            "reasoning_summary": "Page 1 says English is the pivot.", "relevant_pages": list(relevant),
            "answer": f"The pivot language is {answer}." if answerable else "", "short_answer":
            answer if answerable else "Not answerable", "answer_format": fmt}


# -- Doc-React ------------------------------------------------------------------------------------------


class DocReactScript(RecordingScript):
    """Plays the model for Doc-React: each Thought/Action reply is the next of `steps` ((action, argument)); an
    extraction replies by the page it reads from `extracts` ({page: (text, mean token entropy)}, default "Page N
    shows other things." at entropy 1.0); the final answer is `answer`. Calls are kept in `seen` (kind, prompt),
    the actions each Thought was offered in `offered`."""

    def __init__(self, steps, extracts: dict[int, tuple[str, float]] | None = None, answer: dict | None = None,
                 backend: str = "local"):
        super().__init__(backend=backend)
        self.steps, self.extracts, self.answer = list(steps), extracts or {}, answer
        self.offered: list[list[str]] = []

    def chat(self, messages, options, cancel=None):
        prompt = messages[-1].text
        properties = (options.schema or {}).get("properties", {})
        if "thought" in properties:
            kind = "thought"
            self.offered.append(properties["action"]["enum"])
            action, argument = self.steps.pop(0)
            completion = scripted_completion(prompt, {"thought": f"Next: {action}.", "action": action,
                                                      "argument": argument}, options)
        elif "short_answer" in properties:
            kind, completion = "answer", scripted_completion(prompt, self.answer or sample(), options)
        else:
            kind = "extract"
            page = int(re.search(r"\[Page 1: page (\d+)", prompt).group(1))
            text, entropy = self.extracts.get(page, (f"Page {page} shows other things.", 1.0))
            completion = scripted_completion(prompt, text, options)
            completion.token_entropies = [entropy] * len(text.split())
        self.seen.append((kind, prompt))
        return completion
