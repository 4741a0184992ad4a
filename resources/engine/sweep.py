"""Runs a list of benchmark specs one after another, each as its own `bench.py` process
(so every run starts with clean GPU and host memory), and keeps each run's raw JSON-lines
stdout and the tail of its stderr.

    python sweep.py --plan h200-3b --repeats 1,2 --out DIR [--deadline S] [--only zero2,zero3_offload] [--tar NAME]
    python sweep.py --plan smoke --out DIR
    python sweep.py --specs specs.json --out DIR     (a JSON list of specs)

Writes DIR/<runId>.jsonl, DIR/<runId>.stderr.txt (last lines) and DIR/summary.txt; with
--tar also DIR/NAME.tar.gz holding them (for transports that limit the number of files).
"""
import argparse
import copy
import json
import os
import subprocess
import sys
import tarfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
STDERR_TAIL_LINES = 300

LLAMA_32_3B = {"id": "llama-3.2-3b", "family": "llama", "hiddenSize": 3072, "numLayers": 28, "numHeads": 24,
               "numKvHeads": 8, "intermediateSize": 8192, "vocabSize": 128256, "tieEmbeddings": True,
               "ropeTheta": 500000, "rmsNormEps": 1e-5, "headDim": None}
TINY = {"id": "tiny", "family": "llama", "hiddenSize": 256, "numLayers": 2, "numHeads": 4, "numKvHeads": 2,
        "intermediateSize": 512, "vocabSize": 1024, "tieEmbeddings": True, "ropeTheta": 10000,
        "rmsNormEps": 1e-5, "headDim": None}

# Same optimizer and no gradient clipping in every DeepSpeed strategy, so the comparison is
# about placement only. SuperOffload needs clipping off to overlap (ENGINE.md); DeepSpeed
# >= 0.19.3 would otherwise clip at 1.0 by default.
_OPT = {"type": "AdamW", "params": {"lr": 1e-5, "betas": [0.9, 0.999], "eps": 1e-8, "weight_decay": 0.0}}
_BASE = {"bf16": {"enabled": True}, "gradient_clipping": 0.0, "steps_per_print": 1000000,
         "wall_clock_breakdown": False, "optimizer": _OPT}


def ds_config(strategy):
    zero = {"zero2": {"stage": 2, "overlap_comm": True, "contiguous_gradients": True,
                      "reduce_bucket_size": 4e8, "allgather_bucket_size": 4e8},
            "zero2_offload": {"stage": 2, "overlap_comm": True, "contiguous_gradients": True,
                              "reduce_bucket_size": 4e8, "allgather_bucket_size": 4e8,
                              "offload_optimizer": {"device": "cpu", "pin_memory": True}},
            # The SuperOffload example's ZeRO-3 settings (finetune_llama-*_gpu.sh).
            "zero3_offload": {"stage": 3, "overlap_comm": False, "reduce_bucket_size": 4e8,
                              "sub_group_size": 4e8,
                              "offload_optimizer": {"device": "cpu", "pin_memory": True}},
            "superoffload": {"stage": 3, "overlap_comm": False, "reduce_bucket_size": 4e8,
                             "sub_group_size": 4e8,
                             "offload_optimizer": {"device": "cpu", "pin_memory": True, "ratio": 0.9,
                                                   "super_offload": True, "cpuadam_cores_perc": 0.9}}}[strategy]
    cfg = copy.deepcopy(_BASE)
    cfg["zero_optimization"] = zero
    return cfg


STRATEGIES = ("zero2", "zero2_offload", "zero3_offload", "superoffload", "fsdp2_offload")


def make_spec(strategy, model, seq, micro, steps, warmup, run_id, max_seconds=900):
    spec = {"runId": run_id, "model": model, "seqLen": seq, "microBatch": micro, "gradAccum": 1,
            "steps": steps, "warmup": warmup, "precision": "bf16", "activationCheckpointing": True,
            "seed": 1234, "maxSeconds": max_seconds,
            # Hosts whose memory balloons up on use under-report MemAvailable at start.
            "preflight": "warn"}
    if strategy == "fsdp2_offload":
        spec.update(engine="fsdp2", dsConfig=None, fsdp={"cpuOffload": True, "reshardAfterForward": True})
    else:
        spec.update(engine="deepspeed", dsConfig=ds_config(strategy), fsdp=None)
    return spec


