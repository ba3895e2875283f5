"""Optional judge-model scoring: a model reads question, reference and prediction and says whether
the prediction is correct. Rules (scoring.py) miss paraphrases; a judge catches them — as well as
the judging model can, so the report shows both."""
from __future__ import annotations

from ..llm import Message, ModelError, Options

JUDGE_PROMPT = """You grade answers to questions about documents.

Question: {question}
Reference answer: {gold}
Candidate answer: {prediction}

The candidate is correct when it states the same fact as the reference: numbers equal up to rounding
or units (12% = 0.12), lists with the same items in any order, names with the same meaning. A
candidate that says the question cannot be answered is correct only if the reference is
"Not answerable". Reply with JSON: {{"correct": true}} or {{"correct": false}}."""

JUDGE_SCHEMA = {"type": "object", "properties": {"correct": {"type": "boolean"}}, "required": ["correct"],
                "additionalProperties": False}


def judge(model, question: str, gold, prediction: str) -> dict:
    """{"correct": 0|1, "tokens": prompt+output} or {"error": reason} when the judge model fails."""
    prompt = JUDGE_PROMPT.format(question=question, gold=gold, prediction=prediction[:2000])
    try:
        reply = model.chat([Message("user", prompt)], Options(max_tokens=16, schema=JUDGE_SCHEMA))
    except ModelError as exc:
        return {"error": str(exc)}
    return {"correct": int(bool(reply.parsed["correct"])),
            "tokens": reply.usage.prompt_tokens + reply.usage.output_tokens}
