"""Shared fixtures: isolated settings, a tiny SuttaCentral-shaped corpus and a fast deterministic embedding model.

Everything is built in tmp_path, so tests never touch var/index or the shared corpus.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from pathlib import Path

import pytest
from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import PrivateAttr

from indexing.settings import ScholarSettings
from indexing.text import fold


# --------------------------------------------------------------------------------------------------------------
# settings
# --------------------------------------------------------------------------------------------------------------
@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ScholarSettings:
    """Settings with the index (and OCR cache) in tmp_path, ignoring any SCHOLAR_* env or .env of the developer."""
    import os

    for name in list(os.environ):
        if name.startswith("SCHOLAR_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return ScholarSettings(
        _env_file=None,
        index_dir=tmp_path / "index",
        corpus_paths=[tmp_path / "corpus"],
        chroma_url=None,
    )


# --------------------------------------------------------------------------------------------------------------
# embeddings
# --------------------------------------------------------------------------------------------------------------
class SimulatedKill(RuntimeError):
    """Raised by FakeEmbedding(fail_after=N) to stand in for a process killed mid-ingest."""


_WORD = re.compile(r"[a-z0-9]+")


def hash_vector(text: str, dim: int) -> list[float]:
    """Bag of folded words hashed into `dim` buckets: deterministic across processes, and texts sharing words
    get similar vectors, so dense search over it returns meaningful neighbours."""
    vector = [0.0] * dim
    for word in _WORD.findall(fold(text)):
        bucket = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "big") % dim
        vector[bucket] += 1.0
    vector[0] += 1e-3  # never the zero vector (cosine of it is undefined)
    norm = math.sqrt(sum(v * v for v in vector))
    return [v / norm for v in vector]


class FakeEmbedding(BaseEmbedding):
    dim: int = 64
    fail_after: int | None = None  # raise SimulatedKill on the batch call after this many succeeded
    _batch_calls: int = PrivateAttr(default=0)
    _texts_embedded: int = PrivateAttr(default=0)

    @property
    def batch_calls(self) -> int:
        return self._batch_calls

    @property
    def texts_embedded(self) -> int:
        return self._texts_embedded

    def reset_counts(self) -> None:
        self._batch_calls = 0
        self._texts_embedded = 0

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        if self.fail_after is not None and self._batch_calls >= self.fail_after:
            raise SimulatedKill(f"simulated kill after {self._batch_calls} embedding batches")
        self._batch_calls += 1
        self._texts_embedded += len(texts)
        return [hash_vector(t, self.dim) for t in texts]

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embeddings([text])[0]

    def _get_query_embedding(self, query: str) -> list[float]:
        return hash_vector(query, self.dim)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return hash_vector(query, self.dim)


@pytest.fixture
def fake_embed() -> FakeEmbedding:
    return FakeEmbedding(model_name="fake-hash-64", embed_batch_size=8)


# --------------------------------------------------------------------------------------------------------------
# a tiny SuttaCentral tree
# --------------------------------------------------------------------------------------------------------------
_EN = "translation/en/sujato"
_PLI = "root/pli/ms"


def _prose(n: int, topic: str) -> str:
    return (f"Passage {n} on {topic}: a mendicant meditates observing an aspect of {topic}, keen, aware, and mindful, "
            f"rid of desire and aversion for the world, and this is said for the sake of sentence {n}.")


def _mn10() -> tuple[dict[str, str], dict[str, str]]:
    en = {"mn10:0.1": "Middle Discourses 10 ", "mn10:0.2": "Mindfulness Meditation "}
    pli = {"mn10:0.1": "Majjhima Nikāya 10 ", "mn10:0.2": "Satipaṭṭhānasutta "}
    en["mn10:1.1"] = "So I have heard. "
    pli["mn10:1.1"] = "Evaṁ me sutaṁ—"
    en["mn10:1.2"] = "At one time the Buddha was staying in the land of the Kurus, near Kammāsadamma. "
    pli["mn10:1.2"] = "ekaṁ samayaṁ bhagavā kurūsu viharati kammāsadhammaṁ nāma kurūnaṁ nigamo. "
    en["mn10:2.1"] = "The four kinds of mindfulness meditation (satipaṭṭhāna) are the path to convergence. "
    pli["mn10:2.1"] = "Ekāyano ayaṁ, bhikkhave, maggo sattānaṁ visuddhiyā, yadidaṁ cattāro satipaṭṭhānā. "
    for para, topic in ((3, "the body"), (4, "feelings"), (5, "the mind"), (6, "principles")):
        for line in range(1, 6):
            seg = f"mn10:{para}.{line}"
            # an abbreviated (peyyāla) segment in the middle of the section on feelings
            en[seg] = "" if (para, line) == (4, 3) else _prose(para * 10 + line, topic) + " "
            pli[seg] = f"kāye kāyānupassī viharati ātāpī sampajāno satimā, vedanāsu, citte, dhammesu {para}.{line} "
    return en, pli


def _mn21() -> tuple[dict[str, str], dict[str, str]]:
    en = {
        "mn21:0.1": "Middle Discourses 21 ",
        "mn21:0.2": "The Simile of the Saw ",
        "mn21:1.1": "So I have heard. ",
        "mn21:20.1": "Even if low-down bandits were to sever you limb from limb with a two-handled saw, anyone who "
        "had a malevolent thought on that account would not be following my instructions. ",
        "mn21:20.2": "Meditate spreading a heart full of love to that person, and to the whole world. ",
    }
    pli = {k: f"kakacūpamasutta pāḷi {k} " for k in en}
    return en, pli


def _sn56_11() -> tuple[dict[str, str], dict[str, str]]:
    en = {
        "sn56.11:0.1": "Linked Discourses 56.11 ",
        "sn56.11:0.2": "2. The Chapter on Rolling Forth the Wheel of Dhamma ",
        "sn56.11:0.3": "Rolling Forth the Wheel of Dhamma ",
        "sn56.11:1.1": "At one time the Buddha was staying near Benares, in the deer park at Isipatana. ",
        "sn56.11:5.1": "Now this is the noble truth of suffering: rebirth is suffering, old age is suffering. ",
        "sn56.11:6.1": "This is the noble truth of the origin of suffering: it is the craving that leads to future lives. ",
    }
    pli = {k: f"dhammacakkappavattana {k} " for k in en}
    return en, pli


def _an1_1_10() -> tuple[dict[str, str], dict[str, str]]:
    senses = ["sight", "sound", "smell", "taste", "touch", "sight", "sound", "smell", "taste", "touch"]
    en = {"an1.1:0.1": "Numbered Discourses 1.1–10 ", "an1.1:0.2": "The Chapter on What Occupies the Mind "}
    pli = {"an1.1:0.1": "Aṅguttara Nikāya 1 ", "an1.1:0.2": "1. Rūpādivagga "}
    for n, sense in enumerate(senses, start=1):
        who = "a man's" if n <= 5 else "a woman's"
        en[f"an1.{n}:1.0"] = f"{n} "
        en[f"an1.{n}:1.1"] = f"Mendicants, I do not see a single {sense} that occupies {who} mind like this {sense}. "
        pli[f"an1.{n}:1.0"] = f"{n} "
        pli[f"an1.{n}:1.1"] = f"Nāhaṁ, bhikkhave, aññaṁ ekarūpampi samanupassāmi {n}. "
    return en, pli


def _dhp1_4() -> tuple[dict[str, str], dict[str, str]]:
    en = {"dhp1:0.1": "Minor Collection ", "dhp1:0.2": "Sayings of the Dhamma 1–4 ", "dhp1:0.3": "1. Pairs "}
    pli = {"dhp1:0.1": "Khuddaka Nikāya ", "dhp1:0.2": "Dhammapada 1–4 ", "dhp1:0.3": "1. Yamakavagga "}
    verses = {
        1: ["Intention shapes experiences; ", "if with corrupt intent you speak or act, ", "suffering follows you. "],
        2: ["Intention shapes experiences; ", "if with pure intent you speak or act, ", "happiness follows you. "],
        3: ["They abused me, they hit me! ", "For those who bear such a grudge, ", "hatred is never laid to rest. "],
        4: ["For never is hatred laid to rest by hate, ", "it's laid to rest by love: ", "an ancient teaching. "],
    }
    for n, lines in verses.items():
        for i, line in enumerate(lines, start=1):
            en[f"dhp{n}:{i}"] = line
            pli[f"dhp{n}:{i}"] = f"manopubbaṅgamā dhammā {n}.{i} "
    return en, pli


MINI_FILES = {
    "sutta/mn/mn10": _mn10,
    "sutta/mn/mn21": _mn21,
    "sutta/sn/sn56/sn56.11": _sn56_11,
    "sutta/an/an1/an1.1-10": _an1_1_10,
    "sutta/kn/dhp/dhp1-4": _dhp1_4,
}

_NAMES_EN = {
    "mn": {"mn-name:3.mn10": "Mindfulness Meditation ", "mn-name:4.mn21": "The Simile of the Saw "},
    "sn": {"sn-name:1.sn56": "Linked Discourses on the Truths ", "sn-name:2.sn56.11": "Rolling Forth the Wheel "},
    "an": {"an-name:1.an1": "The Book of the Ones ", "an-name:3.an1.1-10": "What Occupies the Mind "},
    "dhp": {"dhp-name:1.dhp1-4": "1. Pairs "},
}
_NAMES_PLI = {
    "mn": {"mn-name:3.mn10": "Satipaṭṭhānasutta", "mn-name:4.mn21": "Kakacūpamasutta"},
    "sn": {"sn-name:2.sn56.11": "Dhammacakkappavattanasutta"},
    "an": {"an-name:3.an1.1-10": "Rūpādivagga"},
    "dhp": {"dhp-name:1.dhp1-4": "Yamakavagga"},
}
_BLURBS = {"mn": {"mn-blurbs:mn10": "The four kinds of mindfulness meditation, taught in detail."}}


def _dump(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")


def write_mini_corpus(root: Path) -> Path:
    """Write the tiny tree under root/suttacentral and return that folder."""
    tree = root / "suttacentral"
    for rel, build in MINI_FILES.items():
        en, pli = build()
        _dump(tree / _EN / f"{rel}_translation-en-sujato.json", en)
        _dump(tree / _PLI / f"{rel}_root-pli-ms.json", pli)
    for book, names in _NAMES_EN.items():
        _dump(tree / _EN / "name" / "sutta" / f"{book}-name_translation-en-sujato.json", names)
    for book, names in _NAMES_PLI.items():
        _dump(tree / "root" / "misc" / "site" / "name" / "sutta" / f"{book}-name_root-misc-site.json", names)
    for book, blurbs in _BLURBS.items():
        _dump(tree / "root" / "en" / "blurb" / f"{book}-blurbs_root-en.json", blurbs)
    _dump(tree / _EN / "_publication.json", {"license": "CC0"})
    return tree


def translation_file(tree: Path, rel: str) -> Path:
    """The English file of MINI_FILES key `rel`, e.g. translation_file(tree, "sutta/mn/mn10")."""
    return tree / _EN / f"{rel}_translation-en-sujato.json"


@pytest.fixture
def mini_corpus(tmp_path: Path) -> Path:
    """A SuttaCentral-shaped tree (English + Pali + names + a blurb): MN 10 (with an empty segment), MN 21, SN 56.11,
    the range file an1.1-10 and the Dhammapada chapter file dhp1-4. Returns the tree's root folder."""
    return write_mini_corpus(tmp_path / "corpus")


