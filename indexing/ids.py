"""Canonical sutta IDs (`MN 21`, `SN 35.28`, `Dhp 1`) and SuttaCentral uids (`mn21`, `sn35.28`, `dhp1`).

One place converts between the two, so the docstore, the tools and the citations can never disagree on spelling.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# uid prefix -> (canonical prefix, collection, book); the book is what readers count by (Dhp is a book of KN).
BOOKS: dict[str, tuple[str, str, str]] = {
    "dn": ("DN", "DN", "DN"),
    "mn": ("MN", "MN", "MN"),
    "sn": ("SN", "SN", "SN"),
    "an": ("AN", "AN", "AN"),
    "dhp": ("Dhp", "KN", "Dhp"),
}
COLLECTION_NAMES = {
    "DN": "Long Discourses (Dīgha Nikāya)",
    "MN": "Middle Discourses (Majjhima Nikāya)",
    "SN": "Linked Discourses (Saṁyutta Nikāya)",
    "AN": "Numbered Discourses (Aṅguttara Nikāya)",
    "KN": "Minor Collection (Khuddaka Nikāya)",
}
_UID = re.compile(r"^(dn|mn|sn|an|dhp)(\d+(?:\.\d+)?(?:-\d+)?)$")


@dataclass(frozen=True)
class SuttaUid:
    book: str  # "mn"
    number: str  # "21", "35.28", "12.104-114"

    @property
    def uid(self) -> str:
        return f"{self.book}{self.number}"

    @property
    def sutta_id(self) -> str:
        return f"{BOOKS[self.book][0]} {self.number}"

    @property
    def collection(self) -> str:
        return BOOKS[self.book][1]

    @property
    def book_label(self) -> str:
        return BOOKS[self.book][2]

    @property
    def group(self) -> int | None:
        """The saṁyutta (SN) or nipāta (AN) number; None where the collection has no such level."""
        if self.book in ("sn", "an"):
            return int(self.number.split(".")[0])
        return None

    def span(self) -> tuple[int, int]:
        """The first and last sutta number this uid covers (a range uid like sn12.104-114 covers several)."""
        last = self.number.split(".")[-1]
        lo, _, hi = last.partition("-")
        return int(lo), int(hi or lo)


def parse_uid(uid: str) -> SuttaUid | None:
    m = _UID.match(uid.strip().lower())
    return SuttaUid(m.group(1), m.group(2)) if m else None


def uid_to_sutta_id(uid: str) -> str:
    parsed = parse_uid(uid)
    if parsed is None:
        raise ValueError(f"not a SuttaCentral uid: {uid!r}")
    return parsed.sutta_id


def sutta_id_to_uid(sutta_id: str) -> str:
    prefix, _, number = sutta_id.strip().partition(" ")
    for book, (canon, _, _) in BOOKS.items():
        if canon.lower() == prefix.lower():
            return f"{book}{number}"
    raise ValueError(f"not a canonical sutta ID: {sutta_id!r}")


def segment_ref(seg_id: str) -> str:
    """`mn21:20.1` -> `MN 21:20.1`, the form citations use."""
    uid, _, local = seg_id.partition(":")
    return f"{uid_to_sutta_id(uid)}:{local}" if local else uid_to_sutta_id(uid)


def segment_sort_key(seg_id: str) -> tuple:
    """Numeric order of the local part (`3.10` after `3.9`), for segments of one sutta."""
    local = seg_id.partition(":")[2]
    return tuple((int(m.group(1)), m.group(2)) for m in re.finditer(r"(\d+)(\D*)", local))
