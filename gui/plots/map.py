"""The map: the Transformer diagram of the model loaded (engine/architecture.py), with "you are here".

    figure = draw_map(layout, trace, "enc.0.attn.scores", PlotOptions(lang="zh"))   # as export draws it
    figure = MapFigure(layout, trace, opts, panels=("map",))                         # the dock's
    figure.show_stage("enc.0.attn.weights", glide=True)   # per step: states and the frame, nothing rebuilt
    figure.hit(scene_pos)                                  # the stage a click there goes to, or None

Panels: "map" (the whole model, gui/plots/map_diagram.py) and "detail" (inside the current box,
gui/plots/map_detail.py), side by side when both are shown. Each drawing is made once, the first time it is
needed (a drawing per expanded block, a detail per box), then only shown or hidden.
"""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF, QSizeF

from engine.architecture import architecture
from engine.graph import Place
from engine.training.backward import forward_of, is_backward

from .captions import plain
from .figure import figure_title, model_line
from .map_detail import DetailDrawing
from .map_diagram import MapDrawing, box_title, collapses
from .map_items import BACKWARD, HERE, Highlight
from .matrix import stage_caption
from .style import SLIDE_CAPTION_COLUMNS, PlotOptions, font, foreground
from .view import clear_layout
from .wrap import wrap_caption

PANELS = ("map", "detail")
DETAIL_SIZE = QSizeF(420, 400)  # the detail is shown at least this big, so a box of few operations is not blown up
SCREEN_TITLE_COLUMNS = 44


def at_least(rect: QRectF, size: QSizeF) -> QRectF:
    """`rect` grown about its centre to at least `size`."""
    w, h = max(rect.width(), size.width()), max(rect.height(), size.height())
    return QRectF(rect.center().x() - w / 2, rect.center().y() - h / 2, w, h)


def _shape(trace, name: str) -> str:
    value = trace.values.get(name)
    return "" if value is None else "[" + " × ".join(str(n) for n in value.shape) + "]"


def model_summary(cfg, lang: str) -> str:
    """The model's line (gui/plots/figure.py), with its number of layers and its positional encoding."""
    layers, positions = plain("n_times", lang, n=cfg.n_layers), plain("pos." + cfg.positional, lang)
    return f"{model_line(cfg, lang)} · {layers} · {positions}"


