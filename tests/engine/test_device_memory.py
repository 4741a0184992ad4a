"""The runner's device-memory readings (resources/engine/memory.py)."""
import memory


def test_alloc_retries_read_from_the_cuda_allocator_stats():
    # torch.cuda cannot run on this machine: a stand-in exposing memory_stats() as torch 2.x does

    class Cuda:
        stats = {"num_alloc_retries": 3, "allocated_bytes.all.current": 1}

        def memory_stats(self):
            return dict(self.stats)

    class Torch:
        cuda = Cuda()

    dev = memory.DeviceMemory(Torch(), "cuda")
    assert dev.alloc_retries() == 3
    Torch.cuda.stats = {}
    assert dev.alloc_retries() == 0  # a fresh allocator has no key yet
    assert memory.DeviceMemory(Torch(), "cpu").alloc_retries() is None
