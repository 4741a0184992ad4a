"""resources/engine/torch_adam_rate.py: torch AdamW's CPU step rate on a model's real shapes, one JSON line."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "resources", "engine", "torch_adam_rate.py")
TINY_CONFIG = {"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
               "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 128, "vocab_size": 256,
               "tie_word_embeddings": True}


def run(*args):
    out = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=300)
    return out


def test_a_config_is_measured_on_its_own_parameter_shapes(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(TINY_CONFIG))
    out = run("--config", str(cfg), "--threads", "1", "--impl", "plain,fused", "--steps", "2")
    assert out.returncode == 0, out.stderr
    lines = [l for l in out.stdout.splitlines() if l.strip()]
    assert len(lines) == 1, out.stdout
    got = json.loads(lines[0])
    # embeddings tied: 256*64; per layer q 64x64, k/v 32x64, o 64x64, mlp 3 x 64x128, two norms; final norm
    per_layer = 64 * 64 * 2 + 32 * 64 * 2 + 3 * 64 * 128 + 2 * 64
    assert got["results"][0]["params"] == 256 * 64 + 2 * per_layer + 64
    assert got["tensors"] == 1 + 2 * 9 + 1
    assert got["largestTensor"] == 256 * 64
    assert [r["impl"] for r in got["results"]] == ["plain", "fused"]
    for r in got["results"]:
        assert r["threads"] == 1 and len(r["stepSeconds"]) == 2 and r["paramsPerSecond"] > 0


def test_an_unknown_implementation_preset_or_unbuildable_config_is_refused_by_name(tmp_path):
    out = run("--single", "1000", "--impl", "plain,fast")
    assert out.returncode != 0 and "--impl fast" in out.stderr
    pytest.importorskip("torch")
    out = run("--preset", "no-such-model")
    assert out.returncode != 0 and "unknown preset 'no-such-model'" in out.stderr and "llama-3.2-3b" in out.stderr
    remote = tmp_path / "remote.json"
    remote.write_text(json.dumps({**TINY_CONFIG, "auto_map": {"AutoModelForCausalLM": "x.Y"}}))
    out = run("--config", str(remote))
    assert out.returncode != 0 and "needs remote code" in out.stderr and "Traceback" not in out.stderr
