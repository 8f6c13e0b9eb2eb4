"""Model settings: architecture, sizes, LayerNorm placement, activation, positions, today's decoder parts (RMSNorm,
grouped-query attention, QK-norm, RoPE's layout, biases, a tied output head), seed.

Every change is checked by ModelConfig's own validation; an invalid combination is explained inline and
OK / Apply stay disabled, so it can change nothing.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
)

from engine import EngineError, ModelConfig
from engine.budget import check_for_sentences
from engine.config import MAX_D_MODEL, MAX_LAYERS
from gui.state.app_state import AppState


class SettingsDialog(QDialog):
    def __init__(self, state: AppState, parent=None):
        # (Over 60 lines: the widgets are built in the order they stand on screen, one flat sequence.)
        super().__init__(parent)
        self.state = state
        self.setWindowTitle(self.tr("Model settings"))
        cfg = state.config

        def combo(options: list[tuple[str, str]], current: str) -> QComboBox:
            box = QComboBox(self)
            for value, label in options:
                box.addItem(label, value)
            box.setCurrentIndex(box.findData(current))
            box.currentIndexChanged.connect(self.validate)
            return box

        def spin(low: int, high: int, value: int) -> QSpinBox:
            box = QSpinBox(self)
            box.setRange(low, high)
            box.setValue(value)
            box.valueChanged.connect(self.validate)
            return box

        self.architecture = combo(
            [
                ("encoder", self.tr("Encoder (like BERT)")),
                ("decoder", self.tr("Decoder (like GPT)")),
                ("encoder-decoder", self.tr("Encoder–decoder (translation)")),
            ],
            cfg.architecture,
        )
        self.d_model = spin(1, MAX_D_MODEL, cfg.d_model)
        self.n_heads = spin(1, MAX_D_MODEL, cfg.n_heads)
        self.d_ff = spin(1, 4 * MAX_D_MODEL, cfg.d_ff)
        self.n_layers = spin(1, MAX_LAYERS, cfg.n_layers)
        self.norm = combo(
            [
                ("post", self.tr("Post-LN: Add, then LayerNorm (original paper)")),
                ("pre", self.tr("Pre-LN: LayerNorm before each sublayer (GPT-2 and later)")),
            ],
            cfg.norm,
        )
        self.activation = combo(
            [
                ("relu", "ReLU"),
                ("gelu", "GELU"),
                ("gelu_tanh", self.tr("GELU (tanh, GPT-2)")),
                ("swiglu", self.tr("SwiGLU (gated, LLaMA)")),
            ],
            cfg.activation,
        )
        self.positional = combo(
            [
                ("sinusoidal", self.tr("Sinusoidal")),
                ("learned", self.tr("Learned")),
                ("rope", self.tr("RoPE (rotary)")),
                ("none", self.tr("None")),
            ],
            cfg.positional,
        )
        self.norm_type = combo(
            [("layernorm", self.tr("LayerNorm")), ("rmsnorm", self.tr("RMSNorm (LLaMA, Qwen)"))], cfg.norm_type
        )
        self.n_kv_heads = spin(0, MAX_D_MODEL, cfg.n_kv_heads or 0)
        self.n_kv_heads.setSpecialValueText(self.tr("one per head"))
        self.qk_norm = combo([(False, self.tr("Off")), (True, self.tr("On (Qwen3)"))], cfg.qk_norm)
        self.rope_pairs = combo(
            [
                ("interleaved", self.tr("Pairs (2i, 2i+1), as RoFormer")),
                ("half", self.tr("Halves (i, i + d_k/2), as Hugging Face")),
            ],
            cfg.rope_pairs,
        )
        self.biases = combo(
            [
                ("all", self.tr("Every linear layer")),
                ("none", self.tr("None (LLaMA, Mistral, Qwen3)")),
                ("qkv", self.tr("Q, K, V only (Qwen2)")),
                ("attn", self.tr("Attention only")),
            ],
            cfg.biases,
        )
        self.tied = combo(
            [(False, self.tr("Own matrix W_U")), (True, self.tr("Tied to the embeddings W_E"))], cfg.tied_embeddings
        )
        self.seed = spin(0, 2**31 - 1, cfg.seed)
        self.decimals = spin(-1, 8, -1 if cfg.decimals is None else cfg.decimals)
        self.decimals.setSpecialValueText(self.tr("full precision"))

        form = QFormLayout()
        form.addRow(self.tr("Architecture"), self.architecture)
        form.addRow(self.tr("d_model (width)"), self.d_model)
        form.addRow(self.tr("Heads"), self.n_heads)
        form.addRow(self.tr("d_ff (feed-forward width)"), self.d_ff)
        form.addRow(self.tr("Layers"), self.n_layers)
        form.addRow(self.tr("LayerNorm"), self.norm)
        form.addRow(self.tr("Activation"), self.activation)
        form.addRow(self.tr("Positional encoding"), self.positional)
        form.addRow(self.tr("Normalisation"), self.norm_type)
        form.addRow(self.tr("K/V heads"), self.n_kv_heads)
        form.addRow(self.tr("QK-norm"), self.qk_norm)
        form.addRow(self.tr("RoPE's pairs"), self.rope_pairs)
        form.addRow(self.tr("Biases"), self.biases)
        form.addRow(self.tr("Output head"), self.tied)
        form.addRow(self.tr("Seed for the weights"), self.seed)
        form.addRow(self.tr("Round weights to decimals"), self.decimals)

        self.error = QLabel(self)
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #b00020")
        self.error.setTextInteractionFlags(Qt.TextSelectableByMouse)
        note = QLabel(
            self.tr(
                "Applying builds a new model with fresh seeded weights; hand edits and the undo history are cleared."
            ),
            self,
        )
        note.setWordWrap(True)
        note.setStyleSheet("color: #555")
        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Apply | QDialogButtonBox.Cancel, self)
        self.buttons.accepted.connect(self.accept_settings)
        self.buttons.rejected.connect(self.reject)
        self.buttons.button(QDialogButtonBox.Apply).clicked.connect(self.apply)

        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.error)
        layout.addWidget(note)
        layout.addWidget(self.buttons)
        self.validate()

    def values(self) -> dict:
        decimals = self.decimals.value()
        return dict(
            architecture=self.architecture.currentData(),
            d_model=self.d_model.value(),
            n_heads=self.n_heads.value(),
            d_ff=self.d_ff.value(),
            n_layers=self.n_layers.value(),
            norm=self.norm.currentData(),
            activation=self.activation.currentData(),
            positional=self.positional.currentData(),
            norm_type=self.norm_type.currentData(),
            n_kv_heads=self.n_kv_heads.value() or None,
            qk_norm=self.qk_norm.currentData(),
            rope_pairs=self.rope_pairs.currentData(),
            biases=self.biases.currentData(),
            tied_embeddings=self.tied.currentData() if self.architecture.currentData() != "encoder" else False,
            seed=self.seed.value(),
            decimals=None if decimals < 0 else decimals,
        )

    def config(self) -> ModelConfig | None:
        """The config the form describes, or None (with the reason shown) when it is not valid."""
        try:
            values = self.values()
            cfg = self.state.config.with_architecture(values["architecture"]).replace(**values)
            check_for_sentences(cfg, self.state.trace.tokens)
        except EngineError as exc:
            self.error.setText(str(exc))
            return None
        self.error.setText("")
        return cfg

    def validate(self) -> None:
        ok = self.config() is not None
        self.error.setVisible(not ok)
        self.buttons.button(QDialogButtonBox.Ok).setEnabled(ok)
        self.buttons.button(QDialogButtonBox.Apply).setEnabled(ok)

    def apply(self) -> bool:
        cfg = self.config()
        return cfg is not None and (cfg == self.state.config or self.state.set_config(cfg))

    def accept_settings(self) -> None:
        if self.apply():
            self.accept()
