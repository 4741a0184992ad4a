"""Basic host facts from the standard library and torch, for cluster detection over ssh
(electron/services/cluster/detect.ts) when the runner's probe (probe.py) is not there.

Sent on stdin: `<python> -`. Prints one JSON line {"type": "probe", "source": "fallback", ...}.
"""
import json
import os
import platform
import socket


def mem_total_bytes(meminfo="/proc/meminfo"):
    try:
        with open(meminfo) as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def probe():
    out = {"type": "probe", "source": "fallback", "hostname": socket.gethostname(), "machine": platform.machine(),
           "python": platform.python_version(), "cpuCount": os.cpu_count(), "memTotalBytes": mem_total_bytes(), "gpus": []}
    try:
        import torch
        out["torch"] = torch.__version__
        if torch.cuda.is_available():
            for i in range(torch.cuda.device_count()):
                p = torch.cuda.get_device_properties(i)
                out["gpus"].append({"index": i, "name": p.name, "memoryBytes": p.total_memory})
    except Exception as e:  # noqa: BLE001 - any import failure is the answer
        out["torchError"] = f"{type(e).__name__}: {e}"
    return out


if __name__ == "__main__":
    print(json.dumps(probe()))
