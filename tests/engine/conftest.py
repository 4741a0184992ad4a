"""Shared helpers for the engine tests: the runner's modules on sys.path, and a way to run
bench.py for real as a subprocess and read its protocol lines."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ENGINE = os.path.join(ROOT, "resources", "engine")
if ENGINE not in sys.path:
    sys.path.insert(0, ENGINE)

TINY_MODEL = {"id": "tiny", "family": "llama", "hiddenSize": 64, "numLayers": 2, "numHeads": 4, "numKvHeads": 2,
              "intermediateSize": 128, "vocabSize": 256, "tieEmbeddings": True, "ropeTheta": 10000,
              "rmsNormEps": 1e-5, "headDim": 16}


def tiny_spec(**over):
    """A RunSpec (electron/contract/run-spec.ts) for the tiny model; the app's own specs come from
    `plan --write-specs` (test_run_spec.py runs those)."""
    spec = {"specVersion": 1, "strategy": "custom", "runId": "test", "engine": "deepspeed", "model": dict(TINY_MODEL),
            "seqLen": 32, "microBatch": 2, "gradAccum": 1, "gpus": 1, "nodes": 1, "steps": 5, "warmup": 1,
            "precision": "bf16", "activationCheckpointing": True, "seed": 1234, "knobs": {}, "dsConfig": None,
            "fsdp": None, "prediction": None, "configHash": "test", "maxSeconds": 600}
    spec.update(over)
    return spec


def ds_config(stage, offload=True, **zero):
    z = {"stage": stage, "reduce_bucket_size": 1e6, **zero}
    if stage == 3:
        z.setdefault("sub_group_size", 1e6)
    if offload:
        z["offload_optimizer"] = {"device": "cpu", "pin_memory": True}
    # lr high enough that a few steps on random tokens visibly move the loss.
    return {"zero_optimization": z, "bf16": {"enabled": True}, "steps_per_print": 10 ** 6,
            "optimizer": {"type": "AdamW", "params": {"lr": 3e-3}}}


class BenchRun:
    def __init__(self, proc):
        self.rc = proc.returncode
        self.stderr = proc.stderr
        self.lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
        # Every stdout line must be protocol JSON: anything else is pollution.
        self.events = [json.loads(ln) for ln in self.lines]

    def of(self, type_):
        return [e for e in self.events if e["type"] == type_]

    def one(self, type_):
        found = self.of(type_)
        assert len(found) == 1, f"expected one {type_}, got {len(found)}; stderr tail:\n{self.stderr[-3000:]}"
        return found[0]


def bench_env(**extra):
    env = dict(os.environ)
    for key in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(key, None)
    env.setdefault("OMP_NUM_THREADS", "1")
    env.update(extra)
    return env


def run_bench(spec, timeout=420, via_stdin=False, tmp_path=None):
    args = [sys.executable, "-u", os.path.join(ENGINE, "bench.py"), "--spec"]
    if via_stdin:
        args.append("-")
        proc = subprocess.run(args, input=json.dumps(spec), capture_output=True, text=True, timeout=timeout,
                              env=bench_env(), cwd=ROOT)
    else:
        path = os.path.join(tmp_path, "spec.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(spec, fh)
        proc = subprocess.run(args + [path], capture_output=True, text=True, timeout=timeout, env=bench_env(), cwd=ROOT)
    return BenchRun(proc)


@pytest.fixture
def bench(tmp_path):
    def _run(spec, **kw):
        return run_bench(spec, tmp_path=str(tmp_path), **kw)
    return _run
