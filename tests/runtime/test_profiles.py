import pytest

from sandbox.runtime.config import load_config, parse_bytes
from sandbox.runtime.profiles import CHIPS, DEFAULT_CHIP, GiB, ProfileError, load_profile


def test_every_chip_has_its_per_device_memory() -> None:
    budgets = {
        target: {name: chip.hbm_bytes // GiB for name, chip in chips.items()}
        for target, chips in CHIPS.items()
    }
    assert budgets == {
        "tpu": {"v4": 32, "v5e": 16, "v5p": 95, "v6e": 32},
        "neuron": {"trn1": 16, "trn2": 24},
    }
    assert DEFAULT_CHIP == {"tpu": "v5e", "neuron": "trn2"}


def test_profiles_forbid_float64_and_differ_on_float16() -> None:
    tpu, neuron = load_profile("tpu"), load_profile("neuron", "trn1")
    assert (tpu.float64, neuron.float64) == ("error", "error")
    assert (tpu.float16, neuron.float16) == ("warn", "allow")
    assert neuron.memory_budget == 16 * GiB
    assert any("float64" in behaviour for behaviour in tpu.behaviours)
    assert load_profile("tpu", float64="warn").float64 == "warn"


@pytest.mark.parametrize(
    ("target", "chip", "float64", "message"),
    [
        ("gpu", None, None, "no emulated device for target 'gpu'"),
        ("tpu", "v9", None, "unknown tpu chip 'v9'"),
        ("neuron", "v5e", None, "unknown neuron chip 'v5e'"),
        ("tpu", None, "sometimes", "TORCHPORT_RT_FLOAT64='sometimes'"),
    ],
)
def test_bad_profile_requests_are_explained(
    target: str, chip: str | None, float64: str | None, message: str
) -> None:
    with pytest.raises(ProfileError, match=message):
        load_profile(target, chip, float64)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4096", 4096),
        ("64MiB", 64 << 20),
        ("1.5GiB", 3 << 29),
        ("2GB", 2 * 10**9),
        (" 8 kib ", 8192),
    ],
)
def test_memory_sizes_parse(text: str, expected: int) -> None:
    assert parse_bytes(text) == expected


def test_bad_memory_size_names_the_variable() -> None:
    with pytest.raises(ProfileError, match="TORCHPORT_RT_MEMORY='lots'"):
        parse_bytes("lots")


def test_config_reads_the_switches() -> None:
    config = load_config(
        "tpu",
        "v4",
        "/tmp/out",
        {
            "TORCHPORT_RT_MEMORY": "1MiB",
            "TORCHPORT_RT_FALLBACK": "warn",
            "TORCHPORT_RT_THREADS": "2",
        },
    )
    assert (config.memory_budget, config.fallback, config.threads) == (1 << 20, "warn", 2)
    assert not config.strict
    assert config.profile.chip.name == "v4"
    strict = load_config("tpu", None, None, {"TORCHPORT_RT_STRICT": "1"})
    assert strict.strict
    assert strict.memory_budget == 16 * GiB
    with pytest.raises(ProfileError, match="TORCHPORT_RT_THREADS"):
        load_config("tpu", None, None, {"TORCHPORT_RT_THREADS": "many"})
