"""A tiny index for the retrieval-tool tests: conftest's mini corpus plus the awkward cases the tools must handle.

Added on top: a file of range uids (`sn12.104-114` inside `sn12.93-213`), three suttas sharing the Pali title
Satipaṭṭhānasutta (MN 10, SN 43.5, AN 4.274), a stock passage repeated in SN 43.5 and AN 4.274, a sutta with a
one-word English title ("Burning", SN 35.28), DN 22, and a nicknames CSV. Built once per test session.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

from conftest import FakeEmbedding, write_mini_corpus  # noqa: I001 - pytest puts tests/ on sys.path

from indexing.pipeline import ingest
from indexing.settings import ScholarSettings
from tools.library import Library

_EN = "translation/en/sujato"
_PLI = "root/pli/ms"
STOCK = ("Mendicants, a mendicant meditates by observing an aspect of the body, keen, aware and mindful, rid of "
         "desire and aversion for the world, and this is called the path that goes to the unconditioned. ")


def _extra_files() -> dict[str, tuple[dict[str, str], dict[str, str]]]:
    files: dict[str, tuple[dict[str, str], dict[str, str]]] = {}
    en = {"sn12.93-103:0.1": "Linked Discourses 12.93–103 ", "sn12.93-103:0.2": "10. Abbreviated ",
          "sn12.93-103:0.3": "Practice on Old Age ",
          "sn12.93-103:1.1": "Someone who has not seen old age and death should practice to understand it. ",
          "sn12.104-114:0.1": "Linked Discourses 12.104–114 ", "sn12.104-114:0.2": "10. Abbreviated ",
          "sn12.104-114:0.3": "A Teacher on Rebirth ",
          "sn12.104-114:1.1": "Someone who does not know rebirth as it is should seek a teacher for the gnostic vision. "}
    files["sutta/sn/sn12/sn12.93-213"] = (en, {k: f"jarāmaraṇa {k} " for k in en})
    en = {"sn35.28:0.1": "Linked Discourses 35.28 ", "sn35.28:0.2": "3. All ", "sn35.28:0.3": "Burning ",
          "sn35.28:1.1": "At one time the Buddha was staying near Gayā, at Gayā Head. ",
          "sn35.28:1.3": "Mendicants, all is burning. And what is the all that is burning? ",
          "sn35.28:1.4": "The eye is burning. Sights are burning. Eye consciousness is burning. ",
          "sn35.28:2.1": "Burning with what? Burning with the fires of greed, hate and delusion, I say. "}
    files["sutta/sn/sn35/sn35.28"] = (en, {k: f"ādittaṁ {k} " for k in en})
    en = {"sn43.5:0.1": "Linked Discourses 43.5 ", "sn43.5:0.2": "1. The First Chapter ",
          "sn43.5:0.3": "Mindfulness Meditation ", "sn43.5:1.1": STOCK}
    files["sutta/sn/sn43/sn43.5"] = (en, {k: f"satipaṭṭhāna {k} " for k in en})
    en = {"an4.274:0.1": "Numbered Discourses 4.274 ", "an4.274:0.2": "27. Mindfulness Meditation ",
          "an4.274:0.3": "Mindfulness Meditation ", "an4.274:1.1": STOCK}
    files["sutta/an/an4/an4.274"] = (en, {k: f"satipaṭṭhāna {k} " for k in en})
    en = {"dn22:0.1": "Long Discourses 22 ", "dn22:0.2": "The Longer Discourse on Mindfulness Meditation ",
          "dn22:1.1": "So I have heard. ",
          "dn22:18.1": "And what is the noble truth of the origin of suffering? It's the craving that leads to "
          "future lives, mixed up with relishing and greed, looking for enjoyment in various different realms. "}
    # Long enough to be several chunks, most of them heavy with the words of the question "what is the noble
    # truth of the origin of suffering" in another order: only 18.1 has them as the question has them.
    for i in range(1, 13):
        en[f"dn22:17.{i}"] = (f"In the {i}th way they truly understand suffering: suffering, its origin, its "
                              "cessation; the truth of suffering is noble, noble is the truth of suffering, and the "
                              "origin and the cessation of suffering are truly understood. ")
    en = dict(sorted(en.items(), key=lambda kv: [int(x) for x in kv[0].split(":")[1].split(".")]))
    files["sutta/dn/dn22"] = (en, {k: f"mahāsatipaṭṭhāna {k} " for k in en})
    return files


_NAMES_PLI = {
    "sn": {"sn-name:10.sn35.28": "Ādittapariyāyasutta", "sn-name:11.sn43.5": "Satipaṭṭhānasutta",
           "sn-name:12.sn12.104-114": "Satthusutta"},
    "an": {"an-name:5.an4.274": "Satipaṭṭhānasutta"},
    "dn": {"dn-name:1.dn22": "Mahāsatipaṭṭhānasutta"},
}
NICKNAMES = """alias,sutta_id,evidence_segment
Fire Sermon,SN 35.28,sn35.28:1.3
The Fire Sermon,SN 35.28,sn35.28:1.3
Ādittapariyāya Sutta,SN 35.28,sn35.28:1.3
Simile of the Saw,MN 21,mn21:20.1
Kakacūpama Sutta,MN 21,mn21:0.1
Satipaṭṭhāna Sutta,MN 10,mn10:0.1
Mahāsatipaṭṭhāna Sutta,DN 22,dn22:0.1
"""


def _dump(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")


def write_tools_corpus(root: Path) -> Path:
    tree = write_mini_corpus(root)
    for rel, (en, pli) in _extra_files().items():
        _dump(tree / _EN / f"{rel}_translation-en-sujato.json", en)
        _dump(tree / _PLI / f"{rel}_root-pli-ms.json", pli)
    for book, names in _NAMES_PLI.items():
        path = tree / "root" / "misc" / "site" / "name" / "sutta" / f"{book}-name_root-misc-site.json"
        existing = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        _dump(path, {**existing, **names})
    return tree


_BUILT: dict[str, tuple[ScholarSettings, FakeEmbedding]] = {}
_LOCK = threading.Lock()


def cached_index(name: str, base: Path, write_corpus, nicknames: str, **settings) -> tuple[ScholarSettings, FakeEmbedding]:
    """Settings and embedding model of a tiny index built once per test session (first `base` wins): the corpus
    `write_corpus(base / "corpus")` writes, with `nicknames` as the nicknames CSV and any other settings given."""
    with _LOCK:
        if name not in _BUILT:
            tree = write_corpus(base / "corpus")
            csv_path = base / "nicknames.csv"
            csv_path.write_text(nicknames, encoding="utf-8")
            config = ScholarSettings(_env_file=None, index_dir=base / "index", corpus_paths=[tree],
                                     nicknames_csv=csv_path, chroma_url=None, **settings)
            embed = FakeEmbedding(model_name="fake-hash-64", embed_batch_size=16)
            ingest(config, [tree], embed_model=embed, progress=False)
            _BUILT[name] = (config, embed)
        return _BUILT[name]


def tools_index(base: Path) -> tuple[ScholarSettings, FakeEmbedding]:
    """Settings and embedding model of the shared tiny index under `base` (built on first use)."""
    return cached_index("index", base, write_tools_corpus, NICKNAMES)


def open_library(base: Path, **overrides) -> Library:
    settings, embed = tools_index(base)
    if overrides:
        settings = settings.model_copy(update=overrides)
    return Library.open(settings, embed_model=embed)
