"""Inside one box of the map: its operations as a small diagram drawn bottom to top, each placed one step after
what it reads (engine.architecture), so attention opens into Q, K, V → Q·Kᵀ → ÷√d_k → mask → softmax → A·V →
concat → W_O, its per-head part framed "each head (×h)", and LayerNorm into μ → σ² → x̂ → γ, β."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsRectItem

from engine.architecture import Architecture, Box, Operation
from gui.text.operations import OPERATIONS
from gui.text.switches import switch_note

from .captions import plain
from .map_items import EDGE_COLORS, BoxItem, arrow, rich_lines, text_item

NODE_W, NODE_H = 118, 30
LEVEL_GAP, ROW_GAP = 24, 14  # between two steps (room for arrows), between two operations of one step
PX = 13


def operation_label(arch: Architecture, box: Box, operation: Operation, lang: str) -> str:
    op = operation.op
    if op == "attn.masked" and "causal" not in box.notes:
        return plain("op.attn.masked.none", lang)  # encoder and cross-attention: nothing is hidden
    entry = OPERATIONS.get(op)  # None for the tiles of a tiled attention: one operation of many stages
    if entry is not None and entry.named_by:
        return plain(getattr(arch.config, entry.named_by), lang)  # the activation: ReLU, GELU, …
    return plain(f"op.{op}", lang)


class DetailDrawing:
    def __init__(
        self, parent: QGraphicsItem, arch: Architecture, box: Box, lang: str, tip: Callable[[tuple[str, ...]], str]
    ):
        self.box = box
        self.root = QGraphicsRectItem(parent)
        self.root.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents)  # a holder, never painted
        self.texts: list = []  # the texts drawn: PySide deletes a text item whose wrapper is gone
        ops = box.operations
        self.nodes: list[BoxItem] = [self._node(arch, box, op, lang, tip) for op in ops]
        self.index = {name: i for i, op in enumerate(ops) for name in op.stages}
        y = 0.0
        for level in sorted({op.level for op in ops}):  # bottom to top, as the map runs
            members = [i for i, op in enumerate(ops) if op.level == level]
            height = max(self.nodes[i].height for i in members)
            x = -(len(members) * NODE_W + (len(members) - 1) * ROW_GAP) / 2
            for i in members:
                self.nodes[i].place_at(x, y - height)
                x += NODE_W + ROW_GAP
            y -= height + LEVEL_GAP
        self._edges(ops)
        self._per_head(ops, arch.config.n_heads, lang)
        self._outside(ops, lang)
        self.bounds = self.root.childrenBoundingRect().adjusted(-8, -8, 8, 8)

    def _text(self, *args, **kwargs):
        self.texts.append(text_item(self.root, *args, **kwargs))
        return self.texts[-1]

    def _node(self, arch, box: Box, op: Operation, lang: str, tip) -> BoxItem:
        notes = [(switch_note(op.off, lang), True)] if op.off else []
        node = BoxItem(
            self.root,
            box.place.part,
            rich_lines(operation_label(arch, box, op, lang), notes, PX),
            NODE_W,
            NODE_H,
            PX,
            op.stages[0],
            off=op.off is not None,
        )
        node.setToolTip(tip(op.stages))
        return node

    def _edges(self, ops: tuple[Operation, ...]) -> None:
        """Next-step inputs as elbows; an input from further back runs in a lane beside everything (right of
        the middle: on the right), so it never crosses an operation."""
        rects = [n.rect for n in self.nodes]
        left, right = min(r.left() for r in rects) - 14, max(r.right() for r in rects) + 14
        for i, op in enumerate(ops):
            t = rects[i]
            for j in op.inputs:
                s = rects[j]
                if op.level - ops[j].level == 1:
                    mid = s.top() - LEVEL_GAP / 2
                    points = [
                        QPointF(s.center().x(), s.top()),
                        QPointF(s.center().x(), mid),
                        QPointF(t.center().x(), mid),
                        QPointF(t.center().x(), t.bottom()),
                    ]
                elif s.center().x() >= 0:
                    points = [
                        QPointF(s.right(), s.center().y()),
                        QPointF(right, s.center().y()),
                        QPointF(right, t.center().y()),
                        QPointF(t.right(), t.center().y()),
                    ]
                else:
                    points = [
                        QPointF(s.left(), s.center().y()),
                        QPointF(left, s.center().y()),
                        QPointF(left, t.center().y()),
                        QPointF(t.left(), t.center().y()),
                    ]
                arrow(self.root, points, EDGE_COLORS["flow"], width=1.3)

    def _per_head(self, ops: tuple[Operation, ...], heads: int, lang: str) -> None:
        """The operations each head does on its own, framed, "each head (×h)" in the frame's corner."""
        rects = [self.nodes[i].rect for i, op in enumerate(ops) if op.per_head]
        if not rects or heads < 2:
            return
        r = rects[0]
        for other in rects[1:]:
            r = r.united(other)
        r = r.adjusted(-22, -10, 22, 10)
        frame = QGraphicsRectItem(r, self.root)
        pen = QPen(QColor("#777777"), 1.2)
        pen.setStyle(Qt.PenStyle.DashLine)
        frame.setPen(pen)
        frame.setZValue(-2)
        name = self._text(plain("each_head", lang, h=heads), PX - 1, QColor("#444444"))
        name.setPos(r.right() - name.boundingRect().width() - 6, r.top() + 4)

    def _outside(self, ops: tuple[Operation, ...], lang: str) -> None:
        """What the first operations read from outside the box, under them: x (the box's input), or the
        encoder's output (cross-attention's K and V)."""
        readers: dict[str, list[QRectF]] = {}
        for i, op in enumerate(ops):
            for place in op.outside if op.level == 0 else ():
                key = "memory_in" if place.stack != self.box.place.stack else "x_in"
                readers.setdefault(key, []).append(self.nodes[i].rect)
        for key, rects in readers.items():
            x = sum(r.center().x() for r in rects) / len(rects)
            text = self._text(plain(key, lang), PX, width=2 * NODE_W)
            text.setPos(x - NODE_W, LEVEL_GAP)
            for r in rects:
                arrow(
                    self.root,
                    [QPointF(x, LEVEL_GAP - 2), QPointF(r.center().x(), r.bottom())],
                    EDGE_COLORS["memory" if key == "memory_in" else "flow"],
                    width=1.3,
                )

    def operation_of(self, stage: str) -> int | None:
        return self.index.get(stage)
