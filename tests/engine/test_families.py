"""Which families the runner builds (model-families.json) and what it refuses, before torch."""
import json
import os

import families
from conftest import ROOT

PRESETS = json.load(open(os.path.join(ROOT, "resources", "presets", "models.json"), encoding="utf-8"))["models"]


def spec_model(preset):
    """The model block the tuner's spec carries (run-spec.ts specModel: no maxPositionEmbeddings,
    no attentionBias), so the runner's family defaults are what is tested."""
    keys = ("id", "family", "hiddenSize", "numLayers", "numHeads", "numKvHeads", "intermediateSize", "vocabSize",
            "tieEmbeddings", "ropeTheta", "rmsNormEps", "headDim")
    return {k: preset[k] for k in keys}


def test_every_preset_family_is_built_and_counts_the_published_parameters():
    published = [p for p in PRESETS if p.get("publishedParams")]
    assert {p["family"] for p in published} == {"llama", "qwen2", "mistral", "gpt2"}
    for p in published:
        assert families.refusal(spec_model(p), 1024) is None, p["id"]
        # From the spec alone and with the preset's full numbers: both equal the published count.
        assert families.expected_param_count(spec_model(p)) == p["publishedParams"], p["id"]
        assert families.expected_param_count(p) == p["publishedParams"], p["id"]


def test_gpt2_124m_and_qwen_biases():
    gpt2 = next(p for p in PRESETS if p["id"] == "gpt2")
    assert families.expected_param_count(spec_model(gpt2)) == 124_439_808
    qwen = next(p for p in PRESETS if p["id"] == "qwen2.5-7b")
    as_llama = dict(spec_model(qwen), family="llama")
    L, h, kv = qwen["numLayers"], qwen["hiddenSize"], qwen["numKvHeads"] * qwen["headDim"]
    # Qwen2 = Llama + q/k/v biases (h + 2·kv per layer), no o bias.
    assert families.expected_param_count(spec_model(qwen)) - families.expected_param_count(as_llama) == L * (h + 2 * kv)
    assert families.attention_biases(spec_model(qwen)) == (True, False)
    assert families.attention_biases({"family": "mistral", "attentionBias": True}) == (False, False)
    assert families.attention_biases({"family": "llama", "attentionBias": True}) == (True, True)


def test_unknown_family_is_refused_with_a_reason():
    m = dict(spec_model(PRESETS[0]), family="phi3")
    cls, message, fix = families.refusal(m, 128)
    assert cls == "unsupported" and "'phi3'" in message and "gpt2" in message and fix


def test_rope_family_without_theta_is_refused():
    m = dict(spec_model(PRESETS[0]), ropeTheta=0)
    cls, message, _ = families.refusal(m, 128)
    assert cls == "bad_config" and "ropeTheta" in message


def test_gpt2_longer_than_its_learned_positions_is_refused():
    gpt2 = spec_model(next(p for p in PRESETS if p["id"] == "gpt2"))
    assert families.refusal(gpt2, 1024) is None
    cls, message, fix = families.refusal(gpt2, 2048)
    assert cls == "bad_config" and "1024" in message and "1024" in fix
    # An imported GPT-2 with more positions says so in the spec.
    assert families.refusal(dict(gpt2, maxPositionEmbeddings=2048), 2048) is None
    assert families.refusal(dict(gpt2, numKvHeads=4), 128)[0] == "bad_config"


def test_table_shape():
    for name, fam in families.table().items():
        assert fam["architecture"] in ("llama", "gpt2"), name
        assert fam["positions"] in ("rope", "learned"), name
