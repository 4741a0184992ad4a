import torch

from model import LlamaDecoder, count_params, expected_param_count, synthetic_batches
from conftest import TINY_MODEL

LLAMA_32_3B = {"hiddenSize": 3072, "numLayers": 28, "numHeads": 24, "numKvHeads": 8, "intermediateSize": 8192,
               "vocabSize": 128256, "tieEmbeddings": True, "ropeTheta": 500000, "rmsNormEps": 1e-5, "headDim": 128}


def test_llama_3_2_3b_parameter_count():
    # Llama-3.2-3B's published count (3.21 B), built on the meta device (no memory).
    with torch.device("meta"):
        model = LlamaDecoder(LLAMA_32_3B)
    assert count_params(model)[0] == expected_param_count(LLAMA_32_3B) == 3_212_749_824


def test_untied_head_adds_vocab_times_hidden():
    m = dict(TINY_MODEL, headDim=16)
    tied = expected_param_count(m)
    m["tieEmbeddings"] = False
    assert expected_param_count(m) - tied == 256 * 64
    assert count_params(LlamaDecoder(m))[0] == expected_param_count(m)


def test_forward_backward_finite_with_and_without_checkpointing():
    torch.manual_seed(0)
    m = dict(TINY_MODEL, headDim=16)
    ids = synthetic_batches(256, 2, 32, 1, seed=1, device="cpu")[0]
    losses = []
    for ac in (False, True):
        torch.manual_seed(0)
        model = LlamaDecoder(m, activation_checkpointing=ac)
        loss = model(ids)
        loss.backward()
        losses.append(loss.item())
        assert torch.isfinite(loss) and model.embed_tokens.weight.grad is not None
    # Checkpointing recomputes, it must not change the result; random init gives ~ln(vocab).
    assert abs(losses[0] - losses[1]) < 1e-5 and abs(losses[0] - torch.log(torch.tensor(256.0)).item()) < 0.5


def test_synthetic_batches_are_seeded():
    a = synthetic_batches(100, 2, 8, 2, seed=5, device="cpu")
    b = synthetic_batches(100, 2, 8, 2, seed=5, device="cpu")
    assert all(torch.equal(x, y) for x, y in zip(a, b)) and not torch.equal(a[0], a[1])


# ---- every family built faithfully (meta device: no memory) ----

import json  # noqa: E402
import os  # noqa: E402

import pytest  # noqa: E402

from conftest import ROOT  # noqa: E402
from model import Gpt2Decoder, build_model  # noqa: E402
from test_families import spec_model  # noqa: E402

PRESETS = [p for p in json.load(open(os.path.join(ROOT, "resources", "presets", "models.json"), encoding="utf-8"))["models"]
           if p.get("publishedParams")]


@pytest.mark.parametrize("preset", PRESETS, ids=[p["id"] for p in PRESETS])
def test_preset_built_on_meta_has_the_published_count(preset):
    with torch.device("meta"):
        model = build_model(spec_model(preset))
    assert count_params(model)[0] == preset["publishedParams"]


def test_gpt2_is_built_as_gpt2():
    gpt2 = spec_model(next(p for p in PRESETS if p["id"] == "gpt2"))
    with torch.device("meta"):
        model = build_model(gpt2)
    assert isinstance(model, Gpt2Decoder) and model.lm_head is None
    names = dict(model.named_parameters())
    assert names["wpe.weight"].shape == (1024, 768) and names["layers.0.attn.c_attn.bias"].shape == (3 * 768,)
    assert names["layers.0.ln_1.bias"].shape == (768,) and names["layers.0.mlp.c_fc.bias"].shape == (3072,)
    assert not any("rope" in n for n in names)


def test_qwen2_has_qkv_biases_and_no_o_bias():
    qwen = spec_model(next(p for p in PRESETS if p["id"] == "qwen2.5-7b"))
    with torch.device("meta"):
        model = build_model(qwen)
    attn = model.layers[0].self_attn
    assert attn.q_proj.bias is not None and attn.k_proj.bias.shape == (512,) and attn.v_proj.bias is not None
    assert attn.o_proj.bias is None and model.layers[0].mlp.gate_proj.bias is None


def test_unknown_family_does_not_build():
    with pytest.raises(ValueError, match="phi3"):
        build_model(dict(TINY_MODEL, family="phi3", headDim=16))


TINY_GPT2 = {"id": "tiny-gpt2", "family": "gpt2", "hiddenSize": 64, "numLayers": 2, "numHeads": 4, "numKvHeads": 4,
             "intermediateSize": 256, "vocabSize": 256, "tieEmbeddings": True, "ropeTheta": 0, "rmsNormEps": 1e-5,
             "headDim": 16, "maxPositionEmbeddings": 64}


@pytest.mark.parametrize("family", ["gpt2", "qwen2", "mistral"])
def test_tiny_families_train_finite_and_checkpointing_does_not_change_the_loss(family):
    m = TINY_GPT2 if family == "gpt2" else dict(TINY_MODEL, family=family, headDim=16)
    ids = synthetic_batches(256, 2, 32, 1, seed=1, device="cpu")[0]
    losses = []
    for ac in (False, True):
        torch.manual_seed(0)
        model = build_model(m, activation_checkpointing=ac)
        loss = model(ids)
        loss.backward()
        losses.append(loss.item())
        assert torch.isfinite(loss)
        assert all(p.grad is not None for p in model.parameters())
    assert abs(losses[0] - losses[1]) < 1e-5 and abs(losses[0] - torch.log(torch.tensor(256.0)).item()) < 0.5


def test_mistral_sliding_window_masks_old_keys_only_past_the_window():
    m = dict(TINY_MODEL, family="mistral", headDim=16, slidingWindow=8)
    torch.manual_seed(0)
    model = build_model(m)
    assert model._mask(8, "cpu") is None  # fits in the window: plain causal
    mask = model._mask(12, "cpu")
    assert mask[11, 4].item() and not mask[11, 3].item() and not mask[3, 4].item()
    ids = synthetic_batches(256, 1, 12, 1, seed=1, device="cpu")[0]
    windowed = model(ids).item()
    model.cfg = dict(model.cfg, slidingWindow=None)
    assert windowed != model(ids).item()  # the window changes what attends to what
