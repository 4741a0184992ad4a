"""Phase probe: where the step time of the H200 sample configurations goes (run on the device).

  python bench/device/step-phases-probe.py torch SPEC.json MICROS       plain torch forward + backward of
      the runner's model (resources/engine/hf_model.py, bf16, checkpointing), no ZeRO, no optimizer; then one
      MLP up-projection and causal SDPA forward + backward at the workload's shape alone
  python bench/device/step-phases-probe.py ds SPEC.json MICROS [prof]   the runner's DeepSpeed engine
      (ds_engine.py) on the spec: plain steps as bench.py times them, then phase-synced steps (forward,
      backward, step: synced seconds and the seconds until the Python call returned), optionally one
      torch.profiler step (kernel time per name)

SPEC.json: a sample run's `details.spec` (resources/samples/*.runs.json); MICROS: comma-separated micro
batches fed to the same engine. One JSON line per measurement on stdout. The 2026-12-04 results (H200,
torch 2.11, DeepSpeed 0.19.8): resources/samples/h200-step-phases-probe/probe.jsonl; docs/tuner-model.md
says which constants and terms they informed.
"""
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ENGINE = os.path.join(HERE, "..", "..", "resources", "engine")
sys.path.insert(0, ENGINE)

import torch  # noqa: E402


def out(**kw):
    print(json.dumps(kw), flush=True)


def sync():
    torch.cuda.synchronize()


def batches(vocab, micro, seq, n):
    g = torch.Generator(device="cpu").manual_seed(1)
    return [torch.randint(0, vocab, (micro, seq), generator=g).cuda() for _ in range(n)]


