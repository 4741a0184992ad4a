"""The model families of specs that carry only architecture numbers (no config.json): what each
one is by construction, written out as its config.json by hf_model.config_from_arch.

Data: model-families.json (shared with the app, whose runs/start refuses the same things before
anything is queued). Standard library only: bench.py checks a spec with it before torch is
imported. A family that is not in the file is refused with a reason, never built as a Llama.
"""
import json
import os

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "model-families.json")
_TABLE = None


def table():
    global _TABLE
    if _TABLE is None:
        with open(_PATH, encoding="utf-8") as fh:
            _TABLE = json.load(fh)["families"]
    return _TABLE


def supported():
    return sorted(table())


def family_of(m):
    return m.get("family") or "llama"


def resolve(m):
    """A copy of the spec's model with the family's defaults filled in (fields the spec may
    omit: the tuner's spec carries no maxPositionEmbeddings or attentionBias today)."""
    fam = table()[family_of(m)]
    out = dict(m)
    out["family"] = family_of(m)
    for key, value in fam.get("defaults", {}).items():
        if out.get(key) is None:
            out[key] = value
    if out.get("headDim") is None:
        out["headDim"] = out["hiddenSize"] // out["numHeads"]
    if out.get("numKvHeads") is None:
        out["numKvHeads"] = out["numHeads"]
    return out


def architecture(m):
    return table()[family_of(m)]["architecture"]


def attention_biases(m):
    """(bias on q/k/v, bias on o) for the rotary (llama-architecture) families."""
    fam = table()[family_of(m)]
    if fam.get("attentionBiasFlag") and bool(m.get("attentionBias")):
        return True, True  # HF attention_bias: q, k, v and o
    return bool(fam.get("qkvBias")), False


def refusal(model, seq_len):
    """None when the runner can build this model at this sequence length, else
    (error class, message, fix)."""
    family = family_of(model)
    fams = table()
    if family not in fams:
        return ("unsupported",
                f"The runner cannot build model family '{family}': it builds {', '.join(supported())}.",
                "Pick a preset of a supported family, or import a config.json whose model_type is one of "
                + ", ".join(supported()) + ".")
    fam = fams[family]
    m = resolve(model)
    if fam["positions"] == "rope":
        theta = m.get("ropeTheta")
        if not isinstance(theta, (int, float)) or isinstance(theta, bool) or not theta > 0:
            return ("bad_config", f"model.ropeTheta must be > 0 for family '{family}' (rotary positions), got {theta!r}.",
                    "Set ropeTheta to the model's rope_theta (e.g. 10000).")
        sw = m.get("slidingWindow")
        if sw is not None and (isinstance(sw, bool) or not isinstance(sw, int) or sw < 1):
            return ("bad_config", f"model.slidingWindow must be a positive integer or null, got {sw!r}.",
                    "Set slidingWindow to the model's sliding_window, or null.")
    if fam["architecture"] == "gpt2":
        h, nh = m["hiddenSize"], m["numHeads"]
        if m["numKvHeads"] != nh:
            return ("bad_config", f"GPT-2 has no grouped-query attention: numKvHeads ({m['numKvHeads']}) must equal numHeads ({nh}).",
                    "Set numKvHeads to numHeads.")
        if m["headDim"] * nh != h:
            return ("bad_config", f"GPT-2 heads split the hidden size: headDim × numHeads ({m['headDim']} × {nh}) must be hiddenSize ({h}).",
                    "Set headDim to hiddenSize / numHeads.")
        positions = m.get("maxPositionEmbeddings")
        if isinstance(positions, bool) or not isinstance(positions, int) or positions < 1:
            return ("bad_config", f"model.maxPositionEmbeddings must be a positive integer, got {positions!r}.",
                    "Set it to the model's n_positions (1024 for the published GPT-2 models).")
        if seq_len > positions:
            return ("bad_config",
                    f"GPT-2 learns {positions} positions (n_positions); a sequence of {seq_len} tokens has no embedding "
                    f"past position {positions}.",
                    f"Lower the sequence length to {positions} or less.")
    return None


def expected_param_count(model):
    """The parameter count of the family's Hugging Face model for these numbers (what the
    tuner's countParams computes, and what transformers builds from the family's config.json)."""
    m = resolve(model)
    h, V, L, I = m["hiddenSize"], m["vocabSize"], m["numLayers"], m["intermediateSize"]
    head = 0 if m.get("tieEmbeddings") else V * h
    if architecture(m) == "gpt2":
        attn = h * 3 * h + 3 * h + h * h + h      # c_attn and c_proj, with biases
        mlp = h * I + I + I * h + h               # c_fc and c_proj, with biases
        per_layer = attn + mlp + 4 * h            # ln_1 and ln_2: weight + bias
        return V * h + m["maxPositionEmbeddings"] * h + L * per_layer + 2 * h + head  # wte, wpe, ln_f
    q, kv = m["numHeads"] * m["headDim"], m["numKvHeads"] * m["headDim"]
    qkv_bias, o_bias = attention_biases(m)
    attn = h * q * 2 + h * kv * 2 + (q + 2 * kv if qkv_bias else 0) + (h if o_bias else 0)
    mlp = 3 * h * I                               # gate, up, down
    per_layer = attn + mlp + 2 * h                # two RMSNorm weights
    return V * h + L * per_layer + h + head       # + final norm
