// Python sent over ssh on stdin (`<python> - <args>`): constants of ours, never user text.
// VERSIONS_PY prints one JSON line: the interpreter, torch and DeepSpeed versions, whether the
// head's interpreter path exists here (pdsh runs that path on every host), and a hash of the
// runner's *.py files in the engine folder (the same runner on every host).
export const VERSIONS_PY = String.raw`
import hashlib, json, os, platform, socket, sys
out = {"hostname": socket.gethostname(), "python": platform.python_version(), "executable": sys.executable,
       "machine": platform.machine(), "torch": None, "deepspeed": None, "torchError": None, "deepspeedError": None}
engine_dir = sys.argv[1] if len(sys.argv) > 1 else ""
head_python = sys.argv[2] if len(sys.argv) > 2 else ""
out["headPythonExists"] = bool(head_python) and os.access(head_python, os.X_OK)
try:
    import torch
    out["torch"] = torch.__version__
except Exception as e:
    out["torchError"] = f"{type(e).__name__}: {e}"
try:
    import importlib.metadata as md
    out["deepspeed"] = md.version("deepspeed")
except Exception as e:
    out["deepspeedError"] = f"{type(e).__name__}: {e}"
# The head hashes every *.py of its runner; other hosts hash exactly the head's file names, so
# extra files there do not matter and a missing one changes the hash.
names = sys.argv[3:]
if not names and os.path.isdir(engine_dir):
    names = [n for n in os.listdir(engine_dir) if n.endswith(".py")]
h = hashlib.sha256()
found = []
for name in sorted(names):
    h.update(name.encode()); h.update(b"\0")
    p = os.path.join(engine_dir, name)
    if os.path.isfile(p):
        found.append(name)
        with open(p, "rb") as f:
            h.update(f.read())
    else:
        h.update(b"<missing>")
    h.update(b"\0")
out["runnerFiles"] = sorted(names)
out["runnerMissing"] = sorted(set(names) - set(found))
out["runnerHash"] = h.hexdigest() if found else None
out["engineDirExists"] = os.path.isdir(engine_dir)
print(json.dumps(out))
`;

// Used only when the runner's probe (resources/engine/probe.py) is not there: basic host facts
// from the standard library and torch, so detection still says what each host has.
export const FALLBACK_PROBE_PY = String.raw`
import json, os, platform, socket
out = {"type": "probe", "source": "fallback", "hostname": socket.gethostname(), "machine": platform.machine(),
       "python": platform.python_version(), "cpuCount": os.cpu_count(), "memTotalBytes": None, "gpus": []}
try:
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                out["memTotalBytes"] = int(line.split()[1]) * 1024
except OSError:
    pass
try:
    import torch
    out["torch"] = torch.__version__
    if torch.cuda.is_available():
        for i in range(torch.cuda.device_count()):
            p = torch.cuda.get_device_properties(i)
            out["gpus"].append({"index": i, "name": p.name, "memoryBytes": p.total_memory})
except Exception as e:
    out["torchError"] = f"{type(e).__name__}: {e}"
print(json.dumps(out))
`;