def plan(name, repeats, only, micro):
    strategies = [s for s in STRATEGIES if not only or s in only]
    if name == "smoke":
        specs = [make_spec(s, TINY, 256, 2, 4, 1, f"smoke-tiny-{s}", 600) for s in strategies]
        specs.append(make_spec("zero2_offload", LLAMA_32_3B, 2048, micro, 2, 1, "smoke-3b-zero2_offload", 600))
        return specs
    if name == "h200-3b":
        # Repeat-major order: every strategy once before any second repeat, so a sweep cut
        # short by a time limit still covers all strategies.
        return [make_spec(s, LLAMA_32_3B, 2048, micro, 8, 3, f"llama-3.2-3b-{s}-mb{micro}-r{r}")
                for r in repeats for s in strategies]
    raise SystemExit(f"unknown plan {name}")


def run_one(spec, out_dir, python):
    run_id = spec["runId"]
    jsonl = os.path.join(out_dir, f"{run_id}.jsonl")
    err_path = os.path.join(out_dir, f"{run_id}.stderr.txt")
    started = time.time()
    with open(jsonl, "w", encoding="utf-8") as out, open(err_path + ".full", "w", encoding="utf-8") as err:
        proc = subprocess.run([python, "-u", os.path.join(HERE, "bench.py"), "--spec", "-"],
                              input=json.dumps(spec), stdout=out, stderr=err, text=True)
    with open(err_path + ".full", encoding="utf-8", errors="replace") as fh:
        tail = fh.readlines()[-STDERR_TAIL_LINES:]
    os.remove(err_path + ".full")
    with open(err_path, "w", encoding="utf-8") as fh:
        fh.writelines(tail)
    return {"runId": run_id, "rc": proc.returncode, "wallSeconds": time.time() - started,
            "events": read_events(jsonl)}


def read_events(path):
    events = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.strip()
            if line:
                try:
                    events.append(json.loads(line))
                except json.JSONDecodeError:
                    events.append({"type": "unparsed", "line": line[:200]})
    return events


def summarise(run):
    ev = {e.get("type"): e for e in run["events"]}
    res, err, cfg = ev.get("result"), ev.get("error"), ev.get("config") or {}
    if res:
        peak = res.get("peakGpuBytes")
        return (f"{run['runId']}: ok rc={run['rc']} wall={run['wallSeconds']:.0f}s init={cfg.get('initSeconds', 0):.0f}s "
                f"opt={cfg.get('optimizer')} median_step={res['stepSeconds']['median']:.3f}s "
                f"tflops/gpu={res['tflopsPerGpu']['median']:.1f} tok/s={res['tokensPerSecond']['median']:.0f} "
                f"peakGPU={(peak or 0) / 2**30:.1f}GiB peakHost={res['peakHostBytes'] / 2**30:.1f}GiB "
                f"loss {res['lossFirst']:.3f}->{res['lossLast']:.3f} overhead={res['overheadFraction']:.5f}")
    if err:
        return f"{run['runId']}: FAILED rc={run['rc']} {err.get('class')}: {err.get('message')}"
    return f"{run['runId']}: FAILED rc={run['rc']} (no result/error line)"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--plan")
    p.add_argument("--specs")
    p.add_argument("--repeats", default="1", help="comma list of repeat numbers, e.g. 1,2")
    p.add_argument("--deadline", type=float, default=0,
                   help="seconds: start no run that its strategy's last wall time says would end past this")
    p.add_argument("--only", default="")
    p.add_argument("--micro", type=int, default=4)
    p.add_argument("--out", required=True)
    p.add_argument("--tar")
    p.add_argument("--python", default=sys.executable)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    only = set(filter(None, a.only.split(",")))
    repeats = [int(r) for r in a.repeats.split(",") if r]
    specs = json.load(open(a.specs)) if a.specs else plan(a.plan, repeats, only, a.micro)
    lines, last_wall, t_start = [], {}, time.time()
    for spec in specs:
        kind = spec["runId"].rsplit("-r", 1)[0]
        guess = last_wall.get(kind, 0)
        if a.deadline and time.time() - t_start + guess > a.deadline:
            lines.append(f"{spec['runId']}: SKIPPED (deadline: would need ~{guess:.0f}s)")
            print(f"[sweep] {lines[-1]}", flush=True)
            continue
        print(f"[sweep] start {spec['runId']}", flush=True)
        result = run_one(spec, a.out, a.python)
        last_wall[kind] = result["wallSeconds"]
        line = summarise(result)
        print(f"[sweep] {line}", flush=True)
        lines.append(line)
        with open(os.path.join(a.out, "summary.txt"), "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
        if a.tar:  # rewritten after each run so a timed-out call still brings back what ran
            with tarfile.open(os.path.join(a.out, a.tar + ".tar.gz"), "w:gz") as tar:
                for name in sorted(os.listdir(a.out)):
                    if name.endswith((".jsonl", ".stderr.txt")) or name == "summary.txt":
                        tar.add(os.path.join(a.out, name), arcname=name)


if __name__ == "__main__":
    main()
