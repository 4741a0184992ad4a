"""A compact Llama-style decoder built from the spec's architecture numbers.

RMSNorm, rotary position embeddings, grouped-query attention through torch SDPA, SwiGLU
MLP, tied or untied embeddings, no biases: the parameter count equals Llama's for the same
numbers (see expected_param_count). Random init: the benchmark measures speed, not learning.
"""
import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint


def expected_param_count(m):
    """Llama's parameter count from the architecture alone (what the tuner also computes)."""
    h, hd, nh, nkv = m["hiddenSize"], m["headDim"], m["numHeads"], m["numKvHeads"]
    attn = h * nh * hd * 2 + h * nkv * hd * 2          # q, o and k, v projections
    mlp = 3 * h * m["intermediateSize"]                 # gate, up, down
    per_layer = attn + mlp + 2 * h                      # two RMSNorm weights
    embed = m["vocabSize"] * h
    head = 0 if m["tieEmbeddings"] else m["vocabSize"] * h
    return embed + m["numLayers"] * per_layer + h + head  # + final norm


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        # Normalise in fp32 as Llama does; bf16 variance loses too much precision.
        xf = x.float()
        xf = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * xf.to(x.dtype)


def rope_cos_sin(seq_len, head_dim, theta, device, dtype):
    inv = 1.0 / (theta ** (torch.arange(0, head_dim, 2, device=device, dtype=torch.float32) / head_dim))
    freqs = torch.outer(torch.arange(seq_len, device=device, dtype=torch.float32), inv)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().to(dtype), emb.sin().to(dtype)


def _rotate_half(x):
    a, b = x.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)


def apply_rope(x, cos, sin):
    return x * cos + _rotate_half(x) * sin


class SmallInitEmbedding(nn.Embedding):
    """nn.Embedding's N(0, 1) init makes tied-head logits ~sqrt(hidden) large; Llama uses
    std 0.02. Done in the constructor so it also holds under zero.Init."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        with torch.no_grad():
            nn.init.normal_(self.weight, mean=0.0, std=0.02)


class Attention(nn.Module):
    def __init__(self, m):
        super().__init__()
        h, self.hd, self.nh, self.nkv = m["hiddenSize"], m["headDim"], m["numHeads"], m["numKvHeads"]
        self.q_proj = nn.Linear(h, self.nh * self.hd, bias=False)
        self.k_proj = nn.Linear(h, self.nkv * self.hd, bias=False)
        self.v_proj = nn.Linear(h, self.nkv * self.hd, bias=False)
        self.o_proj = nn.Linear(self.nh * self.hd, h, bias=False)

    def forward(self, x, cos, sin):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, self.nh, self.hd).transpose(1, 2)
        k = self.k_proj(x).view(b, s, self.nkv, self.hd).transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.nkv, self.hd).transpose(1, 2)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        # enable_gqa lets SDPA broadcast the kv heads without materialising repeats.
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=self.nkv != self.nh)
        return self.o_proj(out.transpose(1, 2).reshape(b, s, self.nh * self.hd))


class MLP(nn.Module):
    def __init__(self, m):
        super().__init__()
        h, i = m["hiddenSize"], m["intermediateSize"]
        self.gate_proj = nn.Linear(h, i, bias=False)
        self.up_proj = nn.Linear(h, i, bias=False)
        self.down_proj = nn.Linear(i, h, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.input_layernorm = RMSNorm(m["hiddenSize"], m["rmsNormEps"])
        self.self_attn = Attention(m)
        self.post_attention_layernorm = RMSNorm(m["hiddenSize"], m["rmsNormEps"])
        self.mlp = MLP(m)

    def forward(self, x, cos, sin):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin)
        return x + self.mlp(self.post_attention_layernorm(x))


class LlamaDecoder(nn.Module):
    def __init__(self, m, activation_checkpointing=False):
        super().__init__()
        self.cfg = m
        self.activation_checkpointing = activation_checkpointing
        self.embed_tokens = SmallInitEmbedding(m["vocabSize"], m["hiddenSize"])
        self.layers = nn.ModuleList(DecoderLayer(m) for _ in range(m["numLayers"]))
        self.norm = RMSNorm(m["hiddenSize"], m["rmsNormEps"])
        # Tied: the head reuses embed_tokens.weight (ZeRO-3 gathers it as an external
        # parameter of the root module on access).
        self.lm_head = None if m["tieEmbeddings"] else nn.Linear(m["hiddenSize"], m["vocabSize"], bias=False)
        self._rope_cache = {}
        self.init_weights()

    @torch.no_grad()
    def init_weights(self):
        """Llama's init: normal(0, 0.02) for matrices, ones for norms. Also used after
        FSDP2's meta-device construction (to_empty leaves memory uninitialised).
        Skipped under ZeRO-3's zero.Init, where every module is partitioned as soon as its
        own __init__ returns (numel() is 0 here); those keep their constructors' init."""
        if any(hasattr(p, "ds_id") for p in self.parameters()):
            return
        for mod in self.modules():
            if isinstance(mod, (nn.Linear, nn.Embedding)):
                nn.init.normal_(mod.weight, mean=0.0, std=0.02)
            elif isinstance(mod, RMSNorm):
                nn.init.ones_(mod.weight)

    def _rope(self, seq_len, device, dtype):
        key = (seq_len, str(device), dtype)
        if key not in self._rope_cache:
            self._rope_cache[key] = rope_cos_sin(seq_len, self.cfg["headDim"], self.cfg["ropeTheta"], device, dtype)
        return self._rope_cache[key]

    def forward(self, input_ids):
        x = self.embed_tokens(input_ids)
        cos, sin = self._rope(input_ids.shape[1], x.device, x.dtype)
        for layer in self.layers:
            if self.activation_checkpointing and self.training:
                # Non-reentrant checkpointing: works with ZeRO-3 hooks and FSDP2.
                x = checkpoint(layer, x, cos, sin, use_reentrant=False)
            else:
                x = layer(x, cos, sin)
        x = self.norm(x)
        weight = self.embed_tokens.weight if self.lm_head is None else self.lm_head.weight
        logits = F.linear(x, weight)
        # Next-token loss on the synthetic sequence; cross_entropy upcasts internally.
        return F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]).float(),
                               input_ids[:, 1:].reshape(-1))


def count_params(model):
    """Counts parameters also when ZeRO-3 has partitioned them (numel() is then 0)."""
    total = trainable = 0
    for p in model.parameters():
        n = int(getattr(p, "ds_numel", 0) or p.numel())
        total += n
        trainable += n if p.requires_grad else 0
    return total, trainable


def synthetic_batches(vocab, micro_batch, seq_len, count, seed, device):
    """Seeded random tokens, generated once on the device so data loading costs nothing
    inside the timed step."""
    gen = torch.Generator(device="cpu").manual_seed(seed)
    return [torch.randint(0, vocab, (micro_batch, seq_len), generator=gen).to(device) for _ in range(count)]
