"""The real runner, the real DeepSpeed engine, on this machine's CPU (gloo, CPU
accelerator, DeepSpeedCPUAdam JIT-built with ninja): what the orchestrator will see."""
import json
import math
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import ENGINE, ROOT, TINY_MODEL, bench_env, ds_config, tiny_spec


def assert_protocol_run(run, steps, warmup, engine):
    assert run.rc == 0, run.stderr[-4000:]
    types = [e["type"] for e in run.events]
    assert types[0] == "hello" and types[-1] == "result"
    assert types.index("preflight") < types.index("config") < types.index("step")
    for e in run.events:
        assert e["v"] == 1 and isinstance(e["t"], float)
    hello, config, result = run.one("hello"), run.one("config"), run.one("result")
    assert hello["accelerator"] == "cpu" and hello["rank"] == 0 and hello["worldSize"] == 1
    assert config["engine"] == engine and config["params"] == 90432 and config["worldSize"] == 1
    step_events = run.of("step")
    assert [s["step"] for s in step_events] == list(range(1, steps + 1))
    assert [s["warmup"] for s in step_events] == [i < warmup for i in range(steps)]
    losses = [s["loss"] for s in step_events]
    assert all(math.isfinite(x) for x in losses)
    assert abs(losses[-1] - losses[0]) > 1e-3, losses  # the optimizer really updates
    for s in step_events:
        assert s["stepSeconds"] > 0 and s["hostRssBytes"] > 0 and s["gpuAllocatedBytes"] is None
        assert math.isclose(s["tflopsAggregate"], s["tflopsPerGpu"])
    assert result["status"] == "completed" and result["measuredSteps"] == steps - warmup
    assert result["stepSeconds"]["min"] <= result["stepSeconds"]["median"] <= result["stepSeconds"]["max"]
    assert 0 < result["overheadFraction"] < 0.05
    assert "gpuAllocRetries" in result and result["gpuAllocRetries"] is None  # CPU accelerator: no CUDA allocator
    return config, result


def test_zero3_cpu_offload(bench):
    spec = tiny_spec(dsConfig=ds_config(3), gradAccum=2, steps=5, warmup=1)
    config, _ = assert_protocol_run(bench(spec), 5, 1, "deepspeed")
    eff = config["effectiveConfig"]
    assert eff["zero_optimization"]["stage"] == 3
    assert eff["zero_optimization"]["offload_optimizer"]["device"] == "cpu"
    assert eff["train_batch_size"] == 4 and config["globalBatch"] == 4
    # zero_force_ds_cpu_optimizer: DeepSpeed built its CPU Adam from the optimizer block.
    assert config["optimizer"] == "DeepSpeedCPUAdam"
    assert config["optimizerWrapper"] == "DeepSpeedZeroOptimizer_Stage3"


def test_zero2_cpu_offload_spec_on_stdin(bench):
    spec = tiny_spec(dsConfig=ds_config(2), steps=4, warmup=1, activationCheckpointing=False)
    config, _ = assert_protocol_run(bench(spec, via_stdin=True), 4, 1, "deepspeed")
    assert config["optimizer"] == "DeepSpeedCPUAdam" and config["effectiveConfig"]["zero_optimization"]["stage"] == 2
    assert "c=4 with activation checkpointing" in config["formula"]


def test_fsdp2_cpu_offload_on_cpu(bench):
    # FSDP2 runs on a CPU device mesh with gloo; CPUOffloadPolicy keeps the shards on the host.
    spec = tiny_spec(engine="fsdp2", fsdp={"cpuOffload": True, "reshardAfterForward": True}, steps=4, warmup=1)
    config, _ = assert_protocol_run(bench(spec), 4, 1, "fsdp2")
    assert config["optimizer"] == "AdamW"
    # torch >= 2.4 has a fused CPU AdamW: the offloaded optimizer must use it, and say so.
    assert config["optimizerImpl"] == "fused"
    assert config["effectiveConfig"]["optimizer"] == {"type": "AdamW", "lr": 1e-5, "implementation": "fused",
                                                      "fused": True, "device": "cpu"}


def test_bad_spec_exits_2_without_a_hello(bench):
    run = bench(tiny_spec(dsConfig=ds_config(2), warmup=9))
    assert run.rc == 2 and [e["type"] for e in run.events] == ["error"]
    assert run.events[0]["class"] == "bad_config" and "warmup" in run.events[0]["message"]


def test_deepspeed_rejects_unknown_key_as_bad_config(bench):
    ds = ds_config(2)
    ds["zero_optimization"]["offload_optimizer"]["super_offlaod"] = True
    run = bench(tiny_spec(dsConfig=ds))
    err = run.one("error")
    assert run.rc == 2 and err["class"] == "bad_config" and "super_offlaod" in err["message"], err


def test_superoffload_on_cpu_is_unsupported(bench):
    ds = ds_config(3)
    ds["zero_optimization"]["offload_optimizer"].update(super_offload=True, cpuadam_cores_perc=0.8)
    run = bench(tiny_spec(dsConfig=ds))
    err = run.one("error")
    assert run.rc == 3 and err["class"] == "unsupported" and "CUDA" in err["message"]


