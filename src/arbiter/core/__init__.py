"""The rules kernel: entities, conditions, encounters, commands and events, rulings."""

from .damage import DamageCalc, Pipeline, StepRecord
from .deferred import DataMap, Deferred
from .economy import ActionEconomy
from .encounter import Encounter
from .errors import (
    AmbiguousCommand,
    IllegalCommand,
    InvalidCommand,
    NoOdds,
    RulesError,
    RulingError,
    SchemaError,
    UnknownEntity,
)
from .events import Command, Entry, Event
from .model import Condition, Duration, EncounterState, Entity
from .registry import available, load_ruleset
from .rounding import half_round_down, half_round_up, round_down, round_up
from .ruleset import Ruleset
from .rulings import Ruling, RulingSet

__all__ = [
    "ActionEconomy",
    "AmbiguousCommand",
    "Command",
    "Condition",
    "DamageCalc",
    "DataMap",
    "Deferred",
    "Duration",
    "Encounter",
    "EncounterState",
    "Entity",
    "Entry",
    "Event",
    "IllegalCommand",
    "InvalidCommand",
    "NoOdds",
    "Pipeline",
    "RulesError",
    "Ruleset",
    "Ruling",
    "RulingError",
    "RulingSet",
    "SchemaError",
    "StepRecord",
    "UnknownEntity",
    "available",
    "half_round_down",
    "half_round_up",
    "load_ruleset",
    "round_down",
    "round_up",
]