# --------------------------------------------------------------------------------------------------------------
# what an index holds, store by store
# --------------------------------------------------------------------------------------------------------------
@pytest.fixture
def index_state():
    """A function settings -> dict of what each store holds: docstore chunks (id -> record), Chroma IDs, BM25 IDs
    (as a list, so duplicates show), documents and manifest statuses. Compare two of them to compare indexes."""
    from dataclasses import asdict

    from indexing.pipeline import Indexes

    def state(settings: ScholarSettings) -> dict:
        indexes = Indexes(settings)
        try:
            bm25_ids = json.loads((settings.index_dir / "bm25" / "ids.json").read_text())
            return {
                "chunks": {c.chunk_id: asdict(c) for c in indexes.docstore.iter_chunks()},
                "chroma": sorted(indexes.chroma.collection.get(include=[])["ids"]),
                "bm25": sorted(bm25_ids),
                "documents": sorted(d.doc_id for d in indexes.docstore.documents()),
                "segments": sum(len(indexes.docstore.segments(d.doc_id)) for d in indexes.docstore.documents()),
                "manifest": {Path(k).name: e.status for k, e in indexes.docstore.manifest().items()},
            }
        finally:
            indexes.docstore.close()

    return state


# --------------------------------------------------------------------------------------------------------------
# the rest of the canon in miniature: verse books, a second translator, the Vinaya, names and parallels
# --------------------------------------------------------------------------------------------------------------
def _thag1_1() -> tuple[dict[str, str], dict[str, str]]:
    en = {
        "thag1.1:0.1": "Verses of the Senior Monks 1.1 ", "thag1.1:0.2": "The Book of the Ones ",
        "thag1.1:0.3": "Chapter One ", "thag1.1:0.4": "Subhūti ",
        "thag1.1:1.1": "My little hut is roofed and pleasant, <j>sheltered from the wind: ",
        "thag1.1:1.2": "rain as you please, god! ",
        "thag1.1:1.3": "My mind is <em>well</em> settled and freed. ",
    }
    pli = {"thag1.1:0.1": "Theragāthā 1.1 ", "thag1.1:0.4": "Subhūtittheragāthā ", "thag1.1:1.1": "Channā me kuṭikā sukhā nivātā, ",
           "thag1.1:1.2": "vassa deva yathāsukhaṁ; ", "thag1.1:1.3": "Cittaṁ me susamāhitaṁ vimuttaṁ. "}
    return en, pli


