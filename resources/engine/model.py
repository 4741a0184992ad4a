"""Compact decoders built from the spec's architecture numbers, one per model family
(families.py / model-families.json say which family is which architecture):

- llama, mistral, qwen2: RMSNorm, rotary position embeddings, grouped-query attention through
  torch SDPA, SwiGLU MLP, tied or untied embeddings; biases on q/k/v for Qwen2 (and on q/k/v/o
  for a Llama config with attention_bias); Mistral's sliding window when the spec gives one.
- gpt2: learned positions, LayerNorm with bias, fused q/k/v projection with bias, GELU (tanh)
  MLP with biases, head tied to the token embedding.

The parameter count equals the Hugging Face model's for the same numbers (see
families.expected_param_count). Random init: the benchmark measures speed, not learning.
"""
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

import families
from families import expected_param_count  # noqa: F401  (re-exported: bench.py, tests)


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
        qkv_bias, o_bias = families.attention_biases(m)
        self.q_proj = nn.Linear(h, self.nh * self.hd, bias=qkv_bias)
        self.k_proj = nn.Linear(h, self.nkv * self.hd, bias=qkv_bias)
        self.v_proj = nn.Linear(h, self.nkv * self.hd, bias=qkv_bias)
        self.o_proj = nn.Linear(self.nh * self.hd, h, bias=o_bias)

    def forward(self, x, cos, sin, mask=None):
        b, s, _ = x.shape
        q = self.q_proj(x).view(b, s, self.nh, self.hd).transpose(1, 2)
        k = self.k_proj(x).view(b, s, self.nkv, self.hd).transpose(1, 2)
        v = self.v_proj(x).view(b, s, self.nkv, self.hd).transpose(1, 2)
        q, k = apply_rope(q, cos, sin), apply_rope(k, cos, sin)
        # enable_gqa lets SDPA broadcast the kv heads without materialising repeats. A sliding
        # window (Mistral, sequence longer than the window) needs an explicit banded mask.
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=mask is None,
                                             enable_gqa=self.nkv != self.nh)
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

    def forward(self, x, cos, sin, mask=None):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin, mask)
        return x + self.mlp(self.post_attention_layernorm(x))


def _loss(x, weight, input_ids):
    logits = F.linear(x, weight)
    # Next-token loss on the synthetic sequence; cross_entropy upcasts internally.
    return F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]).float(),
                           input_ids[:, 1:].reshape(-1))


@torch.no_grad()
def _init_weights(root):
    """The Hugging Face init: normal(0, 0.02) for matrices and embeddings, zeros for biases,
    ones for norm weights. Also used after FSDP2's meta-device construction (to_empty leaves
    memory uninitialised). Skipped under ZeRO-3's zero.Init, where every module is partitioned
    as soon as its own __init__ returns (numel() is 0 here); those keep their constructors' init."""
    if any(hasattr(p, "ds_id") for p in root.parameters()):
        return
    for mod in root.modules():
        if isinstance(mod, (nn.Linear, nn.Embedding)):
            nn.init.normal_(mod.weight, mean=0.0, std=0.02)
            if getattr(mod, "bias", None) is not None:
                nn.init.zeros_(mod.bias)
        elif isinstance(mod, RMSNorm):
            nn.init.ones_(mod.weight)
        elif isinstance(mod, nn.LayerNorm):
            nn.init.ones_(mod.weight)
            nn.init.zeros_(mod.bias)


