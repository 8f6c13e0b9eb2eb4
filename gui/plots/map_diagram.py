"""The map's main diagram, as in the Transformer paper: each stack a column drawn bottom to top (encoder left,
decoder right, the output head on top of the decoder), its blocks framed with "N×" beside them, residual arrows
that skip each sublayer to its Add, and cross-attention's K, V arrow from the encoder's output.

A model whose tallest stack would need more than MAX_ROWS boxes for its blocks shows one block expanded (the current
one) and the others as one box each; each choice of the expanded block is its own drawing (gui/plots/map.py keeps
them)."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPen
from PySide6.QtWidgets import QGraphicsEllipseItem, QGraphicsItem, QGraphicsRectItem, QGraphicsTextItem

from engine.architecture import Architecture, Box
from engine.graph import Place
from gui.text.switches import switch_note

from .captions import plain
from .map_items import EDGE_COLORS, OFF, BoxItem, arrow, rich_lines, text_item

MAX_ROWS = 8  # more block boxes than this in a stack: the current block expanded, the others one box each
COLUMN_W = 170  # one stack; two stacks side by side: COLUMN_W_TWO, so the pair fits a narrow dock
COLUMN_W_TWO = 150
GAP = 18  # between two boxes of a column: room for an arrow
BLOCK_PAD = 18  # a block's frame around its boxes (its name and "N×" sit in the top band)
LANE = 20  # residual arrows run this far outside the column
COLUMN_GAP = 70  # between the encoder and the decoder: cross-attention's K, V arrow and its label
TITLE_PX, NOTE_PX = 15, 11
HEIGHTS = {"embedding": 50, "self_attn": 50, "cross_attn": 50, "ffn": 50, "output": 46, "block": 30}  # others 30


def collapses(arch: Architecture) -> bool:
    """Whether the blocks are too many to draw whole (each sublayer is three boxes: itself, Add, LayerNorm)."""
    stacks = arch.config.stacks
    sublayers = max(len({b.place.sublayer for b in arch.stack_boxes(s) if b.place.sublayer}) for s in stacks)
    return arch.config.n_layers * 3 * sublayers > MAX_ROWS


def block_key(place: Place) -> Place:
    """The key of a collapsed block's box."""
    return Place(place.stack, place.block, None, "block")


def box_title(box: Box, lang: str) -> str:
    part = box.place.part
    if part == "self_attn" and "causal" in box.notes:
        return plain("unmasked_self_attn" if "no_mask" in box.off else "masked_self_attn", lang)
    if "rmsnorm" in box.notes:  # RMSNorm in place of LayerNorm
        return plain(f"rms_{part}", lang)
    return plain(part, lang)


def box_notes(arch: Architecture, box: Box, lang: str) -> list[tuple[str, bool]]:
    """The lines under a box's name: heads, activation, positions, and what a switch turned off (in red)."""
    cfg, part, notes = arch.config, box.place.part, []
    if part in ("self_attn", "cross_attn"):
        heads = plain("heads", lang, h=cfg.n_heads) if cfg.n_heads > 1 else plain("one_head", lang)
        if "gqa" in box.notes:
            heads += " · " + plain("kv_heads", lang, k=cfg.kv_heads)
        notes.append((heads + (" · " + plain("rope_tag", lang) if "rope" in box.notes else ""), False))
        extras = [
            plain(note, lang, w=cfg.sliding_window) for note in ("qk_norm", "sliding_window") if note in box.notes
        ]
        notes += [(" · ".join(extras), False)] if extras else []
    elif part in ("ffn", "embedding"):
        notes += [(plain(note, lang), False) for note in box.notes]

    return notes + [(switch_note(switch, lang), True) for switch in box.off]


@dataclass
class Drawn:
    """A box as drawn: one box of the architecture, or a collapsed block standing for all of its boxes."""

    key: Place
    item: BoxItem
    stages: tuple[str, ...]  # every stage it stands for, in order
    column: int


