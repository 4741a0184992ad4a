"""The user's model built with Hugging Face transformers' own classes from a config.json.

The spec's model either carries the config.json object itself (model.hfConfig: an imported file)
or only the architecture numbers of one of the four historic families: a preset's are built from
its stored config.json (preset-configs.json, with its source), other numbers are written out as
that family's config.json here (config_from_arch). Either way the model is AutoModelForCausalLM.from_config: random init, no
weight download, no remote code (a config with auto_map is refused, trust_remote_code is never
passed). How the weights come to exist follows each engine:

- ZeRO-3: transformers' own zero.Init path (HfDeepSpeedConfig names the DeepSpeed config), each
  module partitioned as it is constructed and initialised gathered, so the whole model never
  materialises on one device;
- ZeRO-0/1/2: constructed straight on the device;
- FSDP2: constructed on the meta device, sharded, materialised with to_empty, then initialised
  by transformers' initialize_weights, which also re-computes non-persistent buffers (RoPE's
  inv_freq, Gemma's embedding scale) that to_empty leaves as uninitialised memory.

check_config refuses, by field and with what to do, an architecture transformers does not know
or cannot build as a causal LM, one needing remote code, and fields that contradict.

Mixture-of-Experts models (Mixtral, Qwen2/3-MoE, OLMoE, DeepSeek-V2/V3…) are built like any other,
with two settings of their own (moe_setup): the router's auxiliary load-balancing loss is added to
the loss (output_router_logits, what fine-tuning them does), and under ZeRO-3 the sparse MoE block
is a DeepSpeed leaf module (set_z3_leaf_modules), so all its experts are gathered at once — a token
routes to only some experts, and ZeRO-3's per-module fetch would otherwise wait for parameters that
this step's forward never touched. Experts stay on every rank (no expert parallelism). The probe
counts both the total parameters (memory) and those a token computes (moe_counts: FLOPs).
Imports transformers lazily: bench.py checks a spec before torch is imported.
"""
import copy
import os

# The model is built from the config alone: nothing may reach the Hub (no network on a GPU host,
# and no surprise downloads on a user's).
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")

# Keys that hold a Mixture-of-Experts' expert count in the transformers configs that have one.
MOE_KEYS = ("num_local_experts", "num_experts", "n_routed_experts", "moe_num_experts")
# config.json bookkeeping the model does not depend on (and dtype: the engine picks precision).
IGNORED_KEYS = ("_name_or_path", "architectures", "transformers_version", "torch_dtype", "dtype",
                "_attn_implementation", "attn_implementation", "use_cache")


class ConfigRefused(ValueError):
    """(cls, message, fix): bench.py turns it into the protocol's error line."""

    def __init__(self, cls, message, fix):
        super().__init__(message)
        self.cls, self.message, self.fix = cls, message, fix

    def as_tuple(self):
        return self.cls, self.message, self.fix


def config_from_arch(m):
    """The config.json of the spec's architecture numbers, for a spec without model.hfConfig
    (the four families the runner built before transformers did)."""
    import families

    m = families.resolve(m)
    fam = m["family"]
    if fam == "gpt2":
        return {"model_type": "gpt2", "n_embd": m["hiddenSize"], "n_layer": m["numLayers"], "n_head": m["numHeads"],
                "n_inner": m["intermediateSize"], "vocab_size": m["vocabSize"], "n_positions": m["maxPositionEmbeddings"],
                "layer_norm_epsilon": m["rmsNormEps"], "tie_word_embeddings": bool(m["tieEmbeddings"]),
                "activation_function": "gelu_new"}
    cfg = {"model_type": fam, "hidden_size": m["hiddenSize"], "num_hidden_layers": m["numLayers"],
           "num_attention_heads": m["numHeads"], "num_key_value_heads": m["numKvHeads"], "head_dim": m["headDim"],
           "intermediate_size": m["intermediateSize"], "vocab_size": m["vocabSize"], "rms_norm_eps": m["rmsNormEps"],
           "rope_theta": m["ropeTheta"], "tie_word_embeddings": bool(m["tieEmbeddings"]), "hidden_act": "silu",
           "max_position_embeddings": m.get("maxPositionEmbeddings") or 131072}
    if fam == "llama":
        cfg["attention_bias"] = bool(m.get("attentionBias"))
    if fam == "mistral":
        cfg["sliding_window"] = m.get("slidingWindow")
    return cfg


