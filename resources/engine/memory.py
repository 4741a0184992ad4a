"""Memory samples for step events: device allocator figures and host resident memory.

Host RSS includes child processes: SuperOffload runs CPU Adam in a spawned worker that
holds the optimizer states, which a self-only RSS would miss.
"""
import os
import resource

try:
    import psutil
except ImportError:  # psutil is a DeepSpeed dependency; the fallback keeps fsdp2 runs alive
    psutil = None

_PAGE = os.sysconf("SC_PAGE_SIZE")


def host_rss_bytes():
    """(self + children RSS, children RSS) in bytes."""
    if psutil is None:
        with open("/proc/self/statm", encoding="ascii") as fh:
            return int(fh.read().split()[1]) * _PAGE, 0
    proc = psutil.Process()
    own = proc.memory_info().rss
    kids = 0
    for child in proc.children(recursive=True):
        try:
            kids += child.memory_info().rss
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
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

    def synchronize(self):
        if self.cuda:
            self.torch.cuda.synchronize()
