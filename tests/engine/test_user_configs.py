"""Users' own ds_config.json files (tests/fixtures/ds-configs), through the app and DeepSpeed itself.

- what `plan --ds-config FILE --json` resolves each config to ("auto" filled, batch derived, strategy
  and knobs) is what DeepSpeed 0.19's own parser (DeepSpeedConfig, world size 1) reads from it;
- resources/engine/ds-config-keys.json is what ds_config_keys.py records from the installed DeepSpeed;
- `run --ds-config` runs a user's ZeRO-3-offload config unchanged on this CPU and stores the file
  byte for byte with the completed run;
- the exported torchrun line runs the exported ds_config.json with train_example.py on CPU.
"""
import json
import os
import shlex
import shutil
import sqlite3
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TSX = os.path.join(ROOT, "node_modules", ".bin", "tsx")
CONFIGS = os.path.join(ROOT, "tests", "fixtures", "ds-configs")
ENGINE = os.path.join(ROOT, "resources", "engine")

deepspeed = pytest.importorskip("deepspeed")
from deepspeed.runtime.config import DeepSpeedConfig  # noqa: E402

# fixture → (extra CLI flags, expected strategy)
CASES = {
    "deepspeed-guide-superoffload.json": ([], "superoffload"),
    "dsexamples-superoffload.json": ([], "superoffload"),
    "dsexamples-zero-offload.json": ([], "zero3-offload"),
    "hf-trainer-zero2-auto.json": (["--micro-batch", "2", "--grad-accum", "3"], "zero2-offload"),
    # HF fills fp16.enabled from --fp16; the file has no bf16 block
    "hf-zero3-auto.json": (["--precision", "fp16", "--micro-batch", "2"], "zero3-offload-param"),
    "zero-infinity-nvme.json": ([], "zero-infinity-nvme"),
}


