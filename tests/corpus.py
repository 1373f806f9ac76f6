"""The test corpora, written in SuttaCentral's layout into a temporary folder; one writer for all of them.

The mini corpus: MN 10 (with an empty, abbreviated segment), MN 21, SN 56.11, the range file an1.1-10 and the
Dhammapada chapter file dhp1-4, with English and Pali names and a blurb. The tools corpus adds the awkward cases the
tools must handle: a file of range uids (`sn12.104-114` inside `sn12.93-213`), three suttas sharing the Pali title
Satipaṭṭhānasutta (MN 10, SN 43.5, AN 4.274), a stock passage repeated in SN 43.5 and AN 4.274, a sutta with a
one-word English title ("Burning", SN 35.28), DN 22, and a nicknames CSV (NICKNAMES).
"""

from __future__ import annotations

import json
from pathlib import Path

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
        "sn56.11:6.1": "This is the noble truth of the origin of suffering: it is the craving that leads to "
        "future lives. ",
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


def write_tree(tree: Path, files: dict[str, tuple[dict[str, str], dict[str, str]]], *,
               names_en: dict[str, dict[str, str]] | None = None, names_pli: dict[str, dict[str, str]] | None = None,
               blurbs: dict[str, dict[str, str]] | None = None) -> Path:
    """Write SuttaCentral's layout under `tree`: English and Pali segment files by relative path, name and blurb
    files by book. Names already in a file are kept, so trees can be written on top of each other."""
    for rel, (en, pli) in files.items():
        _dump(tree / _EN / f"{rel}_translation-en-sujato.json", en)
        _dump(tree / _PLI / f"{rel}_root-pli-ms.json", pli)
    for folder, names in ((tree / _EN / "name" / "sutta", names_en or {}),
                          (tree / "root" / "misc" / "site" / "name" / "sutta", names_pli or {})):
        suffix = "translation-en-sujato" if folder.is_relative_to(tree / _EN) else "root-misc-site"
        for book, entries in names.items():
            path = folder / f"{book}-name_{suffix}.json"
            existing = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
            _dump(path, {**existing, **entries})
    for book, entries in (blurbs or {}).items():
        _dump(tree / "root" / "en" / "blurb" / f"{book}-blurbs_root-en.json", entries)
    _dump(tree / _EN / "_publication.json", {"license": "CC0"})
    return tree


def write_mini_corpus(root: Path) -> Path:
    """Write the tiny tree under root/suttacentral and return that folder: MN 10 (with an empty segment), MN 21,
    SN 56.11, the range file an1.1-10 and the Dhammapada chapter file dhp1-4."""
    files = {rel: build() for rel, build in MINI_FILES.items()}
    return write_tree(root / "suttacentral", files, names_en=_NAMES_EN, names_pli=_NAMES_PLI, blurbs=_BLURBS)


def translation_file(tree: Path, rel: str) -> Path:
    """The English file of MINI_FILES key `rel`, e.g. translation_file(tree, "sutta/mn/mn10")."""
    return tree / _EN / f"{rel}_translation-en-sujato.json"


STOCK = ("Mendicants, a mendicant meditates by observing an aspect of the body, keen, aware and mindful, rid of "
         "desire and aversion for the world, and this is called the path that goes to the unconditioned. ")


def _extra_files() -> dict[str, tuple[dict[str, str], dict[str, str]]]:
    files: dict[str, tuple[dict[str, str], dict[str, str]]] = {}
    en = {"sn12.93-103:0.1": "Linked Discourses 12.93–103 ", "sn12.93-103:0.2": "10. Abbreviated ",
          "sn12.93-103:0.3": "Practice on Old Age ",
          "sn12.93-103:1.1": "Someone who has not seen old age and death should practice to understand it. ",
          "sn12.104-114:0.1": "Linked Discourses 12.104–114 ", "sn12.104-114:0.2": "10. Abbreviated ",
          "sn12.104-114:0.3": "A Teacher on Rebirth ",
          "sn12.104-114:1.1": "Someone who does not know rebirth as it is should seek a teacher for the gnostic "
                              "vision. "}
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


_TOOLS_NAMES_PLI = {
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


def write_tools_corpus(root: Path) -> Path:
    """The mini corpus plus the tools' awkward cases (see the module docstring), under root/suttacentral."""
    tree = write_mini_corpus(root)
    return write_tree(tree, _extra_files(), names_pli=_TOOLS_NAMES_PLI)
