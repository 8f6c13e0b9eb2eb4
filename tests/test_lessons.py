"""The shipped lessons: each opens, traces, steps to its last stage, agrees with an independent reference,
and reproduces the numbers the seed tutorials print (to the printed precision) — or, where a printed
number is wrong, its description says so and gives the right one."""

import json
import math

import pytest
import torch

from engine import EngineError
from engine.formats import lesson as lesson_module
from engine.formats.lesson import LANGS, open_lesson, shipped_lessons
from tests.functional_reference import reference_values

NAMES = [
    "i-love-ai",
    "two-heads",
    "layernorm",
    "why-scale",
    "positional-encoding",
    "masked-decoder",
    "cross-attention",
    "what-does-it-refer-to",
    "the-cat-sat",
    "flash-attention",
    "cost-of-context",
    "lab-gradient-highway",
    "lab-post-vs-pre-ln",
    "lab-no-layernorm",
    "lab-scale-saturation",
    "lab-teacher-forcing",
    "2017-to-today",
]


def rounded(t: torch.Tensor, decimals: int) -> list:
    """A tensor as printed with `decimals` decimals (−0.0 printed as 0.0)."""
    return (torch.round(t.double(), decimals=decimals) + 0.0).tolist()


def trace_of(name: str, *switches: str):
    lesson = open_lesson(name)
    model = lesson.build_model()
    if switches:
        model = model.with_config(lesson.config.replace(switches=switches))
    return model.trace(lesson.text, lesson.target or None)


def test_every_lesson_in_teaching_order_with_both_languages():
    infos = shipped_lessons()
    assert [i.name for i in infos] == NAMES
    for info in infos:
        for texts in (info.title, info.description):
            assert set(texts) == set(LANGS) and all(t.strip() for t in texts.values())
            assert any("\u4e00" <= ch <= "\u9fff" for ch in texts["zh"]), info.name


