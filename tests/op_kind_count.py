"""How many product files name each namespaced operation kind (issue 45: "an operation is one record").

    python tests/op_kind_count.py [--files]

The kinds are those the stage graph gives its stages (engine/graph.py: `Stage.op`, e.g. "attn.scores"); a file
names a kind when the kind appears in it as a string literal ("attn.scores" or 'attn.scores'). Product files:
main.py, engine/ and gui/ (not tests). Prints each kind's count, then the mean and the largest.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def product_files() -> list[Path]:
    return [ROOT / "main.py", *sorted((ROOT / "engine").rglob("*.py")), *sorted((ROOT / "gui").rglob("*.py"))]


def op_kinds() -> list[str]:
    """Every namespaced kind the engine gives a stage: the second argument of a graph builder's `add(name, op, …)`
    or of `Stage(name, op, …)`, wherever the engine makes stages, and the first of an engine record
    `OpRecord(op, …)` (the tiles of tiled attention are made by a builder of their own, engine/tiled.py)."""
    kinds = set()
    for path in sorted((ROOT / "engine").rglob("*.py")):
        text = path.read_text()
        kinds |= set(re.findall(r'(?:\badd|\bStage)\(\s*[^,()]+,\s*"([a-z_]+\.[a-z_0-9.]+)"', text))
        kinds |= set(re.findall(r'\bOpRecord\(\s*"([a-z_]+\.[a-z_0-9.]+)"', text))
    return sorted(kinds)


def counts() -> dict[str, list[str]]:
    """{kind: the product files that name it}."""
    files = {path: path.read_text() for path in product_files()}
    found = {}
    for kind in op_kinds():
        literal = re.compile(rf"""["']{re.escape(kind)}["']""")
        found[kind] = [path.relative_to(ROOT).as_posix() for path, text in files.items() if literal.search(text)]
    return found


def main() -> int:
    counts_by_kind = counts()
    for kind, where in sorted(counts_by_kind.items(), key=lambda kv: -len(kv[1])):
        print(f"{kind:16} {len(where)}" + (f"  {', '.join(where)}" if "--files" in sys.argv else ""))
    numbers = [len(where) for where in counts_by_kind.values()]
    print(f"{len(numbers)} kinds: mean {sum(numbers) / len(numbers):.2f} files, most {max(numbers)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
