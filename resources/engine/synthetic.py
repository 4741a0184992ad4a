"""The benchmark's input: seeded random token ids (no dataset, no tokenizer)."""
import torch


def synthetic_batches(vocab, micro_batch, seq_len, count, seed, device):
    """Seeded random tokens, generated once on the device so data loading costs nothing inside
    the timed step."""
    gen = torch.Generator(device="cpu").manual_seed(seed)
    return [torch.randint(0, vocab, (micro_batch, seq_len), generator=gen).to(device) for _ in range(count)]