def test_sigterm_cancels_with_exit_130(tmp_path):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(tiny_spec(dsConfig=ds_config(2), steps=10_000, warmup=1)))
    proc = subprocess.Popen([sys.executable, "-u", os.path.join(ENGINE, "bench.py"), "--spec", str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=bench_env(), cwd=ROOT)
    lines = []
    deadline = time.time() + 240
    try:
        for line in proc.stdout:  # wait for training to be under way
            lines.append(json.loads(line))
            if lines[-1]["type"] == "step" or time.time() > deadline:
                break
        assert lines[-1]["type"] == "step", lines
        proc.send_signal(signal.SIGTERM)
        rest = [json.loads(x) for x in proc.stdout.read().splitlines() if x.strip()]
        assert proc.wait(timeout=60) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
    assert rest[-1]["type"] == "error" and rest[-1]["class"] == "cancelled"


# ---- model families: built faithfully through the real runner, or refused before it starts ----

TINY_GPT2 = {"id": "tiny-gpt2", "family": "gpt2", "hiddenSize": 64, "numLayers": 2, "numHeads": 4, "numKvHeads": 4,
             "intermediateSize": 256, "vocabSize": 256, "tieEmbeddings": True, "ropeTheta": 0, "rmsNormEps": 1e-5,
             "headDim": 16, "maxPositionEmbeddings": 64}


def assert_trains(run, family, params):
    assert run.rc == 0, run.stderr[-4000:]
    config, result = run.one("config"), run.one("result")
    assert config["modelFamily"] == family and config["params"] == params
    losses = [s["loss"] for s in run.of("step")]
    assert all(math.isfinite(x) for x in losses) and abs(losses[-1] - losses[0]) > 1e-3, losses
    assert result["status"] == "completed"
    return config


def test_tiny_gpt2_trains_through_deepspeed_zero2(bench):
    import families
    # ropeTheta 0 (learned positions): a Llama build would divide by zero and report NaN.
    count = families.expected_param_count(TINY_GPT2)
    prediction = {"stepSeconds": 1.0, "tflopsPerGpu": 0.1, "tflopsAggregate": 0.1, "tokensPerSecond": 64.0,
                  "gpuPeakBytes": 0, "hostPeakBytes": 1e9, "calibrated": False, "measured": False, "params": count}
    spec = tiny_spec(model=dict(TINY_GPT2), dsConfig=ds_config(2), steps=4, warmup=1, prediction=prediction)
    config = assert_trains(bench(spec), "gpt2", count)
    assert config["paramsPredicted"] == config["params"]  # measured and predicted TFLOPS: one N
    # wte + wpe + 2 blocks (fused qkv, proj, MLP, 2 LayerNorms, all with biases) + ln_f, head tied.
    assert config["params"] == 256 * 64 + 64 * 64 + 2 * (64 * 192 + 192 + 64 * 64 + 64 + 64 * 256 + 256 + 256 * 64 + 64 + 4 * 64) + 2 * 64


def test_tiny_qwen2_trains_through_zero3_with_its_qkv_biases(bench):
    import families
    qwen = dict(TINY_MODEL, family="qwen2")
    spec = tiny_spec(model=qwen, dsConfig=ds_config(3), steps=4, warmup=1)
    config = assert_trains(bench(spec), "qwen2", families.expected_param_count(qwen))
    # Qwen2 = the Llama build (90432 here) + q/k/v biases: 2 layers × (64 + 2 × 2·16).
    assert config["params"] == 90432 + 2 * (64 + 2 * 32)


def test_tiny_gpt2_trains_through_fsdp2(bench):
    import families
    # 4 steps: with transformers' GPT-2 (dropout 0.1, its own init) the loss of 3 steps at FSDP2's lr 1e-5
    # moved only 0.0009 between the first and last batch; the fourth batch is another draw.
    spec = tiny_spec(model=dict(TINY_GPT2), engine="fsdp2", fsdp={"cpuOffload": True, "reshardAfterForward": True},
                     steps=4, warmup=1)
    assert_trains(bench(spec), "gpt2", families.expected_param_count(TINY_GPT2))


def test_unknown_family_is_refused_before_anything_runs(bench):
    run = bench(tiny_spec(model=dict(TINY_MODEL, family="phi3"), dsConfig=ds_config(2)))
    assert [e["type"] for e in run.events] == ["error"], run.stderr[-2000:]
    err = run.events[0]
    assert run.rc == 3 and err["class"] == "unsupported" and "'phi3'" in err["message"] and err["fix"]


def test_gpt2_beyond_its_learned_positions_is_refused(bench):
    run = bench(tiny_spec(model=dict(TINY_GPT2), dsConfig=ds_config(2), seqLen=128))
    assert [e["type"] for e in run.events] == ["error"]
    assert run.rc == 2 and run.events[0]["class"] == "bad_config" and "64" in run.events[0]["message"]


def test_nan_loss_ends_the_run_diverged(bench):
    # A negative RMSNorm epsilon makes rsqrt's argument negative: NaN from the first forward.
    model = dict(TINY_MODEL, rmsNormEps=-1.0)
    run = bench(tiny_spec(model=model, engine="fsdp2", fsdp={"cpuOffload": False, "reshardAfterForward": True},
                          steps=4, warmup=1))
    steps, err = run.of("step"), run.one("error")
    assert run.rc == 3 and not run.of("result"), run.stderr[-3000:]
    assert len(steps) == 1 and steps[0]["loss"] is None  # the protocol writes NaN/inf as null
    assert err["class"] == "diverged" and "step 1" in err["message"] and err["fix"]


def test_tiny_gpt2_trains_through_zero3_with_checkpointing(bench):
    import families
    # zero.Init partitions wte/wpe as they are built; the tied head gathers wte at the root.
    spec = tiny_spec(model=dict(TINY_GPT2), dsConfig=ds_config(3), steps=4, warmup=1, activationCheckpointing=True)
    assert_trains(bench(spec), "gpt2", families.expected_param_count(TINY_GPT2))
