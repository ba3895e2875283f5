"""The extractive reader shared by every method: what a page states in answer to a question, without a language
model — typed values and spans of sentences, cells of tables read as tables — and whether it is sure.

The quoted method answers with it; the proof check weighs a model's answer and refusal against it. Nothing here
imports a method folder (tests/test_layers.py).
"""
