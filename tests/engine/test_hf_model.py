"""The runner builds the user's model with transformers' own classes (hf_model.py): tiny configs of
six architectures trained for real through bench.py on CPU with ZeRO-2, ZeRO-3 and FSDP2; the
probe's count (the tuner's model table) equals the built model's; what cannot be built is refused
by name with what to do."""
import json
import math
import os
import subprocess
import sys

import pytest
import torch

from conftest import ENGINE, ROOT, ds_config, run_bench, tiny_spec

import families
import hf_model

BASE = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 2, "vocab_size": 256, "max_position_embeddings": 128, "rope_theta": 10000.0,
        "tie_word_embeddings": True}
TINY = {
    "llama-bias": dict(BASE, model_type="llama", attention_bias=True),
    "qwen2": dict(BASE, model_type="qwen2", tie_word_embeddings=False),
    # seqLen 32 > window 8: the window masks keys (the legacy spec schema refused this field).
    "mistral-sw": dict(BASE, model_type="mistral", sliding_window=8),
    "gemma": dict(BASE, model_type="gemma", num_key_value_heads=1, head_dim=16),
    "phi3": dict(BASE, model_type="phi3", num_key_value_heads=4, pad_token_id=0),
    "gpt2": {"model_type": "gpt2", "n_embd": 64, "n_layer": 2, "n_head": 4, "n_positions": 64, "vocab_size": 256},
}
CLASSES = {"llama-bias": "LlamaForCausalLM", "qwen2": "Qwen2ForCausalLM", "mistral-sw": "MistralForCausalLM",
           "gemma": "GemmaForCausalLM", "phi3": "Phi3ForCausalLM", "gpt2": "GPT2LMHeadModel"}


def spec_model(name, cfg):
    """What the app puts in a spec for an imported config.json: the probe's numbers + the file."""
    p = hf_model.probe(cfg)
    return {"id": f"tiny-{name}", "family": p["modelType"], "hiddenSize": p["hiddenSize"], "numLayers": p["layers"],
            "numHeads": p["numHeads"], "numKvHeads": p["numKvHeads"], "intermediateSize": p["intermediateSize"],
            "vocabSize": p["vocabSize"], "tieEmbeddings": p["tieEmbeddings"], "ropeTheta": 10000, "rmsNormEps": 1e-5,
            "headDim": p["headDim"], "hfConfig": cfg}


ENGINES = {
    "zero2": lambda: {"dsConfig": ds_config(2, offload=False)},
    "zero3": lambda: {"dsConfig": ds_config(3, offload=False)},
    "fsdp2": lambda: {"engine": "fsdp2", "fsdp": {"cpuOffload": False, "reshardAfterForward": True}},
}


@pytest.mark.parametrize("engine", list(ENGINES))
@pytest.mark.parametrize("name", list(TINY))
def test_tiny_config_trains_through_the_runner(name, engine, tmp_path):
    cfg = TINY[name]
    expected = hf_model.probe(cfg)["params"]
    with torch.device("meta"):
        from transformers import AutoConfig, AutoModelForCausalLM
        direct = AutoModelForCausalLM.from_config(AutoConfig.for_model(**cfg)).num_parameters()
    assert expected == direct
    spec = tiny_spec(model=spec_model(name, cfg), steps=3, warmup=1, **ENGINES[engine]())
    run = run_bench(spec, tmp_path=str(tmp_path))
    assert run.rc == 0, run.stderr[-3000:]
    config = run.one("config")
    assert config["modelClass"] == CLASSES[name]
    assert config["params"] == expected
    losses = [s["loss"] for s in run.of("step")]
    assert len(losses) == 3 and all(math.isfinite(x) for x in losses)
    # Random init over a 256-token vocabulary: the first loss is about ln(256) = 5.55.
    assert abs(losses[0] - math.log(256)) < 1.0, losses


def test_llama_attention_bias_counts_the_o_proj_bias():
    """The drift of the issue: with attention_bias the model has a bias on o_proj too (202,432 vs 202,304)."""
    cfg = dict(TINY["llama-bias"], hidden_size=64, num_hidden_layers=2)
    p = hf_model.probe(cfg)
    without = hf_model.probe(dict(cfg, attention_bias=False))["params"]
    q, kv = 4 * 16, 2 * 16
    assert p["params"] - without == 2 * (q + 2 * kv + 64)


PRESETS = json.load(open(os.path.join(ROOT, "resources", "presets", "models.json"), encoding="utf-8"))["models"]


@pytest.mark.parametrize("preset", PRESETS, ids=[p["id"] for p in PRESETS])
def test_preset_config_built_by_transformers_has_the_formula_count(preset):
    """A preset without a config.json of its own is written out as its family's (config_from_arch):
    transformers' model has the family formula's count, and the published one where published."""
    m = {k: v for k, v in preset.items() if k not in ("label", "source", "publishedParams")}
    p = hf_model.probe(hf_model.config_from_arch(m))
    assert p["params"] == families.expected_param_count(m)
    if preset.get("publishedParams"):
        assert p["params"] == preset["publishedParams"]
    assert p["layers"] == preset["numLayers"]


