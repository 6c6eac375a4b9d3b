"""Tokenization."""

from __future__ import annotations


class Tokenizer:
    def __init__(self, name: str, *, lowercase: bool = False) -> None:
        self.name = name
        self.lowercase = lowercase