@pytest.mark.parametrize("name", NAMES)
def test_lesson_opens_traces_and_every_stage_matches_the_reference(name):
    lesson = open_lesson(name)
    trace = lesson.validate()
    assert lesson.stage is None or lesson.stage in trace.stage_names
    expected = reference_values(trace)
    assert {st.name for st in trace.stages} == set(expected)
    for stage_name in trace.stage_names:  # stepping from the first stage to the last
        value = trace[stage_name]
        assert not torch.isnan(value.double()).any(), stage_name
        if stage_name in expected:
            torch.testing.assert_close(value, expected[stage_name].to(value.dtype), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("name", NAMES)
def test_lesson_is_the_same_every_time(name):
    first, second = open_lesson(name).trace(), open_lesson(name).trace()
    assert first.stage_names == second.stage_names
    for stage_name in first.stage_names:
        assert torch.equal(first[stage_name], second[stage_name])


def test_i_love_ai():
    t = trace_of("i-love-ai")
    assert t.tokens["enc"] == ["I", "love", "AI"]
    assert t["enc.x0"][0].tolist() == [1, 0, 1, 0]
    assert t.config.d_k == 4 and t.config.n_heads == 1
    assert t["enc.0.attn.scaled"][0].tolist() == [[0.5, 0.5, 1.0], [0.5, 0.5, 0.5], [1.0, 0.5, 0.0]]
    assert rounded(t["enc.0.attn.weights"][0], 3) == [
        [0.274, 0.274, 0.452],
        [0.333, 0.333, 0.333],
        [0.506, 0.307, 0.186],
    ]
    assert rounded(t["enc.0.attn.z"][0, 0], 3) == [0.726, 0.726, 0.274, 0.726]
    assert torch.equal(t["enc.0.attn.out"], t["enc.0.attn.concat"])  # W_O = identity


def test_two_heads_each_on_its_own_half():
    t = trace_of("two-heads")
    assert t.config.n_heads == 2 and t.config.d_k == 2
    assert t["enc.x0"][0].tolist() == [1, 0, 1, 0]  # the same X as "I love AI"
    for W in ("W_Q", "W_K", "W_V"):  # block-diagonal: head 1 reads dims 1–2, head 2 dims 3–4
        M = t.params[f"enc.0.attn.{W}"]
        assert not M[:2, 2:].any() and not M[2:, :2].any()
    assert t["enc.0.attn.v"][0].tolist() == [[0, 1], [1, 0], [0, 1]]
    assert t["enc.0.attn.v"][1].tolist() == [[0, 1], [1, 0], [1, 0]]
    assert rounded(t["enc.0.attn.scaled"][0, 0], 3) == [0.707, 0.0, 0.707]
    assert rounded(t["enc.0.attn.scaled"][1, 0], 3) == [0.0, 0.707, 0.707]
    # Head 1: the seed prints [0.405, 0.190, 0.405] and [0.190, 0.810]; the right values are these.
    assert rounded(t["enc.0.attn.weights"][0, 0], 3) == [0.401, 0.198, 0.401]
    assert rounded(t["enc.0.attn.z"][0, 0], 3) == [0.198, 0.802]
    # Head 2: the seed is right.
    assert rounded(t["enc.0.attn.weights"][1, 0], 3) == [0.198, 0.401, 0.401]
    assert rounded(t["enc.0.attn.z"][1, 0], 3) == [0.802, 0.198]
    assert rounded(t["enc.0.attn.concat"][0], 3) == [0.198, 0.802, 0.802, 0.198]


def test_layernorm_of_1_5_3_minus_1():
    t = trace_of("layernorm")
    assert t["enc.0.add1"].tolist() == [[1, 5, 3, -1], [10, 50, 30, -10]]
    assert t["enc.0.norm1.mean"].tolist() == [[2.0], [20.0]]
    assert t["enc.0.norm1.var"].tolist() == [[5.0], [500.0]]
    for row in range(2):  # the same normalised vector at ten times the scale
        assert rounded(t["enc.0.norm1.out"][row], 3) == [-0.447, 1.342, 0.447, -1.342]
        assert rounded(t["enc.0.norm1.out"][row], 2) == [-0.45, 1.34, 0.45, -1.34]
        out = t["enc.0.norm1.out"][row]
        assert abs(out.mean().item()) < 1e-6 and abs(out.std(unbiased=False).item() - 1) < 1e-5


def test_why_scale():
    t = trace_of("why-scale")
    assert t.config.d_k == 64 and t.config.n_heads == 1
    assert t["enc.0.attn.scores"][0, 2].tolist() == [26, 18, 30, 22]
    assert t["enc.0.attn.scaled"][0, 2].tolist() == [3.25, 2.25, 3.75, 2.75]
    p = t["enc.0.attn.weights"][0, 2].max().item()
    assert (round(p, 3), round(1 - p, 3), round(p * (1 - p), 3)) == (0.455, 0.545, 0.248)
    unscaled = trace_of("why-scale", "no_scale")  # the lesson's what-if: the same model without 1/√d_k
    p = unscaled["enc.0.attn.weights"][0, 2].max().item()
    assert (round(p, 3), round(p * (1 - p), 3)) == (0.982, 0.018)


def test_sinusoidal_positions_0_to_2():
    t = trace_of("positional-encoding")
    assert t.tokens["enc"] == ["狗", "咬", "人"]
    assert rounded(t["enc.pos"], 3) == [
        [0.0, 1.0, 0.0, 1.0],
        [0.841, 0.540, 0.010, 1.000],
        [0.909, -0.416, 0.020, 1.000],
    ]
    expected = [[math.sin(p), math.cos(p), math.sin(p / 100), math.cos(p / 100)] for p in range(3)]
    torch.testing.assert_close(t["enc.pos"], torch.tensor(expected), atol=1e-6, rtol=0)
    torch.testing.assert_close(t["enc.x0"], t["enc.pos"] + torch.eye(3, 4))


def test_masked_decoder():
    t = trace_of("masked-decoder")
    assert t.tokens["dec"] == ["<start>", "我", "爱", "大", "模型"]
    assert torch.isneginf(t["dec.0.self_attn.masked"][0, 1, 2:]).all()
    # The seed's "爱 row" predicts 爱: the row of the input 我, which sees <start> and 我 only.
    assert rounded(t["dec.0.self_attn.weights"][0, 1], 2) == [0.60, 0.40, 0.0, 0.0, 0.0]
    assert (t["dec.0.self_attn.weights"][0][torch.ones(5, 5, dtype=torch.bool).triu(1)] == 0).all()
    unmasked = trace_of("masked-decoder", "no_mask")  # without the mask the future word 大 gets 0.25
    assert rounded(unmasked["dec.0.self_attn.weights"][0, 1], 2) == [0.30, 0.20, 0.12, 0.25, 0.12]


def test_cross_attention_i_love_to_wo_ai():
    t = trace_of("cross-attention")
    assert t.tokens == {"enc": ["I", "love"], "dec": ["<start>", "我", "爱"]}
    p = "dec.0.cross_attn"
    assert rounded(t[f"{p}.k"][0], 3) == [[1, 1, 0, 0], [0, 0, 1, 1]]
    assert rounded(t[f"{p}.v"][0], 3) == [[0, 1, 1, 0], [1, 0, 0, 1]]
    assert rounded(t[f"{p}.q"][0, 2], 3) == [0, 1, 1, 0]  # Q_爱
    assert rounded(t[f"{p}.scaled"][0, 2], 3) == [0.5, 0.5]
    assert rounded(t[f"{p}.weights"][0, 2], 3) == [0.5, 0.5]
    assert rounded(t[f"{p}.z"][0, 2], 3) == [0.5, 0.5, 0.5, 0.5]
    assert rounded(t[f"{p}.weights"][0, 1], 3) == [0.731, 0.269]  # 我 looks at I


def test_what_does_it_refer_to():
    t = trace_of("what-does-it-refer-to")
    assert t.tokens["enc"] == ["猫", "吃了", "鱼", "因为", "它", "饿了"]
    scores = t["enc.0.attn.scores"][0, 4]
    assert scores.tolist() == [8.0, 1.0, 2.0, 1.5, 0.5, 4.0]
    weights = t["enc.0.attn.weights"][0, 4]
    assert weights.argmax().item() == 0  # 它 attends mostly to 猫
    assert rounded(weights, 3) == [0.783, 0.024, 0.039, 0.030, 0.018, 0.106]
    assert rounded(torch.softmax(scores, -1), 3) == [0.977, 0.001, 0.002, 0.001, 0.001, 0.018]
    unscaled = trace_of("what-does-it-refer-to", "no_scale")
    assert rounded(unscaled["enc.0.attn.weights"][0, 4], 3) == [0.977, 0.001, 0.002, 0.001, 0.001, 0.018]
    seed = torch.tensor([0.6, 0.05, 0.1, 0.08, 0.02, 0.15])  # what the seed prints: no softmax gives it
    assert not torch.allclose(weights, seed, atol=0.01)
    assert not torch.allclose(torch.softmax(scores, -1), seed, atol=0.01)
    assert open_lesson("what-does-it-refer-to").show["row"] == 4  # its row plots chart 它's row, the question asked


def test_the_cat_sat_on_the_mat():
    t = trace_of("the-cat-sat")
    cfg = t.config
    assert (cfg.d_model, cfg.n_heads, cfg.n_layers, cfg.positional) == (8, 2, 2, "sinusoidal")
    assert t.tokens["enc"] == ["The", "cat", "sat", "on", "the", "mat"]
    assert t["enc.1.attn.weights"].shape == (2, 6, 6)


@pytest.mark.parametrize(
    ("name", "wrong", "right"),
    [
        ("two-heads", ["0.405, 0.190, 0.405", "0.190, 0.810"], ["0.401, 0.198, 0.401", "0.198, 0.802"]),
        (
            "what-does-it-refer-to",
            ["0.6, 0.05, 0.1, 0.08, 0.02, 0.15"],
            ["0.977, 0.001, 0.002, 0.001, 0.001, 0.018", "0.783, 0.024, 0.039, 0.030, 0.018, 0.106"],
        ),
    ],
)
def test_descriptions_name_the_seeds_wrong_numbers_and_the_right_ones(name, wrong, right):
    description = open_lesson(name).description
    for lang in LANGS:
        for text in wrong + right:
            assert text in description[lang], (lang, text)


def test_descriptions_quote_the_numbers_the_lessons_compute():
    quoted = {
        "i-love-ai": ["0.274, 0.274, 0.452", "0.506, 0.307, 0.186", "0.726, 0.726, 0.274, 0.726"],
        "layernorm": ["−0.447, 1.342, 0.447, −1.342"],
        "why-scale": ["0.982", "0.018", "0.455", "0.248", "3.25, 2.25, 3.75, 2.75"],
        "positional-encoding": ["0.841, 0.540, 0.010, 1.000", "0.909, −0.416, 0.020, 1.000"],
        "masked-decoder": ["0.60, 0.40, 0, 0, 0", "0.30, 0.20, 0.12, 0.25, 0.12"],
        "cross-attention": ["0.5, 0.5, 0.5, 0.5", "0.731"],
    }
    for name, numbers in quoted.items():
        description = open_lesson(name).description
        for lang in LANGS:
            for text in numbers:
                assert text in description[lang], (name, lang, text)


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"enc.0.attn.W_Q": [[1, 0], [0, 1]]}, r"enc.0.attn.W_Q has shape \[2, 2\]; expected \[4, 4\]"),
        ({"enc.0.attn.W_Q": [[1, 0, 0, 0], [0, 1]]}, "enc.0.attn.W_Q must be a rectangular list of numbers"),
        ({"enc.0.attn.W_Q": "eye"}, "must be a rectangular list of numbers"),
        ({"enc.0.attn.W_X": [[0.0]]}, "has enc.0.attn.W_X, which this config does not use"),
        ([1, 2], "params must map parameter names to lists of numbers"),
    ],
)
def test_shipped_lesson_files_are_checked_too(tmp_path, monkeypatch, params, match):
    data = json.loads((lesson_module.LESSONS_DIR / "01-i-love-ai.json").read_text(encoding="utf-8"))
    data["params"] = params
    (tmp_path / "01-broken.json").write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.setattr(lesson_module, "LESSONS_DIR", tmp_path)
    assert [i.name for i in shipped_lessons()] == ["broken"]
    with pytest.raises(EngineError, match=match):
        open_lesson("broken")