def test_stored_spec_with_the_retired_model_impl_still_runs_with_transformers(tmp_path):
    """Specs stored before the runner's former modules were deleted carry modelImpl (history,
    reproduction bundles): the runner accepts the field, says in the log that it is ignored, and
    builds transformers' class (the comparison measured both the same)."""
    spec = tiny_spec(steps=2, warmup=1, dsConfig=ds_config(2, offload=False), modelImpl="legacy")
    run = run_bench(spec, tmp_path=str(tmp_path))
    assert run.rc == 0, run.stderr[-3000:]
    config = run.one("config")
    assert config["modelClass"] == "LlamaForCausalLM" and "modelImpl" not in config
    assert config["params"] == families.expected_param_count(spec["model"])
    assert "modelImpl is retired" in run.stderr and "'legacy'" in run.stderr


def test_spec_validate_drops_retired_keys_and_keeps_refusing_unknown_ones():
    import spec as spec_mod

    checked = spec_mod.validate(tiny_spec(dsConfig=ds_config(2, offload=False), modelImpl="transformers"))
    assert "modelImpl" not in checked
    with pytest.raises(spec_mod.SpecError, match="modelImplementation"):
        spec_mod.validate(tiny_spec(dsConfig=ds_config(2, offload=False), modelImplementation="legacy"))


def test_synthetic_batches_are_seeded():
    from synthetic import synthetic_batches

    a = synthetic_batches(100, 2, 8, 2, seed=5, device="cpu")
    b = synthetic_batches(100, 2, 8, 2, seed=5, device="cpu")
    assert all(torch.equal(x, y) for x, y in zip(a, b)) and not torch.equal(a[0], a[1])


