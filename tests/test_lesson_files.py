"""Lesson files: save → open round-trips exactly, saves are atomic, and hostile or broken files are refused
with one clear message and change nothing."""

import io
import json
import os
import pickle
import random
import re
import struct
import zipfile

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from safetensors.torch import save as tensors_to_bytes

from engine import EngineError, Model, ModelConfig
from engine.formats import lessonfile
from engine.formats.lesson import Lesson, open_lesson, save_lesson
from engine.formats.recovery import RecoveryFolder
from tests.reference import random_config, random_text

TITLE = {"en": "My lesson", "zh": "我的课"}
DESCRIPTION = {"en": "Edited in class.", "zh": "课堂上修改过。"}


def assert_same_lesson(a: Lesson, b: Lesson) -> None:
    assert a.config == b.config and a.switches == b.switches
    assert (a.text, a.target, a.stage, a.lang, a.title, a.description) == (
        b.text,
        b.target,
        b.stage,
        b.lang,
        b.title,
        b.description,
    )
    ta, tb = a.trace(), b.trace()
    assert {s: v.tokens for s, v in ta.model.vocabs.items()} == {s: v.tokens for s, v in tb.model.vocabs.items()}
    assert ta.params.keys() == tb.params.keys()
    for name in ta.params:
        assert torch.equal(ta.params[name], tb.params[name]), name
    assert a.overrides.keys() == b.overrides.keys()
    for name in a.overrides:
        assert torch.equal(a.overrides[name], b.overrides[name]), name
    for name in ta.stage_names:
        assert torch.equal(ta[name], tb[name]), name


def edited_lesson() -> Lesson:
    """An encoder-decoder lesson with weight edits, a pinned stage, switches, a stage and Chinese."""
    cfg = ModelConfig(architecture="encoder-decoder", d_model=4, n_heads=2, d_ff=8, decimals=2, switches=("no_scale",))
    model = Model.create(cfg)
    trace = model.trace("I love AI", "我 爱 你")
    trace.set_cell("enc.0.attn.W_Q", (1, 2), 0.75)
    trace.set_cell("unembed.W_U", (3, 1), -2.5)
    trace.set_cell("dec.0.cross_attn.weights", (1, 2, 0), 0.9)
    return Lesson.from_model(
        model,
        "I love AI",
        "我 爱 你",
        stage="dec.0.cross_attn.z",
        lang="zh",
        title=TITLE,
        description=DESCRIPTION,
        overrides=trace.overrides,
    )


# ---- round trips ---------------------------------------------------------------------------------


def test_edited_lesson_round_trips_exactly(tmp_path):
    lesson = edited_lesson()
    path = tmp_path / "class.stepformer"
    save_lesson(lesson, path)
    again = open_lesson(path)
    assert_same_lesson(lesson, again)
    assert again.switches == ("no_scale",)
    assert again.trace()["enc.0.attn.W_Q"][1, 2] == 0.75
    assert again.trace()["dec.0.cross_attn.weights"][1, 2, 0] == 0.9  # the pinned stage stays pinned
    save_lesson(again, tmp_path / "again.stepformer")  # the same lesson always gives the same bytes
    assert (tmp_path / "again.stepformer").read_bytes() == path.read_bytes()


@pytest.mark.parametrize("name", ["i-love-ai", "why-scale", "cross-attention", "the-cat-sat"])
def test_shipped_lesson_round_trips_exactly(tmp_path, name):
    lesson = open_lesson(name)
    save_lesson(lesson, tmp_path / "x.stepformer")
    assert_same_lesson(lesson, open_lesson(tmp_path / "x.stepformer"))


def test_the_views_a_lesson_opens_round_trip_and_older_files_have_none(tmp_path):
    lesson = open_lesson("cost-of-context")
    assert lesson.views == ("cost",)
    save_lesson(lesson, tmp_path / "x.stepformer")
    assert open_lesson(tmp_path / "x.stepformer").views == ("cost",)
    plain = edited_lesson()
    save_lesson(plain, tmp_path / "plain.stepformer")
    assert "views" not in lessonfile.read_archive(tmp_path / "plain.stepformer")["lesson.json"].decode()
    assert open_lesson(tmp_path / "plain.stepformer").views == ()


