"""The emulated `tpu`/`neuron` device (PyTorch's PrivateUse1 backend backed by NumPy memory and
the `sandbox.kernels` library). Importing this package installs nothing; `install_device` does."""


def install_device(target: str, *, chip: str | None, results_dir: str | None) -> None:
    """Install the emulated `target` device into this process (once per process)."""
    from sandbox.runtime.device.install import install_device as install

    install(target, chip=chip, results_dir=results_dir)
