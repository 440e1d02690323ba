"""The `reference` runtime: the ORIGINAL CUDA program, unmodified, on the CPU, deterministically.

`install_reference(profile, results_dir)` is called by `sandbox.runtime.activate` when
`TORCHPORT_TARGET=reference`; README.md in this folder describes the parts and their limits.
"""


def install_reference(profile: str | None, results_dir: str | None) -> None:
    """Install the CUDA-on-CPU runtime into this interpreter (see `install.py`)."""
    from sandbox.runtime.reference.install import install_reference as install

    install(profile, results_dir)