def _thig1_1() -> tuple[dict[str, str], dict[str, str]]:
    en = {"thig1.1:0.1": "Verses of the Senior Nuns 1.1 ", "thig1.1:0.2": "The Book of the Ones ",
          "thig1.1:0.3": "An Unnamed Nun (1st) ",
          "thig1.1:1.1": "Sleep softly, little nun, ", "thig1.1:1.2": "wrapped in the cloth you sewed yourself; ",
          "thig1.1:1.3": "for your desire has been quelled, ", "thig1.1:1.4": "like vegetables boiled dry in a pot. "}
    pli = {"thig1.1:1.1": "Sukhaṁ supāhi therike, ", "thig1.1:1.2": "katvā coḷena pārutā; ",
           "thig1.1:1.3": "Upasanto hi te rāgo, ", "thig1.1:1.4": "sukkhaḍākaṁ va kumbhiyaṁ. "}
    return en, pli


THIG1_1_SOMA = {
    "thig1.1:0.1": "Verses of the Elder Bhikkhunīs ", "thig1.1:0.2": "Chapter of the Ones ",
    "thig1.1:0.3": "Verses of a Certain Unknown Elder ",
    "thig1.1:1.1": "“Sleep with ease, Elder, ", "thig1.1:1.2": "wrapped in a rag. ",
    "thig1.1:1.3": "Your passion has been appeased ", "thig1.1:1.4": "like a dry vegetable in a pot.” ",
}


