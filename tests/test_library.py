"""What the Library caches for the process: one evidence index and one reranker, cleared by `forget`."""

from __future__ import annotations

from tools.library import Library

from helpers_tools import open_library


def test_verifiers_share_the_librarys_evidence_index(tmp_path_factory):
    lib = open_library(tmp_path_factory.getbasetemp() / "tools-index")
    plain, dense = lib.verifier(), lib.verifier(dense=True)
    assert plain.index is dense.index is lib.evidence
    assert plain.dense is None and dense.dense is not None and lib.verifier(dense=True).dense is dense.dense
    assert lib.reranker() is lib.reranker()


def test_forget_clears_what_the_libraries_cached(tmp_path_factory):
    lib = open_library(tmp_path_factory.getbasetemp() / "tools-index")
    evidence, reranker = lib.evidence, lib.reranker()
    Library.forget()
    assert lib.evidence is not evidence and lib.reranker() is not reranker
    again = open_library(tmp_path_factory.getbasetemp() / "tools-index")
    assert again is not lib and again.evidence is not lib.evidence
