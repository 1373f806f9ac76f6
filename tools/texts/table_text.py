"""A table's answer as the table tools build it: its statements and the texts' words it quotes, each typed when it
is written, so the reader's text and the answer's sentences come from one object and are never read back from
the text.

A `Piece` is words whose origin the table knows: its own statement of a fact ("model"), or a passage's words
("quote"). A `Block` is one line of the answer, a paragraph, list item, block quote or a segment's heading, of
pieces read as one run. `TableText.text` renders them once; `TableText.sentences` splits the pieces into the
sentences an answer is typed by, with the origin and references each piece was given.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Literal

from tools.language.sentences import split_sentences

Origin = Literal["model", "quote"]
Kind = Literal["paragraph", "item", "quote", "heading"]
_MARKUP: dict[Kind, str] = {"paragraph": "", "item": "- ", "quote": "> ", "heading": ""}


@dataclass(frozen=True)
class Piece:
    text: str  # without its references
    origin: Origin = "model"
    refs: tuple[str, ...] = ()
    # 'It reads: “If a monk …”': a statement that opens a quotation, whose words run on past its first sentence;
    # that sentence states the fact, the ones after it are the text's own
    quoting: bool = False

    @property
    def written(self) -> str:
        return f"{self.text} [{'; '.join(self.refs)}]" if self.refs else self.text


def said(text: str, refs: tuple[str, ...] = ()) -> Piece:
    return Piece(text, "model", refs)


def quoted(text: str, refs: tuple[str, ...] = ()) -> Piece:
    return Piece(text, "quote", refs)


def introducing(text: str, refs: tuple[str, ...] = ()) -> Piece:
    return Piece(text, "model", refs, quoting=True)


@dataclass(frozen=True)
class Block:
    pieces: tuple[Piece, ...]
    kind: Kind = "paragraph"
    paragraph: bool = False  # a blank line before it

    @property
    def written(self) -> str:
        return _MARKUP[self.kind] + " ".join(p.written for p in self.pieces)


def line(*pieces: Piece, paragraph: bool = False) -> Block:
    return Block(pieces, "paragraph", paragraph)


def item(piece: Piece) -> Block:
    return Block((piece,), "item")


def block_quote(piece: Piece) -> Block:
    return Block((piece,), "quote")


def heading(ref: str) -> Block:
    """A segment's reference, opening the paragraph of its Pali and renderings: it names them and states nothing."""
    return Block((said(ref),), "heading", paragraph=True)


@dataclass(frozen=True)
class TableText:
    blocks: tuple[Block, ...] = ()

    @cached_property
    def text(self) -> str:
        """The reader's text (and the model's, when it reads the tool's result)."""
        return "\n".join(("\n" if b.paragraph else "") + b.written for b in self.blocks)

    @cached_property
    def sentences(self) -> tuple[Piece, ...]:
        """Each sentence of the pieces with its piece's origin and, the last, its references."""
        out: list[Piece] = []
        for block in self.blocks:
            if block.kind == "heading":
                continue
            for piece in block.pieces:
                out.extend(_sentences(piece))
        return tuple(out)

    def __add__(self, other: TableText) -> TableText:
        return TableText(self.blocks + other.blocks)

    def cited(self, ref: str) -> TableText:
        """The whole answer cited to the lines it shows, the reference written at its end."""
        *head, last = self.blocks
        *before, end = last.pieces
        return TableText((*head, replace(last, pieces=(*before, replace(end, refs=(*end.refs, ref))))))


def _sentences(piece: Piece) -> list[Piece]:
    # a verse rendered with its line breaks: each line is read as a line of its own, as the reader sees it
    texts = [s.text for row in piece.text.split("\n") for s in split_sentences(row)]
    follow: Origin = "quote" if piece.quoting else piece.origin
    return [Piece(t, piece.origin if i == 0 else follow, piece.refs if i == len(texts) - 1 else ())
            for i, t in enumerate(texts)]
