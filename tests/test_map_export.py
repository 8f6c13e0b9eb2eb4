"""`python main.py export … --map [--stage NAME]` writes the map of an encoder, a decoder and an encoder-decoder
lesson as PNG, SVG and PDF, in English and Chinese; "you are here" moves with --stage; bad input is refused in
one line."""

import xml.etree.ElementTree as ET

import pytest
from PySide6.QtGui import QImage

import main
from engine.formats.lesson import open_lesson
from gui.plots.captions import plain
from tests.test_export import distinct_colours, ink_fraction, pdf_pages

LESSONS = {
    "encoder": ("two-heads", "enc.0.attn.weights"),
    "decoder": ("masked-decoder", "dec.0.self_attn.masked"),
    "encoder-decoder": ("cross-attention", "dec.0.cross_attn.weights"),
}


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main.main(list(argv))
    return code, capsys.readouterr().err


def box_names(lesson: str, lang: str) -> set[str]:
    """Names the map of the lesson must show: its stacks', and its attentions'."""
    cfg = open_lesson(lesson).config
    names = {plain(stack, lang) for stack in cfg.stacks} | {plain("ffn", lang)}
    if cfg.architecture == "encoder-decoder":
        names.add(plain("cross_attn", lang))
    names.add(plain("masked_self_attn" if "dec" in cfg.stacks else "self_attn", lang))
    return names


@pytest.mark.parametrize("kind", LESSONS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_map_exports_as_png_svg_and_pdf(qapp, tmp_path, capsys, kind, lang):
    lesson, stage = LESSONS[kind]
    for fmt in ("png", "svg", "pdf"):
        out = tmp_path / f"map.{fmt}"
        code, err = run(
            capsys, "export", "--lesson", lesson, "--map", "--stage", stage, "--lang", lang, "--out", str(out)
        )
        assert code == 0, err
    image = QImage(str(tmp_path / "map.png"))
    assert image.width() == 1920 and distinct_colours(image) > 30 and 0.05 < ink_fraction(image) < 0.9
    texts = "".join(ET.parse(tmp_path / "map.svg").getroot().itertext())
    joined = "".join(texts.split())  # a name may wrap onto two lines
    assert "".join(plain("you_are_here", lang, stage="").split()) in joined
    for name in box_names(lesson, lang):
        assert "".join(name.split()) in joined, name
    (page,) = pdf_pages((tmp_path / "map.pdf").read_bytes())
    assert page.count(b"Tj") > 30


def test_you_are_here_moves_with_the_stage_and_the_whole_model_has_none(qapp, tmp_path, capsys):
    images = {}
    for stage in ("enc.0.attn.q", "enc.0.ffn.up", None):
        out = tmp_path / f"{stage}.png"
        extra = ["--stage", stage] if stage else []
        code, err = run(capsys, "export", "--lesson", "two-heads", "--map", *extra, "--width", "800", "--out", str(out))
        assert code == 0, err
        images[stage] = QImage(str(out))
    assert images["enc.0.attn.q"] != images["enc.0.ffn.up"] != images[None]
    texts = "".join(ET.parse(_svg(capsys, tmp_path)).getroot().itertext())
    assert plain("map", "en") in texts and plain("inside", "en", box="x")[:6] not in texts  # no box to open


def _svg(capsys, tmp_path):
    out = tmp_path / "whole.svg"
    code, err = run(capsys, "export", "--lesson", "two-heads", "--map", "--lang", "en", "--out", str(out))
    assert code == 0, err
    return out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--map", "--stage", "enc.9.attn.q"], "no stage named 'enc.9.attn.q'"),
        (["--map", "--format", "csv"], "cannot export a figure as 'csv'; use one of png, svg, pdf"),
        ([], "export needs --stage NAME"),
    ],
)
def test_bad_map_exports_are_refused_in_one_line(qapp, tmp_path, capsys, argv, message):
    code, err = run(capsys, "export", "--lesson", "two-heads", *argv, "--out", str(tmp_path / "x.png"))
    assert code == 1 and message in err and err.count("\n") == 1
    assert not list(tmp_path.iterdir())