PRESET_CONFIGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "preset-configs.json")
# Fields config_from_arch writes that a preset's stored config may set otherwise without changing
# the preset's numbers: Mistral's real sliding_window (the spec's slidingWindow is optional).
_NOT_COMPARED = ("sliding_window",)
_preset_configs = None


def preset_configs():
    """{preset id: {"source", "config"}} from preset-configs.json (next to this file, so a runner
    copied to a cluster host has it too)."""
    global _preset_configs
    if _preset_configs is None:
        import json

        with open(PRESET_CONFIGS, encoding="utf-8") as fh:
            _preset_configs = json.load(fh)["configs"]
    return _preset_configs


def preset_config(m):
    """The stored config.json entry of the spec's preset (by its id) when the spec's numbers are
    that preset's, else None: a spec whose numbers were edited is built from its numbers."""
    entry = preset_configs().get(m.get("id") or "")
    if not entry:
        return None
    stored, written = entry["config"], config_from_arch(m)
    for key, value in written.items():
        have = stored.get(key)
        if key == "n_inner" and have is None:
            have = 4 * stored["n_embd"]  # GPT-2's file says null: transformers builds 4 × n_embd
        if key in stored and key not in _NOT_COMPARED and have != value:
            return None
    return entry


def config_source(m):
    """(config.json object, where it comes from) the model is built from: the spec's hfConfig (an
    imported file), else its preset's stored config.json, else one written from its numbers."""
    text = m.get("hfConfigText")
    if text:
        return file_config(m), "the spec's config.json (model.hfConfigText, the file's text)"
    raw = m.get("hfConfig")
    if raw:
        return copy.deepcopy(raw), "the spec's config.json (model.hfConfig)"
    entry = preset_config(m)
    if entry:
        return copy.deepcopy(entry["config"]), f"preset {m['id']}'s stored config.json ({entry['source']})"
    return config_from_arch(m), f"a {m.get('family')} config.json written from the spec's numbers"


def has_config(m):
    """The spec carries a config.json (an imported file), not only architecture numbers."""
    return bool(m.get("hfConfigText") or m.get("hfConfig"))


def file_config(m):
    """The spec's config.json parsed here from the file's text (model.hfConfigText), so a float the
    file writes `30.0` stays a float: the app's JSON cannot keep it apart from `30`, and transformers
    refuses an int for a float field (Gemma-2's final_logit_softcapping). hfConfig, when also given,
    must be the same config (Python's 30 == 30.0: they differ only in number types)."""
    import json

    try:
        raw = json.loads(m["hfConfigText"])
    except ValueError as exc:
        raise ConfigRefused("bad_config", f"model.hfConfigText is not valid JSON: {exc}.",
                            "Import the model's config.json as it is on the Hub.") from exc
    if m.get("hfConfig") is not None and m["hfConfig"] != raw:
        raise ConfigRefused("bad_config", "model.hfConfigText and model.hfConfig are different configs.",
                            "Re-plan from the config.json: the spec must carry one file's text and its object.")
    return raw


def config_dict(m):
    """The config.json object the model is built from."""
    return config_source(m)[0]


def _positive_int(cfg, key):
    v = getattr(cfg, key, None)
    return isinstance(v, int) and not isinstance(v, bool) and v > 0


