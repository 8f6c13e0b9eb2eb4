"""Exported figures, matrices and decks are valid files and not blank; matrices round-trip at the asked precision."""

import re
import xml.etree.ElementTree as ET
import zlib

import numpy as np
import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QFont, QFontDatabase, QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

from engine import EngineError, Model, ModelConfig
from gui.export import export_deck, export_figure, export_matrix, to_csv, to_latex
from gui.export.matrix import matrix_of
from gui.plots import PlotOptions
from gui.plots.style import SLIDE_FONTS
from gui.text.operations import stage_text, stage_title

ARCHS = {
    "encoder": (ModelConfig(d_model=4, n_heads=2, decimals=1), "I love AI", None),
    "decoder": (ModelConfig(architecture="decoder", d_model=4, n_heads=2, decimals=1), "我 爱 AI", None),
    "encoder-decoder": (
        ModelConfig(architecture="encoder-decoder", d_model=4, n_heads=2, decimals=1),
        "I love AI",
        "我 爱 AI",
    ),
}
STAGES = {  # a few stages per architecture, covering the different plot layouts
    "encoder": ["enc.pos", "enc.0.attn.weights", "enc.0.norm1.hat"],
    "decoder": ["dec.0.self_attn.masked", "dec.0.ffn.up", "probs"],
    "encoder-decoder": ["dec.0.cross_attn.weights", "dec.0.cross_attn.z", "enc.0.attn.scaled"],
}
CASES = [(arch, stage) for arch, stages in STAGES.items() for stage in stages]


@pytest.fixture(scope="module")
def traces():
    return {arch: Model.create(cfg).trace(text, target) for arch, (cfg, text, target) in ARCHS.items()}


def distinct_colours(image: QImage, step: int = 7) -> int:
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    return len({image.pixel(x, y) for x in range(0, image.width(), step) for y in range(0, image.height(), step)})


def ink_fraction(image: QImage, step: int = 5) -> float:
    """Share of sampled pixels that are not white."""
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    white = QColor("white").rgb()
    samples = [image.pixel(x, y) for x in range(0, image.width(), step) for y in range(0, image.height(), step)]
    return sum(p != white for p in samples) / len(samples)


def pdf_pages(data: bytes) -> list[bytes]:
    """The decompressed content stream of every page of a PDF written by Qt."""
    assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")
    objects = {int(m[1]): m[2] for m in re.finditer(rb"(\d+) 0 obj\s*(.*?)endobj", data, re.S)}
    pages = []
    for obj in objects.values():
        if re.search(rb"/Type\s*/Page\b", obj):
            content = objects[int(re.search(rb"/Contents\s+(\d+) 0 R", obj)[1])]
            length = re.search(rb"/Length\s+(\d+)(\s+0\s+R)?", content)  # binary data may end in \r or \n
            length = int(objects[int(length[1])].strip()) if length[2] else int(length[1])
            start = re.search(rb"stream\r?\n", content).end()
            stream = content[start : start + length]
            pages.append(zlib.decompress(stream) if b"FlateDecode" in content else stream)
    return pages


@pytest.mark.parametrize(("arch", "stage"), CASES)
def test_png_has_the_asked_width_and_real_content(qapp, tmp_path, traces, arch, stage):
    path = export_figure(traces[arch], stage, PlotOptions(head=1, row=1), tmp_path / "f.png", width=960)
    image = QImage(str(path))
    assert (image.width(), image.height()) == (960, 540)
    assert distinct_colours(image) > 40 and 0.15 < ink_fraction(image) < 0.95


def test_png_default_is_1920_wide_and_chinese_differs_from_english(qapp, tmp_path, traces):
    en = QImage(str(export_figure(traces["encoder"], "enc.0.attn.q", PlotOptions(), tmp_path / "en.png")))
    zh = QImage(str(export_figure(traces["encoder"], "enc.0.attn.q", PlotOptions(lang="zh"), tmp_path / "zh.png")))
    assert en.width() == 1920 and zh.width() == 1920 and en != zh


