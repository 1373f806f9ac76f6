"""The one vocabulary: uids <-> display IDs for every book, collections and baskets, segment keys."""

from __future__ import annotations

import pytest

from indexing.vocabulary import (
    BOOKS,
    COLLECTIONS,
    find_book,
    parse_uid,
    segment_key,
    segment_ref,
    sutta_id_to_uid,
    uid_to_sutta_id,
)

# uid, display ID, collection, basket, group
FORMS = [
    ("dn22", "DN 22", "DN", "sutta", None),
    ("mn21", "MN 21", "MN", "sutta", None),
    ("sn35.28", "SN 35.28", "SN", "sutta", 35),
    ("sn12.104-114", "SN 12.104-114", "SN", "sutta", 12),
    ("an4.159", "AN 4.159", "AN", "sutta", 4),
    ("an1.1-10", "AN 1.1-10", "AN", "sutta", 1),
    ("dhp1", "Dhp 1", "KN", "sutta", None),
    ("dhp1-20", "Dhp 1-20", "KN", "sutta", None),
    ("kp5", "Kp 5", "KN", "sutta", None),
    ("ud2.1", "Ud 2.1", "KN", "sutta", 2),
    ("iti27", "Iti 27", "KN", "sutta", None),
    ("snp1.4", "Snp 1.4", "KN", "sutta", 1),
    ("thag1.1", "Thag 1.1", "KN", "sutta", 1),
    ("thig16.1", "Thig 16.1", "KN", "sutta", 16),
    ("pli-tv-bu-vb-pj3", "Bu Pj 3", "Vb", "vinaya", None),
    ("pli-tv-bu-vb-ss13", "Bu Ss 13", "Vb", "vinaya", None),
    ("pli-tv-bu-vb-ay2", "Bu Ay 2", "Vb", "vinaya", None),
    ("pli-tv-bu-vb-np30", "Bu Np 30", "Vb", "vinaya", None),
    ("pli-tv-bu-vb-pc1", "Bu Pc 1", "Vb", "vinaya", None),
    ("pli-tv-bu-vb-pd4", "Bu Pd 4", "Vb", "vinaya", None),
    ("pli-tv-bu-vb-sk75", "Bu Sk 75", "Vb", "vinaya", None),
    ("pli-tv-bu-vb-as1-7", "Bu As 1-7", "Vb", "vinaya", None),
    ("pli-tv-bi-vb-pj5", "Bi Pj 5", "Vb", "vinaya", None),
    ("pli-tv-bi-vb-pj1-4", "Bi Pj 1-4", "Vb", "vinaya", None),
    ("pli-tv-bi-vb-pc91-93", "Bi Pc 91-93", "Vb", "vinaya", None),
    ("pli-tv-kd1", "Kd 1", "Kd", "vinaya", None),
    ("pli-tv-kd22", "Kd 22", "Kd", "vinaya", None),
    ("pli-tv-pvr1", "Pvr 1", "Pvr", "vinaya", None),
    ("pli-tv-pvr1.1", "Pvr 1.1", "Pvr", "vinaya", 1),
    ("pli-tv-pvr21", "Pvr 21", "Pvr", "vinaya", None),
    ("pli-tv-bu-pm", "Bu Pm", "Pm", "vinaya", None),
    ("pli-tv-bi-pm", "Bi Pm", "Pm", "vinaya", None),
]


@pytest.mark.parametrize("uid, display, collection, basket, group", FORMS)
def test_every_book_round_trips_uid_and_display_id(uid, display, collection, basket, group):
    parsed = parse_uid(uid)
    assert parsed is not None, uid
    assert (parsed.sutta_id, parsed.collection, parsed.basket, parsed.group) == (display, collection, basket, group)
    assert uid_to_sutta_id(uid) == display
    assert sutta_id_to_uid(display) == uid
    assert sutta_id_to_uid(display.lower()) == uid
    assert sutta_id_to_uid(display.replace(" ", "")) == uid


@pytest.mark.parametrize("uid", ["mn1-3", "ud2", "sn12", "dn2.3", "pli-tv-bu-vb-xx1", "pli-tv-bu-pm1", "xyz1", ""])
def test_malformed_uids_are_refused(uid):
    assert parse_uid(uid) is None
    with pytest.raises(ValueError):
        uid_to_sutta_id(uid)


def test_display_ids_readers_write_convert_to_uids():
    assert sutta_id_to_uid("Bu. Pj. 3") == "pli-tv-bu-vb-pj3"
    assert sutta_id_to_uid("Dhp 1–20") == "dhp1-20"
    with pytest.raises(ValueError):
        sutta_id_to_uid("MN 21.3")
    with pytest.raises(ValueError):
        sutta_id_to_uid("Bu Xx 3")


def test_segment_refs_and_deeper_vinaya_segments():
    assert segment_ref("mn21:3.1") == "MN 21:3.1"
    assert segment_ref("pli-tv-bu-vb-pj1:5.1.1") == "Bu Pj 1:5.1.1"
    assert segment_ref("pli-tv-bu-pm:2.1") == "Bu Pm:2.1"
    assert segment_ref("ud2.1") == "Ud 2.1"


def test_segment_key_orders_numerically_and_nests_sections():
    assert segment_key("mn21:3.10") > segment_key("mn21:3.9")
    assert segment_key("pli-tv-bu-vb-pj1:5.1.10") > segment_key("pli-tv-bu-vb-pj1:5.1.2")
    assert segment_key("3.1") == segment_key("mn21:3.1") == (3, 1)
    assert segment_key("mn21:3.1")[:1] == segment_key("3")  # `3` is a prefix of every segment in section 3


def test_books_collections_and_baskets_agree():
    for book in BOOKS.values():
        assert book.collection in COLLECTIONS
        assert find_book(book.display) is book
        assert find_book(book.display.lower().replace(" ", "")) is book
        assert find_book(book.uid) is book
    assert {c.basket for c in COLLECTIONS.values()} == {"sutta", "vinaya"}
    assert find_book("Bu Pj").group_name == "" and find_book("SN").group_name == "saṁyutta"