def probe_cli(cfg):
    proc = subprocess.run([sys.executable, os.path.join(ENGINE, "model_probe.py"), "--config", "-"], input=json.dumps(cfg),
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    return proc.returncode, json.loads(proc.stdout.strip().splitlines()[-1])


BAD = [
    ("unknown", dict(BASE, model_type="llamma"), "unsupported", "model_type 'llamma'"),
    ("remote-code", dict(BASE, model_type="llama", auto_map={"AutoModelForCausalLM": "modeling_x.XForCausalLM"}),
     "unsupported", "remote code"),
    ("not-causal", {"model_type": "bert", "hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2,
                    "intermediate_size": 128, "vocab_size": 256}, "unsupported", "is an encoder"),
    ("vision", {"model_type": "vit"}, "unsupported", "no causal language model class"),
    ("heads", dict(BASE, model_type="llama", hidden_size=66), "bad_config", "hidden_size (66) is not divisible"),
    ("kv-heads", dict(BASE, model_type="llama", num_key_value_heads=3), "bad_config", "num_key_value_heads (3)"),
    ("moe-top-k", dict(BASE, model_type="mixtral", num_local_experts=4, num_experts_per_tok=6), "bad_config",
     "num_experts_per_tok is 6"),
    ("window", dict(BASE, model_type="mistral", sliding_window=-4), "bad_config", "sliding_window"),
]


@pytest.mark.parametrize("cfg,cls,needle", [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_probe_refuses_by_name_with_what_to_do(cfg, cls, needle):
    rc, out = probe_cli(cfg)
    assert rc == 2 and out["ok"] is False and out["class"] == cls, out
    assert needle in out["message"] and out["fix"]


def test_probe_answers_the_tuner_table():
    rc, out = probe_cli(TINY["gemma"])
    assert rc == 0 and out["ok"] and out["modelType"] == "gemma" and out["layers"] == 2
    assert out["largestLayer"]["name"] == "model.embed_tokens" and out["largestLayer"]["params"] == 256 * 64
    assert out["tieEmbeddings"] is True and out["headDim"] == 16 and out["numKvHeads"] == 1


def test_runner_refuses_a_moe_config_routing_to_more_experts_than_it_has(tmp_path):
    """Mixture-of-Experts models are built (test_model_configs.py runs them); a top-k past the
    expert count is refused before anything is built."""
    cfg = dict(BASE, model_type="mixtral", num_local_experts=4, num_experts_per_tok=6)
    model = dict(spec_model("llama-bias", TINY["llama-bias"]), hfConfig=cfg, family="mixtral")
    run = run_bench(tiny_spec(model=model, dsConfig=ds_config(2, offload=False)), tmp_path=str(tmp_path))
    err = run.one("error")
    assert run.rc != 0 and err["class"] == "bad_config" and "num_experts_per_tok is 6" in err["message"]
    assert not run.of("config")


def test_runner_refuses_numbers_that_contradict_the_config(tmp_path):
    model = dict(spec_model("qwen2", TINY["qwen2"]), vocabSize=512)
    run = run_bench(tiny_spec(model=model, dsConfig=ds_config(2, offload=False)), tmp_path=str(tmp_path))
    err = run.one("error")
    assert err["class"] == "bad_config" and "model.vocabSize is 512" in err["message"] and "vocab_size = 256" in err["message"]


def test_gpt2_config_longer_than_its_positions_is_refused(tmp_path):
    model = spec_model("gpt2", dict(TINY["gpt2"], n_positions=16))
    run = run_bench(tiny_spec(model=model, dsConfig=ds_config(2, offload=False)), tmp_path=str(tmp_path))
    err = run.one("error")
    assert err["class"] == "bad_config" and "16 positions" in err["message"] and "Lower the sequence length" in err["fix"]


PRESET_CONFIGS = json.load(open(os.path.join(ENGINE, "preset-configs.json"), encoding="utf-8"))["configs"]


def test_every_preset_has_a_stored_config_with_its_source():
    assert sorted(PRESET_CONFIGS) == sorted(p["id"] for p in PRESETS)
    for pid, entry in PRESET_CONFIGS.items():
        assert entry["source"] and entry["config"]["model_type"], pid
        assert entry["source"].startswith("https://huggingface.co/") or pid == "tiny-llama", pid


@pytest.mark.parametrize("preset", PRESETS, ids=[p["id"] for p in PRESETS])
def test_preset_is_built_from_its_stored_config_with_the_published_count(preset):
    """The runner builds a preset's spec from its stored config.json (rope_scaling, Mistral's
    window included), and that model has the preset's numbers, the formula's and the published count."""
    m = {k: v for k, v in preset.items() if k not in ("label", "source", "publishedParams")}
    cfg, where = hf_model.config_source(m)
    assert cfg == PRESET_CONFIGS[preset["id"]]["config"] and "stored config.json" in where
    p = hf_model.probe(cfg)
    assert p["params"] == families.expected_param_count(m)
    if preset.get("publishedParams"):
        assert p["params"] == preset["publishedParams"]
    assert (p["layers"], p["hiddenSize"], p["vocabSize"], p["numKvHeads"]) == (
        preset["numLayers"], preset["hiddenSize"], preset["vocabSize"], preset["numKvHeads"])


def test_a_preset_id_with_edited_numbers_is_built_from_its_numbers():
    m = dict(next(p for p in PRESETS if p["id"] == "tiny-llama"), numLayers=3)
    cfg, where = hf_model.config_source(m)
    assert cfg["num_hidden_layers"] == 3 and "written from the spec's numbers" in where


def test_llama_3_presets_apply_rope_scaling():
    cfg, _ = hf_model.config_source(next(p for p in PRESETS if p["id"] == "llama-3.2-1b"))
    assert hf_model.probe(cfg)["ropeParameters"]["rope_type"] == "llama3"


def test_a_preset_spec_runs_from_its_stored_config(tmp_path):
    preset = next(p for p in PRESETS if p["id"] == "tiny-llama")
    model = {k: v for k, v in preset.items() if k not in ("label", "source", "publishedParams")}
    run = run_bench(tiny_spec(model=model, steps=2, warmup=1, dsConfig=ds_config(2, offload=False)), tmp_path=str(tmp_path))
    assert run.rc == 0, run.stderr[-3000:]
    assert "model: built from preset tiny-llama's stored config.json" in run.stderr
    assert run.one("config")["params"] == families.expected_param_count(model)


# A tiny Gemma-2 as its config.json is written: final_logit_softcapping 30.0 is a float in the file.
GEMMA2_TEXT = json.dumps(dict(BASE, model_type="gemma2", head_dim=16, sliding_window=16, query_pre_attn_scalar=16,
                              final_logit_softcapping=30.0, attn_logit_softcapping=50.0), indent=2)


def test_runner_builds_from_the_files_text_so_a_float_stays_a_float(tmp_path):
    """The app's JSON cannot keep 30.0 apart from 30: its spec's hfConfig says 30 (an int, which
    transformers refuses for a float field), and hfConfigText carries the file's bytes, which the
    runner parses here. The old runner built from hfConfig and was refused."""
    raw = json.loads(GEMMA2_TEXT)
    as_js = {k: int(v) if isinstance(v, float) and v.is_integer() else v for k, v in raw.items()}
    assert as_js["final_logit_softcapping"] == 30 and isinstance(as_js["final_logit_softcapping"], int)
    model = dict(spec_model("gemma2", raw), hfConfig=as_js)
    # What the old runner had: the object alone, refused by transformers' own validation.
    with pytest.raises(hf_model.ConfigRefused, match="final_logit_softcapping") as refused:
        hf_model.refusal({"model": model})
    assert refused.value.cls == "bad_config"
    model["hfConfigText"] = GEMMA2_TEXT
    assert hf_model.refusal({"model": model}) is None
    run = run_bench(tiny_spec(model=model, steps=2, warmup=1, dsConfig=ds_config(2, offload=False)), tmp_path=str(tmp_path))
    assert run.rc == 0, run.stderr[-3000:]
    assert run.one("config")["modelClass"] == "Gemma2ForCausalLM" and len(run.of("step")) == 2
    assert "model.hfConfigText, the file's text" in run.stderr


def test_runner_refuses_a_text_that_is_not_its_hfconfig():
    model = dict(spec_model("gemma2", json.loads(GEMMA2_TEXT)), hfConfigText=json.dumps(TINY["gemma"]))
    with pytest.raises(hf_model.ConfigRefused, match="different configs"):
        hf_model.refusal({"model": model})
