"""Put on PYTHONPATH by the sandbox: activates the torchport runtime in every interpreter that
starts with `TORCHPORT_TARGET` set (plain `python train.py`, torchrun workers, spawn children)."""

import os

if os.environ.get("TORCHPORT_TARGET"):
    from sandbox.runtime.activate import activate_from_env

    activate_from_env()
