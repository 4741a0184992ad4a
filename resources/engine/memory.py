"""Memory samples for step events: device allocator figures and host resident memory.

Host RSS includes child processes: SuperOffload runs CPU Adam in a spawned worker that
holds the optimizer states, which a self-only RSS would miss.
"""
import os
import resource

_PAGE = os.sysconf("SC_PAGE_SIZE")


def _statm_rss(pid):
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as fh:
            return int(fh.read().split()[1]) * _PAGE
    except (OSError, IndexError, ValueError):
        return 0


def _children(pid):
    # The kernel's per-thread children list is far cheaper than scanning /proc (psutil's
    # children() walks every process: ~30 ms on a busy host, vs the <1% overhead budget).
    # Workers are started from each process's main thread, whose tid equals its pid.
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as fh:
            return [int(x) for x in fh.read().split()]
    except OSError:
        return []


def host_rss_bytes():
    """(self + children RSS, children RSS) in bytes, descendants included."""
    own = _statm_rss("self")
    kids, todo = 0, _children(os.getpid())
    while todo:
        pid = todo.pop()
        kids += _statm_rss(pid)
        todo.extend(_children(pid))
    return own + kids, kids


def host_peak_self_bytes():
    # ru_maxrss is KiB on Linux: the kernel's own high-water mark, which catches peaks
    # between samples (e.g. while DeepSpeed builds its fp32 copies at initialise).
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class DeviceMemory:
    def __init__(self, torch_mod, accelerator):
        self.torch = torch_mod
        self.cuda = accelerator == "cuda"

    def reset_peak(self):
        if self.cuda:
            self.torch.cuda.reset_peak_memory_stats()

    def sample(self):
        if not self.cuda:
            return None, None, None
        c = self.torch.cuda
        return c.memory_allocated(), c.memory_reserved(), c.max_memory_allocated()

    def peak_reserved(self):
        """The caching allocator's high-water mark of reserved bytes since start: what a CUDA OOM is
        decided against (allocated peak + the blocks it keeps cached). None off CUDA."""
        if not self.cuda:
            return None
        return int(self.torch.cuda.max_memory_reserved())

    def alloc_retries(self):
        """Times the CUDA caching allocator found no free block, freed its cache and retried
        (torch's num_alloc_retries): each is a synchronising stall, common when a run sits near
        the GPU's capacity. None off CUDA."""
        if not self.cuda:
            return None
        return int(self.torch.cuda.memory_stats().get("num_alloc_retries", 0))

    def synchronize(self):
        if self.cuda:
            self.torch.cuda.synchronize()


def reached_at_failure():
    """What the run reached before it failed (an OOM is a boundary point of the memory model): the GPU's peak
    reserved and allocated bytes and the host's peak RSS. Safe to call whatever was imported."""
    out = {"peakHostBytes": host_peak_self_bytes()}
    import sys
    torch = sys.modules.get("torch")
    try:
        if torch is not None and torch.cuda.is_available() and torch.cuda.is_initialized():
            out["peakGpuReservedBytes"] = int(torch.cuda.max_memory_reserved())
            out["peakGpuBytes"] = int(torch.cuda.max_memory_allocated())
    except Exception:  # noqa: BLE001 - a broken CUDA context must not hide the error line
        pass
    return out