def check_config(raw):
    """Refuses what cannot be built (ConfigRefused), else returns the transformers config object."""
    if not isinstance(raw, dict):
        raise ConfigRefused("bad_config", "model.hfConfig must be a config.json object.", "Import the model's config.json as it is on the Hub.")
    model_type = raw.get("model_type")
    if not isinstance(model_type, str) or not model_type:
        raise ConfigRefused("bad_config", "config.json has no model_type.",
                            "Add the model's model_type (e.g. \"llama\"), or import its config.json as it is on the Hub.")
    if raw.get("auto_map") or raw.get("trust_remote_code"):
        raise ConfigRefused("unsupported",
                            f"config.json of model_type '{model_type}' needs remote code (auto_map names classes outside "
                            "transformers); the runner never runs code from a model repository.",
                            "Use a model whose architecture the pinned transformers ships (its config.json has no auto_map), "
                            "or a published port of it to a transformers architecture.")
    if raw.get("quantization_config"):
        raise ConfigRefused("unsupported", f"config.json of '{model_type}' carries quantization_config; the runner trains full-precision weights.",
                            "Remove quantization_config, or import the unquantised model's config.json.")
    import transformers
    from transformers import CONFIG_MAPPING
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES

    if model_type not in CONFIG_MAPPING:
        raise ConfigRefused("unsupported",
                            f"config.json's model_type '{model_type}' is not an architecture transformers {transformers.__version__} knows.",
                            "Check the spelling of model_type, or use a model of an architecture this transformers ships "
                            "(https://huggingface.co/docs/transformers/model_doc); remote code is never run.")
    if model_type not in MODEL_FOR_CAUSAL_LM_MAPPING_NAMES:
        raise ConfigRefused("unsupported",
                            f"model_type '{model_type}' has no causal language model class in transformers {transformers.__version__} "
                            "(an encoder, a vision or an encoder-decoder model).",
                            "Benchmark a decoder-only causal LM (its Hub page lists AutoModelForCausalLM).")
    from transformers.models.auto.modeling_auto import MODEL_FOR_MASKED_LM_MAPPING_NAMES

    # BERT, RoBERTa, BART…: encoders (or encoder-decoders) that transformers can also run as a
    # decoder head, but whose published models are not causal LMs.
    if model_type in MODEL_FOR_MASKED_LM_MAPPING_NAMES and not raw.get("is_decoder"):
        raise ConfigRefused("unsupported",
                            f"model_type '{model_type}' is an encoder (masked language model), not a decoder-only causal LM.",
                            "Benchmark a decoder-only causal LM (Llama, Qwen, Mistral, Gemma, Phi, GPT-2, …).")
    # Contradictions named before transformers' own validation (which says less about the fix).
    h, nh = raw.get("hidden_size"), raw.get("num_attention_heads")
    nkv = raw.get("num_key_value_heads") or nh
    head_dim = raw.get("head_dim")
    if isinstance(h, int) and isinstance(nh, int) and nh > 0 and head_dim is None and h % nh:
        raise ConfigRefused("bad_config", f"config.json: hidden_size ({h}) is not divisible by num_attention_heads ({nh}) and no head_dim is given.",
                            "Set num_attention_heads to a divisor of hidden_size, or give head_dim.")
    if isinstance(nh, int) and isinstance(nkv, int) and (nkv < 1 or nh % nkv):
        raise ConfigRefused("bad_config", f"config.json: num_key_value_heads ({nkv}) must divide num_attention_heads ({nh}).",
                            "Set num_key_value_heads to a divisor of num_attention_heads (grouped-query attention).")
    sw = raw.get("sliding_window")
    if sw is not None and (isinstance(sw, bool) or not isinstance(sw, int) or sw < 1):
        raise ConfigRefused("bad_config", f"config.json: sliding_window must be a positive integer or null (got {sw!r}).",
                            "Set sliding_window to the model's value, or null.")
    data = {k: v for k, v in raw.items() if k not in IGNORED_KEYS}
    try:
        cfg = CONFIG_MAPPING[model_type].from_dict(data)
    except Exception as exc:  # noqa: BLE001 - transformers' own validation: name it, never a traceback
        raise ConfigRefused("bad_config", f"config.json of model_type '{model_type}' is refused by transformers: {exc}",
                            "Fix the named field, or import the model's config.json as it is on the Hub.") from exc
    text = cfg.get_text_config() if hasattr(cfg, "get_text_config") else cfg
    experts = moe_experts(cfg)
    if experts:
        k = getattr(text, "num_experts_per_tok", None)
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= experts:
            raise ConfigRefused("bad_config", f"config.json: '{model_type}' has {experts} experts but num_experts_per_tok is {k!r}; "
                                "it must be an integer from 1 to the number of experts.",
                                "Set num_experts_per_tok to the model's value (how many experts each token is routed to).")
    for key in ("hidden_size", "num_attention_heads", "num_hidden_layers", "vocab_size"):
        if getattr(text, key, None) is not None and not _positive_int(text, key):
            raise ConfigRefused("bad_config", f"config.json: {key} must be a positive integer (got {getattr(text, key)!r}).",
                                f"Set {key} to the model's value.")
    return cfg


