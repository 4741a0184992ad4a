"""Kernel probe: the workload's own kernels, timed on this GPU.

    python kernel_probe.py --config config.json --seq 4096 --micro 1,2,4,8,16 --dtype bf16 --checkpointing
                           [--repeats 3] [--budget-seconds 50] [--device cuda|cpu]

Builds the config.json's model with transformers on the meta device (its architecture, as the model
itself has it), then materialises on the GPU only what one training step's pieces need: the decoder
layer (one of each kind, where the layers differ: Gemma-2's sliding and full attention) with the
embedding, the final norm and the LM head. At each micro batch, smallest first, it times

- one decoder layer's forward + backward, called the way the model calls it (the attention mask, the
  rotary embeddings and any other argument are the ones the model's own forward passes it), with
  activation checkpointing's recompute when --checkpointing (transformers' own non-reentrant
  checkpointing, as the runner enables it: hf_model.py);
- the rest of the model — embedding, rotary embeddings and mask, final norm, LM head, the fp32 loss
  (transformers' ForCausalLMLoss upcasts the logits) — forward + backward, the layers passed through;

with a warm-up and a few repeats (the median), and the GPU memory allocated above what was there
before: after the layer's forward (what it keeps for backward), at its peak through backward (what
the recompute and backward need), and at the peak of the head and loss (the logits). Nothing of an
optimizer, nothing of the full model. The climb stops at the first micro batch that runs out of
memory (recorded) or when the time budget would be spent (said so).

Prints ONE JSON line: {"ok": true, "arch": {...}, "micros": [{"microBatch", "layerSeconds", ...}], ...},
or {"ok": false, "class": ..., "message": ...}: class `no_gpu` (skipped: no CUDA device), `unsupported`
/ `bad_config` (hf_model.check_config's refusals: an architecture transformers cannot build),
`build_failed` (transformers refused to build or call it), `oom` (the smallest micro batch already
ran out of memory), `error`. Exit code 0 for ok and for no_gpu, 2 otherwise.

--device cpu exists for the tests alone (the app never probes on a CPU): the same mechanics on a
tiny config, the memory counted by a dispatch-mode tracker of live tensor storage instead of the
CUDA allocator's counters. The app's side: electron/services/environment/kernel-probe.ts.
"""
import argparse
import copy
import gc
import json
import statistics
import sys
import time

PROBE_VERSION = 1
# A warm-up longer than this (seconds) is followed by one timed run, not `--repeats`.
LONG_STEP = 2.0
STARTED = time.perf_counter()

# Names of fused projections as transformers' models call them.
FUSED_QKV = ("qkv_proj", "c_attn", "query_key_value", "Wqkv", "qkv")
FUSED_GATE_UP = ("gate_up_proj", "w12", "dense_h_to_4h_gated")


class Refused(Exception):
    def __init__(self, cls, message):
        super().__init__(message)
        self.cls, self.message = cls, message


def emit(obj):
    print(json.dumps(obj), flush=True)


def parse_micros(text):
    try:
        micros = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"--micro takes whole numbers separated by commas (got {text!r})") from exc
    if not micros or micros[0] < 1:
        raise argparse.ArgumentTypeError(f"--micro takes micro batches of 1 or more (got {text!r})")
    return micros


def is_oom(exc):
    import torch

    if isinstance(exc, torch.OutOfMemoryError):
        return True
    return isinstance(exc, RuntimeError) and ("out of memory" in str(exc) or "can't allocate memory" in str(exc))


def first_line(exc):
    return (str(exc).strip().split("\n") or [type(exc).__name__])[0][:300] or type(exc).__name__


