"""The layers import one way (README, "How it fits together"): every module of engine/ and gui/ is read (its
source, not run), each import resolved to the module it names, and the graph checked: no import cycle anywhere,
the engine imports nothing of Qt or gui, the plots nothing above them (only the words of gui/text they print), and
each gui folder only its own layer and the ones below it.

Imports inside functions count (they run, only later); imports under `if TYPE_CHECKING:` do not (they are for the
type checker, never run).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "gui")
# gui's folders from the bottom up: a module may import its own folder and the folders below it (engine is below all)
LAYERS = (
    "gui.text",
    "gui.plots",
    "gui.state",
    "gui.export",
    "gui.views",
    "gui.docks",
    "gui.window",
    "gui.lesson",
    "gui",
)
QT = ("PySide6", "shiboken6", "pyqtgraph")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    return {module_name(p): p for package in PACKAGES for p in sorted((ROOT / package).rglob("*.py"))}


def type_checking_only(tree: ast.Module) -> set[int]:
    """The ids of the import nodes under `if TYPE_CHECKING:`."""
    skipped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped |= {id(inner) for statement in node.body for inner in ast.walk(statement)}
    return skipped


def imported_names(name: str, path: Path) -> list[str]:
    """Every name the module imports, absolute ("gui.plots.style", "PySide6.QtCore", "engine.ops")."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped, names = type_checking_only(tree), []
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            names += [f"{base}.{alias.name}" for alias in node.names]  # a submodule, or a name in `base`
    return names


def resolve(imported: str) -> str | None:
    """The engine or gui module an imported name belongs to (None for anything else)."""
    while imported and imported not in modules():
        imported = imported.rpartition(".")[0]
    return imported or None


@cache
def graph() -> dict[str, set[str]]:
    edges = {}
    for name, path in modules().items():
        targets = {resolve(imported) for imported in imported_names(name, path)}
        edges[name] = {t for t in targets if t is not None and t != name}
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each as a list of modules."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def layer(name: str) -> int:
    """-1 for the engine; else the rank of the gui folder the module is in (LAYERS)."""
    if name.split(".")[0] == "engine":
        return -1
    return next(rank for rank, folder in enumerate(LAYERS) if name == folder or name.startswith(folder + "."))


def test_every_module_is_read_and_its_imports_resolve():
    assert {"engine.model", "gui.plots.style", "gui.state.display", "gui.lesson.controller"} <= set(modules())
    assert "gui.plots.style" in graph()["gui.plots.heatmap"]  # a relative import (from .style import …)
    assert "engine.ops" in graph()["gui.plots.rope"]  # from engine.ops import … and from engine import ops
    assert "gui.state.app_state" not in graph()["gui.state.commands"]  # an `if TYPE_CHECKING:` import


def test_no_import_cycles():
    assert cycles(graph()) == []


def test_a_cycle_is_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_plots_import_nothing_above_them():
    """Nothing of the state, the views or the window: a figure draws the trace and the options it is given."""
    wrong = {
        (name, target)
        for name, targets in graph().items()
        if name.startswith("gui.plots")
        for target in targets
        if target.startswith("gui.") and not target.startswith(("gui.plots", "gui.text"))
    }
    assert wrong == set()


def test_the_engine_imports_no_qt_and_no_gui():
    wrong = {
        (name, imported)
        for name, path in modules().items()
        if name.startswith("engine")
        for imported in imported_names(name, path)
        if imported.split(".")[0] in (*QT, "gui")
    }
    assert wrong == set()


def test_each_gui_layer_imports_only_itself_and_the_layers_below():
    upward = {(name, target) for name, targets in graph().items() for target in targets if layer(target) > layer(name)}
    assert upward == set()