def torch_mode(spec, micros):
    import hf_model  # the runner's model: the transformers class of the spec's config (ds_engine.py builds the same)
    m = spec["model"]
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = hf_model.build(m, True).to(torch.bfloat16)
    model.train()
    seq = spec["seqLen"]
    for micro in micros:
        ids = batches(m["vocabSize"], micro, seq, 1)[0]
        f, b, tot = [], [], []
        for it in range(6):
            for p in model.parameters():
                p.grad = None
            sync()
            t0 = time.perf_counter()
            loss = model(ids)
            sync()
            t1 = time.perf_counter()
            loss.backward()
            sync()
            t2 = time.perf_counter()
            if it >= 2:
                f.append(t1 - t0)
                b.append(t2 - t1)
            # unsynced total
        for it in range(4):
            for p in model.parameters():
                p.grad = None
            sync()
            t0 = time.perf_counter()
            model(ids).backward()
            sync()
            tot.append(time.perf_counter() - t0)
        out(kind="torch", model=m["id"], seq=seq, micro=micro, fwd=statistics.median(f), bwd=statistics.median(b),
            total=statistics.median(tot), mem=torch.cuda.max_memory_allocated() / 2**30)
    # kernels alone at this model's shapes: one MLP up-projection (tokens × h × I) and SDPA fwd+bwd
    h, inter, nh, nkv, hd = m["hiddenSize"], m["intermediateSize"], m["numHeads"], m["numKvHeads"], m["headDim"]
    tokens = seq * micros[0]
    x = torch.randn(tokens, h, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(inter, h, device="cuda", dtype=torch.bfloat16)
    for _ in range(3):
        x @ w.t()
    sync()
    t0 = time.perf_counter()
    for _ in range(10):
        x @ w.t()
    sync()
    mm = (time.perf_counter() - t0) / 10
    q = torch.randn(micros[0], nh, seq, hd, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    k = torch.randn(micros[0], nkv, seq, hd, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    v = torch.randn(micros[0], nkv, seq, hd, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    F = torch.nn.functional
    for _ in range(2):
        F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=nkv != nh).sum().backward()
    sync()
    t0 = time.perf_counter()
    for _ in range(5):
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=nkv != nh)
    sync()
    af = (time.perf_counter() - t0) / 5
    t0 = time.perf_counter()
    for _ in range(5):
        F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=nkv != nh).sum().backward()
    sync()
    afb = (time.perf_counter() - t0) / 5
    causal_fwd_flops = 2 * micros[0] * nh * seq * seq * hd  # 4·b·nh·s²·hd / 2
    out(kind="kernels", model=m["id"], seq=seq, micro=micros[0], mlp_up_tflops=2 * tokens * h * inter / mm / 1e12,
        attn_fwd_s=af, attn_fwdbwd_s=afb, attn_fwd_tflops=causal_fwd_flops / af / 1e12,
        attn_fwdbwd_tflops_at_3_5x=3.5 * causal_fwd_flops / afb / 1e12)


def ds_mode(spec, micros, prof):
    import distenv
    import opbuild_env
    opbuild_env.sanitize_cuda_arch_list()
    distenv.ensure_single_process_env()
    from ds_engine import DeepSpeedRun
    torch.cuda.set_device(0)
    t = time.perf_counter()
    run = DeepSpeedRun(spec, torch.device("cuda", 0), 1, lambda s: print(s, file=sys.stderr))
    out(kind="ds-init", run=spec["runId"], seconds=time.perf_counter() - t)
    eng = run.engine
    m = spec["model"]
    for micro in micros:
        ids = batches(m["vocabSize"], micro, spec["seqLen"], 1)[0]
        plain = []
        for it in range(5):
            sync()
            t0 = time.perf_counter()
            run.train_step([ids])
            sync()
            if it >= 2:
                plain.append(time.perf_counter() - t0)
        ph = {"fwd": [], "bwd": [], "step": [], "fwd_cpu": [], "bwd_cpu": [], "step_cpu": []}
        for it in range(3):
            sync()
            t0 = time.perf_counter()
            loss = eng(ids)
            c0 = time.perf_counter()
            sync()
            t1 = time.perf_counter()
            eng.backward(loss)
            c1 = time.perf_counter()
            sync()
            t2 = time.perf_counter()
            eng.step()
            c2 = time.perf_counter()
            sync()
            t3 = time.perf_counter()
            ph["fwd"].append(t1 - t0); ph["fwd_cpu"].append(c0 - t0)
            ph["bwd"].append(t2 - t1); ph["bwd_cpu"].append(c1 - t1)
            ph["step"].append(t3 - t2); ph["step_cpu"].append(c2 - t2)
        res = {k: statistics.median(v) for k, v in ph.items()}
        out(kind="ds", run=spec["runId"], strategy=spec["strategy"], model=m["id"], seq=spec["seqLen"], micro=micro,
            plain=statistics.median(plain), plain_all=plain, **res,
            mem=torch.cuda.max_memory_allocated() / 2**30, retries=torch.cuda.memory_stats().get("num_alloc_retries"))
        if prof:
            from torch.profiler import ProfilerActivity, profile
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as p:
                sync()
                t0 = time.perf_counter()
                run.train_step([ids])
                sync()
                wall = time.perf_counter() - t0
            cats = {}
            busy = 0.0
            for e in p.key_averages():
                dt = getattr(e, "self_device_time_total", 0) or 0
                if dt <= 0:
                    continue
                busy += dt
                n = e.key.lower()
                cat = ("gemm" if ("gemm" in n or "matmul" in n or "mm" == n.split("::")[-1] or "cutlass" in n or "sm90" in n or "nvjet" in n)
                       else "attn" if ("flash" in n or "fmha" in n or "attention" in n)
                       else "copy" if ("copy" in n or "memcpy" in n or "memset" in n)
                       else "adam" if ("adam" in n or "multi_tensor" in n)
                       else "other")
                cats[cat] = cats.get(cat, 0) + dt
            top = sorted(((e.key, e.self_device_time_total / 1e3, e.count) for e in p.key_averages() if (getattr(e, "self_device_time_total", 0) or 0) > 0), key=lambda x: -x[1])[:25]
            out(kind="prof", run=spec["runId"], micro=micro, wall=wall, device_busy_ms=busy / 1e3,
                cats_ms={k: v / 1e3 for k, v in cats.items()}, top=top)


if __name__ == "__main__":
    mode, spec_path, micros = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3].split(",")]
    spec = json.load(open(spec_path))
    if mode == "torch":
        torch_mode(spec, micros)
    else:
        ds_mode(spec, micros, len(sys.argv) > 4 and sys.argv[4] == "prof")
