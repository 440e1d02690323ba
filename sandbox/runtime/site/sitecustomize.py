"""Put on PYTHONPATH by the sandbox: activates the torchport runtime in every interpreter that
starts with `TORCHPORT_TARGET` set (plain `python train.py`, torchrun workers, spawn children)."""

import os

if os.environ.get("TORCHPORT_TARGET"):
    from sandbox.runtime.activate import activate_from_env, exit_on_activation_error

    # site.py only prints exceptions from sitecustomize and goes on, which would run the program
    # without the runtime; a failed activation must stop the interpreter instead.
    with exit_on_activation_error():
        activate_from_env()
