"""What the app plans is what the runner runs: `plan --write-specs DIR` (the real CLI, the tuner's
RunSpecs) → each file validates against the exported schema, and one runs unchanged through bench.py."""
import json
import os
import shutil
import subprocess

import pytest

import spec as spec_mod
from conftest import ROOT, run_bench

TSX = os.path.join(ROOT, "node_modules", ".bin", "tsx")


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    if not os.path.exists(TSX) or not shutil.which("node"):
        pytest.skip("node/tsx not installed (npm ci)")
    out = tmp_path_factory.mktemp("specs")
    data = tmp_path_factory.mktemp("data")
    proc = subprocess.run([TSX, "electron/cli/main.ts", "plan", "--model", "tiny-llama", "--seq", "32", "--micro-batch", "2",
                           "--gpus", "1", "--write-specs", str(out), "--steps", "2", "--warmup", "1", "--data-dir", str(data), "--json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    plan = json.loads(proc.stdout)
    files = {name[:-5]: json.load(open(out / name)) for name in os.listdir(out) if name.endswith(".json")}
    return plan, files


def test_every_written_spec_is_the_plans_and_valid(written):
    plan, files = written
    assert files, "plan wrote no specs"
    by_id = {s["id"]: s for s in plan["strategies"]}
    for strategy, spec in files.items():
        planned = by_id[strategy]["spec"]
        # The file is the plan's spec; only the run's own fields (id, steps, warm-up) are set.
        assert {k: v for k, v in spec.items() if k not in ("runId", "steps", "warmup")} == \
            {k: v for k, v in planned.items() if k not in ("runId", "steps", "warmup")}
        assert (spec["steps"], spec["warmup"]) == (3, 1)
        checked = spec_mod.validate(spec)
        assert checked["strategy"] == strategy and checked["microBatch"] == 2


def test_a_written_spec_runs_unchanged_through_the_runner(written, tmp_path):
    _plan, files = written
    spec = files["zero3-offload"]
    run = run_bench(spec, tmp_path=str(tmp_path))
    assert run.rc == 0, run.stderr[-4000:]
    config = run.one("config")
    assert (config["microBatch"], config["seqLen"], config["gradAccum"]) == (spec["microBatch"], spec["seqLen"], spec["gradAccum"])
    # The output says which spec it ran: a converter can match it to the spec file.
    assert (config["strategy"], config["configHash"], config["runId"]) == (spec["strategy"], spec["configHash"], spec["runId"])
    effective = config["effectiveConfig"]
    # DeepSpeed resolved the spec's config as given: every key the spec sets has the spec's value.
    assert_subset(spec["dsConfig"], effective, "dsConfig")
    assert run.one("result")["measuredSteps"] == 2


def assert_subset(expected, actual, where):
    if isinstance(expected, dict):
        assert isinstance(actual, dict), where
        for key, value in expected.items():
            assert key in actual, f"{where}.{key} missing from the effective config"
            assert_subset(value, actual[key], f"{where}.{key}")
    else:
        assert expected == actual, f"{where}: spec {expected!r}, effective {actual!r}"
