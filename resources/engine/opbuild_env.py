"""Environment fixes for DeepSpeed's JIT op builds.

DeepSpeed 0.19.8 parses TORCH_CUDA_ARCH_LIST entries as "major.minor[+PTX]" integers, so
an image that sets arch-specific entries such as "9.0a" (Hopper's wgmma variant) makes
every CUDA op build (FusedAdam for ZeRO without offload) fail with
"invalid literal for int() with base 10: '0a'". Stripping the suffix keeps the same
architecture for DeepSpeed's generic kernels.
"""
import os
import re


def sanitize_cuda_arch_list(environ=os.environ):
    """Returns the original value when it was changed, else None."""
    value = environ.get("TORCH_CUDA_ARCH_LIST")
    if not value:
        return None
    parts = [p for p in re.split(r"[;\s]+", value.strip()) if p]
    fixed = []
    for part in parts:
        m = re.fullmatch(r"(\d+)\.(\d+)[a-zA-Z]*(\+PTX)?", part)
        fixed.append(f"{m.group(1)}.{m.group(2)}{m.group(3) or ''}" if m else part)
    # Keep order, drop duplicates ("9.0;9.0a" -> "9.0").
    fixed = list(dict.fromkeys(fixed))
    new = ";".join(fixed)
    if new == ";".join(parts):
        return None
    environ["TORCH_CUDA_ARCH_LIST"] = new
    return value


def default_extensions_dir(environ=os.environ, prefix=None):
    """Use the ops that scripts/setup-engine-venv.sh pre-built into <venv>/torch_extensions,
    unless the caller chose a TORCH_EXTENSIONS_DIR."""
    prefix = prefix or __import__("sys").prefix
    candidate = os.path.join(prefix, "torch_extensions")
    if "TORCH_EXTENSIONS_DIR" not in environ and os.path.isdir(candidate):
        environ["TORCH_EXTENSIONS_DIR"] = candidate
    return environ.get("TORCH_EXTENSIONS_DIR")
