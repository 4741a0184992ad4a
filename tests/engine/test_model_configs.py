"""The model-config corpus (tests/fixtures/model-configs: the published config.json of 20 model
families, sources.json naming each source): every one is counted by the probe with transformers'
own count and the published one, Mixture-of-Experts ones with their active parameters per token; a
tiny-shaped copy of each (same architecture and options, tiny dims) trains two real steps on CPU
under ZeRO-3, all in one process (tiny_config_runs.py); tiny Qwen2-MoE also runs through bench.py
(the protocol path: leaf modules, router loss, TFLOPS from the active count; tiny Mixtral does in
the CLI test of tests/unit/environment/model-import.test.ts)."""
import json
import math
import os
import subprocess
import sys

import pytest
import torch

from conftest import ROOT, bench_env, ds_config, run_bench, tiny_spec

import hf_model

DIR = os.path.join(ROOT, "tests", "fixtures", "model-configs")
SOURCES = json.load(open(os.path.join(DIR, "sources.json"), encoding="utf-8"))["configs"]
NAMES = sorted(SOURCES)
TEXT = {n: open(os.path.join(DIR, f"{n}.json"), encoding="utf-8").read() for n in NAMES}


def test_the_corpus_covers_the_families_with_a_named_source():
    assert len(NAMES) >= 15 and sorted(f[:-5] for f in os.listdir(DIR) if f.endswith(".json") and f != "sources.json") == NAMES
    families = {SOURCES[n]["family"] for n in NAMES}
    for need in ("Llama 2", "Llama 3", "Mistral", "Qwen2", "Qwen2.5", "Qwen3", "Phi-3", "Gemma", "Gemma 2", "Gemma 3",
                 "GPT-2", "GPT-NeoX", "Falcon", "OLMo 2", "StarCoder2", "SmolLM", "Mixtral (MoE)", "Qwen2-MoE"):
        assert need in families
    assert all(SOURCES[n]["source"].startswith("https://huggingface.co/") for n in NAMES)


def _routers(model):
    return [m for m in model.modules() if type(m).__name__.endswith(("Router", "TopkRouter")) and hasattr(m, "weight")]


def test_every_config_is_counted_as_transformers_counts_it():
    """One process for all: the probe's table (what the app plans with) against transformers' own
    num_parameters() of the model built from the file, and the published count where recorded. A
    MoE model's active count is checked against a second build with only top-k experts per layer,
    plus the router rows of the experts it leaves out (a token's router scores every expert)."""
    from transformers import AutoModelForCausalLM, CONFIG_MAPPING

    for n in NAMES:
        raw = json.loads(TEXT[n])
        p = hf_model.probe(raw)
        cfg = CONFIG_MAPPING[raw["model_type"]].from_dict({k: v for k, v in raw.items() if k not in hf_model.IGNORED_KEYS})
        with torch.device("meta"):
            model = AutoModelForCausalLM.from_config(cfg)
        assert p["params"] == model.num_parameters(), n
        if SOURCES[n]["publishedParams"]:
            assert p["params"] == SOURCES[n]["publishedParams"], n
        experts = hf_model.moe_experts(cfg)
        assert (p["moe"] is not None) == bool(experts), n
        if not experts:
            continue
        k = p["moe"]["expertsPerToken"]
        key = next(key for key in hf_model.MOE_KEYS if raw.get(key) == experts)
        with torch.device("meta"):
            top_k = AutoModelForCausalLM.from_config(CONFIG_MAPPING[raw["model_type"]].from_dict(
                {**{a: b for a, b in raw.items() if a not in hf_model.IGNORED_KEYS}, key: k}))
        hidden = raw["hidden_size"]
        assert p["moe"]["activeParams"] == top_k.num_parameters() + len(_routers(top_k)) * hidden * (experts - k), n
        published = SOURCES[n].get("publishedActive")
        if published:
            # Published to two figures (3.3B for 3.353B): within 2 %.
            assert abs(p["moe"]["activeParams"] / published["params"] - 1) < 0.02, (n, p["moe"]["activeParams"])


# The tiny copy: the file with its size fields shrunk (same model_type and every other option).
TINY_DIMS = {"hidden_size": 64, "n_embd": 64, "intermediate_size": 128, "num_hidden_layers": 2, "n_layer": 2,
             "num_attention_heads": 4, "n_head": 4, "head_dim": 16, "vocab_size": 256, "max_position_embeddings": 128,
             "n_positions": 128, "n_ctx": 128, "num_local_experts": 4, "num_experts": 4, "num_experts_per_tok": 2,
             "moe_intermediate_size": 32, "shared_expert_intermediate_size": 64, "max_window_layers": 2,
             "query_pre_attn_scalar": 16, "original_max_position_embeddings": 128}


