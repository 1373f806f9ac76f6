"""A tiny index for the card, name and bridge tests: texts whose names and words are NOT in their passages.

- SN 22.99 "A Leash": its chunks speak of the ocean drying up; only its blurb holds "dog on a leash".
- AN 1.47 and AN 1.48 inside the range file an1.41-50, with no titles of their own (only the chapter's); AN 1.48's
  Pali says `lahuparivattaṁ`, which readers make into "Lahu-parivaṭṭa Sutta".
- SN 1.42 "Giving What?" / Kiṁdadasutta (readers write "Kindada").
- MN 2 "All the Defilements" / Sabbāsavasutta: Sujato's "defilements" where older translations say "taints".
- AN 4.123 on the first absorption (Pali `paṭhamaṁ jhānaṁ`): readers ask about "the first jhana".
- AN 10.123 titled "First", and a nickname "The Buddha's Last Words" (for DN 16): generic names that must
  never resolve.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import FakeEmbedding
from helpers_tools import cached_index

from indexing.settings import ScholarSettings
from tools.library import Library

_EN = "translation/en/sujato"
_PLI = "root/pli/ms"

NICKNAMES = """alias,sutta_id,evidence_segment
The Buddha's Last Words,DN 16,dn16:6.7.3
Dog Leash Simile,SN 22.99,sn22.99:1.1
"""


def _files() -> dict[str, tuple[dict[str, str], dict[str, str]]]:
    files = {}
    en = {"sn22.99:0.1": "Linked Discourses 22.99 ", "sn22.99:0.2": "10. Flowers ", "sn22.99:0.3": "A Leash "}
    pli = {"sn22.99:0.1": "Saṁyutta Nikāya 22.99 ", "sn22.99:0.2": "10. Pupphavagga ", "sn22.99:0.3": "Gaddulabaddhasutta "}
    for i in range(1, 6):
        en[f"sn22.99:{i}.1"] = (f"There comes a time when the ocean dries up and evaporates and is no more, time {i}. "
                                "But still there is no making an end of suffering for sentient beings roaming. ")
        pli[f"sn22.99:{i}.1"] = f"Hoti so, bhikkhave, samayo yaṁ mahāsamuddo ussussati {i}. "
    files["sutta/sn/sn22/sn22.99"] = (en, pli)

    en = {"an1.41:0.1": "Numbered Discourses 1.41–50 ", "an1.41:0.2": "The Chapter on a Spike ",
          "an1.47:1.1": "Mendicants, I do not see a single thing that is as pliable and workable as the mind. ",
          "an1.48:1.1": "Mendicants, I do not see a single thing that is as quick to change as the mind. ",
          "an1.48:1.2": "So much so that it is not easy to give a simile for how quickly the mind changes. "}
    pli = {"an1.41:0.1": "Aṅguttara Nikāya 1.41–50 ", "an1.41:0.2": "5. Paṇihitaacchavagga ",
           "an1.47:1.1": "Nāhaṁ, bhikkhave, aññaṁ ekadhammampi samanupassāmi yaṁ evaṁ mudu ca hoti kammaññañca. ",
           "an1.48:1.1": "Nāhaṁ, bhikkhave, aññaṁ ekadhammampi samanupassāmi yaṁ evaṁ lahuparivattaṁ yathayidaṁ cittaṁ. ",
           "an1.48:1.2": "Yāvañcidaṁ, bhikkhave, upamāpi na sukarā yāva lahuparivattaṁ cittanti. "}
    files["sutta/an/an1/an1.41-50"] = (en, pli)

    en = {"sn1.42:0.1": "Linked Discourses 1.42 ", "sn1.42:0.2": "5. On Fire ", "sn1.42:0.3": "Giving What? ",
          "sn1.42:1.1": "Giving what do you give strength? Giving what do you give beauty? "}
    pli = {"sn1.42:0.1": "Saṁyutta Nikāya 1.42 ", "sn1.42:0.2": "5. Ādittavagga ", "sn1.42:0.3": "Kiṁdadasutta ",
           "sn1.42:1.1": "Kiṁdado balado hoti, kiṁdado hoti vaṇṇado. "}
    files["sutta/sn/sn1/sn1.42"] = (en, pli)

    en = {"mn2:0.1": "Middle Discourses 2 ", "mn2:0.2": "All the Defilements ",
          "mn2:1.1": "Mendicants, I will teach you the explanation of the restraint of all defilements. ",
          "mn2:2.1": "Some defilements should be given up by seeing, some by restraint, some by using. "}
    files["sutta/mn/mn2"] = (en, {k: f"sabbāsava {k} " for k in en})

    en = {"an4.123:0.1": "Numbered Discourses 4.123 ", "an4.123:0.2": "13. Fear ", "an4.123:0.3": "Differences ",
          "an4.123:1.1": "Firstly, a person enters and remains in the first absorption, which has the rapture and "
                         "bliss born of seclusion. They enjoy it and like it. "}
    pli = {"an4.123:0.1": "Aṅguttara Nikāya 4.123 ", "an4.123:0.2": "13. Bhayavagga ",
           "an4.123:0.3": "Paṭhamanānākaraṇasutta ",
           "an4.123:1.1": "Idha, bhikkhave, ekacco puggalo vivicceva kāmehi paṭhamaṁ jhānaṁ upasampajja viharati. "}
    files["sutta/an/an4/an4.123"] = (en, pli)

    en = {"an10.123:0.1": "Numbered Discourses 10.123 ", "an10.123:0.2": "13. Purified ", "an10.123:0.3": "First ",
          "an10.123:1.1": "These ten things are purified and cleansed only in the training of a Holy One: right view "
                          "and right thought. "}
    files["sutta/an/an10/an10.123"] = (en, {k: f"paṭhama {k} " for k in en})

    en = {"sn1.1:0.1": "Linked Discourses 1.1 ", "sn1.1:0.2": "1. A Reed ", "sn1.1:0.3": "Crossing the Flood ",
          "sn1.1:1.1": "Good sir, how did you cross the flood? By not halting and not straining I crossed the flood. "}
    files["sutta/sn/sn1/sn1.1"] = (en, {k: f"oghataraṇa {k} " for k in en})
    return files


_NAMES_PLI = {"sn": {"sn-name:1.sn22.99": "Gaddulabaddhasutta", "sn-name:2.sn1.42": "Kiṁdadasutta",
                     "sn-name:3.sn1.1": "Oghataraṇasutta"},
              "mn": {"mn-name:1.mn2": "Sabbāsavasutta"},
              "an": {"an-name:1.an4.123": "Paṭhamanānākaraṇasutta", "an-name:2.an10.123": "Paṭhamasutta"}}
_BLURBS = {"sn": {"sn-blurbs:sn22.99": "Transmigration has no known beginning. Like a dog on a leash running "
                                       "around a post, beings keep circling the aggregates."}}


def _dump(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")


def write_names_corpus(root: Path) -> Path:
    tree = root / "suttacentral"
    for rel, (en, pli) in _files().items():
        _dump(tree / _EN / f"{rel}_translation-en-sujato.json", en)
        _dump(tree / _PLI / f"{rel}_root-pli-ms.json", pli)
    for book, names in _NAMES_PLI.items():
        _dump(tree / "root" / "misc" / "site" / "name" / "sutta" / f"{book}-name_root-misc-site.json", names)
    for book, blurbs in _BLURBS.items():
        _dump(tree / "root" / "en" / "blurb" / f"{book}-blurbs_root-en.json", blurbs)
    return tree


def names_index(base: Path) -> tuple[ScholarSettings, FakeEmbedding]:
    """The tiny names index (built once per session), with an empty other-translations table."""
    titles = base / "titles.csv"
    base.mkdir(parents=True, exist_ok=True)
    titles.write_text("alias,sutta_id,translator,source\n", encoding="utf-8")
    return cached_index("names", base, write_names_corpus, NICKNAMES, titles_csv=titles)


def open_names_library(base: Path, **overrides) -> Library:
    settings, embed = names_index(base)
    if overrides:
        settings = settings.model_copy(update=overrides)
    return Library.open(settings, embed_model=embed)