class MapFigure:
    def __init__(
        self,
        layout: pg.GraphicsLayout,
        trace,
        opts: PlotOptions,
        panels: tuple[str, ...] = PANELS,
        captions: bool = True,
    ):
        clear_layout(layout)
        self.layout, self.trace, self.opts, self.panels = layout, trace, opts, panels
        names = trace.stage_names
        self.order = {name: i for i, name in enumerate(names)}
        self.arch = architecture(trace.config, [trace.stage(n) for n in names if trace.stage(n) and not is_backward(n)])
        self.place = {name: self.arch.places.get(name) or trace.stage(name).place for name in names}
        self.boxes = {box.place: box for box in self.arch.boxes}
        self.expanded = 0 if collapses(self.arch) else None
        self.drawings: dict[int | None, MapDrawing] = {}
        self.details: dict[Place, DetailDrawing] = {}
        self.drawing: MapDrawing | None = None
        self.detail: DetailDrawing | None = None
        self.stage: str | None = None
        self.title_columns = SLIDE_CAPTION_COLUMNS if opts.slide else SCREEN_TITLE_COLUMNS  # a narrow dock: fewer
        self.current: Place | None = None  # the key of the box framed (a collapsed block's, or a box's)
        self.operation: int | None = None  # the operation framed in the detail
        self.titles, self.views, self.frames = {}, {}, {}
        self.title = self._slide_title() if opts.slide and opts.title else None
        for col, panel in enumerate(panels):
            if captions:  # "You are here: …" over the map, "Inside: …" over the detail
                self.titles[panel] = self._label()
                layout.addItem(self.titles[panel], row=1, col=col)
            view = pg.ViewBox(lockAspect=True, invertY=True, enableMouse=False, enableMenu=False)
            view.setMouseEnabled(False, False)
            view.disableAutoRange()
            layout.addItem(view, row=2, col=col)
            self.views[panel] = view
            self.frames[panel] = Highlight()
            view.addItem(self.frames[panel])
        layout.layout.setRowStretchFactor(2, 1)  # the drawings take the height; the titles only what they need

    def _label(self) -> pg.LabelItem:
        item = pg.LabelItem(justify="center")
        item.item.setFont(font(self.opts, "caption"))
        return item

    def _slide_title(self) -> pg.LabelItem:
        title = pg.LabelItem(justify="center")
        title.item.setFont(font(self.opts, "title"))
        self.layout.addItem(title, row=0, col=0, colspan=len(self.panels))
        return title

    # ---- drawings, made when first needed ------------------------------------------------------------
    def _drawing(self, expanded: int | None) -> MapDrawing:
        if expanded not in self.drawings:
            drawing = MapDrawing(None, self.arch, self._tokens(), self.opts.lang, expanded)
            self._box_tips(drawing)
            self.views["map"].addItem(drawing.root)
            drawing.root.hide()
            self.drawings[expanded] = drawing
        return self.drawings[expanded]

    def _tokens(self) -> dict[str, list[str]]:
        return {s: list(t) for s, t in self.trace.tokens.items()}

    def _box_tips(self, drawing: MapDrawing) -> None:
        for drawn in drawing.drawn.values():
            title = (
                box_title(self.boxes[drawn.key], self.opts.lang)
                if drawn.key in self.boxes
                else plain("block", self.opts.lang, i=drawn.key.block)
            )
            drawn.item.setToolTip(self._tip(drawn.stages, title))

    def _detail(self, place: Place) -> DetailDrawing:
        if place not in self.details:
            detail = DetailDrawing(None, self.arch, self.boxes[place], self.opts.lang, self._tip)
            self.views["detail"].addItem(detail.root)
            detail.root.hide()
            self.details[place] = detail
        return self.details[place]

    def set_trace(self, trace) -> None:
        """The same model on another sentence (a new one, a generated token): the inputs lines and the shapes in
        the tooltips follow it; the boxes stay as they are (show_stage then marks the cursor)."""
        if trace is self.trace:
            return
        self.trace = trace
        for drawing in self.drawings.values():
            drawing.set_tokens(self._tokens())
            self._box_tips(drawing)
        for detail in self.details.values():
            for node, op in zip(detail.nodes, detail.box.operations):
                node.setToolTip(self._tip(op.stages))
        if self.drawing is not None:
            self.views["map"].setRange(self.drawing.bounds, padding=0.02)

    def _tip(self, names: tuple[str, ...], title: str | None = None) -> str:
        """A box's or an operation's tooltip: its name, then its output stage's title, id and shape."""
        last = names[-1]
        line = f"{stage_caption(self.trace, last, self.opts)} — {last}  {_shape(self.trace, last)}".rstrip()
        if title is None:
            return line
        return f"{title}\n{plain('shape', self.opts.lang, shape='')}{line}"

    # ---- you are here ---------------------------------------------------------------------------------
    def show_stage(self, stage: str | None, glide: bool = False) -> None:
        """Frame the box (and the operation inside it) of `stage`; earlier boxes computed, later ones pale.
        None: the whole model, every box computed, nothing framed."""
        self.stage = stage
        place = None if stage is None else self.place[stage]
        cursor = len(self.order) if stage is None else self.order[stage]
        if self.expanded is not None and place is not None and place.block is not None:
            self.expanded = place.block
        if "map" in self.views:
            self._show_map(place, cursor, glide, is_backward(stage or ""))
        if "detail" in self.views:
            self._show_detail(place, stage, cursor, glide)
        self._set_titles(stage, place)

    def _show_map(self, place: Place | None, cursor: int, glide: bool, backward: bool) -> None:
        drawing = self._drawing(self.expanded)
        switched = drawing is not self.drawing
        if switched:
            if self.drawing is not None:
                self.drawing.root.hide()
            drawing.root.show()
            self.views["map"].setRange(drawing.bounds, padding=0.02)
            self.drawing = drawing
        self.current = None if place is None else drawing.key_of(place)
        for drawn in drawing.drawn.values():
            drawn.item.set_state(self._state(drawn.key == self.current, drawn.stages, cursor))
        frame = self.frames["map"]
        frame.set_color(BACKWARD if backward else HERE)
        frame.move_to(None if self.current is None else drawing.rect(self.current), glide and not switched)

    def _show_detail(self, place: Place | None, stage: str | None, cursor: int, glide: bool) -> None:
        detail = None if place is None else self._detail(place)
        switched = detail is not self.detail
        if switched:
            if self.detail is not None:
                self.detail.root.hide()
            if detail is not None:
                detail.root.show()
                self.views["detail"].setRange(at_least(detail.bounds, DETAIL_SIZE), padding=0.03)
            self.detail = detail
        if detail is None:
            self.operation = None
            self.frames["detail"].move_to(None, False)
            return
        name = forward_of(stage) if is_backward(stage) else stage
        self.operation = detail.operation_of(name)
        for i, (node, op) in enumerate(zip(detail.nodes, detail.box.operations)):
            node.set_state(self._state(i == self.operation, op.stages, cursor))
        frame = self.frames["detail"]
        frame.set_color(BACKWARD if is_backward(stage) else HERE)
        rect = None if self.operation is None else detail.nodes[self.operation].rect
        frame.move_to(rect, glide and not switched)

    def _state(self, current: bool, stages: tuple[str, ...], cursor: int) -> str:
        if current:
            return "current"
        return "done" if self.order[stages[-1]] <= cursor else "later"

    def _set_titles(self, stage: str | None, place: Place | None) -> None:
        lang, color, columns = self.opts.lang, foreground(self.opts), self.title_columns
        if stage is None:
            here = plain("whole_model", lang, summary=model_summary(self.trace.config, lang))
        else:
            key = "backward_here" if is_backward(stage) else "you_are_here"
            here = plain(key, lang, stage=stage_caption(self.trace, stage, self.opts))
        if "map" in self.titles:
            self.titles["map"].setText(wrap_caption(here, columns), color=color)
        if "detail" in self.titles and place is not None:
            where = self._where(place)
            box = box_title(self.boxes[place], lang) + (f" · {where}" if where else "")
            self.titles["detail"].setText(wrap_caption(plain("inside", lang, box=box), columns), color=color)
        if self.title is not None:
            heading, small = plain("map", lang), font(self.opts, "caption").pointSize()
            text = (
                figure_title(self.trace, stage, self.opts, heading)
                if stage
                else (
                    f"{heading}<br><span style='font-size:{small}pt; font-weight:normal'>"
                    f"{model_summary(self.trace.config, lang)}</span>"
                )
            )
            self.title.setText(text, color=color)

    def _where(self, place: Place) -> str:
        parts = [plain(place.stack, self.opts.lang)] if place.stack else []
        if place.block is not None:
            parts.append(plain("block", self.opts.lang, i=place.block))
        return " · ".join(parts)

    # ---- clicks --------------------------------------------------------------------------------------
    def items(self, panel: str = "map"):
        """The boxes of a panel as drawn now: (key, item) for the map (key: a Place), (index, item) inside."""
        if panel == "map":
            return [] if self.drawing is None else [(d.key, d.item) for d in self.drawing.drawn.values()]
        return [] if self.detail is None else list(enumerate(self.detail.nodes))

    def hit(self, scene_pos: QPointF) -> str | None:
        """The first stage of the box or operation under a point of the scene (None: none there)."""
        for panel, view in self.views.items():
            if not view.sceneBoundingRect().contains(scene_pos):
                continue
            point = view.mapSceneToView(scene_pos)
            for _, item in self.items(panel):
                if item.isVisible() and item.rect.contains(point):
                    return item.first
        return None

    def scene_center(self, item, panel: str = "map") -> QPointF:
        """Where an item's centre lies in the scene (for a click on it)."""
        return self.views[panel].mapViewToScene(item.rect.center())

    def refresh(self, trace, opts: PlotOptions) -> None:
        """Edits change numbers, not the drawing (a new lesson draws a new figure)."""


def draw_map(layout: pg.GraphicsLayout, trace, stage: str | None, opts: PlotOptions) -> MapFigure:
    """The map at `stage` for export (the whole model, unframed, when None), the inside of its box beside it."""
    whole = stage is None  # the whole model: the slide's title says it all, no caption over the map
    figure = MapFigure(layout, trace, opts, ("map",) if whole else PANELS, captions=not (whole and opts.title))
    figure.show_stage(stage)
    if figure.detail is not None:  # each panel as wide as its drawing is at the same height
        for col, bounds in enumerate((figure.drawing.bounds, at_least(figure.detail.bounds, DETAIL_SIZE))):
            layout.layout.setColumnStretchFactor(col, round(100 * bounds.width() / bounds.height()))
    return figure
