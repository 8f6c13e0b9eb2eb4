"""Stepformer: step through a Transformer one operation at a time.

`python main.py` opens the window; `python main.py VERB …` runs a command-line verb.
"""

from __future__ import annotations

import argparse
import sys

GUI_VERBS = ("export", "deck")


class OneLineParser(argparse.ArgumentParser):
    """Report a bad argument as one clear line on stderr, not a usage dump."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    from engine.cli import add_verbs
    from engine.training.cli import add_verbs as add_train_verbs

    parser = OneLineParser(prog="stepformer", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="verb")
    add_verbs(sub)
    add_train_verbs(sub)
    try:
        from gui.cli import add_verbs as add_gui_verbs
    except ImportError:
        pass
    else:
        add_gui_verbs(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or (argv[0].startswith("-") and argv[0] not in ("-h", "--help")):  # options only: the window
        from gui.app import run_app

        return run_app(argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.verb is None:
        from gui.app import run_app

        return run_app(argv)
    from engine.errors import EngineError

    try:
        args.func(args)
    except EngineError as exc:
        print(f"stepformer: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"stepformer: {exc.strerror or exc}: {getattr(exc, 'filename', '') or ''}".rstrip(": "), file=sys.stderr)
        return 1
    except UnicodeEncodeError as exc:  # printing Chinese to an ASCII terminal or pipe
        print(f"stepformer: cannot print {exc.object[exc.start:exc.end]!r}: the output's encoding is {exc.encoding}; "
              "set PYTHONIOENCODING=utf-8 or use a UTF-8 locale (e.g. LANG=C.UTF-8)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
