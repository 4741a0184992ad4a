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


def prefer_interpreter_ninja(environ=os.environ, executable=None):
    """Puts the folder of this interpreter's own ninja (the pip package DeepSpeed installs into the
    environment) first on PATH, so every op build of this environment uses that one ninja.

    torch runs whichever `ninja` PATH finds first, and ninja rebuilds everything when its build log
    was written by another version: the pre-build of scripts/setup-engine-venv.sh and the app's
    runner ran the system's ninja (the venv not activated), while a reproduction bundle's run.sh,
    run in the activated venv as its README says, ran the venv's — each rebuilt CPU Adam and the
    shm op for minutes in silence and left the cache dirty for the other. Without a system ninja
    the pre-build failed outright. Returns the folder put first, or None (no ninja beside it).
    """
    bindir = os.path.dirname(executable or __import__("sys").executable)
    if not os.access(os.path.join(bindir, "ninja"), os.X_OK):
        return None
    parts = [p for p in environ.get("PATH", "").split(os.pathsep) if p and os.path.abspath(p) != os.path.abspath(bindir)]
    environ["PATH"] = os.pathsep.join([bindir] + parts)
    return bindir


def clear_stale_locks(ext_dir, proc="/proc"):
    """Removes torch's JIT build locks (<ext_dir>/<op>/lock) that no process holds.

    torch's FileBaton keeps the lock file open for the whole build and removes it when done; a
    build killed half way (SIGKILL: the OOM killer, the parent watchdog's os._exit, a runner
    killed by a cancelled sweep) leaves the file behind, and every later load of that op waits on
    it forever ("Waiting on lock"). A lock no process has open is such a leftover: while it
    exists no one can take it anew, so removing it races with nobody. ninja then redoes what the
    killed build left unfinished. Linux only (open files are read from /proc); returns the
    removed paths.
    """
    if not ext_dir or not os.path.isdir(ext_dir) or not os.path.isdir(proc):
        return []
    locks = []
    for op in os.listdir(ext_dir):
        lock = os.path.join(ext_dir, op, "lock")
        if os.path.isfile(lock):
            locks.append(os.path.realpath(lock))
    if not locks:
        return []
    held = set()
    for pid in os.listdir(proc):
        if not pid.isdigit():
            continue
        fd_dir = os.path.join(proc, pid, "fd")
        try:
            for fd in os.listdir(fd_dir):
                try:
                    target = os.readlink(os.path.join(fd_dir, fd))
                except OSError:
                    continue
                if target in locks:
                    held.add(target)
        except OSError:
            continue  # gone, or not ours to read
    removed = []
    for lock in locks:
        if lock in held:
            continue
        try:
            os.remove(lock)
            removed.append(lock)
        except OSError:
            pass
    return removed