def test_the_lab_experiment_a_lesson_chooses_round_trips_and_older_files_have_none(tmp_path):
    lesson = open_lesson("lab-post-vs-pre-ln")
    assert (lesson.views, lesson.lab) == (("lab",), "post-vs-pre-ln")
    save_lesson(lesson, tmp_path / "x.stepformer")
    assert open_lesson(tmp_path / "x.stepformer").lab == "post-vs-pre-ln"
    assert open_lesson("cost-of-context").lab is None


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6))
def test_any_model_with_any_edits_round_trips(tmp_path, seed):
    rng = random.Random(seed)
    cfg = random_config(rng)
    switches = ["no_pe", "no_scale"] + (["no_mask"] if "dec" in cfg.stacks else [])
    cfg = cfg.replace(switches=tuple(rng.sample(switches, rng.randint(0, 2))))
    model = Model.create(cfg)
    target = random_text(rng, 0, 5) if cfg.architecture == "encoder-decoder" else ""
    text = random_text(rng)
    trace = model.trace(text, target or None)
    for _ in range(rng.randint(1, 4)):
        name = rng.choice(sorted(trace.params))
        cell = tuple(rng.randrange(n) for n in trace.params[name].shape)
        trace.set_cell(name, cell, round(rng.uniform(-3, 3), 3))
    stage = rng.choice(trace.stage_names)
    lesson = Lesson.from_model(
        model, text, target, stage=stage, lang=rng.choice(["en", "zh"]), title=TITLE, description=DESCRIPTION
    )
    save_lesson(lesson, tmp_path / "r.stepformer")
    assert_same_lesson(lesson, open_lesson(tmp_path / "r.stepformer"))


# ---- atomic saves --------------------------------------------------------------------------------


