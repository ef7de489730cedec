"""Monte-Carlo encounters: tactics policies, a fast path through the rules, runners.

>>> from arbiter.sim import load_encounter, prepare, simulate
"""

from .encounter import EncounterFile, Job, SimError, load_encounter, parse_encounter, prepare
from .engine import Simulator, run_batch, run_seed
from .hooks import Outcomes, outcomes_for, register_outcomes
from .policy import Policy, get_policy, policy_names, register_policy
from .runner import Result, simulate
from .stats import Tally, wilson

__all__ = [
    "EncounterFile",
    "Job",
    "Outcomes",
    "Policy",
    "Result",
    "SimError",
    "Simulator",
    "Tally",
    "get_policy",
    "load_encounter",
    "outcomes_for",
    "parse_encounter",
    "policy_names",
    "prepare",
    "register_outcomes",
    "register_policy",
    "run_batch",
    "run_seed",
    "simulate",
    "wilson",
]
