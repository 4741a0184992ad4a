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
