"""Every command example in README.md and docs/*.md runs and exits with status 0.

The rule for what is an example:

- Only fenced code blocks marked `sh`, `console` or `bash` hold examples; a block marked `text` is a synopsis (with
  placeholders such as `[model options]` or `C.json`) or needs something the reader brings (their own checkpoint
  folder) and is not run. A block that shows a verb must say which it is: a `python main.py VERB` line in a block
  with no language is a failure of its own.
- In such a block, each line (a trailing `\\` joins the next one, a `$ ` prompt and a `# comment` are dropped) that
  starts with `python main.py`, `.venv/bin/python main.py`, `stepformer` or `.venv/bin/stepformer`, followed by one
  of main.py's verbs, is an example. A line with no verb opens the window, and `make …` / `pip …` lines install
  things: neither is run.
- The examples of one block run in order, in one fresh temporary folder (a later line may read what an earlier one
  wrote, and whatever they write stays out of the checkout), in this process through `main.main(argv)` (faster than a
  process each: torch and Qt are imported once). An argument that names a file or folder of the repository
  (`docs/examples/rope-swiglu.json`) is given as its absolute path.
"""

import re
import shlex
from pathlib import Path

import pytest

import main

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUNNABLE = ("sh", "console", "bash")
PROGRAMS = (("python", "main.py"), (".venv/bin/python", "main.py"), ("stepformer",), (".venv/bin/stepformer",))
VERBS = {verb.name for verb in main.verbs()}
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.S | re.M)


def blocks(text: str) -> list[tuple[str, int, list[str]]]:
    """The fenced blocks of a page: (language, line number of the fence, lines with continuations joined)."""
    found = []
    for match in FENCE.finditer(text):
        joined, pending = [], ""
        for line in match.group(2).splitlines():
            if line.rstrip().endswith("\\"):
                pending += line.rstrip()[:-1] + " "
                continue
            joined.append(pending + line)
            pending = ""
        found.append((match.group(1), text.count("\n", 0, match.start()) + 1, joined))
    return found


def command(line: str) -> list[str] | None:
    """The verb and arguments of a `python main.py VERB …` line, or None for any other line (the window, make, pip,
    output shown in a block)."""
    line = line.strip().removeprefix("$ ")
    if not line.startswith(tuple(program[0] for program in PROGRAMS)):  # output shown, JSON ("the decoder's …")
        return None
    words = shlex.split(line, comments=True)
    for program in PROGRAMS:
        if tuple(words[: len(program)]) == program:
            argv = words[len(program) :]
            return argv if argv and argv[0] in VERBS else None
    return None


def examples(page: Path) -> list[tuple[str, list[list[str]]]]:
    """(where, the commands of one block) for each runnable block of `page` that holds a command."""
    found = []
    for language, line, lines in blocks(page.read_text(encoding="utf-8")):
        commands = [argv for argv in map(command, lines) if argv is not None]
        if language in RUNNABLE and commands:
            found.append((f"{page.name}:{line}", commands))
    return found


def absolute(arg: str) -> str:
    """A repository path as an absolute one; any other argument as it is."""
    return str(ROOT / arg) if "/" in arg and not arg.startswith("-") and (ROOT / arg).exists() else arg


ALL = [example for page in PAGES for example in examples(page)]


def test_the_rule_finds_examples_and_leaves_out_the_rest(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "```sh\npython main.py stages --lesson two-heads   # the stages\n"
        "python main.py export --lesson two-heads \\\n    --stage attn.weights --out a.png\n"
        "python main.py --lesson two-heads\nmake run\n```\n\n"
        "```text\npython main.py trace [model options] --out T.npz\n```\n\n"
        "```console\n$ .venv/bin/stepformer cost --json\n```\n",
        encoding="utf-8",
    )
    assert examples(page) == [
        (
            "page.md:1",
            [
                ["stages", "--lesson", "two-heads"],
                ["export", "--lesson", "two-heads", "--stage", "attn.weights", "--out", "a.png"],
            ],
        ),
        ("page.md:13", [["cost", "--json"]]),
    ]
    assert absolute("docs/examples/rope-swiglu.json") == str(ROOT / "docs/examples/rope-swiglu.json")
    assert absolute("a.png") == "a.png"


def test_every_block_that_shows_a_verb_says_whether_it_runs():
    unmarked = [
        f"{page.name}:{line}"
        for page in PAGES
        for language, line, lines in blocks(page.read_text(encoding="utf-8"))
        if not language and any(command(text) for text in lines)
    ]
    assert unmarked == []


def test_the_docs_have_examples_of_every_verb():
    shown = {argv[0] for _, commands in ALL for argv in commands}
    assert shown == VERBS


@pytest.mark.parametrize(("where", "commands"), ALL, ids=[where for where, _ in ALL])
def test_the_example_runs(where, commands, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for argv in commands:
        try:
            status = main.main([absolute(arg) for arg in argv])
        except SystemExit as exit_:  # argparse refusing the line
            status = exit_.code
        assert status == 0, f"{where}: {shlex.join(argv)}\n{capsys.readouterr().err}"
