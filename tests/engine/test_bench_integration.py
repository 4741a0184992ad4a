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

from conftest import ENGINE, ROOT, bench_env, ds_config, tiny_spec


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
