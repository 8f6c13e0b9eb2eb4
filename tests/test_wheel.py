"""A real install: the wheel built from this tree, installed into a fresh virtual environment away from the
source tree, runs `stepformer deck` and `stepformer translate` from another folder with its own assets.

The fresh environment has no pip and none of this tree: it sees the running environment's third-party
packages (torch, PySide6, …) through a .pth line naming their folder, and a .pth line is not followed into
that folder's own .pth files, so the editable install of this project stays out of sight.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.test_export import pdf_pages

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("pyproject.toml", "README.md", "main.py", "engine", "gui", "assets")


def pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", *args], check=True, timeout=300)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel of a copy of the source tree (building in place would leave build/ and egg-info here)."""
    src, out = tmp_path_factory.mktemp("src"), tmp_path_factory.mktemp("wheels")
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(ROOT / name, src / name)
    pip("wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(out), str(src))
    (built,) = out.glob("stepformer-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """The bin folder of a fresh virtual environment with the wheel installed."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    pip("--python", str(python), "install", "--no-deps", "--no-index", str(wheel))
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    outer = dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib"))
    (Path(site) / "outer_packages.pth").write_text("\n".join(outer) + "\n", encoding="utf-8")
    return venv / "bin"


def run(bin_dir: Path, cwd: Path, *args: str, **variables: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(QT_QPA_PLATFORM="offscreen", PYTHONIOENCODING="utf-8", **variables)
    return subprocess.run(
        [str(bin_dir / args[0]), *args[1:]], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def test_the_wheel_carries_every_module_and_asset_the_app_uses(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    modules = {p.relative_to(ROOT).as_posix() for d in ("engine", "gui") for p in (ROOT / d).rglob("*.py")}
    assert modules - names == set()  # a new package folder must be added to pyproject.toml's list
    assets = {
        "stepformer_assets/stage_texts.json",
        "stepformer_assets/i18n/stepformer_zh_CN.qm",
        "stepformer_assets/models/toy/weights.safetensors",
        "stepformer_assets/lessons/01-i-love-ai.json",
    }
    assert assets <= names


def test_installed_stepformer_runs_deck_and_translate_from_elsewhere(installed, tmp_path):
    where = run(installed, tmp_path, "python", "-c", "import engine.assets as a; print(a.__file__, a.ASSETS_DIR)")
    assert where.returncode == 0, where.stderr
    assert all(Path(p).is_relative_to(installed.parent) for p in where.stdout.split()), where.stdout

    done = run(installed, tmp_path, "stepformer", "translate", "--model", "toy", "I love AI")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "我 爱 人工智能"

    deck = tmp_path / "deck.pdf"
    done = run(
        installed, tmp_path, "stepformer", "deck", "--lesson", "i-love-ai", "--format", "pdf", "--out", deck.name
    )
    assert done.returncode == 0, done.stderr
    slides = int(re.search(r"(\d+) slides", done.stdout)[1])
    assert slides > 10 and len(pdf_pages(deck.read_bytes())) == slides


def test_installed_train_writes_the_users_data_folder_never_its_own_package(installed, tmp_path):
    data = tmp_path / "data"
    where = run(installed, tmp_path, "python", "-c", "import engine.assets as a; print(a.ASSETS_DIR)")
    shipped = Path(where.stdout.strip()) / "models" / "lm"
    assert shipped.is_relative_to(installed.parent), where.stdout
    before = {p.name: p.read_bytes() for p in shipped.iterdir()}

    done = run(installed, tmp_path, "stepformer", "train", "lm", "--epochs", "1", STEPFORMER_DATA_DIR=str(data))
    assert done.returncode == 0, done.stderr
    assert {p.name: p.read_bytes() for p in shipped.iterdir()} == before  # byte for byte
    mine = data / "models" / "lm"
    assert f"to {mine}: --model lm opens this copy now" in done.stdout

    ppl = json.loads((mine / "metrics.json").read_text(encoding="utf-8"))["perplexity"]
    done = run(installed, tmp_path, "stepformer", "evaluate", "--model", "lm", STEPFORMER_DATA_DIR=str(data))
    assert f"held-out perplexity {ppl:.2f}" in done.stdout, done.stderr  # --model lm opens the user's copy