def test_a_failed_save_leaves_the_old_file_whole(tmp_path, monkeypatch):
    path = tmp_path / "class.stepformer"
    save_lesson(open_lesson("i-love-ai"), path)
    before = path.read_bytes()

    def crash(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(EngineError, match="cannot write .*class.stepformer: No space left on device"):
        save_lesson(open_lesson("layernorm"), path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["class.stepformer"]  # no temporary file left


def test_an_invalid_lesson_is_not_saved(tmp_path):
    lesson = open_lesson("i-love-ai")
    lesson.stage = "enc.7.attn.q"
    with pytest.raises(EngineError, match="current stage 'enc.7.attn.q' is not a stage"):
        save_lesson(lesson, tmp_path / "x.stepformer")
    assert not (tmp_path / "x.stepformer").exists()
    with pytest.raises(EngineError, match="folder .* does not exist"):
        save_lesson(open_lesson("i-love-ai"), tmp_path / "missing" / "x.stepformer")


# ---- hostile and broken files --------------------------------------------------------------------


@pytest.fixture
def good(tmp_path) -> dict[str, bytes]:
    """The members of a valid lesson file (one with a pinned stage, so all three members are there)."""
    save_lesson(edited_lesson(), tmp_path / "good.stepformer")
    with zipfile.ZipFile(tmp_path / "good.stepformer") as z:
        return {name: z.read(name) for name in z.namelist()}


def zip_of(members: dict[str, bytes], compression=zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression, compresslevel=1) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buffer.getvalue()


def refused(tmp_path, data: bytes, match: str) -> None:
    """Opening these bytes raises one EngineError matching `match`, and changes nothing on disk."""
    path = tmp_path / "hostile.stepformer"
    path.write_bytes(data)
    before = sorted(tmp_path.iterdir())
    with pytest.raises(EngineError, match=match):
        open_lesson(path)
    assert path.read_bytes() == data and sorted(tmp_path.iterdir()) == before


def with_json(good, **changes) -> bytes:
    data = json.loads(good["lesson.json"])
    data.update(changes)
    return zip_of({**good, "lesson.json": json.dumps(data).encode()})


def with_tensor(good, name, tensor) -> bytes:
    tensors = {**torch_load(good["weights.safetensors"]), name: tensor}
    return zip_of({**good, "weights.safetensors": tensors_to_bytes(tensors)})


def torch_load(data: bytes) -> dict:
    from safetensors.torch import load

    return load(data)


def test_the_good_file_opens(tmp_path, good):
    (tmp_path / "ok.stepformer").write_bytes(zip_of(good))
    assert_same_lesson(open_lesson(tmp_path / "ok.stepformer"), edited_lesson())


@pytest.mark.parametrize(
    ("data", "match"),
    [
        (b"", "not a readable zip archive"),
        (b"hello, I am not a zip", "not a readable zip archive"),
        (b"PK\x03\x04" + b"\0" * 40, "not a readable zip archive"),
        (pickle.dumps({"enc.0.attn.W_Q": [1, 2]}), "not a readable zip archive"),
    ],
)
def test_not_a_zip(tmp_path, data, match):
    refused(tmp_path, data, match)


def test_missing_file_and_unknown_name(tmp_path):
    with pytest.raises(EngineError, match="no such file"):
        open_lesson(tmp_path / "nothing.stepformer")
    with pytest.raises(EngineError, match="no lesson named 'no-such-lesson'.*i-love-ai"):
        open_lesson("no-such-lesson")


@pytest.mark.parametrize("member", ["lesson.json", "weights.safetensors"])
def test_missing_parts(tmp_path, good, member):
    members = {k: v for k, v in good.items() if k != member}
    refused(tmp_path, zip_of(members), f"lacks {member}")


@pytest.mark.parametrize("name", ["data.pkl", "archive/data.pkl", "weights.pt", "lesson.json.pkl", "README"])
def test_a_pickle_or_any_other_member_is_refused(tmp_path, good, name):
    message = f"unexpected member {re.escape(repr(name))}.*nothing is ever unpickled"
    refused(tmp_path, zip_of({**good, name: pickle.dumps(object())}), message)


def test_a_torch_save_file_is_refused(tmp_path):
    buffer = io.BytesIO()
    torch.save({"enc.0.attn.W_Q": torch.eye(4)}, buffer)  # torch's format: a zip with a pickle inside
    refused(tmp_path, buffer.getvalue(), "unexpected member .*data.pkl")


def test_a_pickle_in_place_of_the_weights_is_refused(tmp_path, good):
    evil = pickle.dumps(torch.eye(4))
    refused(tmp_path, zip_of({**good, "weights.safetensors": evil}), "weights.safetensors is not a readable")
    refused(tmp_path, zip_of({**good, "lesson.json": evil}), "lesson.json is not (UTF-8 text|valid JSON)")


@pytest.mark.parametrize(
    "name",
    [
        "../lesson.json",
        "../../etc/passwd",
        "a/../../x",
        "/etc/passwd",
        "/lesson.json",
        "C:\\Windows\\x",
        "..\\..\\x",
        "\\\\server\\share\\x",
    ],
)
def test_paths_that_climb_out_are_refused(tmp_path, good, name):
    members = {**good, name: b"{}"}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for member, data in members.items():
            z.writestr(zipfile.ZipInfo(member), data)  # ZipInfo keeps the name as given
    refused(tmp_path, buffer.getvalue(), "points outside the archive")
    assert not (tmp_path.parent / "lesson.json").exists()


def test_duplicate_members_are_refused(tmp_path, good):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z, pytest.warns(UserWarning, match="Duplicate name"):
        for name, data in [*good.items(), ("weights.safetensors", good["weights.safetensors"])]:
            z.writestr(name, data)
    refused(tmp_path, buffer.getvalue(), "appears twice")


def test_encrypted_and_odd_compression_are_refused(tmp_path, good):
    encrypted = patch_central(zip_of(good), "weights.safetensors", 8, "<H", 0x1)  # general purpose flag bit 0
    refused(tmp_path, encrypted, "weights.safetensors is encrypted")
    refused(tmp_path, zip_of(good, zipfile.ZIP_BZIP2), "unsupported compression")


# ---- zip bombs -----------------------------------------------------------------------------------


def patch_central(data: bytes, name: str, offset: int, fmt: str, value: int) -> bytes:
    """Rewrite one field of member `name`'s central directory record (what zipfile trusts)."""
    data = bytearray(data)
    pos = data.find(b"PK\x01\x02")
    while pos >= 0:
        name_len = struct.unpack_from("<H", data, pos + 28)[0]
        if data[pos + 46 : pos + 46 + name_len].decode() == name:
            struct.pack_into(fmt, data, pos + offset, value)
        pos = data.find(b"PK\x01\x02", pos + 4)
    return bytes(data)


def declare_size(data: bytes, name: str, size: int) -> bytes:
    return patch_central(data, name, 24, "<I", size)  # the uncompressed size


def test_a_zip_bomb_is_refused_before_it_unpacks(tmp_path, good, monkeypatch):
    monkeypatch.setattr(lessonfile, "MAX_TENSOR_BYTES", 2**20)
    bomb = zip_of({**good, "weights.safetensors": bytes(32 * 2**20)})  # 32 MiB of zeros in ~32 kB
    assert len(bomb) < 2**20
    refused(tmp_path, bomb, "weights.safetensors declares 33554432 bytes, more than a lesson may hold")


def test_huge_declared_sizes_are_refused_with_the_real_limits(tmp_path, good):
    data = zip_of(good)
    refused(tmp_path, declare_size(data, "weights.safetensors", 0xF000_0000), "declares 4026531840 bytes")
    refused(tmp_path, declare_size(data, "lesson.json", 50 * 2**20), "lesson.json declares")


def test_a_member_that_lies_about_its_size_stops_unpacking_at_the_declared_size(tmp_path, good):
    bomb = zip_of({**good, "weights.safetensors": bytes(32 * 2**20)})
    refused(tmp_path, declare_size(bomb, "weights.safetensors", 1000), "weights.safetensors is damaged")


def test_too_many_members_are_refused(tmp_path, good):
    many = {**good, **{f"x{i}": b"" for i in range(2000)}}
    refused(tmp_path, zip_of(many), "has 2003 members")


# ---- broken contents -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        ({"format": "something.else"}, "not a Stepformer lesson"),
        ({"version": 99}, "format version 99; this Stepformer reads 1"),
        ({"extra": 1}, "unknown field 'extra'"),
        ({"config": {"d_model": 5, "n_heads": 2}}, "d_model = 5 is not divisible by n_heads = 2"),
        ({"config": "big"}, "expected a JSON object"),
        ({"lang": "fr"}, "language 'fr'"),
        ({"title": "no languages"}, "title must give a text for each language"),
        ({"description": {"en": "only English"}}, "description must give a text for each language"),
        ({"stage": "enc.9.attn.q"}, "current stage 'enc.9.attn.q' is not a stage"),
        ({"stage": 3}, "stage must be a stage name or null"),
        ({"text": ""}, "the sentence is empty"),
        ({"text": 42}, "sentences must be text"),
        ({"vocabularies": {"enc": ["<unk>"]}}, "vocabularies must list the tokens of each stack: enc, dec"),
        ({"vocabularies": {"enc": 1, "dec": []}}, "the enc vocabulary must be a list of token strings"),
        ({"views": ["cost", "charts"]}, "unknown view 'charts' in views; a lesson can open heads, overview, whatif"),
        ({"views": "cost"}, "views must be a list of view names"),
        ({"views": ["cost", "cost"]}, "views names a view twice"),
        ({"views": ["lab"], "lab": "nope"}, "unknown experiment 'nope' in lab; choose one of gradient-highway, "),
        ({"lab": "teacher-forcing"}, 'lab chooses an experiment, so views must open the lab: add "lab" to views'),
    ],
)
def test_bad_lesson_json(tmp_path, good, changes, match):
    refused(tmp_path, with_json(good, **changes), match)


