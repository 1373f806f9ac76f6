"""What a turn is planned to do, and the earlier turns it is planned against: the plan's typed steps (a lookup of a
named sutta, a search, reading on from a cited passage) and `PreviousTurn`, one earlier turn as memory keeps it.
`chat/pipeline/conversation.py` makes the plan; the Scholar runs its steps."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Literal

from tools.search.query import NamedSutta

if TYPE_CHECKING:
    from tools.function_tools import CanonTools, ToolResult

Mode = Literal["qa", "notes"]
FollowUp = Literal["next", "before", "same", "more"]  # how a question continues the previous turn

@dataclass
class PreviousTurn:
    """One earlier turn of the conversation, as the session memory keeps it."""

    question: str
    answer: str = ""
    cited_refs: list[str] = field(default_factory=list)  # "MN 21:20.1", first cited first
    search_query: str = ""  # what the previous turn searched for; "does the Majjhima say the same?" reuses it
    status: str = "answered"
    cited_suttas: list[str] = field(default_factory=list)  # "MN 21", first cited first
    # The subject: the suttas the turn was about (named, or its scope as a follow-up, else what it cited first)
    # and the people its answer named; the next follow-up is answered within these suttas first.
    subject_suttas: list[str] = field(default_factory=list)
    people: list[str] = field(default_factory=list)

    @property
    def answered(self) -> bool:
        return self.status == "answered" and bool(self.cited_refs)


@dataclass
class LookupStep:
    """Read a sutta the question names, the passages matching the question's topic first."""

    tool: ClassVar[str] = "lookup_sutta"
    sutta: NamedSutta
    query: str
    thought: str
    setting: bool = False  # its opening competes too: asked who, to whom or where
    # the text's summary heads its lines unless the conversation already introduced the text: then it is no news
    # to the reader, and to the small model a paragraph to copy out instead of answering from the lines
    summary: bool = True
    windows: int = 0  # passages to show; 0: the tool budget's

    @property
    def kwargs(self) -> dict:
        return {"sutta_id": self.sutta.sutta_id, "query": self.query}


@dataclass
class SearchStep:
    tool: ClassVar[str] = "search_passages"
    query: str
    collection: str | None
    thought: str
    windows: int = 0  # evidence items to show; 0: the budget's (a search beside a scoped lookup shows fewer)
    prefer: list[str] = field(default_factory=list)  # doc IDs ranked first: the suttas under discussion

    @property
    def kwargs(self) -> dict:
        # k is the Scholar's budget, passed to the tool directly: shown in the seeded step, the model would copy it.
        return {"query": self.query, **({"collection": self.collection} if self.collection else {})}


@dataclass
class ExpandStep:
    """Read on from (or back before) a passage the previous answer cited."""

    tool: ClassVar[str] = "expand_context"
    ref: str
    before: int
    after: int
    thought: str

    @property
    def kwargs(self) -> dict:
        return {"ref": self.ref, "after": self.after, "before": self.before}


@dataclass
class TableStep:
    """One call of a table tool (find_parallels, compare_translations, find_rule)."""

    tool: str
    args: dict[str, str]
    thought: str

    @property
    def kwargs(self) -> dict:
        return dict(self.args)

    def run(self, canon: CanonTools) -> ToolResult:
        return getattr(canon, self.tool)(**self.args)


PlannedStep = LookupStep | SearchStep | ExpandStep | TableStep


@dataclass
class Plan:
    question: str
    mode: Mode
    sutta_ids: list[str] = field(default_factory=list)  # named in the question, canonical
    aliases: dict[str, str] = field(default_factory=dict)  # nickname as written -> sutta ID
    collection: str | None = None
    follow_up: FollowUp | None = None
    search_query: str = ""
    steps: list[PlannedStep] = field(default_factory=list)
    scope: list[str] = field(default_factory=list)  # a follow-up's suttas, from the conversation

    def hints(self) -> str:
        """One compact line for the model: what the plan found, so it need not rediscover it."""
        parts = []
        if self.sutta_ids:
            parts.append("suttas named: " + ", ".join(self.sutta_ids))
        if self.aliases:
            parts.append("nicknames: " + ", ".join(f"{a} = {s}" for a, s in self.aliases.items()))
        if self.collection:
            parts.append(f"collection: {self.collection}")
        if self.scope:
            parts.append("continues the previous question, about " + ", ".join(self.scope))
        elif self.follow_up:
            parts.append("continues the previous question")
        return f"(Notes: {'; '.join(parts)}.)" if parts else ""
