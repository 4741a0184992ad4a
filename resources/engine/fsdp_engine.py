"""PyTorch FSDP2 peer engine: fully_shard per decoder layer, CPUOffloadPolicy when asked,
bf16/fp16 MixedPrecisionPolicy, torch AdamW (fused where this torch has the fused kernel for
the device the optimizer states live on: CPU with offload, since torch 2.4; else foreach).
Built on the meta device so a big model is never materialised whole before sharding; the
model is the transformers class of the spec's config.json (hf_model.py); init_weights after
to_empty initialises every parameter and re-computes the non-persistent buffers (RoPE's inv_freq)."""
import torch
import torch.distributed as dist

import hf_model


ADAMW_KW = {"lr": 1e-5, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.0}


def fused_adamw_supported(device_type):
    """Whether this torch steps AdamW with the fused kernel on this device type (CUDA since
    torch 2.0, CPU since 2.4): tried on a small tensor, so the answer is the build's own."""
    try:
        p = torch.nn.Parameter(torch.zeros(4, device=device_type))
        p.grad = torch.ones_like(p)
        torch.optim.AdamW([p], fused=True, **ADAMW_KW).step()
        return True
    except (RuntimeError, TypeError, ValueError, NotImplementedError):
        return False


def make_adamw(params, state_device, log=None):
    """torch AdamW with the fastest implementation this torch has for `state_device`:
    'fused', else 'foreach' (the multi-tensor path). Returns (optimizer, implementation)."""
    if fused_adamw_supported(state_device):
        try:
            return torch.optim.AdamW(params, fused=True, **ADAMW_KW), "fused"
        except (RuntimeError, TypeError, ValueError) as exc:
            if log:
                log(f"fused AdamW refused these parameters ({exc}); using foreach")
    elif log:
        log(f"this torch has no fused AdamW on {state_device}; using foreach")
    return torch.optim.AdamW(params, foreach=True, **ADAMW_KW), "foreach"


class FsdpRun:
    engine_name = "fsdp2"

    def __init__(self, spec, device, world_size, log):
        from torch.distributed.fsdp import CPUOffloadPolicy, MixedPrecisionPolicy, fully_shard

        self.spec = spec
        fsdp = spec["fsdp"]
        if not dist.is_initialized():
            dist.init_process_group(backend="nccl" if device.type == "cuda" else "gloo")
        kwargs = {"reshard_after_forward": bool(fsdp["reshardAfterForward"])}
        dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(spec["precision"])
        if dtype is not None:
            # fp32 master weights, low-precision compute; gradients reduced in fp32.
            kwargs["mp_policy"] = MixedPrecisionPolicy(param_dtype=dtype, reduce_dtype=torch.float32)
        if fsdp["cpuOffload"]:
            kwargs["offload_policy"] = CPUOffloadPolicy(pin_memory=device.type == "cuda")
        with torch.device("meta"):
            model = hf_model.build(spec["model"], spec["activationCheckpointing"])
        for layer in model.layers:
            fully_shard(layer, **kwargs)
        fully_shard(model, **kwargs)
        # With CPU offload the sharded parameters live on the host; FSDP2 copies them to the
        # GPU per layer for compute.
        model.to_empty(device="cpu" if fsdp["cpuOffload"] else device)
        model.init_weights()
        self.model = model
        self.model_for_count = model
        self.device = device
        # CPU offload keeps parameters and gradients on the host, so AdamW runs on the CPU:
        # fused there steps ~7x faster than torch's default per-tensor loop (docs/engine-facts.md).
        state_device = "cpu" if fsdp["cpuOffload"] else device.type
        self.optimizer, self.optimizer_impl = make_adamw(list(model.parameters()), state_device, log)
        self.requested = kwargs

    def effective_config(self):
        return {"fsdp": dict(self.spec["fsdp"]),
                "mixedPrecision": self.spec["precision"],
                "optimizer": {"type": "AdamW", "lr": 1e-5, "implementation": self.optimizer_impl,
                              "fused": self.optimizer_impl == "fused",
                              "device": "cpu" if self.spec["fsdp"]["cpuOffload"] else self.device.type},
                "shardingUnits": "per decoder layer + root"}

    def optimizer_names(self):
        return type(self.optimizer).__name__, None

    def optimizer_implementation(self):
        return self.optimizer_impl

    def train_step(self, micro_batches):
        loss_sum = None
        n = len(micro_batches)
        for i, ids in enumerate(micro_batches):
            # Reduce-scatter gradients only on the last micro-batch of the step.
            self.model.set_requires_gradient_sync(i == n - 1)
            loss = self.model(ids)
            (loss / n).backward()
            loss_sum = loss.detach() if loss_sum is None else loss_sum + loss.detach()
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        return loss_sum / n
