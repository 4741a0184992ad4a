"""Probe a Python environment for the Offload Studio engine.

Prints ONE JSON line on stdout and nothing else (everything the imports print is sent to
stderr), then exits 0 - also when pieces are missing: a missing piece is a fact to report, not
an error. Facts only; the app turns them into "what is missing and the command that fixes it".

Run: <python> probe.py            (the app runs it with a timeout; importing torch+deepspeed takes seconds)
"""

import contextlib
import ctypes.util
import json
import os
import platform
import shutil
import sys
import time

PROBE_VERSION = 1


def _dist_version(name):
    """Installed version from package metadata, without importing the package (fast)."""
    try:
        from importlib import metadata
    except ImportError:  # Python < 3.8
        return None
    try:
        return metadata.version(name)
    except Exception:
        return None


def _err(exc):
    text = "%s: %s" % (type(exc).__name__, exc)
    return text.splitlines()[0][:500] if text else type(exc).__name__


def probe_torch():
    version = _dist_version("torch")
    if version is None:
        return None
    out = {"version": version, "cuda": None, "cudaAvailable": False, "devices": [], "error": None}
    try:
        import torch

        out["version"] = torch.__version__
        out["cuda"] = getattr(torch.version, "cuda", None)
        out["cudaAvailable"] = bool(torch.cuda.is_available())
        if out["cudaAvailable"]:
            for i in range(torch.cuda.device_count()):
                p = torch.cuda.get_device_properties(i)
                out["devices"].append({
                    "index": i,
                    "name": p.name,
                    "memoryBytes": int(p.total_memory),
                    "capability": "%d.%d" % (p.major, p.minor),
                })
    except Exception as exc:  # a broken torch install is reported, not raised
        out["error"] = _err(exc)
    return out


def probe_deepspeed(torch_ok):
    version = _dist_version("deepspeed")
    if version is None:
        return None
    out = {
        "version": version,
        "error": None,
        "accelerator": None,
        "cpuAdam": {"compatible": False, "prebuilt": None, "error": None},
        "asyncIo": {"compatible": False, "prebuilt": None, "error": None},
    }
    if not torch_ok:
        out["error"] = "deepspeed needs torch, which did not import"
        return out
    try:
        import deepspeed

        out["version"] = deepspeed.__version__
        try:
            from deepspeed.accelerator import get_accelerator

            out["accelerator"] = get_accelerator().device_name()
        except Exception as exc:
            out["error"] = _err(exc)
        try:
            from deepspeed.git_version_info import installed_ops
        except Exception:
            installed_ops = {}
        from deepspeed.ops.op_builder import AsyncIOBuilder, CPUAdamBuilder

        for key, builder_cls, op in (("cpuAdam", CPUAdamBuilder, "cpu_adam"), ("asyncIo", AsyncIOBuilder, "async_io")):
            try:
                out[key]["compatible"] = bool(builder_cls().is_compatible(verbose=False))
            except Exception as exc:
                out[key]["error"] = _err(exc)
            out[key]["prebuilt"] = bool(installed_ops.get(op, False))
    except Exception as exc:
        out["error"] = _err(exc)
    return out


def probe_build():
    """What DeepSpeed's JIT op build needs: ninja and a C++ compiler; async_io needs libaio."""
    bindir = os.path.dirname(sys.executable)
    ninja = shutil.which("ninja") or (os.path.join(bindir, "ninja") if os.path.exists(os.path.join(bindir, "ninja")) else None)
    if ninja is None and _dist_version("ninja"):
        ninja = "ninja (pip package)"
    cxx = None
    for name in [os.environ.get("CXX"), "c++", "g++", "clang++"]:
        if name and shutil.which(name):
            cxx = shutil.which(name)
            break
    return {"ninja": ninja, "cxx": cxx, "libaio": ctypes.util.find_library("aio")}


def externally_managed():
    """PEP 668: an interpreter the OS manages (Debian 12, Ubuntu 23.04+, Fedora 38+ ship the marker)
    refuses `pip install` outside a virtual environment: "externally-managed-environment". Its
    missing pieces cannot be fixed with pip, so the app offers its own environment instead."""
    if sys.prefix != getattr(sys, "base_prefix", sys.prefix):
        return False  # a venv: pip installs into it
    try:
        import sysconfig

        return os.path.isfile(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED"))
    except Exception:
        return None


def main():
    started = time.time()
    real_stdout = os.dup(1)
    result = {}
    # torch/deepspeed print banners and warnings, some from C code straight to fd 1: point fd 1
    # at stderr while probing so stdout carries exactly one JSON line.
    os.dup2(2, 1)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            torch_info = probe_torch()
            torch_ok = bool(torch_info) and torch_info.get("error") is None
            result = {
                "probeVersion": PROBE_VERSION,
                "pythonVersion": platform.python_version(),
                "executable": sys.executable,
                "prefix": sys.prefix,
                "isVenv": sys.prefix != getattr(sys, "base_prefix", sys.prefix) or bool(os.environ.get("CONDA_PREFIX")) and sys.prefix == os.environ.get("CONDA_PREFIX"),
                "platform": platform.platform(),
                "machine": platform.machine(),
                "pip": _dist_version("pip"),
                "torch": torch_info,
                "deepspeed": probe_deepspeed(torch_ok),
                "transformers": _dist_version("transformers"),
                "externallyManaged": externally_managed(),
                "build": probe_build(),
            }
    except Exception as exc:  # never leave stdout empty
        result = {"probeVersion": PROBE_VERSION, "error": _err(exc)}
    finally:
        sys.stdout.flush()
        os.dup2(real_stdout, 1)
        os.close(real_stdout)
    result["probeSeconds"] = round(time.time() - started, 3)
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
