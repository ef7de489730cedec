"""Scenario files: YAML conformance tests of the rulesets."""

from .errors import ScenarioError
from .runner import ScenarioResult, run_file, run_scenario, scenario_files

__all__ = ["ScenarioError", "ScenarioResult", "run_file", "run_scenario", "scenario_files"]
