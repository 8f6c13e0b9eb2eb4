"""Weights at ±1e6 pass the cell check, yet LayerNorm's variance overflows to ∞ (and ∞ − ∞ gives NaN): every
plot of every stage draws what is finite and says how many values overflowed; tables show ∞ and NaN; the
deck and figure export finish."""

from __future__ import annotations

import pyqtgraph as pg
import pytest
import torch

import main
from engine.formats.lesson import open_lesson, save_lesson
from gui.plots import PlotOptions, draw_stage
from gui.plots.heatmap import format_cell
from tests.gui_lessons import state_for
from tests.test_export import pdf_pages

LESSON = "why-scale"
STAGES = open_lesson(LESSON).trace().stage_names
NON_FINITE = (float("inf"), float("-inf"), float("nan"))


def huge_weights_lesson():
    """The lesson with every weight at +1e6 or −1e6 (a fixed pattern of signs)."""
    lesson = open_lesson(LESSON)
    signs = torch.Generator().manual_seed(0)
    lesson.params = {
        name: torch.where(torch.rand(t.shape, generator=signs) < 0.5, -1e6, 1e6).to(t.dtype)
        for name, t in lesson.build_model().params.items()
    }
    return lesson


@pytest.fixture(scope="module")
def overflowed():
    """Its trace, with ∞, −∞ and NaN also put into the first cells of every stage (whatever overflow may give)."""
    trace = huge_weights_lesson().trace()
    assert not torch.isfinite(trace["enc.0.norm1.var"]).all()  # the overflow itself, not only what is put in
    for name in trace.stage_names:
        tensor = trace.values[name]
        if tensor.is_floating_point():
            tensor = tensor.clone()
            tensor.view(-1)[: len(NON_FINITE)] = torch.tensor(NON_FINITE[: tensor.numel()], dtype=tensor.dtype)
            trace.values[name] = tensor
    return trace


@pytest.mark.parametrize("stage", STAGES)
def test_every_plot_of_every_stage_draws_overflowed_values(qapp, overflowed, stage):
    widget = pg.GraphicsLayoutWidget()
    widget.resize(1000, 600)
    for opts in (PlotOptions(), PlotOptions(slide=True, lang="zh")):
        figure = draw_stage(widget.ci, overflowed, stage, opts)
        assert not widget.grab().isNull()
        captions = [item.titleLabel.text for item in widget.ci.items if isinstance(item, pg.PlotItem)]
        if overflowed[stage].is_floating_point() and stage.endswith((".var", ".hat", ".weights")):
            assert any(("overflowed" if opts.lang == "en" else "溢出") in text for text in captions), captions
        figure.refresh(overflowed, opts)


def test_cells_name_overflowed_values():
    assert [format_cell(v) for v in NON_FINITE] == ["∞", "−∞", "NaN"]
    assert [format_cell(v, integer=True) for v in NON_FINITE] == ["∞", "−∞", "NaN"]


def test_the_window_steps_through_an_overflowed_lesson_with_every_dock_open(qtbot):
    from tests.gui_window import show_window

    window = show_window(qtbot, state_for(huge_weights_lesson()))
    state = window.state
    for dock in window.teaching.docks():
        dock.show()
    for name in state.stage_names:
        state.go_to(name)
        qtbot.wait(1)
        window.grab()
    state.go_to("enc.0.norm1.var")
    qtbot.wait(1)
    table = window.stage_view.output.model
    texts = {table.text(r, 0) for r in range(table.rowCount())}
    assert "+∞" in texts


def test_deck_and_export_finish_on_an_overflowed_lesson(qapp, tmp_path, capsys):
    path = tmp_path / "huge.stepformer"
    save_lesson(huge_weights_lesson(), path)
    assert main.main(["deck", "--lesson", str(path), "--format", "pdf", "--out", str(tmp_path / "d.pdf")]) == 0
    assert len(pdf_pages((tmp_path / "d.pdf").read_bytes())) == 2 + len(STAGES)  # the map, the overview, each stage
    assert (
        main.main(
            [
                "export",
                "--lesson",
                str(path),
                "--stage",
                "enc.0.norm1.var",
                "--format",
                "png",
                "--out",
                str(tmp_path / "v.png"),
            ]
        )
        == 0
    )
    assert (tmp_path / "v.png").stat().st_size > 0