def test_missing_field_and_bad_json(tmp_path, good):
    data = json.loads(good["lesson.json"])
    del data["stage"]
    refused(tmp_path, zip_of({**good, "lesson.json": json.dumps(data).encode()}), "missing field 'stage'")
    refused(tmp_path, zip_of({**good, "lesson.json": b'{"format": '}), "lesson.json is not valid JSON")
    refused(tmp_path, zip_of({**good, "lesson.json": b"[1, 2]"}), "must be a JSON object")
    refused(tmp_path, zip_of({**good, "lesson.json": b"\xff\xfe"}), "not UTF-8 text")
    refused(tmp_path, zip_of({**good, "lesson.json": b"[" * 100000}), "nested too deeply|not valid JSON")


def test_vocabularies_must_match_the_weights(tmp_path, good):
    vocabs = json.loads(good["lesson.json"])["vocabularies"]
    shorter = {**vocabs, "enc": vocabs["enc"][:-1]}
    refused(tmp_path, with_json(good, vocabularies=shorter), r"enc.embed.W_E has shape \[6, 4\]; expected \[5, 4\]")
    reordered = {**vocabs, "enc": vocabs["enc"][3:] + vocabs["enc"][:3]}
    refused(tmp_path, with_json(good, vocabularies=reordered), "must start with <unk>, <start>, <end>")
    twice = {**vocabs, "enc": vocabs["enc"] + ["I"]}
    refused(tmp_path, with_json(good, vocabularies=twice), "lists the token .* twice")


