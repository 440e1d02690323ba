"""Latency / throughput benchmark of the text encoder on the GPU."""

import argparse

import torch

from encoder import TextEncoder

BYTES_PER_TOKEN_ESTIMATE = 128 * 4 * 24  # activations of one token through the encoder, with headroom


def gpu_summary():
    props = torch.cuda.get_device_properties(0)
    free, total = torch.cuda.mem_get_info()
    print(f"GPU: {props.name} | SMs {props.multi_processor_count} | capability {props.major}.{props.minor}")
    print(f"memory: {free / 2**30:.1f} GiB free of {total / 2**30:.1f} GiB")
    return free


def max_batch_that_fits(free_bytes, seq_len, cap):
    fits = int(free_bytes * 0.5 // (BYTES_PER_TOKEN_ESTIMATE * seq_len))
    return max(1, min(cap, fits))


def make_tokens(batch, seq_len, vocab, seed):
    g = torch.Generator().manual_seed(seed)
    tokens = torch.randint(1, vocab, (batch, seq_len), generator=g)
    lengths = torch.randint(seq_len // 2, seq_len + 1, (batch,), generator=g)
    tokens[torch.arange(seq_len)[None, :] >= lengths[:, None]] = 0
    return tokens


@torch.inference_mode()
def benchmark(model, tokens, warmup, iters):
    for _ in range(warmup):
        model(tokens)
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        out = model(tokens)
    end.record()
    torch.cuda.synchronize()
    ms = start.elapsed_time(end) / iters
    return out, ms, torch.cuda.max_memory_allocated()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seq-len", type=int, default=64)
    parser.add_argument("--batch-sizes", type=str, default="1,8,32")
    parser.add_argument("--max-batch", type=int, default=64)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--iters", type=int, default=3)
    args = parser.parse_args()

    torch.backends.cudnn.benchmark = True
    torch.manual_seed(0)
    free = gpu_summary()
    model = TextEncoder().cuda().eval()
    batch_sizes = [int(b) for b in args.batch_sizes.split(",")]
    batch_sizes.append(max_batch_that_fits(free, args.seq_len, args.max_batch))
    print(f"largest batch that fits: {batch_sizes[-1]}")

    for bs in batch_sizes:
        tokens = make_tokens(bs, args.seq_len, 1000, seed=bs).cuda(non_blocking=True)
        out, ms, peak = benchmark(model, tokens, args.warmup, args.iters)
        throughput = bs * 1000.0 / ms
        print(f"batch {bs:3d} | {ms:8.3f} ms | {throughput:9.1f} seq/s | peak {peak / 2**20:7.1f} MiB")
        print(f"batch {bs:3d} checksum {out.sum().item():.6f} norm {out.norm().item():.6f}")
    torch.save(out.cpu(), "embeddings.pt")


if __name__ == "__main__":
    main()
