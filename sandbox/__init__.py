"""Run untrusted repo code in isolation; the emulated accelerator runtime lives in `runtime`."""
