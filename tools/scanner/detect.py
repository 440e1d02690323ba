"""Run every detector over a module and keep the sites that matter for a target."""

from agent.settings import Target
from tools.scanner.detectors import DETECTORS
from tools.scanner.facts import ModuleFacts
from tools.scanner.guards import is_guarded
from tools.scanner.site import Site


def detect(facts: ModuleFacts) -> list[Site]:
    """Every site in the module, for every target, in source order (guarded code excluded)."""
    found: list[Site] = []
    for node in facts.order:
        for detector in DETECTORS.get(type(node), ()):
            found.extend(detector(node, facts))
    return [site for site in found if not is_guarded(site.node, facts)]


def for_target(sites: list[Site], target: Target) -> list[Site]:
    """The sites that matter on `target`."""
    return [site for site in sites if target in site.targets]