class MapDrawing:
    def __init__(
        self, parent: QGraphicsItem, arch: Architecture, tokens: dict[str, list[str]], lang: str, expanded: int | None
    ):
        self.arch, self.lang, self.expanded = arch, lang, expanded
        self.width = COLUMN_W if len(arch.config.stacks) == 1 else COLUMN_W_TWO  # of a column
        self.root = QGraphicsRectItem(parent)  # holds every item; shown or hidden as one
        self.root.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents)  # a holder, never painted
        self.texts: list = []  # the texts drawn: PySide deletes a text item whose wrapper is gone
        self.drawn: dict[Place, Drawn] = {}  # in drawing order: columns left to right, each bottom to top
        self.inputs: dict[str, QGraphicsTextItem] = {}  # each stack's "Inputs: …" line under its column
        # (kind, source key, target key, off) as drawn; kind: an engine edge's, or "positions" (added to the embedding)
        self.edges: list[tuple[str, Place, Place, bool]] = []
        stacks = list(arch.config.stacks)
        for c, stack in enumerate(stacks):
            boxes = arch.stack_boxes(stack) + (arch.stack_boxes(None) if c == len(stacks) - 1 else [])
            self._column(c, stack, boxes, tokens.get(stack, []))
        self._titles(stacks)
        for edge in arch.edges:
            self._edge(edge.kind, self.key_of(edge.source), self.key_of(edge.target), edge.off)
        self.bounds = self.root.childrenBoundingRect().adjusted(-6, -6, 6, 6)

    def set_tokens(self, tokens: dict[str, list[str]]) -> None:
        """Another sentence: each column's inputs line says it (the boxes stay as they are)."""
        for stack, item in self.inputs.items():
            item.setPlainText(self._input_line(stack, tokens.get(stack, [])))
        self.bounds = self.root.childrenBoundingRect().adjusted(-6, -6, 6, 6)

    def _text(self, *args, **kwargs):
        self.texts.append(text_item(self.root, *args, **kwargs))
        return self.texts[-1]

    def key_of(self, place: Place) -> Place:
        collapsed = self.expanded is not None and place.block is not None and place.block != self.expanded
        return block_key(place) if collapsed else place

    def rect(self, key: Place) -> QRectF:
        return self.drawn[key].item.rect

    # ---- columns ------------------------------------------------------------------------------------
    def _column(self, c: int, stack: str, boxes: list[Box], tokens: list[str]) -> None:
        x = c * (self.width + COLUMN_GAP)
        groups: dict[Place, list[Box]] = {}
        for box in boxes:
            groups.setdefault(self.key_of(box.place), []).append(box)
        y, framed_before, frames = 0.0, None, {}
        for key, members in groups.items():
            framed = key.block if key.part != "block" and key.block is not None else None
            if framed != framed_before:
                y -= BLOCK_PAD * ((framed is not None) + (framed_before is not None))
            item = self._box(key, members)
            top = y - item.height
            item.place_at(x, top)
            if framed is not None:
                frames.setdefault(framed, []).append(item.rect)
            self.drawn[key] = Drawn(key, item, tuple(n for b in members for n in b.stages), c)
            y, framed_before = top - GAP, framed
        side = -1 if stack == "enc" else 1  # the side the residual arrows run on: outward
        self._frames(frames, side)
        self._positions(stack, x, side)
        self._inputs(stack, x, tokens)
        if self.arch.stack_boxes(None) and c == len(self.arch.config.stacks) - 1:
            self._probabilities(x)

    def _box(self, key: Place, members: list[Box]) -> BoxItem:
        if key.part == "block":
            text = rich_lines(plain("block", self.lang, i=key.block), [], TITLE_PX - 2)
            return BoxItem(self.root, "block", text, self.width, HEIGHTS["block"], TITLE_PX - 2, members[0].first)
        box = members[0]
        text = rich_lines(box_title(box, self.lang), box_notes(self.arch, box, self.lang), TITLE_PX)
        return BoxItem(
            self.root, key.part, text, self.width, HEIGHTS.get(key.part, 30), TITLE_PX, box.first, off=bool(box.off)
        )

    def _frames(self, frames: dict[int, list[QRectF]], side: int) -> None:
        """Each expanded block in a frame with its name in the frame's top band, the number of layers ("N×")
        in the top frame's other corner, over the residual lane."""
        for k, (block, rects) in enumerate(frames.items()):
            r = rects[0]
            for other in rects[1:]:
                r = r.united(other)
            lane = LANE + 8
            r = r.adjusted(-(lane if side < 0 else 8), -BLOCK_PAD + 2, lane if side > 0 else 8, BLOCK_PAD - 2)
            frame = QGraphicsRectItem(r, self.root)
            frame.setPen(QPen(QColor("#9a9a9a"), 1.2))
            frame.setZValue(-2)
            name = self._text(plain("block", self.lang, i=block), NOTE_PX, QColor("#555555"))
            w = name.boundingRect().width()
            name.setPos(r.right() - w - 6 if side < 0 else r.left() + 6, r.top() + 1)
            if k == len(frames) - 1:
                n = self._text(plain("n_times", self.lang, n=self.arch.config.n_layers), NOTE_PX + 3, bold=True)
                w = n.boundingRect().width()
                n.setPos(r.left() + 4 if side < 0 else r.right() - w - 4, r.top())

    def _positions(self, stack: str, x: float, side: int) -> None:
        """The positional encoding added to the embedding, as a circle with an arrow into it (dashed red when
        no_pe turns it off); RoPE and "none" add nothing here (the box's note says so)."""
        key = Place(stack, None, None, "embedding")
        box = next((b for b in self.arch.stack_boxes(stack) if b.place == key), None)
        if box is None or self.arch.config.positional not in ("sinusoidal", "learned"):
            return
        r = self.rect(key)
        off = "no_pe" in box.off
        cx = r.left() - LANE - 4 if side < 0 else r.right() + LANE + 4  # in the residual lane, below its arrows
        circle = QGraphicsEllipseItem(QRectF(cx - 13, r.center().y() - 13, 26, 26), self.root)
        circle.setBrush(QBrush(QColor("#ffffff")))
        pen = QPen(OFF if off else QColor("#4a4a4a"), 1.4)
        if off:
            pen.setStyle(Qt.PenStyle.DashLine)
        circle.setPen(pen)
        pe = self._text(plain("pe", self.lang), NOTE_PX - 1, OFF if off else QColor("#333333"))
        pe.setPos(cx - pe.boundingRect().width() / 2, r.center().y() - pe.boundingRect().height() / 2)
        start = QPointF(cx + 13 * -side, r.center().y())
        end = QPointF(r.left() if side < 0 else r.right(), r.center().y())
        arrow(self.root, [start, end], OFF if off else EDGE_COLORS["flow"], dashed=off)
        self.edges.append(("positions", Place(stack, part="positions"), key, off))

    def _inputs(self, stack: str, x: float, tokens: list[str]) -> None:
        text = self._text(self._input_line(stack, tokens), NOTE_PX + 1, width=self.width)
        text.setPos(x, GAP + 4)
        self.inputs[stack] = text
        arrow(self.root, [QPointF(x + self.width / 2, GAP + 2), QPointF(x + self.width / 2, 0)], EDGE_COLORS["flow"])

    def _input_line(self, stack: str, tokens: list[str]) -> str:
        words = " ".join(tokens)
        words = words if len(words) <= 40 else words[:39] + "…"
        shifted = stack == "dec" and "enc" in self.arch.config.stacks
        return plain("outputs_shifted" if shifted else "inputs", self.lang, text=words)

    def _probabilities(self, x: float) -> None:
        top = min(d.item.rect.top() for d in self.drawn.values() if d.column == len(self.arch.config.stacks) - 1)
        text = self._text(plain("probabilities", self.lang), NOTE_PX + 1, width=self.width)
        h = text.boundingRect().height()
        text.setPos(x, top - GAP - h)
        middle = x + self.width / 2
        arrow(self.root, [QPointF(middle, top), QPointF(middle, top - GAP)], EDGE_COLORS["flow"])

    def _titles(self, stacks: list[str]) -> None:
        top = self.root.childrenBoundingRect().top()
        for c, stack in enumerate(stacks):
            title = self._text(plain(stack, self.lang), 17, width=self.width, bold=True)
            title.setPos(c * (self.width + COLUMN_GAP), top - 10 - title.boundingRect().height())

    # ---- edges --------------------------------------------------------------------------------------
    def _edge(self, kind: str, source: Place, target: Place, off: bool) -> None:
        if (
            source == target
            or (kind, source, target, off) in self.edges
            or kind == "residual"
            and target.part == "block"
        ):
            return  # inside a collapsed block (or into one: its Adds are inside it), or already drawn
        s, t = self.rect(source), self.rect(target)
        color = OFF if off else EDGE_COLORS[kind]
        if kind == "flow":
            points = [QPointF(s.center().x(), s.top()), QPointF(t.center().x(), t.bottom())]
        elif kind == "memory":  # from the encoder's output, across, into the cross-attention's side
            bus = s.right() + COLUMN_GAP / 2
            points = [
                QPointF(s.right(), s.center().y()),
                QPointF(bus, s.center().y()),
                QPointF(bus, t.center().y()),
                QPointF(t.left(), t.center().y()),
            ]
            kv = self._text(plain("kv", self.lang), NOTE_PX, color)  # along the bus, clear of both frames
            kv.setRotation(-90)  # read from bottom to top, beside the line running down to the cross-attention
            box = kv.boundingRect()
            kv.setPos(bus + 1, (s.center().y() + t.center().y() + box.width()) / 2)
        else:  # residual: out of the stream above the source, along the lane, into the Add's side
            side = -1 if target.stack == "enc" else 1
            lane = s.left() - LANE if side < 0 else s.right() + LANE
            y0, edge = s.top() - GAP / 2, t.left() if side < 0 else t.right()
            points = [
                QPointF(s.center().x(), y0),
                QPointF(lane, y0),
                QPointF(lane, t.center().y()),
                QPointF(edge, t.center().y()),
            ]
            dot = QGraphicsEllipseItem(QRectF(s.center().x() - 3, y0 - 3, 6, 6), self.root)
            dot.setBrush(QBrush(color))
            dot.setPen(QPen(color))
            if off:
                cross = self._text("✕", 16, OFF, bold=True)
                b = cross.boundingRect()
                cross.setPos(lane - b.width() / 2, (y0 + t.center().y()) / 2 - b.height() / 2)
        arrow(self.root, points, color, dashed=off)
        self.edges.append((kind, source, target, off))
