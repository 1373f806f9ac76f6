"""The typed answer draft: parsed once from the model's reply, changed by passes, rendered once."""

from chat.pipeline.checks import unsupported_claims, without_uncited
from chat.pipeline.draft import Origin, Reason, Status, parse, render
from chat.pipeline.hygiene import tidy_draft

REPLY = ("According to [MN 22:10.7], grasping the teaching wrongly is like grasping a snake by its tail. "
         "The snake turns and bites the hand [MN 22:10.8; MN 22:10.9].")


def test_a_reply_is_parsed_into_sentences_that_keep_their_references_where_they_were_written():
    draft = parse(REPLY)
    first, second = draft.lines
    assert first.text == "According to, grasping the teaching wrongly is like grasping a snake by its tail."
    assert first.refs == ["MN 22:10.7"] and second.refs == ["MN 22:10.8", "MN 22:10.9"]
    assert {line.origin for line in draft.lines} == {Origin.MODEL}
    assert {line.status for line in draft.lines} == {Status.STANDS}
    assert render(draft) == REPLY  # nothing changed: the reader reads the reply as written


def test_paragraphs_lists_and_headings_survive_the_round_trip():
    notes = "## The simile\n\nA snake grasped by the tail bites [MN 22:10.8].\n\n- One point [MN 22:10.7].\n- Two."
    assert render(parse(notes)) == notes


def test_a_removed_sentence_is_marked_not_cut_out_and_the_rest_renders_without_it():
    draft = tidy_draft(parse(f"{REPLY} What would the Buddha do [MN 22:10.9]?"))
    asked = draft.lines[-1]
    assert asked.status is Status.REMOVED and asked.reason is Reason.QUESTION
    assert render(draft) == REPLY
    assert unsupported_claims(draft) == []  # a matter of form is not a claim the reader is told about


def test_an_uncited_sentence_goes_and_the_reader_is_told_why_in_plain_words():
    draft = without_uncited(parse(f"{REPLY} The snake is a cobra."))
    assert render(draft) == REPLY
    [claim] = unsupported_claims(draft)
    assert claim.sentence == "The snake is a cobra." and claim.verdict == "uncited" and claim.kind == "uncited"
    assert claim.reason == "It cited no passage, so it could not be checked." and claim.revised_to == ""


def test_references_are_changed_by_the_bracket_never_by_editing_words():
    line = parse(REPLY).lines[1]
    dropped = line.map_refs(lambda i, ref: None if i == 0 else ref)
    assert dropped.written == "The snake turns and bites the hand [MN 22:10.9]."
    assert line.map_refs(lambda i, ref: None).written == "The snake turns and bites the hand."  # an empty bracket goes
    assert parse("The snake bites.").lines[0].cite(["MN 22:10.8"]).written == "The snake bites [MN 22:10.8]."
    assert parse("He said “it bites.”").lines[0].cite(["MN 22:10.8"]).written == "He said “it bites.” [MN 22:10.8]"


def test_quoted_passages_go_above_the_answer_as_block_quotes_of_their_own():
    draft = parse(REPLY).quoted_above([("If they grasp it by the tail, it would bite", "MN 22:10.8")])
    assert [line.origin for line in draft.lines] == [Origin.QUOTE, Origin.MODEL, Origin.MODEL]
    assert render(draft) == f"> “If they grasp it by the tail, it would bite” [MN 22:10.8]\n\n{REPLY}"
    # the answer's own words removed, the quotation stands alone
    gone = draft.map(lambda _, line: line.removed(Reason.NOT_IN_TEXT) if line.origin == "model" else line)
    assert render(gone) == "> “If they grasp it by the tail, it would bite” [MN 22:10.8]"
    assert gone.own() == [] and len(gone.did_not_stand()) == 2