class LlamaDecoder(nn.Module):
    """Llama, Mistral and Qwen2 (the same architecture; Qwen2 adds q/k/v biases)."""

    def __init__(self, m, activation_checkpointing=False):
        super().__init__()
        m = families.resolve(m)
        self.cfg = m
        self.activation_checkpointing = activation_checkpointing
        self.embed_tokens = SmallInitEmbedding(m["vocabSize"], m["hiddenSize"])
        self.layers = nn.ModuleList(DecoderLayer(m) for _ in range(m["numLayers"]))
        self.norm = RMSNorm(m["hiddenSize"], m["rmsNormEps"])
        # Tied: the head reuses embed_tokens.weight (ZeRO-3 gathers it as an external
        # parameter of the root module on access).
        self.lm_head = None if m["tieEmbeddings"] else nn.Linear(m["hiddenSize"], m["vocabSize"], bias=False)
        self._rope_cache = {}
        self._mask_cache = {}
        self.init_weights()

    def init_weights(self):
        _init_weights(self)

    def _rope(self, seq_len, device, dtype):
        key = (seq_len, str(device), dtype)
        if key not in self._rope_cache:
            self._rope_cache[key] = rope_cos_sin(seq_len, self.cfg["headDim"], self.cfg["ropeTheta"], device, dtype)
        return self._rope_cache[key]

    def _mask(self, seq_len, device):
        """Mistral's sliding window as a boolean SDPA mask (True = attend): causal, and no key
        more than slidingWindow - 1 positions back (HF: query i sees keys i-W+1 … i). None
        (plain causal) when the sequence fits in the window."""
        window = self.cfg.get("slidingWindow")
        if not window or seq_len <= window:
            return None
        key = (seq_len, str(device))
        if key not in self._mask_cache:
            i = torch.arange(seq_len, device=device)
            dist = i[:, None] - i[None, :]
            self._mask_cache[key] = (dist >= 0) & (dist < window)
        return self._mask_cache[key]

    def forward(self, input_ids):
        x = self.embed_tokens(input_ids)
        cos, sin = self._rope(input_ids.shape[1], x.device, x.dtype)
        mask = self._mask(input_ids.shape[1], x.device)
        for layer in self.layers:
            if self.activation_checkpointing and self.training:
                # Non-reentrant checkpointing: works with ZeRO-3 hooks and FSDP2.
                x = checkpoint(layer, x, cos, sin, mask, use_reentrant=False)
            else:
                x = layer(x, cos, sin, mask)
        x = self.norm(x)
        return _loss(x, self.embed_tokens.weight if self.lm_head is None else self.lm_head.weight, input_ids)


class Gpt2Attention(nn.Module):
    def __init__(self, m):
        super().__init__()
        h = m["hiddenSize"]
        self.nh, self.hd = m["numHeads"], m["headDim"]
        self.c_attn = nn.Linear(h, 3 * h)   # q, k, v fused (HF Conv1D: same parameters)
        self.c_proj = nn.Linear(h, h)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = (t.view(b, s, self.nh, self.hd).transpose(1, 2) for t in self.c_attn(x).split(h, dim=-1))
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(out.transpose(1, 2).reshape(b, s, h))


class Gpt2MLP(nn.Module):
    def __init__(self, m):
        super().__init__()
        self.c_fc = nn.Linear(m["hiddenSize"], m["intermediateSize"])
        self.c_proj = nn.Linear(m["intermediateSize"], m["hiddenSize"])

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))  # HF gelu_new


class Gpt2Block(nn.Module):
    def __init__(self, m):
        super().__init__()
        h, eps = m["hiddenSize"], m["rmsNormEps"]  # layer_norm_epsilon travels as rmsNormEps
        self.ln_1 = nn.LayerNorm(h, eps=eps)
        self.attn = Gpt2Attention(m)
        self.ln_2 = nn.LayerNorm(h, eps=eps)
        self.mlp = Gpt2MLP(m)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class Gpt2Decoder(nn.Module):
    """GPT-2 (HF GPT2LMHeadModel without dropout: the benchmark measures speed)."""

    def __init__(self, m, activation_checkpointing=False):
        super().__init__()
        m = families.resolve(m)
        self.cfg = m
        self.activation_checkpointing = activation_checkpointing
        h = m["hiddenSize"]
        self.wte = SmallInitEmbedding(m["vocabSize"], h)
        self.wpe = SmallInitEmbedding(m["maxPositionEmbeddings"], h)
        self.layers = nn.ModuleList(Gpt2Block(m) for _ in range(m["numLayers"]))
        self.ln_f = nn.LayerNorm(h, eps=m["rmsNormEps"])
        self.lm_head = None if m["tieEmbeddings"] else nn.Linear(h, m["vocabSize"], bias=False)
        self.init_weights()

    def init_weights(self):
        _init_weights(self)

    def forward(self, input_ids):
        positions = torch.arange(input_ids.shape[1], device=input_ids.device)
        x = self.wte(input_ids) + self.wpe(positions).unsqueeze(0)
        for layer in self.layers:
            if self.activation_checkpointing and self.training:
                x = checkpoint(layer, x, use_reentrant=False)
            else:
                x = layer(x)
        x = self.ln_f(x)
        return _loss(x, self.wte.weight if self.lm_head is None else self.lm_head.weight, input_ids)


_BUILDERS = {"llama": LlamaDecoder, "gpt2": Gpt2Decoder}


def build_model(m, activation_checkpointing=False):
    """The spec's model in its family's architecture. A family the runner cannot build raises
    ValueError (bench.py refuses it earlier, with a class and a fix, through families.refusal)."""
    family = families.family_of(m)
    if family not in families.table():
        raise ValueError(f"model family '{family}' is not supported (supported: {', '.join(families.supported())})")
    return _BUILDERS[families.architecture(m)](m, activation_checkpointing)


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