class LiveBytes:
    """Bytes of tensor storage allocated inside the `with` block and still alive, and their peak (the
    CPU path's stand-in for torch.cuda.memory_allocated / max_memory_allocated): every storage an op
    creates — not one it writes in place or views, which arrive as an input — is counted until Python
    frees it. Storages that were alive before the block are not counted, as the CUDA figures here are
    taken above what was allocated before."""

    def __init__(self):
        from torch.utils._python_dispatch import TorchDispatchMode

        tracker = self

        class Mode(TorchDispatchMode):
            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                out = func(*args, **(kwargs or {}))
                tracker._seen(args, kwargs, out)
                return out

        self.mode = Mode()
        self.live = 0
        self.peak = 0
        self._keys = {}

    def _seen(self, args, kwargs, out):
        import weakref

        import torch
        from torch.utils._pytree import tree_leaves

        inputs = {t.untyped_storage()._cdata for t in tree_leaves((args, kwargs or {})) if isinstance(t, torch.Tensor)}
        for t in tree_leaves(out):
            if not isinstance(t, torch.Tensor) or t.device.type == "meta":
                continue
            st = t.untyped_storage()
            key = st._cdata
            if key in inputs or key in self._keys:
                continue
            size = st.nbytes()
            self._keys[key] = (size, weakref.ref(st, lambda _r, k=key: self._freed(k)))
            self.live += size
            self.peak = max(self.peak, self.live)

    def _freed(self, key):
        entry = self._keys.pop(key, None)
        if entry:
            self.live -= entry[0]

    def __enter__(self):
        self.mode.__enter__()
        return self

    def __exit__(self, *exc):
        return self.mode.__exit__(*exc)


class Meter:
    """Seconds and memory of one region on the probe's device: (allocated above the start when marked,
    peak above the start) in bytes."""

    def __init__(self, device):
        import torch

        self.torch = torch
        self.cuda = device.type == "cuda"
        self.source = "cuda-allocator" if self.cuda else "cpu-dispatch-tracker"

    def sync(self):
        if self.cuda:
            self.torch.cuda.synchronize()

    def run(self, fn, measure_memory):
        """(seconds of fn(mark), bytes allocated when fn called mark(), peak bytes); fn calls mark() between
        its forward and backward. Memory only when measure_memory (the tracker slows the CPU path)."""
        torch = self.torch
        marked = {}
        if not measure_memory:
            self.sync()
            t0 = time.perf_counter()
            fn(lambda: None)
            self.sync()
            return time.perf_counter() - t0, None, None
        if self.cuda:
            self.sync()
            base = torch.cuda.memory_allocated()
            torch.cuda.reset_peak_memory_stats()
            t0 = time.perf_counter()
            fn(lambda: marked.setdefault("at", torch.cuda.memory_allocated() - base))
            self.sync()
            seconds = time.perf_counter() - t0
            return seconds, marked.get("at"), torch.cuda.max_memory_allocated() - base
        tracker = LiveBytes()
        t0 = time.perf_counter()
        with tracker:
            fn(lambda: marked.setdefault("at", tracker.live))
        seconds = time.perf_counter() - t0
        return seconds, marked.get("at"), tracker.peak


class Passthrough:
    """Factory of a module standing in for a decoder layer: returns its hidden states as the layer would
    (a tensor, or a tuple), answering any attribute the model's loop reads of the layer (attention_type…)
    from the layer it replaces."""

    @staticmethod
    def make(layer, as_tuple):
        from torch import nn

        class _Passthrough(nn.Module):
            def __init__(self):
                super().__init__()
                object.__setattr__(self, "_replaced", layer)

            def forward(self, hidden_states, *args, **kwargs):
                return (hidden_states,) if as_tuple else hidden_states

            def __getattr__(self, name):
                try:
                    return super().__getattr__(name)
                except AttributeError:
                    return getattr(object.__getattribute__(self, "_replaced"), name)

        return _Passthrough()


def text_config(cfg):
    return cfg.get_text_config() if hasattr(cfg, "get_text_config") else cfg


def layer_kinds(text, layers):
    """[(kind, first index, count)]: one entry per distinct layer type (config.layer_types), in order."""
    types = getattr(text, "layer_types", None)
    if not isinstance(types, (list, tuple)) or len(types) < layers:
        return [("decoder", 0, layers)]
    kinds = []
    for i, t in enumerate(types[:layers]):
        for k in kinds:
            if k[0] == t:
                k[2] += 1
                break
        else:
            kinds.append([t, i, 1])
    return [tuple(k) for k in kinds]