@pytest.mark.parametrize(("arch", "stage"), CASES[::2])
def test_svg_parses_and_renders(qapp, tmp_path, traces, arch, stage):
    path = export_figure(traces[arch], stage, PlotOptions(lang="zh"), tmp_path / "f.svg")
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    texts = "".join(root.itertext())
    assert stage in texts  # (in its description)
    title = next(e for e in root if e.tag.endswith("title")).text
    assert title == stage_title(traces[arch], stage, "zh") and stage not in title  # what a viewer names it
    renderer = QSvgRenderer(str(path))
    assert renderer.isValid()
    image = QImage(800, 450, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    renderer.render(painter)
    painter.end()
    assert distinct_colours(image, 5) > 40 and ink_fraction(image) > 0.15


@pytest.mark.parametrize(("arch", "stage"), CASES[1::3])
def test_pdf_figure_is_one_drawn_page(qapp, tmp_path, traces, arch, stage):
    path = export_figure(traces[arch], stage, PlotOptions(), tmp_path / "f.pdf")
    (page,) = pdf_pages(path.read_bytes())
    assert page.count(b"Tj") > 20 and b" Do" in page  # text and the heatmap image


def test_unknown_stage_and_format_are_refused(qapp, tmp_path, traces):
    with pytest.raises(EngineError, match="valid stages: enc.tokens, enc.embed"):
        export_figure(traces["encoder"], "enc.9.attn.q", PlotOptions(), tmp_path / "f.png")
    with pytest.raises(EngineError, match="png, svg, pdf"):
        export_figure(traces["encoder"], "enc.0.attn.q", PlotOptions(), tmp_path / "f.gif")
    with pytest.raises(EngineError, match="width"):
        export_figure(traces["encoder"], "enc.0.attn.q", PlotOptions(), tmp_path / "f.png", width=10)
    assert not list(tmp_path.iterdir())


def test_copy_figure_puts_an_image_on_the_clipboard(qapp, traces):
    from gui.export import copy_figure

    copy_figure(traces["encoder"], "enc.0.attn.weights", PlotOptions())
    image = QGuiApplication.clipboard().image()
    assert image.width() == 1920 and distinct_colours(image) > 40


def test_slide_fonts_include_an_installed_chinese_font():
    chinese = set(QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese))
    assert chinese & set(SLIDE_FONTS), "install a CJK font (make sysdeps installs fonts-wqy-microhei)"


# ---- matrices ------------------------------------------------------------------------------------
def parse_latex(text: str) -> np.ndarray:
    body = text.split("\\begin{bmatrix}")[1].split("\\end{bmatrix}")[0]
    rows = [r for r in body.strip().split("\\\\")]
    cell = {"-\\infty": "-inf", "\\infty": "inf"}
    return np.array([[float(cell.get(c.strip(), c.strip())) for c in r.split("&")] for r in rows])


@pytest.mark.parametrize("decimals", [0, 2, 4])
@pytest.mark.parametrize("name", ["dec.0.self_attn.masked", "dec.0.self_attn.W_Q", "dec.0.ffn.b1", "probs"])
def test_latex_and_csv_round_trip_at_the_chosen_precision(tmp_path, traces, name, decimals):
    trace = traces["decoder"]
    m, rows, cols = matrix_of(trace, name, head=1)
    expected = np.where(np.isfinite(m), np.round(m, decimals), m)
    tex = export_matrix(trace, name, tmp_path / "m.tex", decimals, head=1).read_text(encoding="utf-8")
    assert tex.startswith("\\begin{bmatrix}") and np.array_equal(parse_latex(tex), expected)
    lines = export_matrix(trace, name, tmp_path / "m.csv", decimals, head=1).read_text(encoding="utf-8").splitlines()
    assert lines[0].split(",")[1:] == cols
    table = [line.split(",") for line in lines[1:]]
    assert [r[0] for r in table] == rows
    assert np.array_equal(np.array([[float(x) for x in r[1:]] for r in table]), expected)
    places = [x.split(".")[1] if "." in x else "" for r in table for x in r[1:] if "inf" not in x]
    assert all(len(p) == decimals for p in places)


