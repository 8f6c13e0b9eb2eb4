"""Hostile and valid-looking input (issue 11, items 6, 8 and 11): each is refused with one clear line and changes
nothing, memory is refused before it is allocated, and nothing is silently computed differently from what the file
says. CLI cases run `main.main` in-process and read stderr."""

import io
import json
import os
import sys
import time
import zipfile

import pytest
import torch
from safetensors.torch import load_file, save_file
from safetensors.torch import save as tensors_to_bytes

import main
from engine import EngineError, Model, ModelConfig, budget
from engine.budget import check_trace
from engine.formats import lessonfile
from engine.formats.checkpoints import open_checkpoint
from engine.formats.lesson import open_lesson
from engine.formats.weights import load_weights, save_weights
from engine.generate import MAX_TEMPERATURE, MIN_TEMPERATURE
from engine.params import init_params
from engine.sources import from_config
from engine.tokenizer import SPECIALS, Vocab
from engine.training import trained
from tests import gui_lessons
from tests.gui_lessons import FakePrompts
from tests.test_checkpoints import make_bert_folder, make_gpt2_folder

os.environ["HF_HUB_OFFLINE"] = "1"
transformers = pytest.importorskip("transformers")

own_folders, start_window = gui_lessons.own_folders, gui_lessons.start_window  # fixtures
SMALL = dict(d_model=4, n_heads=2, d_ff=8)
HUGE_SETTINGS = dict(d_model=4096, n_heads=8, d_ff=16384, n_layers=24)  # 4.8 billion parameters: 18 GiB