def projections(layer):
    """{name: [in, out]} of the layer's 2-D weights (Linear, GPT-2's Conv1D), and whether q/k/v and
    gate/up are fused into one projection."""
    shapes = {}
    for name, mod in layer.named_modules():
        w = getattr(mod, "weight", None)
        if w is not None and getattr(w, "dim", lambda: 0)() == 2 and name:
            out, inp = w.shape if type(mod).__name__ != "Conv1D" else (w.shape[1], w.shape[0])
            shapes[name] = [int(inp), int(out)]
    leaves = {n.rsplit(".", 1)[-1] for n in shapes}
    fused_qkv = bool(leaves & set(FUSED_QKV)) and "q_proj" not in leaves
    fused_gate_up = bool(leaves & set(FUSED_GATE_UP))
    return shapes, fused_qkv, fused_gate_up


def decoder_blocks(model):
    """(the decoder blocks in order, the ModuleList holding them): the modules whose class the model
    names in _no_split_modules, as hf_model.HfLossModel.layers finds them."""
    from torch import nn

    names = set(getattr(model, "_no_split_modules", None) or [])
    for _, mod in model.named_modules():
        if isinstance(mod, nn.ModuleList) and len(mod) and all(type(c).__name__ in names for c in mod):
            return list(mod), mod
    raise Refused("build_failed", f"{type(model).__name__} names no decoder block class (_no_split_modules) the probe can time")


def build(raw, dtype_name, device, checkpointing):
    """The architecture facts from the whole model on the meta device, and the model truncated to the
    layers to time (the first of each kind) built for real on `device`."""
    import hf_model
    import torch
    from transformers import AutoModelForCausalLM

    try:
        cfg = hf_model.check_config(raw)
        table = hf_model.probe(raw)
    except hf_model.ConfigRefused as exc:
        raise Refused(exc.cls, f"{exc.message} {exc.fix}") from exc
    except Exception as exc:  # noqa: BLE001 - transformers could not build it: say so, no traceback
        raise Refused("build_failed", f"transformers could not build {raw.get('model_type')!r} on the meta device: {first_line(exc)}") from exc
    text = text_config(cfg)
    layers = int(table["layers"])
    kinds = layer_kinds(text, layers)
    keep = max(k[1] for k in kinds) + 1
    small = copy.deepcopy(cfg)
    st = text_config(small)
    st.num_hidden_layers = keep
    if isinstance(getattr(st, "layer_types", None), (list, tuple)):
        st.layer_types = list(st.layer_types[:keep])
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[dtype_name]
    torch.manual_seed(0)
    try:
        with torch.device(device):
            model = AutoModelForCausalLM.from_config(small, attn_implementation="sdpa", dtype=dtype)
    except Exception as exc:  # noqa: BLE001
        if is_oom(exc):
            raise Refused("oom", f"one layer and the LM head of {table['architecture']} do not fit on the device: {first_line(exc)}") from exc
        raise Refused("build_failed", f"transformers could not build {table['architecture']} with {keep} layer(s) on {device}: {first_line(exc)}") from exc
    model.train()
    if checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    blocks, holder = decoder_blocks(model)
    return table, text, model, blocks, holder, kinds


def arch_facts(table, text, blocks, kinds):
    shapes, fused_qkv, fused_gate_up = projections(blocks[0])
    return {
        "modelType": table["modelType"], "architecture": table["architecture"], "layerClass": table.get("layerClass"),
        "layers": table["layers"], "hiddenSize": table["hiddenSize"], "numHeads": table["numHeads"],
        "numKvHeads": table["numKvHeads"], "headDim": table["headDim"], "intermediateSize": table["intermediateSize"],
        "vocabSize": table["vocabSize"], "tieEmbeddings": table["tieEmbeddings"], "slidingWindow": table["slidingWindow"],
        "fusedQkv": fused_qkv, "fusedGateUp": fused_gate_up, "projections": shapes,
        "params": table["params"], "embeddingParams": table.get("embeddingParams"),
        "perLayerParams": [int(sum(p.numel() for p in blocks[k[1]].parameters())) for k in kinds],
        "layerKinds": [{"kind": k[0], "layers": k[2]} for k in kinds],
        "hiddenAct": getattr(text, "hidden_act", None) or getattr(text, "hidden_activation", None),
    }


