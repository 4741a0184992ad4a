"""PyTorch FSDP2 peer engine: fully_shard per decoder layer, CPUOffloadPolicy when asked,
bf16/fp16 MixedPrecisionPolicy, torch AdamW. Built on the meta device so a big model is
never materialised whole before sharding."""
import torch
import torch.distributed as dist

from model import LlamaDecoder


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
            model = LlamaDecoder(spec["model"], spec["activationCheckpointing"])
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
        # CPU offload keeps parameters and gradients on the host, so AdamW runs on the CPU
        # (foreach); on the GPU the fused kernel is the fast one.
        fused = device.type == "cuda" and not fsdp["cpuOffload"]
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5, betas=(0.9, 0.999), eps=1e-8,
                                           weight_decay=0.0, fused=fused or None)
        self.requested = kwargs

    def effective_config(self):
        return {"fsdp": dict(self.spec["fsdp"]),
                "mixedPrecision": self.spec["precision"],
                "optimizer": {"type": "AdamW", "lr": 1e-5, "fused": bool(self.optimizer.defaults.get("fused"))},
                "shardingUnits": "per decoder layer + root"}

    def optimizer_names(self):
        return type(self.optimizer).__name__, None

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
