"""Every file or folder the README names (gui/…, engine/…, tests/…, assets/…) exists: a moved file leaves no
stale path behind in the documentation."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PATH = re.compile(r"(?<![\w./-])((?:gui|engine|tests|assets)/[\w./*-]*)")


def named_paths(text: str) -> set[str]:
    """The repository paths in `text`, without the punctuation that ends a sentence after them."""
    return {match.rstrip(".,;:") for match in PATH.findall(text)}


def missing(paths: set[str]) -> list[str]:
    """Those of `paths` that are no file or folder here (a pattern with * must match one)."""
    return sorted(p for p in paths if not (any(ROOT.glob(p)) if "*" in p else (ROOT / p).exists()))


def test_the_finder_sees_paths_and_misses():
    text = "See `engine/trace.py`, the folder gui/views/ and assets/lessons/*.json. Not engine/nothing.py."
    assert named_paths(text) == {"engine/trace.py", "gui/views/", "assets/lessons/*.json", "engine/nothing.py"}
    assert missing(named_paths(text)) == ["engine/nothing.py"]
    assert named_paths("a.engine/x.py and my-gui/x") == set()


def test_every_path_the_readme_names_exists():
    paths = named_paths((ROOT / "README.md").read_text(encoding="utf-8"))
    assert {"engine/trace.py", "gui/views/matrix_view.py", "gui/state/app_state.py"} <= paths
    assert missing(paths) == []
