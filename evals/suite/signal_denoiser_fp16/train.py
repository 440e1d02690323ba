import argparse
import time

import torch
import torch.nn.functional as F

from net import Denoiser
from signals import make_signals

torch.set_float32_matmul_precision("high")
torch.backends.cudnn.allow_tf32 = True
torch.backends.cudnn.benchmark = True


def snr_db(clean, estimate):
    noise = (clean - estimate).pow(2).mean(dim=-1)
    return (10 * torch.log10(clean.pow(2).mean(dim=-1) / noise)).mean().item()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--length", type=int, default=128)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--amp", action=argparse.BooleanOptionalAction, default=True)
    args = p.parse_args()

    torch.manual_seed(0)
    noisy, clean = make_signals(1024, args.length, seed=5)
    val_noisy, val_clean = make_signals(128, args.length, seed=6)
    noisy, clean = noisy.to("cuda"), clean.to("cuda")
    val_noisy, val_clean = val_noisy.to("cuda"), val_clean.to("cuda")

    model = Denoiser().to("cuda")
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    scaler = torch.amp.GradScaler("cuda", enabled=args.amp)
    print(f"input SNR {snr_db(val_clean, val_noisy):.3f} dB")

    start = time.perf_counter()
    for step in range(args.steps):
        idx = torch.arange(step * args.batch_size, (step + 1) * args.batch_size) % noisy.shape[0]
        with torch.autocast(device_type="cuda", dtype=torch.float16, enabled=args.amp):
            loss = F.mse_loss(model(noisy[idx]), clean[idx])
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        if step % 10 == 0:
            print(f"step {step:3d} loss {loss.item():.5f} scale {scaler.get_scale():.0f}")

    model.eval()
    with torch.no_grad(), torch.autocast(device_type="cuda", dtype=torch.float16, enabled=args.amp):
        denoised = model(val_noisy).float()
    print(f"output SNR {snr_db(val_clean, denoised):.3f} dB")
    print(f"train time {time.perf_counter() - start:.1f}s")
    torch.save({"model": model.state_dict(), "scaler": scaler.state_dict()}, "denoiser.pt")
    torch.save(denoised[:8].cpu(), "denoised_examples.pt")


if __name__ == "__main__":
    main()