class _Captured(Exception):
    pass


def capture_layer_call(model, layer, ids):
    """(args, kwargs) the model's own forward calls `layer` with at these input ids (run without grad,
    stopped at the layer)."""
    import torch

    got = {}

    def hook(_mod, args, kwargs):
        got["args"], got["kwargs"] = args, dict(kwargs)
        raise _Captured()

    handle = layer.register_forward_pre_hook(hook, with_kwargs=True)
    try:
        with torch.no_grad():
            model(input_ids=ids, use_cache=False)
    except _Captured:
        pass
    finally:
        handle.remove()
    if "args" not in got:
        raise Refused("build_failed", f"{type(model).__name__}'s forward never called its decoder layer")
    return got["args"], got["kwargs"]


def mask_words(kwargs):
    m = kwargs.get("attention_mask")
    if m is None:
        return "none (causal attention: SDPA's is_causal)"
    if hasattr(m, "shape"):
        return f"a {str(m.dtype).replace('torch.', '')} mask tensor {list(m.shape)} (SDPA cannot take its flash kernel)"
    return type(m).__name__


def median_of(samples):
    return statistics.median(samples) if samples else None


def timed(meter, step, repeats, reset=lambda: None):
    """A warm-up (kernels chosen, parameter gradients allocated: they are model states, not what is
    measured here), one run with memory counted, then timed repeats: ([seconds], kept, peak). On CUDA the
    memory run is timed too (the allocator's counters cost nothing); the CPU tracker is not. A warm-up
    over LONG_STEP seconds (twice: the process's first also sets up CUDA) leaves one timed run: the probe
    stays within its budget."""
    warm = meter.run(step, False)[0]
    if warm > LONG_STEP:  # the first call of a process also pays for CUDA's and cuBLAS's set-up: once more
        warm = meter.run(step, False)[0]
    reset()
    seconds, kept, peak = meter.run(step, True)
    samples = [seconds] if meter.cuda else []
    if not meter.cuda:
        reset()
    want = 1 if warm > LONG_STEP else repeats
    while len(samples) < want:
        samples.append(meter.run(step, False)[0])
    return samples, kept, peak


def time_layer(meter, model, layer, ids, repeats):
    """One layer's forward + backward (with the recompute under checkpointing): median seconds, forward
    seconds, bytes kept after forward, peak bytes through backward, (min, max) seconds, and what the model
    passed it as its mask."""
    import torch

    args, kwargs = capture_layer_call(model, layer, ids)
    if args:
        h0, rest = args[0], args[1:]
    else:
        h0, rest = kwargs.pop("hidden_states"), ()
    hs = (torch.randn_like(h0, dtype=h0.dtype) * 0.02).requires_grad_(True)
    grad = torch.randn_like(h0) * 0.02
    mask = mask_words(kwargs)
    shape = {}
    forward_seconds = []

    def step(mark):
        t0 = time.perf_counter()
        out = layer(hs, *rest, **kwargs)
        y = out[0] if isinstance(out, (tuple, list)) else out
        shape["tuple"] = isinstance(out, (tuple, list))
        meter.sync()
        forward_seconds.append(time.perf_counter() - t0)
        mark()
        y.backward(grad)
        hs.grad = None

    samples, kept, peak = timed(meter, step, repeats, reset=forward_seconds.clear)
    del hs, grad, args, kwargs, rest, h0
    return {"seconds": median_of(samples), "forward": median_of(forward_seconds), "kept": kept, "peak": peak,
            "range": [min(samples), max(samples)], "repeats": len(samples), "mask": mask, "tuple": shape.get("tuple", False)}