def cli(*args, timeout=300):
    if not os.path.exists(TSX) or shutil.which("node") is None:
        pytest.skip("node / tsx not available")
    out = subprocess.run([TSX, os.path.join(ROOT, "electron", "cli", "main.ts"), *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT)
    return out


def plan_user_config(name, data_dir, *extra):
    out = cli("plan", "--ds-config", os.path.join(CONFIGS, name), "--model", "tiny-llama", "--seq", "64",
              "--data-dir", data_dir, "--json", *extra)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


@pytest.mark.parametrize("name", sorted(CASES))
def test_deepspeed_reads_what_the_app_resolved(name, tmp_path):
    extra, strategy = CASES[name]
    result = plan_user_config(name, str(tmp_path), *extra)
    mapping = result["mapping"]
    assert mapping["strategyId"] == strategy
    config = result["resolvedConfig"]
    assert "auto" not in json.dumps(config), "an auto value reached DeepSpeed"
    ds = DeepSpeedConfig(dict(config), mpu=None)
    assert ds.world_size == 1
    assert ds.train_micro_batch_size_per_gpu == mapping["microBatch"]
    assert ds.gradient_accumulation_steps == mapping["gradAccum"]
    assert ds.train_batch_size == mapping["microBatch"] * mapping["gradAccum"]
    assert ds.bfloat16_config.enabled == (mapping["precision"] == "bf16")
    assert ds.float16_config.enabled == (mapping["precision"] == "fp16")
    zero = ds.zero_config
    knobs = mapping["knobs"]
    assert zero.overlap_comm == knobs["overlapComm"]
    assert zero.reduce_bucket_size == knobs["reduceBucketSize"]
    if int(zero.stage) == 3:
        assert zero.sub_group_size == knobs["subGroupSize"]
    oo, op = zero.offload_optimizer, zero.offload_param
    if strategy in ("superoffload", "zero3-offload"):
        assert oo.device == "cpu" and abs(oo.ratio - knobs["ratio"]) < 1e-9
        assert (op is None or op.device == "none")
    if strategy == "superoffload":
        assert oo.super_offload is True
        assert abs(oo.cpuadam_cores_perc - knobs["cpuadamCoresPerc"]) < 1e-9
    if strategy == "zero3-offload-param":
        assert oo.device == "cpu" and op.device == "cpu"
        # the hidden-size "auto" keys, filled as HF Trainer does (tiny-llama's hidden size)
        h = result["plan"]["model"]["hiddenSize"]
        assert zero.reduce_bucket_size == h * h
        assert zero.prefetch_bucket_size == int(0.9 * h * h)
        assert zero.param_persistence_threshold == 10 * h
    if strategy == "zero-infinity-nvme":
        assert oo.device == "nvme" and op.device == "nvme" and oo.nvme_path is not None
    # the spec that runs it carries the file byte for byte
    with open(os.path.join(CONFIGS, name), encoding="utf-8") as f:
        assert result["spec"]["userConfig"]["text"] == f.read()
    assert result["spec"]["dsConfig"] == config


def test_the_guide_config_resolves_train_batch_size_against_the_gpus(tmp_path):
    one = plan_user_config("deepspeed-guide-superoffload.json", str(tmp_path))
    assert (one["mapping"]["microBatch"], one["mapping"]["gradAccum"]) == (4, 1)
    assert one["mapping"]["knobs"]["cpuadamCoresPerc"] == 0.9
    three = cli("plan", "--ds-config", os.path.join(CONFIGS, "deepspeed-guide-superoffload.json"), "--model", "tiny-llama",
                "--seq", "64", "--gpus", "3", "--data-dir", str(tmp_path), "--json")
    assert three.returncode != 0
    assert "train_batch_size" in three.stderr and "3 GPU" in three.stderr


def test_key_table_is_what_deepspeed_records():
    sys.path.insert(0, ENGINE)
    import ds_config_keys

    with open(ds_config_keys.COMMITTED) as f:
        committed = f.read()
    assert committed == ds_config_keys.text(), "resources/engine/ds-config-keys.json is stale: run python resources/engine/ds_config_keys.py --write"


def test_unknown_zero_key_is_refused_by_deepspeed_as_by_the_app(tmp_path):
    bad = tmp_path / "typo.json"
    bad.write_text(json.dumps({"train_batch_size": 2, "bf16": {"enabled": True}, "zero_optimization": {"stage": 2, "reduce_bucket_sise": 1e6}}))
    with pytest.raises(Exception, match="reduce_bucket_sise"):
        DeepSpeedConfig(json.loads(bad.read_text()), mpu=None)
    out = cli("plan", "--ds-config", str(bad), "--model", "tiny-llama", "--seq", "64", "--data-dir", str(tmp_path))
    assert out.returncode != 0
    assert "zero_optimization.reduce_bucket_sise" in out.stderr and "reduce_bucket_size" in out.stderr


def engine_python():
    return sys.executable


def test_run_ds_config_runs_the_users_zero3_offload_config_on_cpu(tmp_path):
    name = "dsexamples-zero-offload.json"
    data = str(tmp_path / "data")
    out = cli("run", "--ds-config", os.path.join(CONFIGS, name), "--model", "tiny-llama", "--seq", "64", "--steps", "2",
              "--warmup", "1", "--python", engine_python(), "--data-dir", data, "--json", timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    runs = json.loads(out.stdout)
    assert [r["status"] for r in runs] == ["completed"]
    db = sqlite3.connect(os.path.join(data, "history.db"))
    spec_text, config_text = db.execute("SELECT d.spec, d.config FROM run_details d WHERE d.run_id = ?", (runs[0]["id"],)).fetchone()
    spec = json.loads(spec_text)
    with open(os.path.join(CONFIGS, name), encoding="utf-8") as f:
        assert spec["userConfig"]["text"] == f.read()
    assert spec["strategy"] == "zero3-offload" and spec["userConfig"]["mappedStrategy"] == "zero3-offload"
    # what DeepSpeed ran: the user's keys (sub_group_size 4e8, overlap_comm false), not the app's generator's
    zero = json.loads(config_text)["effectiveConfig"]["zero_optimization"]
    assert (zero["stage"], zero["overlap_comm"], zero["reduce_bucket_size"], zero["sub_group_size"]) == (3, False, 400000000, 400000000)
    assert zero["offload_optimizer"]["device"] == "cpu" and zero["offload_optimizer"]["ratio"] == 1.0


def test_hf_docs_zero3_auto_config_runs_two_steps_via_the_cli(tmp_path):
    # transformers' ZeRO-3 config ("auto" everywhere, WarmupLR): "auto" once filled warmup_num_steps
    # with 0, which DeepSpeed 0.19.8 refuses at initialize ("failed (internal)"); and its
    # sub_group_size 1e14 made the runner's pre-flight ask for 364 TiB of host memory
    name = "hf-tests-zero3-auto.json"
    data = str(tmp_path / "data")
    out = cli("run", "--ds-config", os.path.join(CONFIGS, name), "--model", "tiny-llama", "--seq", "64", "--steps", "2",
              "--warmup", "1", "--python", engine_python(), "--data-dir", data, "--json", timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    runs = json.loads(out.stdout)
    assert [r["status"] for r in runs] == ["completed"], runs
    db = sqlite3.connect(os.path.join(data, "history.db"))
    config_text, = db.execute("SELECT d.config FROM run_details d WHERE d.run_id = ?", (runs[0]["id"],)).fetchone()
    effective = json.loads(config_text)["effectiveConfig"]
    assert effective["scheduler"] == {"type": "WarmupLR", "params": {"warmup_min_lr": 0, "warmup_max_lr": 5e-05, "warmup_num_steps": 1}}


def test_exported_torchrun_line_runs_the_exported_config(tmp_path):
    out_dir = tmp_path / "export"
    out = cli("plan", "--ds-config", os.path.join(CONFIGS, "dsexamples-zero-offload.json"), "--model", "tiny-llama",
              "--seq", "64", "--data-dir", str(tmp_path / "data"), "--export", str(out_dir))
    assert out.returncode == 0, out.stderr[-2000:]
    yours = out_dir / "yours"
    lines = (yours / "launch.txt").read_text().splitlines()
    torchrun = lines[lines.index("# torchrun") + 1]
    argv = shlex.split(torchrun)
    assert argv[:3] == ["torchrun", "--nproc_per_node", "1"] and "--deepspeed" in argv
    argv[argv.index("train.py")] = os.path.join(ENGINE, "train_example.py")
    bindir = os.path.dirname(sys.executable)
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
    ran = subprocess.run([os.path.join(bindir, "torchrun"), *argv[1:], "--spec", str(yours / "spec.json"), "--steps", "2"],
                         capture_output=True, text=True, timeout=600, cwd=str(yours), env=env)
    assert ran.returncode == 0, ran.stderr[-3000:]
    done = [json.loads(ln) for ln in ran.stdout.splitlines() if ln.startswith("{")]
    assert done[-1]["done"] is True and done[-1]["zeroStage"] == 3 and done[-1]["trainBatchSize"] == 4