def test_masked_cells_are_minus_infinity_in_latex_and_head_is_the_asked_one(traces):
    trace = traces["decoder"]
    m = trace["dec.0.self_attn.masked"][1].double().numpy()
    tex = to_latex(m, 2)
    assert "-\\infty" in tex and np.array_equal(parse_latex(tex), np.where(np.isfinite(m), np.round(m, 2), m))
    assert "-inf" in to_csv(m, 2)
    assert np.array_equal(matrix_of(trace, "dec.0.self_attn.masked", head=1)[0], m)


def test_matrix_export_refuses_bad_input(tmp_path, traces):
    with pytest.raises(EngineError, match="decimals"):
        export_matrix(traces["encoder"], "enc.x0", tmp_path / "m.tex", decimals=11)
    with pytest.raises(EngineError, match="tex, csv"):
        export_matrix(traces["encoder"], "enc.x0", tmp_path / "m.docx")
    with pytest.raises(EngineError, match="no stage or parameter"):
        export_matrix(traces["encoder"], "enc.nothing", tmp_path / "m.tex")


# ---- decks -----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_trace():
    cfg = ModelConfig(architecture="decoder", d_model=2, n_heads=1, d_ff=2, decimals=1)
    return Model.create(cfg).trace("我 爱")


def test_pdf_deck_has_the_map_then_a_drawn_page_per_stage(qapp, tmp_path, tiny_trace):
    seen = []
    count = export_deck(tiny_trace, PlotOptions(lang="zh"), tmp_path / "d.pdf", progress=lambda k, n: seen.append(k))
    pages = pdf_pages((tmp_path / "d.pdf").read_bytes())
    assert count == len(pages) == 2 + len(tiny_trace.stage_names)  # the map, the overview, then each stage
    assert seen == list(range(1, count + 1))
    assert all(p.count(b"Tj") > 20 for p in pages)


@pytest.mark.parametrize("inset", [True, False])
def test_pptx_deck_has_the_map_then_a_slide_per_stage_with_notes(qapp, tmp_path, tiny_trace, inset):
    from pptx import Presentation

    count = export_deck(tiny_trace, PlotOptions(), tmp_path / "d.pptx", inset=inset)
    prs = Presentation(str(tmp_path / "d.pptx"))
    assert count == len(prs.slides) == 2 + len(tiny_trace.stage_names)
    for opening in prs.slides[0], prs.slides[1]:  # the map, the overview (MSO_SHAPE_TYPE.PICTURE)
        assert [shape.shape_type for shape in opening.shapes] == [13]
    for name, slide in zip(tiny_trace.stage_names, list(prs.slides)[2:]):
        title = slide.shapes.title.text_frame.text
        assert title.startswith(stage_title(tiny_trace, name, "en")) and name not in title  # no stage ids
        assert slide.notes_slide.notes_text_frame.text == stage_text(tiny_trace, name, "en")
        pictures = [shape for shape in slide.shapes if shape.shape_type == 13]
        assert len(pictures) == 1 + inset  # the figure, and the "you are here" map
        assert any(shape.has_table for shape in slide.shapes)


def test_deck_refuses_unknown_format(qapp, tmp_path, tiny_trace):
    with pytest.raises(EngineError, match="pdf, pptx"):
        export_deck(tiny_trace, PlotOptions(), tmp_path / "d.key")


# ---- what a slide shows: every word of its title, place, labels and tables, nothing cut or off the slide ------
SWITCHED = ModelConfig(
    architecture="encoder-decoder", d_model=4, n_heads=2, switches=("no_pe", "no_scale", "no_mask", "no_residual")
)
CROWDED = ["dec.0.cross_attn.weights", "dec.0.self_attn.q", "dec.0.ffn.up"]  # long labels, four tables, W1


@pytest.fixture(scope="module")
def switched_trace():
    return Model.create(SWITCHED).trace("I love AI", "我 爱 AI")


