"""Make a random-weight checkpoint folder of Qwen2.5-0.5B's shape, for tests/bench_qwen_size.py (not a test; the
folder is some 1 GB in bfloat16, so it is made on demand, never committed).

    python tests/make_qwen_size_folder.py FOLDER [--dtype bfloat16|float32] [--seed 0]

The config is Qwen2.5-0.5B's (d 896, 24 layers, 14 heads, 2 KV heads, d_ff 4864, vocabulary 151,936, tied
embeddings, rope_theta 1e6, RMSNorm eps 1e-6, no sliding window); the weights are transformers' own random
initialisation (seeded), saved as model.safetensors with save_pretrained, in bfloat16 as Qwen ships them (or
float32). The tokenizer.json is a byte-level BPE with Qwen's normaliser and pre-tokeniser, trained offline on the
repository's English and Chinese texts and filled up with unreachable placeholder tokens to Qwen's 151,643
ordinary tokens, then its 22 special tokens (<|endoftext|> … ), 151,665 in all, as in Qwen2.5: the model's
151,936 embedding rows cover them with room to spare, as Qwen's do. Nothing touches the network.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
ROOT = Path(__file__).resolve().parent.parent

QWEN_05B = dict(
    vocab_size=151_936,
    hidden_size=896,
    intermediate_size=4864,
    num_hidden_layers=24,
    num_attention_heads=14,
    num_key_value_heads=2,
    max_position_embeddings=32_768,
    rms_norm_eps=1e-6,
    rope_theta=1_000_000.0,
    tie_word_embeddings=True,
    use_sliding_window=False,
    max_window_layers=24,
)
ORDINARY_TOKENS = 151_643  # Qwen2.5's BPE vocabulary; its special tokens follow
SPECIALS = [
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|object_ref_start|>",
    "<|object_ref_end|>",
    "<|box_start|>",
    "<|box_end|>",
    "<|quad_start|>",
    "<|quad_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|vision_pad|>",
    "<|image_pad|>",
    "<|video_pad|>",
    "<tool_call>",
    "</tool_call>",
    "<|fim_prefix|>",
    "<|fim_middle|>",
    "<|fim_suffix|>",
    "<|fim_pad|>",
    "<|repo_name|>",
    "<|file_sep|>",
]
QWEN_SPLIT = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)


def corpus() -> list[str]:
    """English and Chinese text from the repository: the docs, the stage texts and the window's translations."""
    texts = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md"))]
    stage_texts = json.loads((ROOT / "assets" / "stage_texts.json").read_text(encoding="utf-8"))
    texts += [json.dumps(stage_texts, ensure_ascii=False)]
    texts += [(ROOT / "assets" / "i18n" / "stepformer_zh_CN.ts").read_text(encoding="utf-8")]
    return [line for text in texts for line in text.splitlines() if line.strip()]


def write_tokenizer(folder: Path) -> int:
    """tokenizer.json (and tokenizer_config.json) of Qwen2.5's layout and sizes; returns its vocabulary size."""
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(QWEN_SPLIT), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=ORDINARY_TOKENS, show_progress=False, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(corpus(), trainer)
    data = json.loads(tok.to_str())
    vocab = data["model"]["vocab"]
    for i in range(len(vocab), ORDINARY_TOKENS):  # never made by a merge: the rows a real vocabulary fills
        vocab[f"placeholder{i}"] = i
    data["added_tokens"] = [
        dict(
            id=ORDINARY_TOKENS + k,
            content=s,
            single_word=False,
            lstrip=False,
            rstrip=False,
            normalized=False,
            special=True,
        )
        for k, s in enumerate(SPECIALS)
    ]
    (folder / "tokenizer.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    settings = {
        "tokenizer_class": "Qwen2Tokenizer",
        "eos_token": "<|endoftext|>",
        "pad_token": "<|endoftext|>",
        "bos_token": None,
        "model_max_length": 32_768,
    }
    (folder / "tokenizer_config.json").write_text(json.dumps(settings), encoding="utf-8")
    return Tokenizer.from_file(str(folder / "tokenizer.json")).get_vocab_size()


def write_model(folder: Path, dtype: str, seed: int) -> None:
    import torch
    import transformers

    torch.manual_seed(seed)
    model = transformers.Qwen2ForCausalLM(transformers.Qwen2Config(**QWEN_05B)).eval()
    model.to(getattr(torch, dtype)).save_pretrained(str(folder), safe_serialization=True, max_shard_size="8GB")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--dtype", choices=("bfloat16", "float32"), default="bfloat16")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    size = write_tokenizer(args.folder)
    print(f"tokenizer.json: {size:,} tokens ({time.perf_counter() - start:.1f} s)", flush=True)
    start = time.perf_counter()
    write_model(args.folder, args.dtype, args.seed)
    weights = sum(p.stat().st_size for p in args.folder.glob("*.safetensors"))
    print(
        f"model: {weights / 2**20:,.0f} MiB of {args.dtype} safetensors ({time.perf_counter() - start:.1f} s) "
        f"in {args.folder}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