def moe_experts(cfg):
    """The routed experts per MoE layer of a Mixture-of-Experts config, else None (a dense model)."""
    text = cfg.get_text_config() if hasattr(cfg, "get_text_config") else cfg
    for key in MOE_KEYS:
        v = getattr(text, key, None)
        if isinstance(v, int) and not isinstance(v, bool) and v > 1:
            return v
    return None


def _routed_experts(model, experts):
    """The modules that hold the routed experts' weights fused, [experts, …] per tensor
    (transformers 5's MixtralExperts, Qwen2MoeExperts, OlmoeExperts, DeepseekV3Experts…)."""
    found = []
    for name, mod in model.named_modules():
        # ds_shape: the full shape of a parameter ZeRO-3 has partitioned (its own shape is then empty).
        shapes = [tuple(getattr(p, "ds_shape", None) or p.shape) for p in mod.parameters(recurse=False)]
        if shapes and all(len(s) == 3 and s[0] == experts for s in shapes):
            found.append((name, mod))
    return found


def moe_counts(model, cfg):
    """{experts, expertsPerToken, activeParams, routedExpertParams, blockClass} of a MoE model (its
    parameters counted as built: meta, or ZeRO-3's ds_numel), else None. A token computes the router
    of every MoE layer, any shared expert, the dense layers and top-k of the routed experts: the
    active count is the total less the (experts − k)/experts share of the routed experts' weights."""
    experts = moe_experts(cfg)
    if not experts:
        return None
    text = cfg.get_text_config() if hasattr(cfg, "get_text_config") else cfg
    k = int(text.num_experts_per_tok)
    routed = _routed_experts(model, experts)
    if not routed:
        raise ConfigRefused("unsupported",
                            f"'{cfg.model_type}' declares {experts} experts, but transformers built no fused expert weights "
                            "this runner recognises, so the parameters a token computes cannot be counted.",
                            "Benchmark a Mixture-of-Experts architecture transformers builds with fused experts "
                            "(Mixtral, Qwen2-MoE, Qwen3-MoE, OLMoE, DeepSeek-V2/V3), or a dense model.")
    numel = sum(int(getattr(p, "ds_numel", 0) or p.numel()) for _n, mod in routed for p in mod.parameters(recurse=False))
    total = sum(int(getattr(p, "ds_numel", 0) or p.numel()) for p in model.parameters())
    parents = dict(model.named_modules())
    blocks = sorted({type(parents[name.rsplit(".", 1)[0]]).__name__ for name, _m in routed})
    return {"experts": experts, "expertsPerToken": k, "routedExpertParams": numel,
            "activeParams": total - numel // experts * (experts - k), "blockClass": blocks}


def moe_setup(model, zero3):
    """A MoE model's training settings (module docstring): the router's auxiliary loss in the loss,
    and under ZeRO-3 each sparse MoE block a leaf module. Returns the leaf classes' names, or None
    for a dense model."""
    experts = moe_experts(model.config)
    if not experts:
        return None
    # The loss the model returns then includes router_aux_loss_coef × its load-balancing loss.
    model.config.output_router_logits = True
    text = model.config.get_text_config() if hasattr(model.config, "get_text_config") else model.config
    text.output_router_logits = True
    parents = dict(model.named_modules())
    classes = {type(parents[name.rsplit(".", 1)[0]]) for name, _m in _routed_experts(model, experts)}
    if zero3:
        from deepspeed.utils import set_z3_leaf_modules

        set_z3_leaf_modules(model, sorted(classes, key=lambda c: c.__name__))
    return sorted(c.__name__ for c in classes) if zero3 else []


def position_limit(model):
    """Learned absolute positions (GPT-2's wpe, OPT's embed_positions): how many; None for rotary
    or ALiBi models, whose sequence length is not bounded by a table."""
    from torch import nn

    for name, mod in model.named_modules():
        leaf = name.rsplit(".", 1)[-1]
        if isinstance(mod, nn.Embedding) and (leaf in ("wpe", "embed_positions", "position_embeddings")):
            return int(mod.num_embeddings) - int(getattr(mod, "offset", 0) or 0)
    return None


class HfCausalLM:
    """Marker base; the real class is made lazily (torch is imported only when building)."""


def _wrapper_class():
    import torch
    from torch import nn

    class HfLossModel(nn.Module, HfCausalLM):
        """The transformers model, returning the next-token loss of the input ids (what the
        engines call: loss = model(ids))."""

        def __init__(self, model, activation_checkpointing):
            super().__init__()
            self.model = model
            self.activation_checkpointing = activation_checkpointing
            if activation_checkpointing:
                # Non-reentrant checkpointing: works with ZeRO-3 hooks and FSDP2.
                model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
            model.train()

        @property
        def layers(self):
            """The repeated decoder blocks (FSDP2 shards each): the modules whose class the model
            names in _no_split_modules."""
            names = set(getattr(self.model, "_no_split_modules", None) or [])
            found = [m for m in self.model.modules() if type(m).__name__ in names]
            if not found:
                raise RuntimeError(f"{type(self.model).__name__} names no decoder block class (_no_split_modules)")
            return found

        @torch.no_grad()
        def init_weights(self):
            """Initialise after FSDP2's to_empty: every parameter and non-persistent buffer anew."""
            for mod in self.model.modules():
                if hasattr(mod, "_is_hf_initialized"):
                    del mod._is_hf_initialized
            for t in list(self.model.parameters()) + list(self.model.buffers()):
                if hasattr(t, "_is_hf_initialized"):
                    del t._is_hf_initialized
            self.model.initialize_weights()

        def forward(self, input_ids):
            return self.model(input_ids=input_ids, labels=input_ids, use_cache=False).loss

    return HfLossModel


def build(m, activation_checkpointing=False, ds_config=None, zero3=False):
    """The spec's model through transformers. zero3: under DeepSpeed ZeRO-3 with ds_config (the
    engine's config dict); else on the current torch device context (meta for FSDP2)."""
    import torch
    from transformers import AutoModelForCausalLM

    cfg = check_config(config_dict(m))
    kwargs = {"attn_implementation": "sdpa", "dtype": torch.float32}
    if zero3:
        # What from_config itself does when HfDeepSpeedConfig is set (that class needs accelerate,
        # which the engine does not install): construct under zero.Init without init, then
        # initialise each module with its parameters gathered, and tie the embeddings.
        import deepspeed
        from transformers.initialization import no_init_weights
        from transformers.integrations.deepspeed import initialize_weights_zero3

        with no_init_weights(), deepspeed.zero.Init(config_dict_or_path=ds_config):
            model = AutoModelForCausalLM.from_config(cfg, **kwargs)
        initialize_weights_zero3(model)
        model.tie_weights()
    else:
        model = AutoModelForCausalLM.from_config(cfg, **kwargs)
    model.moe_leaf_classes = moe_setup(model, zero3)
    return _wrapper_class()(model, activation_checkpointing)


def probe(raw):
    """What the tuner needs of the model, from the model itself built on the meta device."""
    import torch
    from torch import nn
    from transformers import AutoModelForCausalLM

    cfg = check_config(raw)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(cfg, attn_implementation="sdpa", dtype=torch.float32)
    total = model.num_parameters()
    # DeepSpeed's estimator's largest layer: the most parameters one module holds directly.
    largest_name, largest = "", 0
    for name, mod in model.named_modules():
        n = sum(p.numel() for p in mod.parameters(recurse=False))
        if n > largest:
            largest_name, largest = name, n
    names = set(getattr(model, "_no_split_modules", None) or [])
    blocks = [mod for mod in model.modules() if type(mod).__name__ in names]
    per_layer = [sum(p.numel() for p in b.parameters()) for b in blocks]
    emb = model.get_input_embeddings()
    text = cfg.get_text_config() if hasattr(cfg, "get_text_config") else cfg
    nh = getattr(text, "num_attention_heads", None) or getattr(text, "n_head", None)
    h = getattr(text, "hidden_size", None) or getattr(text, "n_embd", None)
    head_dim = getattr(text, "head_dim", None) or (h // nh if h and nh else None)
    tied = bool(getattr(text, "tie_word_embeddings", False))
    out_emb = model.get_output_embeddings()
    if out_emb is not None and emb is not None:
        tied = out_emb.weight is emb.weight
    return {
        "modelType": cfg.model_type, "architecture": type(model).__name__, "params": int(total),
        "layers": len(blocks), "layerClass": type(blocks[0]).__name__ if blocks else None,
        "perLayerParams": per_layer[0] if per_layer and len(set(per_layer)) == 1 else None,
        "perLayerParamsEach": per_layer if per_layer and len(set(per_layer)) > 1 else None,
        "embeddingParams": int(emb.weight.numel()) if isinstance(emb, nn.Embedding) else None,
        "largestLayer": {"name": largest_name, "params": int(largest)},
        "hiddenSize": h, "numHeads": nh, "numKvHeads": getattr(text, "num_key_value_heads", None) or nh,
        "headDim": head_dim, "intermediateSize": getattr(text, "intermediate_size", None) or getattr(text, "n_inner", None) or (4 * h if h else None),
        "vocabSize": getattr(text, "vocab_size", None), "tieEmbeddings": tied,
        "slidingWindow": getattr(text, "sliding_window", None), "positionLimit": position_limit(model),
        "ropeParameters": getattr(text, "rope_parameters", None),
        "moe": moe_counts(model, cfg),
    }


def model_class_name(model):
    """The transformers class that was built (the wrapper's inner model)."""
    inner = getattr(model, "model", None)
    return type(inner if isinstance(model, HfCausalLM) else model).__name__


def count_params(model):
    """(total, trainable), also when ZeRO-3 has partitioned the parameters (numel() is then 0)."""
    total = trainable = 0
    for p in model.parameters():
        n = int(getattr(p, "ds_numel", 0) or p.numel())
        total += n
        trainable += n if p.requires_grad else 0
    return total, trainable


def refusal(spec):
    """(cls, message, fix) when the transformers path cannot build this spec's model, else None.
    A spec of architecture numbers only is checked by families.refusal (bench.py); one carrying
    hfConfig by check_config here, and its numbers must be the config's (the tuner planned with
    them, the flops formula and the synthetic batches use them)."""
    m = spec["model"]
    if not has_config(m):
        return None
    cfg = check_config(config_dict(m))
    text = cfg.get_text_config() if hasattr(cfg, "get_text_config") else cfg
    pairs = (("vocabSize", "vocab_size"), ("numLayers", "num_hidden_layers"), ("hiddenSize", "hidden_size"))
    for field, key in pairs:
        have = getattr(text, key, None)
        if have is not None and m.get(field) is not None and m[field] != have:
            return ("bad_config", f"model.{field} is {m[field]} but its config.json says {key} = {have}.",
                    f"Re-plan from the config.json (the spec's {field} must be the config's {key}).")
    return None
