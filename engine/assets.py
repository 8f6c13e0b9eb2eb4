"""Where the shipped assets are (lessons, trained models, translations, stage texts): the one place that knows.

From the source tree (`python main.py`, an editable install, the tests) they are the `assets/` folder next to
`engine/`; an installed wheel carries the same folder as the package `stepformer_assets` (see pyproject.toml),
found with importlib.resources.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from .errors import EngineError

PACKAGE = "stepformer_assets"
_SOURCE_ROOT = Path(__file__).resolve().parent.parent


def assets_dir() -> Path:
    """The folder of the shipped assets; EngineError when this installation has none."""
    if (_SOURCE_ROOT / "pyproject.toml").is_file() and (_SOURCE_ROOT / "assets").is_dir():
        return _SOURCE_ROOT / "assets"  # a source checkout: its own assets, never another copy's
    try:
        return Path(str(resources.files(PACKAGE)))
    except ModuleNotFoundError:
        raise EngineError(f"Stepformer's assets (lessons, models, translations) are missing: neither "
                          f"{_SOURCE_ROOT / 'assets'} nor the package {PACKAGE} exists; reinstall Stepformer") from None


ASSETS_DIR = assets_dir()