def tiny_config(raw):
    t = {k: (TINY_DIMS[k] if k in TINY_DIMS else v) for k, v in raw.items()}
    heads, kv = raw.get("num_attention_heads"), raw.get("num_key_value_heads")
    if kv is not None:
        t["num_key_value_heads"] = 4 if kv == heads else (1 if kv == 1 else 2)  # MHA / MQA / GQA kept
    if t.get("sliding_window"):
        t["sliding_window"] = 16
    if isinstance(t.get("layer_types"), list):
        t["layer_types"] = t["layer_types"][:2]
    for key, value in (("bos_token_id", 1), ("eos_token_id", 2), ("pad_token_id", 0)):
        if t.get(key) is not None:
            t[key] = value  # inside the tiny vocabulary (the padding row is an embedding index)
    return t


def spec_model(name, cfg):
    p = hf_model.probe(cfg)
    return {"id": f"tiny-{name}", "family": p["modelType"], "hiddenSize": p["hiddenSize"], "numLayers": p["layers"],
            "numHeads": p["numHeads"], "numKvHeads": p["numKvHeads"], "intermediateSize": p["intermediateSize"],
            "vocabSize": p["vocabSize"], "tieEmbeddings": p["tieEmbeddings"], "ropeTheta": 10000, "rmsNormEps": 1e-5,
            "headDim": p["headDim"], "hfConfig": cfg, "hfConfigText": json.dumps(cfg)}, p


def test_a_tiny_copy_of_every_config_trains_two_steps_under_zero3(tmp_path):
    items, probes = [], {}
    for n in NAMES:
        model, probes[n] = spec_model(n, tiny_config(json.loads(TEXT[n])))
        items.append({"name": n, "spec": tiny_spec(model=model, steps=2, warmup=0, dsConfig=ds_config(3, offload=False))})
    path = tmp_path / "specs.json"
    path.write_text(json.dumps(items))
    proc = subprocess.run([sys.executable, "-u", os.path.join(ROOT, "tests", "engine", "tiny_config_runs.py"), str(path)],
                          capture_output=True, text=True, timeout=900, env=bench_env(), cwd=ROOT)
    results = {r["name"]: r for r in (json.loads(ln) for ln in proc.stdout.splitlines() if ln.startswith("{"))}
    assert sorted(results) == NAMES, proc.stderr[-3000:]
    for n in NAMES:
        r = results[n]
        assert r["ok"], (n, r.get("error"), r.get("trace"))
        assert r["params"] == probes[n]["params"], n
        assert abs(r["losses"][0] - math.log(256)) < 1.5, (n, r["losses"])
        if probes[n]["moe"]:
            # ZeRO-3 gathers each sparse MoE block whole; the router's loss is in the loss.
            assert r["leafClasses"] == probes[n]["moe"]["blockClass"], n
            assert r["auxLoss"] is not None and math.isfinite(r["auxLoss"]) and r["auxLoss"] > 0, n
        else:
            assert r["leafClasses"] == [], n


# Tiny Mixtral takes the whole path from the app (CLI run → spec → bench.py) in
# tests/unit/environment/model-import.test.ts; one bench.py run here is enough for the rest.
@pytest.mark.parametrize("name", ["qwen1.5-moe-a2.7b"])
def test_tiny_moe_runs_through_bench_under_zero3(name, tmp_path):
    """The whole runner (protocol, pre-flight, the log): a file's text with its 0.0 floats."""
    model, p = spec_model(name, tiny_config(json.loads(TEXT[name])))
    model["hfConfigText"] = json.dumps(model["hfConfig"], indent=2)
    run = run_bench(tiny_spec(model=model, steps=2, warmup=1, dsConfig=ds_config(3, offload=False)), tmp_path=str(tmp_path))
    assert run.rc == 0, run.stderr[-3000:]
    assert run.one("config")["params"] == p["params"] and len(run.of("step")) == 2
    moe = p["moe"]
    assert (f"{moe['activeParams']} of {p['params']} parameters active per token" in run.stderr
            and f"ZeRO-3 leaf modules: {moe['blockClass']}" in run.stderr), run.stderr[-2000:]