def cli(capsys, *args) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `python main.py ARGS`, run in this process."""
    code = main.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def one_line(capsys, *args, match: str) -> None:
    """The command fails with exactly one line on stderr that contains `match`, and no traceback."""
    code, _, err = cli(capsys, *args)
    assert code != 0 and len(err.strip().splitlines()) == 1 and match in err and "Traceback" not in err, err


def write(path, data) -> str:
    (path.write_bytes if isinstance(data, bytes) else path.write_text)(data)
    return str(path)


@pytest.fixture
def config_file(tmp_path) -> str:
    return write(tmp_path / "c.json", json.dumps(SMALL))


# ---- item 6: memory and time are estimated before anything is built -----------------------------------------


def test_settings_that_need_gigabytes_are_refused_with_the_figure():
    start = time.perf_counter()
    with pytest.raises(EngineError, match=r"would need 18\.0 GiB of memory \(limit 3\.0 GiB\)"):
        ModelConfig(**HUGE_SETTINGS)
    assert time.perf_counter() - start < 0.1  # refused from the config's numbers, nothing allocated


def test_the_estimate_bounds_the_real_trace_closely():
    for cfg, text, target in [
        (ModelConfig(**SMALL), "I love AI", None),
        (
            ModelConfig(architecture="encoder-decoder", positional="rope", activation="swiglu", norm="pre", **SMALL),
            "a b c d e f",
            "x y",
        ),
        (
            ModelConfig(
                architecture="decoder", d_model=64, n_heads=4, d_ff=128, n_layers=2, type_vocab=2, embed_norm=True
            ),
            "w " * 40,
            None,
        ),
    ]:
        model = Model.create(cfg)
        trace = model.trace(text, target)
        kept = sum(v.numel() for v in trace.values.values())
        lengths = {s: len(t) for s, t in trace.tokens.items()}
        estimate = budget.trace_floats(cfg, lengths, {s: len(v) for s, v in model.vocabs.items()})
        assert kept <= estimate <= 1.1 * kept


def test_what_the_classroom_needs_fits():
    for name in ("toy", "lm"):
        model = trained.load(name)
        model.trace(*trained.recipe(name).example)
    large = ModelConfig(d_model=384, n_heads=12, d_ff=1536, n_layers=6)  # the picker's "large", on 64 tokens
    check_trace(large, {"enc": 64}, {"enc": 67})
    minilm = ModelConfig(
        d_model=384,
        n_heads=12,
        d_ff=1536,
        n_layers=6,
        max_len=512,
        activation="gelu",
        positional="learned",
        type_vocab=2,
        embed_norm=True,
    )
    check_trace(minilm, {"enc": 512}, {"enc": 30522})  # all-MiniLM-L6-v2 at its longest sentence
    classroom = Model.create(
        ModelConfig(d_model=8, n_heads=2, d_ff=16, n_layers=2, decimals=1, max_len=300, architecture="encoder-decoder")
    )
    words = " ".join(f"w{i}" for i in range(299))
    assert classroom.trace(words, words)["dec.1.cross_attn.weights"].shape == (2, 300, 299)


def bomb_lesson(tmp_path) -> str:
    """A lesson file of a few MB asking for 64 heads × 4,096 × 4,096 numbers per attention stage, in 24 layers."""
    cfg = ModelConfig(d_model=64, n_heads=64, d_ff=64, n_layers=24, max_len=4096)
    vocabs = {"enc": Vocab(["w"], free=True)}
    texts = {"en": "", "zh": ""}
    lesson = {
        "format": "stepformer.lesson",
        "version": 1,
        "title": texts,
        "description": texts,
        "config": cfg.to_dict(),
        "vocabularies": {"enc": vocabs["enc"].tokens},
        "text": " ".join(["w"] * 4096),
        "target": "",
        "stage": None,
        "lang": "en",
    }
    weights = tensors_to_bytes(init_params(cfg, vocabs))
    members = {"lesson.json": json.dumps(lesson).encode(), "weights.safetensors": weights}
    return write(tmp_path / "bomb.stepformer", lessonfile.archive_bytes(members))


def refuse_tracing(monkeypatch):
    """Any trace built from here on fails the test: a refusal must come before the allocation."""

    def never(*args, **kwargs):
        raise AssertionError("a trace was built")

    monkeypatch.setattr("engine.model.Trace", never)


def test_a_small_lesson_file_asking_gigabytes_is_refused_before_tracing(tmp_path, monkeypatch, capsys):
    path = bomb_lesson(tmp_path)
    refuse_tracing(monkeypatch)
    with pytest.raises(EngineError, match=r"would need \d+\.\d GiB of memory \(limit 3\.0 GiB\).* 64 × 4096 × 4096"):
        open_lesson(path)
    one_line(capsys, "deck", "--lesson", path, "--out", str(tmp_path / "d.pdf"), match="GiB of memory")


def test_the_cli_refuses_a_huge_config_and_a_huge_sentence(tmp_path, capsys):
    huge = write(tmp_path / "huge.json", json.dumps(HUGE_SETTINGS))
    one_line(capsys, "stages", "--config", huge, match="18.0 GiB")
    wide = write(tmp_path / "wide.json", json.dumps(dict(d_model=64, n_heads=64, d_ff=64, n_layers=24, max_len=4096)))
    one_line(
        capsys,
        "trace",
        "--config",
        wide,
        "--text",
        "w " * 4000,
        "--out",
        str(tmp_path / "t.npz"),
        match="GiB of memory",
    )
    assert not (tmp_path / "t.npz").exists()


def test_generation_checks_the_longest_sentence_it_may_reach(monkeypatch):
    from engine.generate import generate

    model = Model.create(
        ModelConfig(architecture="decoder", d_model=64, n_heads=64, d_ff=64, n_layers=24, max_len=4096)
    )
    monkeypatch.setattr("engine.generate.KVCache", lambda *a: pytest.fail("a cache was built"))
    with pytest.raises(EngineError, match="GiB of memory"):
        generate(model, "w", steps=4000)


def test_a_zip_bomb_inside_the_size_limits_is_refused_before_it_inflates(tmp_path, capsys):
    good = {"lesson.json": b"{}", "weights.safetensors": bytes(32 * 2**20)}  # 32 MiB of zeros deflate to 32 kB
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in good.items():
            z.writestr(name, data)
    path = write(tmp_path / "bomb.stepformer", buffer.getvalue())
    start = time.perf_counter()
    with pytest.raises(EngineError, match="would inflate .* more than 100 times; refused as a zip bomb"):
        open_lesson(path)
    assert time.perf_counter() - start < 0.5


def test_members_that_together_exceed_the_limit_are_refused(tmp_path, monkeypatch):
    members = {"lesson.json": b"{}", "weights.safetensors": bytes(600), "overrides.safetensors": bytes(600)}
    path = write(tmp_path / "two.stepformer", lessonfile.archive_bytes(members))
    monkeypatch.setattr(lessonfile, "MAX_TOTAL_BYTES", 1000)
    with pytest.raises(EngineError, match="declare 1202 bytes in all"):
        open_lesson(path)


def test_the_window_refuses_a_sentence_that_does_not_fit_and_keeps_the_lesson(qtbot):
    from gui.state.app_state import AppState

    cfg = ModelConfig(d_model=64, n_heads=64, d_ff=64, n_layers=24, max_len=4096)
    state = AppState(cfg, "w w")
    trace, messages = state.trace, []
    state.message.connect(messages.append)
    assert not state.set_sentences("w " * 4000)
    assert "GiB of memory" in state.problem and messages == [state.problem]
    assert state.trace is trace and state.text == "w w"


def test_the_settings_dialog_shows_the_figure_and_applies_nothing(qtbot):
    from PySide6.QtWidgets import QDialogButtonBox

    from gui.state.app_state import AppState
    from gui.window.settings_dialog import SettingsDialog

    state = AppState(ModelConfig(**SMALL), "I love AI")
    before = state.config
    dialog = SettingsDialog(state)
    qtbot.addWidget(dialog)
    for box, value in ((dialog.d_model, 4096), (dialog.n_heads, 8), (dialog.d_ff, 16384), (dialog.n_layers, 24)):
        box.setValue(value)
    assert "18.0 GiB" in dialog.error.text()
    assert not dialog.buttons.button(QDialogButtonBox.Ok).isEnabled() and not dialog.apply()
    assert state.config == before
    assert not state.set_config(dict(before.to_dict(), **HUGE_SETTINGS)) and state.config == before


def test_the_settings_dialog_drops_what_another_architecture_does_not_use(qtbot):
    from gui.state.app_state import AppState
    from gui.window.settings_dialog import SettingsDialog

    model = trained.load("toy")
    state = AppState(model.config, "I love AI", "我 爱 AI", model=model)
    dialog = SettingsDialog(state)
    qtbot.addWidget(dialog)
    dialog.architecture.setCurrentIndex(dialog.architecture.findData("encoder"))
    assert dialog.error.text() == "" and dialog.config().dec_vocab is None


# ---- item 8: one line, never a traceback ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "match"),
    [
        (b'{"d_model": 4, "n_heads": 2, "x": "\xff"}', "not UTF-8 text"),
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"d_model": ' + "9" * 5000 + "}", "cannot be read"),
        (b"{}" + b" " * (2**20), "at most 1048576 are read"),
    ],
)
def test_bad_config_files_give_one_line(tmp_path, capsys, content, match):
    one_line(capsys, "stages", "--config", write(tmp_path / "c.json", content), match=match)


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/urandom", "fifo"])
def test_a_config_that_is_not_a_regular_file_is_refused_at_once(tmp_path, capsys, path):
    if path == "fifo":
        path = str(tmp_path / "fifo.json")
        os.mkfifo(path)  # reading it would wait forever for a writer
    one_line(capsys, "stages", "--config", path, match="is not a regular file")


def test_a_non_utf8_corpus_gives_one_line(tmp_path, capsys):
    corpus = write(tmp_path / "corpus.tsv", b"split\ten\tzh\talign\ntrain\tI\t\xe6\x88\n")
    one_line(capsys, "train", "toy", "--corpus", corpus, "--out", str(tmp_path / "out"), match="not UTF-8 text")
    assert not (tmp_path / "out").exists()


def test_invalid_utf8_in_the_sentence_gives_one_line(tmp_path, capsys, config_file):
    bad = b"I love \xff".decode("utf-8", "surrogateescape")  # what Python makes of such bytes in argv
    one_line(
        capsys,
        "trace",
        "--config",
        config_file,
        "--text",
        bad,
        "--out",
        str(tmp_path / "t.npz"),
        match="is not valid text",
    )
    one_line(
        capsys,
        "export",
        "--text",
        bad,
        "--stage",
        "enc.embed",
        "--out",
        str(tmp_path / "e.csv"),
        match="is not valid text",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.json"]


def test_a_lone_surrogate_in_a_lesson_is_refused(tmp_path):
    from engine.formats.lesson import save_lesson
    from tests.test_lesson_files import edited_lesson

    save_lesson(edited_lesson(), tmp_path / "good.stepformer")
    good = lessonfile.read_archive(tmp_path / "good.stepformer")
    for change in ({"text": "I \ud800"}, {"title": {"en": "\ud800", "zh": ""}}):
        data = {**json.loads(good["lesson.json"]), **change}
        members = {**good, "lesson.json": json.dumps(data).encode()}  # json writes the lone surrogate as \ud800
        path = write(tmp_path / "surrogate.stepformer", lessonfile.archive_bytes(members))
        with pytest.raises(EngineError, match="is not valid text"):
            open_lesson(path)


def test_translate_to_an_ascii_output_gives_one_line(capsys, monkeypatch):
    ascii_out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    monkeypatch.setattr(sys, "stdout", ascii_out)
    code = main.main(["translate", "I love AI"])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "PYTHONIOENCODING=utf-8" in err


def test_float8_weights_open_as_their_float32_values(tmp_path, capsys, config_file):
    model = from_config(config_file).model
    model.trace("I love AI")
    save_weights(model, tmp_path / "w.safetensors")
    tensors = {k: v.to(torch.float8_e4m3fn) for k, v in load_file(tmp_path / "w.safetensors").items()}
    from safetensors import safe_open

    with safe_open(tmp_path / "w.safetensors", "pt") as f:
        meta = f.metadata()
    save_file(tensors, tmp_path / "w8.safetensors", metadata=meta)
    loaded = load_weights(model.config, tmp_path / "w8.safetensors")
    assert all(torch.equal(loaded.params[k], tensors[k].float()) for k in tensors)
    code, out, err = cli(
        capsys,
        "trace",
        "--config",
        config_file,
        "--weights",
        str(tmp_path / "w8.safetensors"),
        "--text",
        "I love AI",
        "--out",
        str(tmp_path / "t.npz"),
    )
    assert code == 0 and err == "" and "wrote" in out


# ---- checkpoints (items 6, 8 and 11) ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gpt2_source(tmp_path_factory):
    """A random 2-layer GPT-2 folder, saved by transformers (as in tests/test_checkpoints.py)."""
    return make_gpt2_folder(tmp_path_factory.mktemp("gpt2"))


@pytest.fixture
def gpt2(gpt2_source, tmp_path):
    """A copy of the GPT-2 folder a test may damage."""
    folder = tmp_path / "gpt2"
    folder.mkdir()
    for f in gpt2_source.iterdir():
        (folder / f.name).write_bytes(f.read_bytes())
    return folder


def edit_config(folder, **changes) -> None:
    data = json.loads((folder / "config.json").read_text())
    data.update(changes)
    (folder / "config.json").write_text(json.dumps(data))


def test_unscaled_gpt2_attention_is_honoured(gpt2):
    edit_config(gpt2, scale_attn_weights=False)
    model = open_checkpoint(gpt2)
    assert model.config.switches == ("no_scale",)
    sentence = "The cat sat on the mat because it was tired."
    tok = transformers.AutoTokenizer.from_pretrained(str(gpt2))
    hf = transformers.GPT2LMHeadModel.from_pretrained(str(gpt2), attn_implementation="eager").eval()
    with torch.no_grad():
        expected = hf(**tok(sentence, return_tensors="pt")).logits[0]
    torch.testing.assert_close(model.trace(sentence)["logits"], expected, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"scale_attn_by_inverse_layer_idx": True}, "scale_attn_by_inverse_layer_idx: GPT-2 with attention scaled"),
        ({"add_cross_attention": True}, "add_cross_attention: GPT-2 with cross-attention"),
        ({"scale_attn_weights": "no"}, "scale_attn_weights must be true or false"),
        ({"activation_function": "silu"}, "activation 'silu' is not supported"),
        ({"vocab_size": 1_000_000}, "has 1000000 tokens; Stepformer shows at most 152064"),
        ({"n_embd": 4096, "n_layer": 24, "n_inner": 16384, "n_head": 8}, "would need 18.0 GiB"),
    ],
)
def test_gpt2_fields_that_are_not_honoured_are_refused_before_the_weights_are_read(gpt2, monkeypatch, changes, match):
    edit_config(gpt2, **changes)
    monkeypatch.setattr("engine.formats.checkpoints.load_file", lambda *a: pytest.fail("the weights were read"))
    with pytest.raises(EngineError, match=match):
        open_checkpoint(gpt2)


def test_bert_fields_that_change_the_math_are_refused(tmp_path):
    folder = make_bert_folder(tmp_path)
    for changes, match in (
        ({"is_decoder": True}, "is_decoder: BERT with a causal mask"),
        ({"add_cross_attention": True}, "BERT with cross-attention"),
        ({"position_embedding_type": "relative_key"}, "only absolute"),
        ({"hidden_act": "silu"}, "not supported"),
    ):
        original = (folder / "config.json").read_text()
        edit_config(folder, **changes)
        with pytest.raises(EngineError, match=match):
            open_checkpoint(folder)
        (folder / "config.json").write_text(original)
    open_checkpoint(folder)


def damage_tensor(folder, name, tensor) -> None:
    tensors = load_file(folder / "model.safetensors")
    tensors[name] = tensor
    save_file(tensors, folder / "model.safetensors", metadata={"format": "pt"})


@pytest.mark.parametrize("shape", [(48,), ()])
def test_a_gpt2_attention_weight_of_the_wrong_rank_is_named(gpt2, shape):
    damage_tensor(gpt2, "transformer.h.0.attn.c_attn.weight", torch.ones(shape))
    with pytest.raises(EngineError, match=r"c_attn\.weight has shape \[.*\]; config\.json implies \[16, 48\]"):
        open_checkpoint(gpt2)


def test_a_vocabulary_too_large_for_the_output_stages_is_refused(gpt2):
    damage_tensor(gpt2, "transformer.wte.weight", torch.zeros(160_000, 16))
    with pytest.raises(EngineError, match="has 160000 tokens; Stepformer shows at most 152064"):
        open_checkpoint(gpt2)


def test_a_checkpoint_config_that_is_not_utf8_or_a_pipe_gives_one_line(gpt2, capsys, tmp_path):
    (gpt2 / "config.json").write_bytes(b'{"model_type": "gpt2\xff"}')
    with pytest.raises(EngineError, match="config.json is not UTF-8 text"):
        open_checkpoint(gpt2)
    (gpt2 / "config.json").unlink()
    os.mkfifo(gpt2 / "config.json")
    with pytest.raises(EngineError, match="is not a regular file"):
        open_checkpoint(gpt2)


def test_a_tokenizer_file_that_is_a_pipe_is_refused(gpt2):
    (gpt2 / "tokenizer.json").unlink()
    os.mkfifo(gpt2 / "tokenizer.json")
    with pytest.raises(EngineError, match="tokenizer.json is not a regular file"):
        open_checkpoint(gpt2)


def test_an_empty_tokenizer_vocabulary_is_refused_on_opening(gpt2):
    data = json.loads((gpt2 / "tokenizer.json").read_text())
    data["model"]["vocab"], data["model"]["merges"] = {}, []
    (gpt2 / "tokenizer.json").write_text(json.dumps(data))
    with pytest.raises(EngineError, match="the tokenizer's vocabulary is empty"):
        open_checkpoint(gpt2)


# ---- item 11: nothing silently ignored or replaced --------------------------------------------------------


def test_a_weights_file_listing_the_special_tokens_last_is_refused(tmp_path, capsys, config_file):
    model = from_config(config_file).model
    model.trace("I love AI")
    tokens = model.vocabs["enc"].tokens
    specials_last = [t for t in tokens if t not in SPECIALS] + list(SPECIALS)
    meta = {"stepformer.enc_vocab": json.dumps(specials_last), "stepformer.config": model.config.to_json()}
    save_file(dict(model.params), tmp_path / "w.safetensors", metadata=meta)
    with pytest.raises(EngineError, match="the enc vocabulary must start with <unk>, <start>, <end>"):
        load_weights(model.config, tmp_path / "w.safetensors")
    one_line(
        capsys,
        "trace",
        "--config",
        config_file,
        "--weights",
        str(tmp_path / "w.safetensors"),
        "--text",
        "I",
        "--out",
        str(tmp_path / "t.npz"),
        match="must start with",
    )


def test_an_empty_sentence_is_refused_not_replaced(tmp_path, capsys):
    one_line(
        capsys,
        "export",
        "--text",
        "",
        "--stage",
        "enc.embed",
        "--out",
        str(tmp_path / "e.csv"),
        match="the sentence is empty",
    )
    one_line(
        capsys,
        "export",
        "--lesson",
        "i-love-ai",
        "--text",
        "",
        "--stage",
        "enc.embed",
        "--out",
        str(tmp_path / "e.csv"),
        match="the sentence is empty",
    )
    assert not (tmp_path / "e.csv").exists()


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        (dict(dec_vocab=["a"]), "dec_vocab is the decoder's vocabulary, but an encoder has no decoder"),
        (dict(switches=["no_mask"]), "no_mask turns off the decoder's causal mask, but an encoder has no mask"),
        (dict(architecture="decoder", enc_vocab=["a"]), "enc_vocab is the encoder's vocabulary"),
    ],
)
def test_fields_an_architecture_would_ignore_are_refused(tmp_path, capsys, changes, match):
    with pytest.raises(EngineError, match=match):
        ModelConfig.from_dict({**SMALL, **changes})
    one_line(capsys, "stages", "--config", write(tmp_path / "c.json", json.dumps({**SMALL, **changes})), match=match)


@pytest.mark.parametrize("value", ["inf", "1e-300", "nan", "0", "1000"])
def test_temperatures_outside_the_shared_range_are_refused(tmp_path, capsys, value):
    one_line(
        capsys,
        "export",
        "--stage",
        "enc.embed",
        "--temperature",
        value,
        "--out",
        str(tmp_path / "e.csv"),
        match="--temperature",
    )
    assert not (tmp_path / "e.csv").exists()


def test_the_window_uses_the_same_temperature_range(qtbot):
    from gui.docks.generation import GenerationPanel
    from gui.state.app_state import AppState

    panel = GenerationPanel(AppState(ModelConfig(architecture="decoder", **SMALL), "I love AI"))
    qtbot.addWidget(panel)
    assert (panel.temperature.minimum(), panel.temperature.maximum()) == (MIN_TEMPERATURE, MAX_TEMPERATURE)


# ---- the window: a refusal or an unexpected error never leaves the busy cursor on ---------------------------


def test_the_busy_cursor_is_restored_whatever_opening_a_model_raises(qtbot, start_window, gpt2):
    from PySide6.QtWidgets import QApplication

    prompts = FakePrompts()
    picker = start_window("two-heads", prompts=prompts).window.model_picker
    (gpt2 / "config.json").write_bytes(b"\xff\xfe")
    assert not picker.open_folder(gpt2)
    assert QApplication.overrideCursor() is None and "not UTF-8 text" in prompts.errors[-1]
    with pytest.raises(ZeroDivisionError):
        picker.open_model(lambda: 1 / 0, "x")
    assert QApplication.overrideCursor() is None