def time_head(meter, model, holder, blocks, ids, as_tuple, repeats):
    """The model without its layers (each passed through): embedding, rotary embeddings and mask, final
    norm, LM head and the fp32 loss, forward + backward."""
    originals = list(holder)
    for i, b in enumerate(originals):
        holder[i] = Passthrough.make(b, as_tuple)
    try:
        def step(mark):
            loss = model(input_ids=ids, labels=ids, use_cache=False).loss
            mark()
            loss.backward()

        samples, _kept, peak = timed(meter, step, repeats)
    finally:
        for i, b in enumerate(originals):
            holder[i] = b
    return {"seconds": median_of(samples), "peak": peak, "range": [min(samples), max(samples)], "repeats": len(samples)}


def free(device):
    import torch

    gc.collect()
    if device.type == "cuda":
        torch.cuda.empty_cache()


def climb(micros, measure, budget_seconds, elapsed=lambda: time.perf_counter() - STARTED):
    """Measure each micro batch, smallest first. Stops at the first that runs out of memory (recorded with
    the part that did) and before one whose projected cost (the last micro's, scaled by size) would pass
    the budget. `measure(micro)` returns the micro's figures or raises; returns (figures, oom, stopped)."""
    done, oom, stopped = [], None, None
    last = None  # (micro, seconds it took)
    for m in micros:
        if last is not None:
            projected = last[1] * m / last[0]
            if elapsed() + projected > budget_seconds:
                stopped = (f"time budget: micro {m} would take about {projected:.0f} s more, past the probe's "
                           f"{budget_seconds:.0f} s ({elapsed():.0f} s spent)")
                break
        t0 = elapsed()
        try:
            done.append(measure(m))
        except Exception as exc:  # noqa: BLE001
            if not is_oom(exc):
                raise
            oom = {"microBatch": m, "part": getattr(exc, "probe_part", "layer"), "message": first_line(exc)}
            break
        last = (m, elapsed() - t0)
    return done, oom, stopped


