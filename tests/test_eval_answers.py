"""The answers eval's figures on hand-made answers: each one can pass and each one can fail."""

from chat.evals.answers import own_text, score_answer, score_content, summarize
from chat.pipeline.answer import Answer, AnswerSentence, Citation, ClaimVerdict

ROW = {"id": "q", "question": "What is burning?", "gold": ["SN 35.28"], "must": [["eye"], ["greed", "lust"]],
       "must_not": [["ocean"]]}
QUOTE = "> “The eye is burning. Sights are burning.” [SN 35.28:1.3–1.4]"


def _cite(ref: str, sutta_id: str) -> Citation:
    return Citation(ref=ref, sutta_id=sutta_id)


def test_facts_own_counts_only_the_answers_own_sentences_not_the_quoted_passages():
    quoted_only = Answer(answer=f"{QUOTE}\n\nBurning with greed [SN 35.28:1.5].", status="answered")
    scored = score_content(ROW, quoted_only)
    assert scored["facts"] == 1.0 and scored["facts_own"] == 0.5 and scored["missing_own"] == [["eye"]]

    said = Answer(answer=f"{QUOTE}\n\nThe eye is burning with greed [SN 35.28:1.5].", status="answered")
    assert score_content(ROW, said)["facts_own"] == 1.0


def test_typed_sentences_decide_what_is_the_answers_own():
    answer = Answer(answer="whatever the text says", status="answered", sentences=[
        AnswerSentence(text="The eye is burning.", origin="quote", citations=["SN 35.28:1.4"]),
        AnswerSentence(text="Everything burns with lust.", origin="model", citations=["SN 35.28:1.5"]),
    ])
    assert own_text(answer) == "Everything burns with lust."
    assert score_content(ROW, answer)["facts_own"] == 0.5


def test_own_words_and_clean_fail_for_an_answer_of_quotes_alone_or_with_a_sentence_withdrawn():
    evidence = Answer(answer=f"The texts I have say this (SN 35.28):\n\n{QUOTE}", status="answered")
    scored = score_content(ROW, evidence)
    assert not scored["own_words"] and not scored["clean"] and scored["evidence_only"]
    assert scored["facts_own"] == 0.0
    # the same lines under the sentence that says no text found names the person asked about
    unnamed = Answer(answer=f"None of the texts I found names Nanda; the closest passages are these (SN 35.28):\n\n"
                            f"{QUOTE}", status="answered")
    scored = score_content(ROW, unnamed)
    assert not scored["own_words"] and scored["evidence_only"]

    withdrawn = Answer(answer=f"{QUOTE}\n\nThe eye burns with greed [SN 35.28:1.5].", status="answered",
                       unsupported_claims=[ClaimVerdict(sentence="The ear is cold.", verdict="unsupported",
                                                        revised_to="")])
    scored = score_content(ROW, withdrawn)
    assert scored["own_words"] and not scored["clean"]

    kept = withdrawn.model_copy(update={"unsupported_claims": []})
    scored = score_content(ROW, kept)
    assert scored["own_words"] and scored["clean"] and scored["correct"]

    debris = kept.model_copy(update={"answer": kept.answer + " It is [] so."})
    assert not score_content(ROW, debris)["clean"]


def test_an_abstention_has_no_own_words():
    declined = Answer(answer="I don't find this in the texts I have.", status="abstained")
    scored = score_content(ROW, declined)
    assert not scored["own_words"] and scored["facts_own"] == 0.0 and not scored["correct"]


def test_citation_precision_is_the_share_of_citations_naming_a_gold_text():
    on = Answer(answer="a", status="answered", citations=[_cite("SN 35.28:1.4", "SN 35.28")])
    off = Answer(answer="b", status="answered", citations=[_cite("SN 35.28:1.4", "SN 35.28"),
                                                           _cite("MN 1:1.1", "MN 1"), _cite("MN 2:1.1", "MN 2")])
    assert summarize([score_answer(ROW, on)])["citation_precision"] == 1.0
    assert summarize([score_answer(ROW, on), score_answer(ROW, off)])["citation_precision"] == 0.5
    # an unanswerable question's citations are what an abstention offers to read: not counted
    unanswerable = {"id": "u", "gold": []}
    assert summarize([score_answer(unanswerable, off)])["citation_precision"] is None


def test_own_words_is_a_share_of_answered_questions():
    said = score_answer(ROW, Answer(answer="The eye is burning [SN 35.28:1.4].", status="answered"))
    said.update(score_content(ROW, Answer(answer="The eye is burning [SN 35.28:1.4].", status="answered")))
    quoted = score_answer(ROW, Answer(answer=QUOTE, status="answered"))
    quoted.update(score_content(ROW, Answer(answer=QUOTE, status="answered")))
    report = summarize([said, quoted])
    assert report["own_words"] == 0.5 and report["facts_own"] == 0.25
