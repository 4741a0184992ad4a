"""What one host of a cluster has, for the multi-node pre-flight (electron/services/cluster/preflight.ts).

Sent over ssh on stdin: `<python> - <engine_dir> <head_python> [file ...]`. Prints one JSON line:
the interpreter, torch and DeepSpeed versions (import failures named), whether the head's
interpreter path exists here (pdsh runs that path on every host), and a hash of the runner's files
in engine_dir (*.py and the *.json data they read), so every host is shown to run the same runner.
Standard library only; torch and DeepSpeed are optional (their absence is what it reports).
"""
import hashlib
import json
import os
import platform
import socket
import sys

RUNNER_SUFFIXES = (".py", ".json")


def runner_files(engine_dir):
    """The runner's own files in engine_dir: its modules and the data files they read."""
    if not os.path.isdir(engine_dir):
        return []
    return [n for n in os.listdir(engine_dir) if n.endswith(RUNNER_SUFFIXES) and os.path.isfile(os.path.join(engine_dir, n))]


def runner_hash(engine_dir, names):
    """sha256 over (name, content) of each name, sorted; a missing file hashes as '<missing>', so
    a host lacking one of the head's files differs. (hash or None when none exists, found, missing)."""
    h = hashlib.sha256()
    found = []
    for name in sorted(names):
        h.update(name.encode())
        h.update(b"\0")
        p = os.path.join(engine_dir, name)
        if os.path.isfile(p):
            found.append(name)
            with open(p, "rb") as f:
                h.update(f.read())
        else:
            h.update(b"<missing>")
        h.update(b"\0")
    return (h.hexdigest() if found else None), found, sorted(set(names) - set(found))


def versions(engine_dir, head_python, names):
    out = {"hostname": socket.gethostname(), "python": platform.python_version(), "executable": sys.executable,
           "machine": platform.machine(), "torch": None, "deepspeed": None, "torchError": None, "deepspeedError": None}
    out["headPythonExists"] = bool(head_python) and os.access(head_python, os.X_OK)
    try:
        import torch
        out["torch"] = torch.__version__
    except Exception as e:  # noqa: BLE001 - any import failure is the answer
        out["torchError"] = f"{type(e).__name__}: {e}"
    try:
        import importlib.metadata as md
        out["deepspeed"] = md.version("deepspeed")
    except Exception as e:  # noqa: BLE001
        out["deepspeedError"] = f"{type(e).__name__}: {e}"
    # The head hashes every runner file it has; other hosts hash exactly the head's file names, so
    # extra files there do not matter and a missing one changes the hash.
    names = list(names) or runner_files(engine_dir)
    digest, _found, missing = runner_hash(engine_dir, names)
    out["runnerFiles"] = sorted(names)
    out["runnerMissing"] = missing
    out["runnerHash"] = digest
    out["engineDirExists"] = os.path.isdir(engine_dir)
    return out


def main(argv):
    engine_dir = argv[1] if len(argv) > 1 else ""
    head_python = argv[2] if len(argv) > 2 else ""
    print(json.dumps(versions(engine_dir, head_python, argv[3:])))


if __name__ == "__main__":
    main(sys.argv)
