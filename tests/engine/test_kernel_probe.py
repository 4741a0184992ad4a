"""resources/engine/kernel_probe.py: the workload's own layer and head, built by transformers from the config.json and
timed at each micro batch. On the CPU (--device cpu, the tests' switch: the app never probes on a CPU) with tiny
Llama- and Phi-3-shaped configs — real transformers classes, seconds — and its command line's answers."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "resources", "engine", "kernel_probe.py")

# Llama's shape: separate q/k/v and gate/up projections, grouped-query attention (2 KV heads of 4).
TINY_LLAMA = {"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
              "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 128, "vocab_size": 256,
              "tie_word_embeddings": True}
# Phi-3's: fused qkv_proj and gate_up_proj, as many KV heads as heads, a sliding window, untied head.
TINY_PHI3 = {"model_type": "phi3", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
             "num_key_value_heads": 4, "intermediate_size": 128, "vocab_size": 256, "tie_word_embeddings": False,
             "sliding_window": 31, "max_position_embeddings": 128, "original_max_position_embeddings": 128,
             "hidden_act": "silu", "bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 0}


def probe_in_process(tmp_path, config, *args, capsys):
    """kernel_probe.main in this process (torch and transformers imported once for the file): its one line."""
    import kernel_probe

    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    rc = kernel_probe.main(["--config", str(path), "--device", "cpu", "--budget-seconds", "600", *args])
    lines = [ln for ln in capsys.readouterr().out.splitlines() if ln.strip()]
    assert len(lines) == 1, lines
    return rc, json.loads(lines[0])


@pytest.fixture(autouse=True)
def _needs_torch():
    pytest.importorskip("torch")
    pytest.importorskip("transformers")


def test_a_llama_shaped_layer_and_head_are_timed_at_each_micro_batch(tmp_path, capsys):
    rc, out = probe_in_process(tmp_path, TINY_LLAMA, "--seq", "32", "--micro", "1,2", "--repeats", "2", capsys=capsys)
    assert rc == 0 and out["ok"], out
    assert (out["device"], out["dtype"], out["seqLen"], out["checkpointing"]) == ("cpu", "bf16", 32, True)
    assert out["memorySource"] == "cpu-dispatch-tracker" and out["oom"] is None and out["stopped"] is None
    arch = out["arch"]
    assert (arch["architecture"], arch["layers"], arch["headDim"], arch["numHeads"], arch["numKvHeads"]) == ("LlamaForCausalLM", 2, 16, 4, 2)
    assert (arch["fusedQkv"], arch["fusedGateUp"], arch["tieEmbeddings"], arch["vocabSize"]) == (False, False, True, 256)
    assert arch["projections"]["self_attn.k_proj"] == [64, 32]
    # q 64x64, k/v 64x32, o 64x64, gate/up/down 64x128, two norms
    assert arch["perLayerParams"] == [64 * 64 * 2 + 64 * 32 * 2 + 3 * 64 * 128 + 2 * 64]
    assert arch["attentionMask"].startswith("none")
    assert [m["microBatch"] for m in out["micros"]] == [1, 2]
    for m in out["micros"]:
        assert m["tokens"] == 32 * m["microBatch"] and m["repeats"] == 2
        assert m["layerSeconds"] > 0 and m["headSeconds"] > 0 and 0 < m["layerForwardSeconds"]
        # checkpointed: a layer keeps only its bf16 output for backward; the recompute and backward need more
        assert m["layerKeptBytes"] == 2 * 64 * m["tokens"]
        assert m["layerPeakBytes"] > m["layerKeptBytes"]
        # the head's peak holds at least the fp32 logits of every token
        assert m["headPeakBytes"] >= 4 * 256 * m["tokens"]
    one, two = out["micros"]
    assert two["layerPeakBytes"] == pytest.approx(2 * one["layerPeakBytes"], rel=0.1)


def test_a_phi3_shaped_layer_reports_its_fused_projections_and_its_mask(tmp_path, capsys):
    rc, out = probe_in_process(tmp_path, TINY_PHI3, "--seq", "64", "--micro", "1,2", "--repeats", "1", capsys=capsys)
    assert rc == 0 and out["ok"], out
    arch = out["arch"]
    assert (arch["architecture"], arch["fusedQkv"], arch["fusedGateUp"]) == ("Phi3ForCausalLM", True, True)
    assert arch["projections"]["self_attn.qkv_proj"] == [64, 3 * 64] and arch["projections"]["mlp.gate_up_proj"] == [64, 2 * 128]
    assert (arch["numKvHeads"], arch["headDim"], arch["slidingWindow"], arch["tieEmbeddings"]) == (4, 16, 31, False)
    # a sliding window makes the model pass a mask tensor: SDPA's causal flash path is not what runs
    assert "mask tensor" in arch["attentionMask"]
    # without checkpointing a layer keeps its activations for backward: more than its output
    rc, plain = probe_in_process(tmp_path, TINY_PHI3, "--seq", "64", "--micro", "1", "--repeats", "1", "--no-checkpointing",
                                 capsys=capsys)
    assert rc == 0 and plain["checkpointing"] is False
    assert plain["micros"][0]["layerKeptBytes"] > 4 * out["micros"][0]["layerKeptBytes"]


def test_layers_of_two_kinds_are_each_timed_and_weighted_by_their_count(tmp_path, capsys):
    gemma2 = {"model_type": "gemma2", "hidden_size": 64, "num_hidden_layers": 4, "num_attention_heads": 4,
              "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 128, "vocab_size": 256, "sliding_window": 16,
              "query_pre_attn_scalar": 16}
    rc, out = probe_in_process(tmp_path, gemma2, "--seq", "32", "--micro", "1", "--repeats", "1", capsys=capsys)
    assert rc == 0 and out["ok"], out
    assert out["arch"]["layerKinds"] == [{"kind": "sliding_attention", "layers": 2}, {"kind": "full_attention", "layers": 2}]
    m = out["micros"][0]
    kinds = m["byKind"]
    assert [k["kind"] for k in kinds] == ["sliding_attention", "full_attention"]
    assert m["layerSeconds"] == pytest.approx(sum(k["layers"] * k["layerSeconds"] for k in kinds) / 4)


def test_an_architecture_transformers_cannot_build_is_refused_by_name(tmp_path, capsys):
    rc, out = probe_in_process(tmp_path, {"model_type": "no-such-arch", "hidden_size": 64}, "--seq", "32", "--micro", "1", capsys=capsys)
    assert rc == 2 and sorted(out) == ["class", "message", "ok"] and (out["ok"], out["class"]) == (False, "unsupported")
    assert "'no-such-arch' is not an architecture transformers" in out["message"]
    rc, out = probe_in_process(tmp_path, {**TINY_LLAMA, "auto_map": {"AutoModelForCausalLM": "x.Y"}}, "--seq", "32", "--micro", "1",
                               capsys=capsys)
    assert rc == 2 and out["class"] == "unsupported" and "remote code" in out["message"]


def test_the_climb_stops_at_the_first_micro_batch_out_of_memory_and_before_the_budget():
    import torch

    import kernel_probe

    def measure(m):
        if m >= 4:
            exc = torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 20.00 GiB")
            exc.probe_part = "head"
            raise exc
        return {"microBatch": m}

    done, oom, stopped = kernel_probe.climb([1, 2, 4, 8], measure, budget_seconds=1e9)
    assert [d["microBatch"] for d in done] == [1, 2] and stopped is None
    assert oom == {"microBatch": 4, "part": "head", "message": "CUDA out of memory. Tried to allocate 20.00 GiB"}
    # a budget the next micro batch would pass: stopped before it, said so
    clock = iter([0.0, 40.0, 40.0, 40.0])
    done, oom, stopped = kernel_probe.climb([1, 2, 4], lambda m: {"microBatch": m}, budget_seconds=50,
                                            elapsed=lambda: next(clock))
    assert oom is None and stopped.startswith("time budget: micro") and len(done) >= 1
    # anything else than running out of memory is not swallowed
    with pytest.raises(ValueError):
        kernel_probe.climb([1], lambda m: (_ for _ in ()).throw(ValueError("bad")), budget_seconds=1e9)


def test_the_command_line_prints_one_line_and_skips_without_a_gpu(tmp_path):
    import torch

    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(TINY_LLAMA))
    out = subprocess.run([sys.executable, SCRIPT, "--config", str(cfg), "--seq", "32", "--micro", "1"], capture_output=True,
                         text=True, timeout=300)
    lines = [ln for ln in out.stdout.splitlines() if ln.strip()]
    assert len(lines) == 1, out.stdout
    got = json.loads(lines[0])
    if torch.cuda.is_available():
        assert got["ok"] and got["device"] == "cuda" and got["memorySource"] == "cuda-allocator"
    else:
        assert out.returncode == 0
        assert got == {"ok": False, "class": "no_gpu", "skipped": True, "message": got["message"]}
        assert got["message"].startswith("skipped: no GPU")
    bad = subprocess.run([sys.executable, SCRIPT, "--config", str(tmp_path / "missing.json"), "--seq", "32", "--micro", "1"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and json.loads(bad.stdout)["class"] == "bad_config"
    wrong = subprocess.run([sys.executable, SCRIPT, "--config", str(cfg), "--seq", "32", "--micro", "0,2"], capture_output=True,
                           text=True, timeout=60)
    assert wrong.returncode != 0 and "--micro takes micro batches of 1 or more" in wrong.stderr