def _snp1_4() -> tuple[dict[str, str], dict[str, str]]:
    en = {"snp1.4:0.1": "Anthology of Discourses 1.4 ", "snp1.4:0.2": "With Bhāradvāja the Farmer ",
          "snp1.4:1.1": "Bhāradvāja the Farmer was ploughing with five hundred ploughs at sowing time. ",
          "snp1.4:6.1": "“Faith is my seed, fervor my rain, ", "snp1.4:6.2": "and wisdom is my yoke and plough.” "}
    pli = {k: f"kasibhāradvāja {k} " for k in en}
    return en, pli


def _bu_pj2() -> tuple[dict[str, str], dict[str, str]]:
    en = {"pli-tv-bu-vb-pj2:0.1": "Theravāda Collection on Monastic Law ",
          "pli-tv-bu-vb-pj2:0.2": "The Great Analysis ",
          "pli-tv-bu-vb-pj2:0.3": "The chapter on offenses entailing expulsion ",
          "pli-tv-bu-vb-pj2:0.4": "The second training rule on expulsion ",
          "pli-tv-bu-vb-pj2:1.1.1": "At that time the potter's son Venerable Dhaniya built a hut of clay. ",
          "pli-tv-bu-vb-pj2:1.1.2": "Then Dhaniya went to the keeper of the royal timber yard and took the king's "
                                    "timber, saying the king had given it. ",
          "pli-tv-bu-vb-pj2:1.2.1": "The king said: a monk should not be imprisoned or killed, but expelled. ",
          "pli-tv-bu-vb-pj2:2.1": "If a monk takes what is not given, with the intention to steal, he is expelled "
                                  "and excluded from the community: an offense entailing expulsion. "}
    pli = {k: f"adinnādāna {k} " for k in en}
    return en, pli


def _kd1() -> tuple[dict[str, str], dict[str, str]]:
    en = {"pli-tv-kd1:0.1": "Theravāda Collection on Monastic Law ", "pli-tv-kd1:0.2": "The Great Division ",
          "pli-tv-kd1:0.3": "The great chapter ",
          "pli-tv-kd1:1.1.1": "At one time the Buddha was staying at Uruvelā, just after his awakening. ",
          "pli-tv-kd1:6.29.1": "Venerable Koṇḍañña saw the Teaching and was the first to understand it. "}
    pli = {k: f"mahākhandhaka {k} " for k in en}
    return en, pli


def _bu_pm() -> tuple[dict[str, str], dict[str, str]]:
    en = {"pli-tv-bu-pm:0.2": "The monks’ rules ", "pli-tv-bu-pm:1.0": "Preliminaries ",
          "pli-tv-bu-pm:1.1": "Sweeping, and lamps, setting up of water and seats, before the observance day. "}
    pli = {k: f"pātimokkha {k} " for k in en}
    return en, pli


