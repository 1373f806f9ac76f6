"""The ONNX backend: the same vectors as the torch model it is exported from, exported once, one backend per index."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from indexing.embeddings import (
    backend_of,
    build_embed_model,
    embed_model_name,
    packaged_minilm_path,
    settings_for_index,
)
from indexing.settings import ScholarSettings

TEXTS = ["MN 21 The Simile of the Saw: bear with harsh speech.", "So I have heard.",
         "SN 35.28 Burning: the eye is burning, sights are burning, with the fire of greed, hate and delusion."]


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A two-layer BERT with random weights and the packaged MiniLM's tokenizer: the real model's shape, small."""
    import torch
    from transformers import BertConfig, BertModel

    folder = tmp_path_factory.mktemp("tiny-bert")
    torch.manual_seed(0)
    config = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=128)
    BertModel(config).eval().save_pretrained(folder)
    for name in ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json"):
        shutil.copy(packaged_minilm_path() / name, folder / name)
    (folder / "sentence_bert_config.json").write_text('{"max_seq_length": 16, "do_lower_case": false}')
    return folder


def _torch_vectors(folder: Path, texts: list[str], max_length: int) -> np.ndarray:
    """What sentence-transformers computes for a mean-pooled, normalised model, written out with torch."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(folder))
    model = AutoModel.from_pretrained(str(folder)).eval()
    batch = tokenizer(texts, padding=True, truncation=True, max_length=max_length, return_tensors="pt")
    with torch.no_grad():
        hidden = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).float()
    pooled = (hidden * mask).sum(1) / mask.sum(1)
    return torch.nn.functional.normalize(pooled, dim=1).numpy()


def _settings(settings: ScholarSettings, folder: Path, backend: str) -> ScholarSettings:
    return settings.model_copy(update={"embed_model": str(folder), "embed_backend": backend,
                                       "embed_onnx_dir": settings.index_dir.parent / "onnx"})


def test_onnx_vectors_equal_the_torch_models(settings: ScholarSettings, tiny_bert: Path) -> None:
    model = build_embed_model(_settings(settings, tiny_bert, "onnx"))
    got = np.asarray(model.get_text_embedding_batch(TEXTS))
    want = _torch_vectors(tiny_bert, TEXTS, max_length=16)  # the third text is cut at 16 tokens on both sides
    assert got.shape == want.shape
    assert np.abs(got - want).max() < 1e-5
    assert np.allclose(model.get_query_embedding(TEXTS[1]), want[1], atol=1e-5)


def test_int8_stays_close_to_fp32(settings: ScholarSettings, tiny_bert: Path) -> None:
    fp32 = np.asarray(build_embed_model(_settings(settings, tiny_bert, "onnx")).get_text_embedding_batch(TEXTS))
    int8 = np.asarray(build_embed_model(_settings(settings, tiny_bert, "onnx-int8")).get_text_embedding_batch(TEXTS))
    cosines = (fp32 * int8).sum(axis=1)
    assert cosines.min() > 0.95
    assert not np.allclose(fp32, int8, atol=1e-6)  # it is a different graph, not the fp32 one again


def test_export_is_made_once_and_again_when_the_weights_change(settings: ScholarSettings, tiny_bert: Path,
                                                               tmp_path: Path) -> None:
    folder = tmp_path / "model"
    shutil.copytree(tiny_bert, folder)
    config = _settings(settings, folder, "onnx")
    build_embed_model(config)
    graphs = list(config.resolved_onnx_dir.glob("*.onnx"))
    assert len(graphs) == 1
    made = graphs[0].stat().st_mtime_ns
    build_embed_model(config)
    assert graphs[0].stat().st_mtime_ns == made
    weights = folder / "model.safetensors"
    weights.write_bytes(weights.read_bytes())  # a new copy of the weights: a new file time
    build_embed_model(config)
    assert graphs[0].stat().st_mtime_ns != made
    assert not list(config.resolved_onnx_dir.glob(".*.tmp"))


def test_the_backend_is_part_of_the_recorded_name(settings: ScholarSettings) -> None:
    names = {b: embed_model_name(settings.model_copy(update={"embed_backend": b}))
             for b in ("torch", "onnx", "onnx-int8")}
    assert names["torch"] == "local:all-MiniLM-L6-v2"  # what indexes built before the ONNX backend recorded
    assert len(set(names.values())) == 3
    assert {b: backend_of(n) for b, n in names.items()} == {b: b for b in names}
    assert backend_of("ollama:nomic-embed-text") is None


def test_queries_follow_the_backend_that_built_the_index(settings: ScholarSettings) -> None:
    onnx = settings.model_copy(update={"embed_backend": "onnx"})
    assert settings_for_index(onnx, "local:all-MiniLM-L6-v2").embed_backend == "torch"
    assert settings_for_index(onnx, "local:all-MiniLM-L6-v2+onnx-int8").embed_backend == "onnx-int8"
    assert settings_for_index(onnx, None) is onnx
    assert settings_for_index(onnx, embed_model_name(onnx)) is onnx
    # another model or provider is not silently swapped in: that is the user's setting to change
    assert settings_for_index(onnx, "local:other-model+onnx-int8") is onnx
    assert settings_for_index(onnx, "ollama:nomic-embed-text") is onnx


def test_an_index_keeps_its_backend_unless_another_is_asked_for(settings: ScholarSettings, mini_corpus: Path,
                                                                fake_embed) -> None:
    from indexing.pipeline import ingest
    from indexing.stores.docstore import DocStore

    def recorded() -> object:
        store = DocStore(settings.index_dir / "docstore.sqlite")
        try:
            return store.info("embed_model")
        finally:
            store.close()

    first = ingest(settings.model_copy(update={"embed_backend": "torch"}), [mini_corpus], embed_model=fake_embed,
                   progress=False)
    assert first.chunks_written > 0 and recorded() == "local:all-MiniLM-L6-v2"

    default = ScholarSettings(_env_file=None, index_dir=settings.index_dir, corpus_paths=[mini_corpus],
                              chroma_url=None)  # the backend left to its default (ONNX int8)
    assert default.embed_backend == "onnx-int8"
    again = ingest(default, [mini_corpus], embed_model=fake_embed, progress=False)
    assert again.chunks_written == 0 and again.cards_embedded == 0 and recorded() == "local:all-MiniLM-L6-v2"

    switched = ingest(default.model_copy(update={"embed_backend": "onnx"}), [mini_corpus], embed_model=fake_embed,
                      progress=False)
    assert switched.chunks_embedded == first.chunks_embedded > 0 and recorded() == "local:all-MiniLM-L6-v2+onnx"


@pytest.fixture(scope="module")
def tiny_mpnet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A two-layer MPNet (no token types; padding id 1, as all-mpnet-base-v2) with a tokenizer whose pad token is
    "<pad>": the shape of the second-stage model, small."""
    import json

    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import MPNetConfig, MPNetModel

    folder = tmp_path_factory.mktemp("tiny-mpnet")
    words = ["<s>", "<pad>", "</s>", "[UNK]", *sorted({w.lower().strip(".,:") for t in TEXTS for w in t.split()})]
    vocab = {w: i for i, w in enumerate(words)}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Whitespace()])
    tokenizer.post_processor = processors.TemplateProcessing(single="<s> $A </s>", special_tokens=[("<s>", 0),
                                                                                                    ("</s>", 2)])
    tokenizer.save(str(folder / "tokenizer.json"))
    (folder / "special_tokens_map.json").write_text(json.dumps({"pad_token": "<pad>", "unk_token": "[UNK]"}))
    (folder / "sentence_bert_config.json").write_text('{"max_seq_length": 16, "do_lower_case": false}')
    torch.manual_seed(0)
    config = MPNetConfig(vocab_size=len(vocab), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                         intermediate_size=64, max_position_embeddings=64, pad_token_id=1)
    MPNetModel(config).eval().save_pretrained(folder)
    return folder


def test_a_model_without_token_types_is_exported_and_matches_torch_when_padded(settings: ScholarSettings,
                                                                               tiny_mpnet: Path) -> None:
    import torch
    from tokenizers import Tokenizer
    from transformers import AutoModel

    model = build_embed_model(_settings(settings, tiny_mpnet, "onnx"))
    got = np.asarray(model.get_text_embedding_batch(TEXTS))  # one batch: the short texts are padded
    tokenizer = Tokenizer.from_file(str(tiny_mpnet / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=16)  # the third text is cut at 16 tokens on both sides
    torch_model = AutoModel.from_pretrained(str(tiny_mpnet)).eval()
    want = []
    for text in TEXTS:  # one at a time in torch: no padding at all
        ids = torch.tensor([tokenizer.encode(text).ids])
        with torch.no_grad():
            hidden = torch_model(input_ids=ids, attention_mask=torch.ones_like(ids)).last_hidden_state[0]
        pooled = hidden.mean(0)
        want.append((pooled / pooled.norm()).numpy())
    assert np.abs(got - np.array(want)).max() < 1e-5