class RecordingPainter:
    """A QPainter (on an image) that keeps every text drawn: (rect, flags, text, font)."""

    def __init__(self, painter: QPainter):
        self.painter, self.texts = painter, []

    def __getattr__(self, name):
        return getattr(self.painter, name)

    def drawText(self, rect, flags, text):
        self.texts.append((QRectF(rect), int(flags), text, QFont(self.painter.font())))
        self.painter.drawText(rect, flags, text)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_pdf_slide_shows_its_whole_title_place_labels_and_only_whole_tables(qapp, switched_trace, lang):
    from gui.export.deck import FIGURE_BOX, draw_page, slide_for
    from gui.export.render import SCENE_H, SCENE_W

    image = QImage(SCENE_W, SCENE_H, QImage.Format.Format_RGB32)
    for stage in CROWDED:
        slide = slide_for(switched_trace, stage, PlotOptions(lang=lang, slide=True))
        painter = QPainter(image)
        try:
            recorder = RecordingPainter(painter)
            draw_page(recorder, slide, lambda box: None, 2, 3, draw_inset=lambda box: None)
            needed = [
                painter.boundingRect(rect, flags, text)
                for rect, flags, text, font in recorder.texts
                if painter.setFont(font) is None
            ]
        finally:
            painter.end()
        for (rect, _, text, _), need in zip(recorder.texts, needed):  # each text inside the box it was drawn in
            assert need.width() <= rect.width() + 1 and need.height() <= rect.height() + 1, (stage, text)
        drawn = [text for _, _, text, _ in recorder.texts]
        assert drawn[:3] == [slide.title, slide.subtitle, slide.formula]
        assert "what if" in slide.subtitle or "假如" in slide.subtitle
        shown = [m for m in slide.matrices if any(t.startswith(f"{m.symbol}  [") for t in drawn)]
        assert shown[-1] is slide.matrices[-1]  # the stage's output always
        for m in shown:
            assert all(label in drawn for label in m.rows + m.cols)  # token labels whole
        bottom = max(rect.bottom() for rect, _, text, _ in recorder.texts if text not in slide.notes)
        tables = [rect for rect, _, text, _ in recorder.texts if rect.left() > FIGURE_BOX.right()]
        assert max(rect.bottom() for rect in tables) <= FIGURE_BOX.bottom() < bottom  # the explanation under


def test_pptx_slide_has_its_title_on_one_line_labels_whole_and_nothing_off_the_slide(qapp, tmp_path, switched_trace):
    from pptx import Presentation
    from pptx.util import Pt

    from gui.export.deck import slide_for
    from gui.export.pptx import points_wide

    export_deck(switched_trace, PlotOptions(), tmp_path / "d.pptx", stages=CROWDED)
    prs = Presentation(str(tmp_path / "d.pptx"))
    ordered = [name for name in switched_trace.stage_names if name in CROWDED]  # (the deck's order)
    assert len(prs.slides) == 2 + len(ordered) == 2 + len(CROWDED)
    for stage, page in zip(ordered, list(prs.slides)[2:]):
        slide = slide_for(switched_trace, stage, PlotOptions(slide=True))
        for shape in page.shapes:
            assert shape.left + shape.width <= prs.slide_width and shape.top + shape.height <= prs.slide_height
        texts = [shape.text_frame.text for shape in page.shapes if shape.has_text_frame]
        assert texts[:3] == [slide.title, slide.subtitle, slide.formula]
        title = page.shapes.title.text_frame
        size = title.paragraphs[0].runs[0].font.size.pt
        assert points_wide(slide.title, size, bold=True) <= (page.shapes.title.width - title.margin_left) / Pt(1)
        tables = [shape.table for shape in page.shapes if shape.has_table]
        assert tables and len(tables) <= len(slide.matrices)
        labels = [[t.cell(i, 0).text for i in range(1, len(t.rows))] for t in tables]
        assert labels[-1] == slide.matrices[-1].rows  # the output's table, its labels whole
