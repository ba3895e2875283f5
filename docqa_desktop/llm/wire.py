"""Messages in the OpenAI chat format, which llama-cpp-python's chat handlers and remote servers both take."""
from __future__ import annotations

import base64

from .types import Message


def as_chat(message: Message) -> dict:
    if not message.images:
        return {"role": message.role, "content": message.text}
    parts = [{"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(i).decode()}}
             for i in message.images]
    return {"role": message.role, "content": parts + [{"type": "text", "text": message.text}]}
