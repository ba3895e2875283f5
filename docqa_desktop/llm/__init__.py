"""Language-model runtime: local llama.cpp or a remote OpenAI-compatible server, behind one interface."""
from .types import (Completion, InvalidOutput, Message, ModelError, ModelInfo, Options, PromptTooLong,
                    Usage)

__all__ = ["Completion", "InvalidOutput", "Message", "ModelError", "ModelInfo", "Options", "PromptTooLong",
           "Usage"]