@pytest.mark.parametrize(
    ("name", "tensor", "match"),
    [
        ("enc.0.attn.W_Q", torch.zeros(4, 3), r"enc.0.attn.W_Q has shape \[4, 3\]; expected \[4, 4\]"),
        ("enc.0.attn.W_Q", torch.zeros(4, 4, dtype=torch.int32), "enc.0.attn.W_Q has dtype torch.int32"),
        ("enc.0.attn.W_Q", torch.zeros(4, 4, dtype=torch.bool), "dtype torch.bool"),
        ("enc.0.attn.W_Q", torch.full((4, 4), float("nan")), "NaN or infinity"),
        ("enc.0.attn.W_Q", torch.full((4, 4), 1e30), "beyond"),
        ("enc.0.attn.W_Z", torch.zeros(4, 4), "has enc.0.attn.W_Z, which this config does not use"),
    ],
)
def test_wrong_weights(tmp_path, good, name, tensor, match):
    refused(tmp_path, with_tensor(good, name, tensor), match)


def test_missing_weight(tmp_path, good):
    tensors = torch_load(good["weights.safetensors"])
    del tensors["dec.0.ffn.W2"]
    refused(tmp_path, zip_of({**good, "weights.safetensors": tensors_to_bytes(tensors)}), "lacks dec.0.ffn.W2")
    refused(
        tmp_path,
        zip_of({**good, "weights.safetensors": good["weights.safetensors"][:100]}),
        "not a readable safetensors",
    )


@pytest.mark.parametrize(
    ("overrides", "match"),
    [
        ({"enc.0.attn.W_Q": torch.zeros(4, 4)}, "'enc.0.attn.W_Q' is not a stage of this model"),
        ({"dec.0.cross_attn.weights": torch.zeros(2, 3)}, r"has shape \[2, 3\]; expected \[2, 4, 3\]"),
        ({"enc.0.attn.q": torch.zeros(2, 3, 2, dtype=torch.int64)}, "dtype torch.int64"),
    ],
)
def test_wrong_overrides(tmp_path, good, overrides, match):
    refused(tmp_path, zip_of({**good, "overrides.safetensors": tensors_to_bytes(overrides)}), match)


def test_a_refused_file_changes_nothing(tmp_path, good, monkeypatch):
    """Opening a broken file leaves an open lesson and the autosave exactly as they were."""
    monkeypatch.setenv("STEPFORMER_DATA_DIR", str(tmp_path / "data"))
    lesson = edited_lesson()
    recovery = RecoveryFolder.create()
    recovery.write_snapshot(lesson, recovery.start_generation())
    snapshot = recovery.path / "snapshot-1.stepformer"
    saved = snapshot.read_bytes()
    broken = tmp_path / "broken.stepformer"
    broken.write_bytes(with_tensor(good, "enc.0.attn.W_Q", torch.zeros(3, 3)))
    with pytest.raises(EngineError):
        open_lesson(broken)
    assert snapshot.read_bytes() == saved
    assert_same_lesson(lesson, edited_lesson())
