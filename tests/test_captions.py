"""The figures' words live in one dictionary (gui/plots/captions.py): no key written twice, every key the code
names is there with both languages, and the keys built from a name cover every name. The What-if switches' words
are in one table of their own (gui/text/switches.py)."""

import ast
import re
from collections import Counter
from pathlib import Path

import pytest

from engine.config import ACTIVATIONS, POSITIONALS, SWITCHES
from gui.plots.captions import CAPTIONS, caption, plain
from gui.text.switches import SWITCH_TEXTS, switch_name, switch_names, switch_note

ROOT = Path(__file__).resolve().parent.parent
CALL = re.compile(r"""\b(?:caption|plain)\(\s*["']([\w.-]+)["']\s*[,)]""")  # a whole key, not a prefix


def test_no_key_is_written_twice():
    tree = ast.parse((ROOT / "gui/plots/captions.py").read_text(encoding="utf-8"))
    literal = next(node for node in ast.walk(tree) if isinstance(node, ast.Dict))
    counts = Counter(key.value for key in literal.keys)
    assert [key for key, n in counts.items() if n > 1] == []  # a later entry would silently replace an earlier one


def test_every_named_key_is_there():
    named = {key for path in (ROOT / "gui").rglob("*.py") for key in CALL.findall(path.read_text(encoding="utf-8"))}
    assert len(named) > 70  # the scan finds the call sites (many more keys are passed in variables)
    assert sorted(named - CAPTIONS.keys()) == []


def test_every_entry_has_both_languages_with_the_same_blanks():
    blanks = re.compile(r"\{(\w+)\}")
    for key, (en, zh) in CAPTIONS.items():
        assert en and zh, key
        assert set(blanks.findall(en)) == set(blanks.findall(zh)), key


@pytest.mark.parametrize(
    "prefix, names",
    [("pos.", POSITIONALS), ("", ACTIVATIONS), ("", POSITIONALS)],
)
def test_keys_built_from_names_cover_every_name(prefix, names):
    assert [name for name in names if prefix + name not in CAPTIONS] == []


def test_every_switch_has_one_entry_with_its_name_and_its_map_note_in_both_languages():
    assert sorted(SWITCH_TEXTS) == sorted(SWITCHES)
    for switch, texts in SWITCH_TEXTS.items():
        assert all(texts.name) and all(texts.note) and texts.name != texts.note, switch
    assert switch_name("no_scale", "zh") == "去掉缩放（÷√d_k）" and switch_note("no_scale", "en") == "no ÷√d_k"
    assert switch_names(("no_pe", "no_mask"), "zh") == "去掉位置编码、去掉掩码（解码器能看到未来）"


def test_captions_escape_tokens_and_plain_text_does_not():
    assert caption("row", "en", token="<start>") == "row of &lt;start&gt;"
    assert plain("row", "zh", token="<start>") == "<start> 这一行"


def test_the_figures_name_a_block_as_the_window_does_in_chinese():
    from gui.text import i18n

    window = i18n.catalogue("zh").translate("StageList", "Block {0}").format(0)
    assert plain("block", "zh", i=0) == window == "第 0 层"
    assert plain("dec_block", "zh", i=0) == "解码器" + window
