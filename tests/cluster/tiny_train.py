"""A test-only DeepSpeed job for the multi-node netns test: a tiny MLP on random data, 3 steps,
gloo on CPU. Prints one JSON line per rank so the test can see both ranks joined one world."""
import argparse
import json
import os
import sys

import torch
import deepspeed

parser = argparse.ArgumentParser()
parser.add_argument("--spec")
parser.add_argument("--local_rank", type=int, default=0)
args = parser.parse_args()

deepspeed.init_distributed(dist_backend="gloo")
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
engine, _, _, _ = deepspeed.initialize(
    model=model,
    optimizer=optimizer,
    config={"train_batch_size": int(os.environ["WORLD_SIZE"]), "train_micro_batch_size_per_gpu": 1,
            "gradient_accumulation_steps": 1, "zero_optimization": {"stage": 0}},
)
losses = []
for _ in range(3):
    x = torch.randn(1, 16)
    loss = engine(x).pow(2).mean()
    engine.backward(loss)
    engine.step()
    losses.append(float(loss))
total = torch.tensor([float(engine.global_rank + 1)])
torch.distributed.all_reduce(total)  # 1 + 2 = 3 when both ranks are in one world
print(json.dumps({"type": "result", "rank": engine.global_rank, "worldSize": torch.distributed.get_world_size(),
                  "allReduce": float(total[0]), "hostAddr": os.environ.get("MASTER_ADDR"),
                  "losses": losses, "netns": os.readlink("/proc/self/ns/net")}), flush=True)
# End as the runner does (bench.py: os._exit after its last line): a normal interpreter exit runs the C++
# destructors of gloo's threads, which sometimes abort ("terminate called without an active exception"), and
# pdsh then reports the rank's ssh as exit 250 although both ranks finished.
sys.stdout.flush()
sys.stderr.flush()
os._exit(0)
