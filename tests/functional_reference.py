"""An independent reference for every stage, written from torch.nn.functional pieces, not from engine code.

It covers what nn.Transformer*Layer cannot: SwiGLU, RoPE and the "what if" switches. It runs from the
token ids alone (never from an engine intermediate) and names its values like the engine's stages.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from tests.reference import sinusoidal


def rope_complex(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """RoPE as complex multiplication: pair (2i, 2i+1) is the number x_2i + i·x_2i+1, times e^(i·pos·θ_i)."""
    h, n, d_k = x.shape
    theta = torch.tensor([1.0 / 10000 ** (2 * i / d_k) for i in range(d_k // 2)], dtype=torch.float64)
    angles = torch.outer(positions.to(torch.float64), theta)  # [n, d_k/2]
    turn = torch.polar(torch.ones_like(angles), angles)
    pairs = torch.view_as_complex(x.to(torch.float64).reshape(h, n, d_k // 2, 2).contiguous())
    return torch.view_as_real(pairs * turn).reshape(h, n, d_k).to(x.dtype)


def rope_rotate_half(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """RoPE in Hugging Face's rotate_half form, applied to interleaved pairs by de-interleaving first."""
    d_k = x.shape[-1]
    half = torch.cat([x[..., 0::2], x[..., 1::2]], dim=-1)  # [x_0, x_2, …, x_1, x_3, …]
    inv_freq = 1.0 / (10000 ** (torch.arange(0, d_k, 2, dtype=torch.float64) / d_k))
    freqs = torch.outer(positions.to(torch.float64), inv_freq)
    emb = torch.cat([freqs, freqs], dim=-1)
    rotated = torch.cat([-half[..., d_k // 2 :], half[..., : d_k // 2]], dim=-1)
    out = half * emb.cos().to(x.dtype) + rotated * emb.sin().to(x.dtype)
    return torch.stack([out[..., : d_k // 2], out[..., d_k // 2 :]], dim=-1).flatten(-2)  # interleave back


def silu(x: torch.Tensor) -> torch.Tensor:
    return x * torch.sigmoid(x)


class Reference:
    def __init__(self, cfg, params: dict[str, torch.Tensor]):
        self.cfg, self.P, self.out = cfg, params, {}
        self.off = set(cfg.switches)

    def layer_norm(self, p: str, x: torch.Tensor) -> torch.Tensor:
        d, eps = self.cfg.d_model, self.cfg.ln_eps
        self.out[f"{p}.mean"] = x.mean(-1, keepdim=True)
        self.out[f"{p}.var"] = x.var(-1, unbiased=False, keepdim=True)
        self.out[f"{p}.hat"] = F.layer_norm(x, (d,), eps=eps)
        on = "no_layernorm" not in self.off
        self.out[f"{p}.out"] = F.layer_norm(x, (d,), self.P[f"{p}.gamma"], self.P[f"{p}.beta"], eps) if on else x
        return self.out[f"{p}.out"]

    def attention(self, p: str, xq: torch.Tensor, xkv: torch.Tensor, causal: bool, rotate: bool) -> torch.Tensor:
        P, h, d_k, out = self.P, self.cfg.n_heads, self.cfg.d_k, self.out

        def heads(x, m):
            return F.linear(x, P[f"{p}.W_{m}"].T, P[f"{p}.b_{m}"]).view(x.shape[0], h, d_k).transpose(0, 1)

        q, k, v = heads(xq, "Q"), heads(xkv, "K"), heads(xkv, "V")
        out[f"{p}.q"], out[f"{p}.k"], out[f"{p}.v"] = q, k, v
        if rotate:
            if "no_pe" not in self.off:
                q, k = rope_complex(q, torch.arange(q.shape[1])), rope_complex(k, torch.arange(k.shape[1]))
            out[f"{p}.q_rot"], out[f"{p}.k_rot"] = q, k
        scores = torch.einsum("hqd,hkd->hqk", q, k)
        scaled = scores if "no_scale" in self.off else scores / math.sqrt(d_k)
        masked = scaled
        if causal and "no_mask" not in self.off:
            visible = torch.ones(scores.shape[-2:], dtype=torch.bool).tril()
            masked = scaled.masked_fill(~visible, float("-inf"))
        weights = F.softmax(masked, dim=-1)
        z = torch.einsum("hqk,hkd->hqd", weights, v)
        concat = z.transpose(0, 1).reshape(xq.shape[0], h * d_k)
        out.update(
            {
                f"{p}.scores": scores,
                f"{p}.scaled": scaled,
                f"{p}.masked": masked,
                f"{p}.weights": weights,
                f"{p}.z": z,
                f"{p}.concat": concat,
            }
        )
        out[f"{p}.out"] = F.linear(concat, P[f"{p}.W_O"].T, P[f"{p}.b_O"])
        if self.cfg.tiled:
            self.tiles(p, masked, v, causal and "no_mask" not in self.off)
        return out[f"{p}.out"]

    def tiles(self, p: str, masked: torch.Tensor, v: torch.Tensor, causal: bool) -> None:
        """Tiled attention in closed form: after tile (I, J) the running m, ℓ and o are the row max, the sum of
        exponentials and the weighted values over every key up to the tile's last one."""
        (bq, bk), (n_q, n_k) = self.cfg.tiled, masked.shape[1:]
        for i, r0 in enumerate(range(0, n_q, bq)):
            r1 = min(r0 + bq, n_q)
            for j, c0 in enumerate(range(0, n_k, bk)):
                c1, name = min(c0 + bk, n_k), f"{p}.tiled.r{i}c{j}"
                if causal and c0 >= r1:
                    self.out[f"{name}.skipped"] = torch.ones(r1 - r0, c1 - c0)
                    continue
                seen = masked[:, r0:r1, :c1]
                m = seen.amax(dim=-1, keepdim=True)
                self.out[f"{name}.scores"] = masked[:, r0:r1, c0:c1]
                self.out[f"{name}.m"], self.out[f"{name}.l"] = m, torch.exp(seen - m).sum(dim=-1, keepdim=True)
                self.out[f"{name}.o"] = torch.einsum("hqk,hkd->hqd", torch.exp(seen - m), v[:, :c1])
        self.out[f"{p}.tiled.z"] = self.out[f"{p}.z"]

    def ffn(self, p: str, x: torch.Tensor) -> torch.Tensor:
        P, act = self.P, self.cfg.activation
        up = F.linear(x, P[f"{p}.W1"].T, P[f"{p}.b1"])
        if act == "swiglu":
            gate = F.linear(x, P[f"{p}.W_gate"].T, P[f"{p}.b_gate"])
            self.out[f"{p}.gate"] = gate
            a = silu(gate) * up
        else:
            a = {"relu": F.relu, "gelu": F.gelu, "gelu_tanh": lambda u: F.gelu(u, approximate="tanh")}[act](up)
        self.out[f"{p}.up"], self.out[f"{p}.act"] = up, a
        self.out[f"{p}.down"] = F.linear(a, P[f"{p}.W2"].T, P[f"{p}.b2"])
        return self.out[f"{p}.down"]

    def embedding(self, s: str, ids: torch.Tensor) -> torch.Tensor:
        cfg, n = self.cfg, ids.shape[0]
        embed = F.embedding(ids, self.P[f"{s}.embed.W_E"])
        if cfg.positional in ("none", "rope") or "no_pe" in self.off:
            pos = torch.zeros(n, cfg.d_model, dtype=embed.dtype)
        elif cfg.positional == "sinusoidal":  # the engine keeps these in float32 whatever the weights' dtype
            pos = sinusoidal(n, cfg.d_model).float().to(embed.dtype)
        else:
            pos = self.P[f"{s}.pos.W_pos"][:n]
        x0 = embed + pos
        if cfg.type_vocab:  # one sentence: every token has segment 0
            self.out[f"{s}.type"] = self.P[f"{s}.type.W_T"][0].expand(n, -1)
            x0 = x0 + self.out[f"{s}.type"]
        self.out.update({f"{s}.embed": embed, f"{s}.pos": pos, f"{s}.x0": x0})
        return self.layer_norm(f"{s}.embed_norm", x0) if cfg.embed_norm else x0

    def stack(self, s: str, ids: torch.Tensor, memory: torch.Tensor | None) -> torch.Tensor:
        cfg, pre = self.cfg, self.cfg.norm == "pre"
        x = self.embedding(s, ids)
        subs = ["attn"] if s == "enc" else ["self_attn"] + (["cross_attn"] if memory is not None else [])
        for i in range(cfg.n_layers):
            b = f"{s}.{i}"
            for k, sub in enumerate(subs + ["ffn"], start=1):
                inp = self.layer_norm(f"{b}.norm{k}", x) if pre else x
                if sub == "ffn":
                    y = self.ffn(f"{b}.ffn", inp)
                elif sub == "cross_attn":
                    y = self.attention(f"{b}.{sub}", inp, memory, causal=False, rotate=False)
                else:
                    y = self.attention(f"{b}.{sub}", inp, inp, causal=s == "dec", rotate=cfg.positional == "rope")
                added = y if "no_residual" in self.off else x + y
                self.out[f"{b}.add{k}"] = added
                x = added if pre else self.layer_norm(f"{b}.norm{k}", added)
        return self.layer_norm(f"{s}.final_norm", x) if pre else x

    def run(self, ids: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        memory = self.stack("enc", ids["enc"], None) if "enc" in ids else None
        if "dec" in ids:
            final = self.stack("dec", ids["dec"], memory)
            self.out["logits"] = F.linear(final, self.P["unembed.W_U"].T, self.P["unembed.b_U"])
            self.out["probs"] = F.softmax(self.out["logits"], dim=-1)
        return self.out


def reference_values(trace) -> dict[str, torch.Tensor]:
    """Every stage of a trace's model and tokens, computed by the reference."""
    ids = {s: trace.values[f"{s}.tokens"] for s in trace.config.stacks}
    return Reference(trace.config, trace.params).run(ids)
