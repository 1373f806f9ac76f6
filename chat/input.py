"""Checks on text from outside (API bodies, chat messages) shared by the front ends."""

from __future__ import annotations


def has_surrogates(text: str) -> bool:
    """Lone UTF-16 surrogates (JSON `\\ud800`, a mis-decoded argv) are not text: no UTF-8 store, tokenizer or
    response can hold them, so they are refused at the door rather than failing deep inside a turn."""
    return any("\ud800" <= c <= "\udfff" for c in text)