def probe(args):
    import torch
    import transformers

    raw = json.load(open(args.config, encoding="utf-8"))
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        return {"ok": False, "class": "no_gpu", "skipped": True,
                "message": "skipped: no GPU (torch sees no CUDA device); the plan uses the catalogue's constants"}
    if device.type == "cpu":
        torch.set_num_threads(max(1, min(4, torch.get_num_threads())))
    table, text, model, blocks, holder, kinds = build(raw, args.dtype, device, args.checkpointing)
    arch = arch_facts(table, text, blocks, kinds)
    meter = Meter(device)
    vocab = int(arch["vocabSize"])
    layers = int(arch["layers"])
    gen = torch.Generator(device="cpu").manual_seed(0)
    state = {"mask": None, "tuple": False}

    def measure(m):
        ids = torch.randint(0, vocab, (m, args.seq), generator=gen).to(device)
        per_kind = []
        try:
            for kind, index, count in kinds:
                r = time_layer(meter, model, blocks[index], ids, args.repeats)
                state["mask"] = state["mask"] or r["mask"]
                state["tuple"] = r["tuple"]
                per_kind.append((kind, count, r))
        except Exception as exc:  # noqa: BLE001
            exc.probe_part = "layer"
            free(device)
            raise
        try:
            head = time_head(meter, model, holder, blocks, ids, state["tuple"], args.repeats)
        except Exception as exc:  # noqa: BLE001
            exc.probe_part = "head"
            free(device)
            raise
        free(device)
        mean = lambda key: sum(c * r[key] for _, c, r in per_kind) / layers  # noqa: E731
        out = {
            "microBatch": m,
            "tokens": m * args.seq,
            # a layer's seconds: the mean over the model's layers (× layers = all of them)
            "layerSeconds": mean("seconds"),
            "layerForwardSeconds": mean("forward"),
            "headSeconds": head["seconds"],
            "layerKeptBytes": int(max(r["kept"] for _, _, r in per_kind)),
            "layerPeakBytes": int(max(r["peak"] for _, _, r in per_kind)),
            "headPeakBytes": int(head["peak"]),
            "layerSecondsRange": [min(r["range"][0] for _, _, r in per_kind), max(r["range"][1] for _, _, r in per_kind)],
            "headSecondsRange": head["range"],
            "repeats": min([head["repeats"]] + [r["repeats"] for _, _, r in per_kind]),
        }
        if len(per_kind) > 1:
            out["byKind"] = [{"kind": k, "layers": c, "layerSeconds": r["seconds"], "layerPeakBytes": int(r["peak"]),
                              "attentionMask": r["mask"]} for k, c, r in per_kind]
        return out

    try:
        micros, oom, stopped = climb(args.micro, measure, args.budget_seconds)
    except Refused:
        raise
    except Exception as exc:  # noqa: BLE001 - a call transformers' model refuses: named, not a traceback
        raise Refused("build_failed", f"{arch['architecture']}'s layer could not be run: {type(exc).__name__}: {first_line(exc)}") from exc
    arch["attentionMask"] = state["mask"]
    result = {
        "ok": True, "probe": "kernel", "version": PROBE_VERSION,
        "device": device.type, "gpuName": torch.cuda.get_device_name(device) if device.type == "cuda" else None,
        "torch": torch.__version__, "transformers": transformers.__version__,
        "dtype": args.dtype, "seqLen": args.seq, "checkpointing": args.checkpointing,
        "memorySource": meter.source, "arch": arch, "micros": micros, "oom": oom, "stopped": stopped,
        "seconds": round(time.perf_counter() - STARTED, 2),
    }
    if not micros:
        why = (f"ran out of memory at micro {oom['microBatch']} ({oom['part']}): {oom['message']}" if oom else stopped)
        return {"ok": False, "class": "oom" if oom else "error", "message": f"nothing measured: {why}", "partial": result}
    return result


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", required=True, help="the model's config.json (as it is on disk)")
    ap.add_argument("--seq", type=int, required=True, help="sequence length")
    ap.add_argument("--micro", type=parse_micros, required=True, help="micro batches to time, e.g. 1,2,4,8")
    ap.add_argument("--dtype", choices=("bf16", "fp16", "fp32"), default="bf16")
    ck = ap.add_mutually_exclusive_group()
    ck.add_argument("--checkpointing", dest="checkpointing", action="store_true", default=True)
    ck.add_argument("--no-checkpointing", dest="checkpointing", action="store_false")
    ap.add_argument("--repeats", type=int, default=3, help="timed repeats after the warm-up (median), 1-5")
    ap.add_argument("--budget-seconds", type=float, default=50.0, help="stop climbing micro batches past this (from start)")
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda", help="cpu: the tests' tiny configs only")
    args = ap.parse_args(argv)
    if args.seq < 1:
        ap.error("--seq must be 1 or more")
    args.repeats = max(1, min(5, args.repeats))
    try:
        json.load(open(args.config, encoding="utf-8"))
    except (OSError, ValueError) as exc:
        emit({"ok": False, "class": "bad_config", "message": f"cannot read the config.json: {exc}"})
        return 2
    try:
        import torch  # noqa: F401
    except ImportError as exc:
        emit({"ok": False, "class": "error", "message": f"no torch in this interpreter ({exc})"})
        return 2
    try:
        out = probe(args)
    except Refused as exc:
        out = {"ok": False, "class": exc.cls, "message": exc.message}
    except Exception as exc:  # noqa: BLE001 - the app reads one JSON line, never a traceback
        out = {"ok": False, "class": "error", "message": f"{type(exc).__name__}: {first_line(exc)}"}
    emit(out)
    return 0 if out["ok"] or out.get("class") == "no_gpu" else 2


if __name__ == "__main__":
    sys.exit(main())
