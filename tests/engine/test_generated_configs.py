"""The tuner's generated configs, checked by DeepSpeed itself.

Runs `plan --write-configs DIR` (the CLI, through tsx), then parses every ds_config.json with
deepspeed.runtime.config.DeepSpeedConfig (a dict, mpu=None, no process group: world size 1),
and recomputes the plan's modelStates with DeepSpeed's own estimator functions.
"""

import json
import os
import shutil
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TSX = os.path.join(ROOT, "node_modules", ".bin", "tsx")

deepspeed = pytest.importorskip("deepspeed")
from deepspeed.runtime.config import DeepSpeedConfig  # noqa: E402
from deepspeed.runtime.zero.stage3 import estimate_zero3_model_states_mem_needs  # noqa: E402
from deepspeed.runtime.zero.stage_1_and_2 import estimate_zero2_model_states_mem_needs  # noqa: E402

MICRO, ACCUM = 2, 3


def run_plan(out_dir, data_dir, *extra):
    if not os.path.exists(TSX) or shutil.which("node") is None:
        pytest.skip("node / tsx not available")
    args = [TSX, os.path.join(ROOT, "electron", "cli", "main.ts"), "plan", "--model", "llama-3.2-1b", "--seq", "512",
            "--micro-batch", str(MICRO), "--grad-accum", str(ACCUM), "--gpus", "1", "--write-configs", out_dir,
            "--data-dir", data_dir, "--json", *extra]
    out = subprocess.run(args, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    with open(os.path.join(out_dir, "manifest.json")) as f:
        return json.load(f)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    out_dir = str(tmp_path_factory.mktemp("configs"))
    manifest = run_plan(out_dir, str(tmp_path_factory.mktemp("data")))
    return out_dir, manifest


def load(out_dir, entry):
    with open(os.path.join(out_dir, entry["file"])) as f:
        return json.load(f)


def test_every_strategy_written(generated):
    _, manifest = generated
    ids = {s["id"] for s in manifest["strategies"]}
    assert ids == {"gpu-zero1", "gpu-zero2", "gpu-zero3", "zero2-offload", "zero3-offload", "zero3-offload-param",
                   "zero-infinity-nvme", "superoffload", "fsdp2-cpu-offload"}
    assert all(s["valid"] for s in manifest["strategies"])


def test_deepspeed_parses_each_config(generated):
    out_dir, manifest = generated
    for entry in manifest["strategies"]:
        cfg = load(out_dir, entry)
        if entry["engine"] == "fsdp2":
            assert cfg == {"cpuOffload": True, "reshardAfterForward": True}
            continue
        ds = DeepSpeedConfig(dict(cfg), mpu=None)
        assert ds.world_size == 1
        assert ds.train_batch_size == MICRO * ACCUM * 1, entry["id"]
        assert ds.train_micro_batch_size_per_gpu == MICRO
        assert ds.gradient_accumulation_steps == ACCUM
        assert ds.bfloat16_config.enabled and not ds.float16_config.enabled
        zero = ds.zero_config
        assert int(zero.stage) == cfg["zero_optimization"]["stage"]
        oo = zero.offload_optimizer
        op = zero.offload_param
        if entry["id"] == "superoffload":
            assert oo.super_offload is True and oo.device == "cpu"
            assert abs(oo.cpuadam_cores_perc - cfg["zero_optimization"]["offload_optimizer"]["cpuadam_cores_perc"]) < 1e-9
            assert abs(oo.ratio - 0.9) < 1e-9
            assert ds.gradient_clipping == 0.0
            assert zero.overlap_comm is False and zero.reduce_bucket_size == 4e8 and zero.sub_group_size == 4e8
        if entry["id"] == "zero-infinity-nvme":
            assert oo.device == "nvme" and op.device == "nvme" and oo.nvme_path and op.nvme_path
        if entry["id"] in ("zero3-offload-param",):
            assert op.device == "cpu"
        if entry["id"].startswith("gpu-"):
            assert oo is None or oo.device == "none"


def test_deepspeed_refuses_a_broken_batch_identity(generated):
    out_dir, manifest = generated
    entry = next(s for s in manifest["strategies"] if s["id"] == "zero3-offload")
    cfg = load(out_dir, entry)
    cfg["train_batch_size"] = MICRO * ACCUM + 1
    with pytest.raises(AssertionError):
        DeepSpeedConfig(cfg, mpu=None)


def test_model_states_match_deepspeed_estimators(generated):
    _, manifest = generated
    P, L = manifest["params"], manifest["largestLayerParams"]
    w = manifest["workload"]
    for entry in manifest["strategies"]:
        states = entry["modelStates"]
        if entry["id"] in ("gpu-zero1", "gpu-zero2"):
            cpu, gpu = estimate_zero2_model_states_mem_needs(P, w["gpus"], w["nodes"], cpu_offload=False)
        elif entry["id"] == "zero2-offload":
            cpu, gpu = estimate_zero2_model_states_mem_needs(P, w["gpus"], w["nodes"], cpu_offload=True)
        else:
            offload = entry["id"] != "gpu-zero3"
            params = entry["id"] in ("zero3-offload-param", "zero-infinity-nvme", "fsdp2-cpu-offload")
            cpu, gpu, _ = estimate_zero3_model_states_mem_needs(P, L, w["gpus"], w["nodes"], cpu_offload=offload,
                                                                cpu_offload_params=params, zero_init=True)
        assert (states["hostBytes"], states["gpuBytes"]) == (cpu, gpu), entry["id"]
