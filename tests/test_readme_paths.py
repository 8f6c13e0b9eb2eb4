"""Every file or folder the README and docs/*.md name (gui/…, engine/…, tests/…, assets/…, docs/…) exists, and every
relative link they make leads to a file (and, with an #anchor, to a heading of it): a moved file or a renamed
section leaves no stale path behind in the documentation."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
PATH = re.compile(r"(?<![\w./-])((?:gui|engine|tests|assets|docs)/[\w./*-]*)")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def named_paths(text: str) -> set[str]:
    """The repository paths in `text`, without the punctuation that ends a sentence after them."""
    return {match.rstrip(".,;:") for match in PATH.findall(text)}


def missing(paths: set[str]) -> list[str]:
    """Those of `paths` that are no file or folder here (a pattern with * must match one)."""
    return sorted(p for p in paths if not (any(ROOT.glob(p)) if "*" in p else (ROOT / p).exists()))


def anchor(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)  # no headings in code
    return {anchor(line.lstrip("#")) for line in text.splitlines() if line.startswith("#")}


def broken_links(page: Path) -> list[str]:
    """The relative links of `page` whose file does not exist, or whose #anchor is no heading of that file."""
    broken = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        file, _, fragment = target.partition("#")
        linked = (page.parent / file).resolve() if file else page
        if not linked.exists() or (fragment and linked.suffix == ".md" and fragment not in anchors(linked)):
            broken.append(target)
    return broken


def test_the_finder_sees_paths_and_misses():
    text = "See `engine/trace.py`, the folder gui/views/ and assets/lessons/*.json. Not engine/nothing.py."
    assert named_paths(text) == {"engine/trace.py", "gui/views/", "assets/lessons/*.json", "engine/nothing.py"}
    assert missing(named_paths(text)) == ["engine/nothing.py"]
    assert named_paths("a.engine/x.py and my-gui/x") == set()


def test_the_link_check_sees_a_missing_file_and_a_missing_heading(tmp_path):
    (tmp_path / "a.md").write_text("# A page\n\n## Its part\n", encoding="utf-8")
    page = tmp_path / "b.md"
    page.write_text(
        "[ok](a.md) [part](a.md#its-part) [web](https://example.org) [gone](c.md) [no such part](a.md#nothing)\n",
        encoding="utf-8",
    )
    assert broken_links(page) == ["c.md", "a.md#nothing"]
    assert (
        anchor("The cost of this model (lesson `cost-of-context`)") == "the-cost-of-this-model-lesson-cost-of-context"
    )


def test_the_docs_are_there_and_the_readme_is_a_front_page():
    names = {page.name for page in PAGES}
    assert {"user-guide.md", "cli.md", "file-formats.md", "stages-and-parameters.md", "architecture.md"} <= names
    assert "performance-log.md" in names
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 250


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_path_a_page_names_exists(page):
    assert missing(named_paths(page.read_text(encoding="utf-8"))) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_relative_link_of_a_page_leads_somewhere(page):
    assert broken_links(page) == []


def test_the_docs_name_the_files_of_an_edits_path():
    paths = set().union(*(named_paths(page.read_text(encoding="utf-8")) for page in PAGES))
    assert {"engine/trace.py", "gui/views/matrix_view.py", "gui/state/app_state.py"} <= paths