CANON_FILES = {
    "sutta/kn/thag/thag1.1": _thag1_1,
    "sutta/kn/thig/thig1.1": _thig1_1,
    "sutta/kn/snp/vagga1/snp1.4": _snp1_4,
}
VINAYA_FILES = {
    "vinaya/pli-tv-bu-vb/pli-tv-bu-vb-pj/pli-tv-bu-vb-pj2": _bu_pj2,
    "vinaya/pli-tv-kd/pli-tv-kd1": _kd1,
    "vinaya/pli-tv-bu-pm": _bu_pm,
}
PARALLELS = [
    {"parallels": ["mn10", "dn22", "ma98", "~mn119", " ea12.1 "]},
    {"parallels": ["dn22#132", "mn10#131", "sn47.1#2"]},
    {"parallels": ["snp1.4", "sn7.11", "sa98", "~mn53#17-#8"]},
    {"mentions": ["mn10", "pli-tv-bu-pm##pc51"]},
    {"parallels": ["sag##7.1", "Manusmṛti 2.121"]},
    {"parallels": ["sa379", "~pli-tv-kd1", "sn56.11"]},
    {"retells": ["ud2.1"]},  # a group of one relates nothing
    {"weird": ["mn10", "mn21"]},  # not a relation SuttaCentral defines
]


def write_canon_corpus(root: Path) -> Path:
    """The mini corpus plus Thag 1.1 (with `<j>` and `<em>`), Thig 1.1 by Sujato and by Soma, Snp 1.4, Bu Pj 2,
    Kd 1 and Bu Pm by Brahmali, their names and blurbs, an older collected file repeating Bu Pj 2, and a small
    parallels table with the source's quirks."""
    tree = write_mini_corpus(root)
    for rel, build in CANON_FILES.items():
        en, pli = build()
        _dump(tree / _EN / f"{rel}_translation-en-sujato.json", en)
        _dump(tree / _PLI / f"{rel}_root-pli-ms.json", pli)
    _dump(tree / "translation/en/soma/sutta/kn/thig/thig1.1_translation-en-soma.json", THIG1_1_SOMA)
    for rel, build in VINAYA_FILES.items():
        en, pli = build()
        _dump(tree / f"translation/en/brahmali/{rel}_translation-en-brahmali.json", en)
        _dump(tree / _PLI / f"{rel}_root-pli-ms.json", pli)
    collected = {k: "An older edition: " + v for k, v in _bu_pj2()[0].items()}
    collected["pli-tv-bu-vb-pj1-4:1.1"] = "Rules one to four, collected. "
    _dump(tree / "translation/en/brahmali/vinaya/pli-tv-bu-vb/pli-tv-bu-vb-pj1-4_translation-en-brahmali.json",
          collected)
    _dump(tree / _EN / "name/vinaya/pli-tv-bu-vb-name_translation-en-sujato.json",
          {"pli-tv-bu-vb-name:1.pli-tv-bu-vb-pj": "Expulsion ", "pli-tv-bu-vb-name:3.pli-tv-bu-vb-pj2": "Theft "})
    _dump(tree / "root/misc/site/name/vinaya/pli-tv-bu-vb-name_root-misc-site.json",
          {"pli-tv-bu-vb-name:3.pli-tv-bu-vb-pj2": "Adinnādāna"})
    _dump(tree / _EN / "name/vinaya/pli-tv-kd-name_translation-en-sujato.json", {"pli-tv-kd-name:1.pli-tv-kd1": "Going Forth"})
    _dump(tree / "root/misc/site/name/sutta/snp-name_root-misc-site.json", {"snp-name:5.snp1.4": "Kasibhāradvājasutta"})
    _dump(tree / _EN / "name/sutta/snp-name_translation-en-sujato.json", {"snp-name:5.snp1.4": "The Ploughing Brahmin "})
    _dump(tree / "root/en/blurb/pli-tv-bu-vb-blurbs_root-en.json",
          {"pli-tv-bu-vb-blurbs:pli-tv-bu-vb-pj2": "A monk who steals is <i lang='pi' translate='no'>pārājika</i>."})
    (tree / "relationship").mkdir(parents=True, exist_ok=True)
    (tree / "relationship" / "parallels.json").write_text(json.dumps(PARALLELS, ensure_ascii=False), encoding="utf-8")
    return tree


@pytest.fixture
def canon_corpus(tmp_path: Path) -> Path:
    return write_canon_corpus(tmp_path / "corpus")
