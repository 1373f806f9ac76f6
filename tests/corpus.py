"""The test corpora, written in SuttaCentral's layout into a temporary folder; one writer for all of them.

The mini corpus: MN 10 (with an empty, abbreviated segment), MN 21, SN 56.11, the range file an1.1-10 and the
Dhammapada chapter file dhp1-4, with English and Pali names and a blurb. The tools corpus adds the awkward cases the
tools must handle: a file of range uids (`sn12.104-114` inside `sn12.93-213`), three suttas sharing the Pali title
Satipaṭṭhānasutta (MN 10, SN 43.5, AN 4.274), a stock passage repeated in SN 43.5 and AN 4.274, a sutta with a
one-word English title ("Burning", SN 35.28), DN 22, and a nicknames CSV (NICKNAMES).

The names corpus (cards, names, bridges) holds texts whose names and words are NOT in their passages: SN 22.99
"A Leash", whose passages speak of the ocean drying up and whose blurb alone holds "dog on a leash"; AN 1.47 and
AN 1.48 in the range file an1.41-50 with no titles of their own, AN 1.48's Pali saying `lahuparivattaṁ` (readers'
"Lahu-parivaṭṭa Sutta"); SN 1.42 Kiṁdadasutta ("Kindada"); MN 2 "All the Defilements" (older translations'
"taints"); AN 4.123 on the first absorption (Pali `paṭhamaṁ jhānaṁ`, readers' "first jhana"); AN 10.123 titled
"First" and a nickname "The Buddha's Last Words" (DN 16): generic names that must never resolve; SN 1.1.

The canon corpus adds the rest of the canon in miniature (see write_canon_corpus): verse with `<j>`, a second
translator, the Vinaya's deeper segments and names, and a parallels table with the source's quirks.
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


# ---- the names corpus ---------------------------------------------------------------------------------------
NAMES_NICKNAMES = """alias,sutta_id,evidence_segment
The Buddha's Last Words,DN 16,dn16:6.7.3
Dog Leash Simile,SN 22.99,sn22.99:1.1
"""


def _names_files() -> dict[str, tuple[dict[str, str], dict[str, str]]]:
    files = {}
    en = {"sn22.99:0.1": "Linked Discourses 22.99 ", "sn22.99:0.2": "10. Flowers ", "sn22.99:0.3": "A Leash "}
    pli = {"sn22.99:0.1": "Saṁyutta Nikāya 22.99 ", "sn22.99:0.2": "10. Pupphavagga ",
           "sn22.99:0.3": "Gaddulabaddhasutta "}
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
           "an1.48:1.1": "Nāhaṁ, bhikkhave, aññaṁ ekadhammampi samanupassāmi yaṁ evaṁ lahuparivattaṁ yathayidaṁ "
                         "cittaṁ. ",
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

    # a text named "The Ganges", and an abbreviated series whose title holds more of a reader's "River Ganges"
    en = {"sn15.8:0.1": "Linked Discourses 15.8 ", "sn15.8:0.2": "1. Grass and Sticks ", "sn15.8:0.3": "The Ganges ",
          "sn15.8:1.1": "There have been more eons than the grains of sand between the source of the Ganges and the "
                        "ocean. "}
    files["sutta/sn/sn15/sn15.8"] = (en, {k: f"gaṅgā {k} " for k in en})
    en = {"sn46.77-88:0.1": "Linked Discourses 46.77–88 ", "sn46.77-88:0.2": "8. Abbreviated Texts on the Ganges ",
          "sn46.77-88:0.3": "The Ganges River, Etc. ",
          "sn46.77-88:1.1": "The Ganges river slants, slopes, and inclines to the east. In the same way a mendicant "
                            "who develops the awakening factors slants, slopes, and inclines to extinguishment. "}
    files["sutta/sn/sn46/sn46.77-88"] = (en, {k: f"gaṅgānadī {k} " for k in en})
    return files


_NAMES_NAMES_PLI = {"sn": {"sn-name:1.sn22.99": "Gaddulabaddhasutta", "sn-name:2.sn1.42": "Kiṁdadasutta",
                     "sn-name:3.sn1.1": "Oghataraṇasutta"},
              "mn": {"mn-name:1.mn2": "Sabbāsavasutta"},
              "an": {"an-name:1.an4.123": "Paṭhamanānākaraṇasutta", "an-name:2.an10.123": "Paṭhamasutta"}}
_NAMES_BLURBS = {"sn": {"sn-blurbs:sn22.99": "Transmigration has no known beginning. Like a dog on a leash running "
                                       "around a post, beings keep circling the aggregates."}}



def write_names_corpus(root: Path) -> Path:
    """The names corpus (see the module docstring), under root/suttacentral."""
    return write_tree(root / "suttacentral", _names_files(), names_pli=_NAMES_NAMES_PLI, blurbs=_NAMES_BLURBS)


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
    pli = {"thag1.1:0.1": "Theragāthā 1.1 ", "thag1.1:0.4": "Subhūtittheragāthā ",
           "thag1.1:1.1": "Channā me kuṭikā sukhā nivātā, ",
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
    _dump(tree / _EN / "name/vinaya/pli-tv-kd-name_translation-en-sujato.json",
          {"pli-tv-kd-name:1.pli-tv-kd1": "Going Forth"})
    _dump(tree / "root/misc/site/name/sutta/snp-name_root-misc-site.json",
          {"snp-name:5.snp1.4": "Kasibhāradvājasutta"})
    _dump(tree / _EN / "name/sutta/snp-name_translation-en-sujato.json",
          {"snp-name:5.snp1.4": "The Ploughing Brahmin "})
    _dump(tree / "root/en/blurb/pli-tv-bu-vb-blurbs_root-en.json",
          {"pli-tv-bu-vb-blurbs:pli-tv-bu-vb-pj2": "A monk who steals is <i lang='pi' translate='no'>pārājika</i>."})
    (tree / "relationship").mkdir(parents=True, exist_ok=True)
    (tree / "relationship" / "parallels.json").write_text(json.dumps(PARALLELS, ensure_ascii=False), encoding="utf-8")
    return tree
