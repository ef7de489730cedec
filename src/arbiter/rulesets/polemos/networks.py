"""Computers and networks of the 8th Age (P-NET-*, P-REQ-11..14): systems, devices, networks,
administration, connecting as a member or hacking in, processes, personal networks and
personal-network devices.

The networks live in ``state.extra``:

- ``networks.NAME``: ``kind``, ``public``, ``range`` (squares, -1: no fixed reach),
  ``transmitter`` (whose square the signal comes from), ``admins``, ``allowed``, ``members``,
  ``hackers``, ``personal`` (the owner of a personal network);
- ``known.SYSTEM``: the networks a system knows exist; ``addresses.SYSTEM``: the systems whose
  network address it has discovered; ``processes.PID``: ``name``, ``network``, ``host``,
  ``condition``.

Which systems a network reaches through a personal network's proxy, and which processes
affect a system, are derived, never stored (``connected``, ``affecting``).

Reading the networks is done by the pure functions of this module; the commands are
``NetworkRules``'s.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mypy_extensions import mypyc_attr

from ...core import (
    Command,
    Condition,
    Duration,
    EncounterState,
    Event,
    IllegalCommand,
    InvalidCommand,
    kernel_payloads,
)
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...core.conditions import UNLISTED
from ...core.model import entity_at
from ...dice import DiceSource
from . import payloads
from .base import PROCESS_CAUSE, PolemosBase, also, reach_args
from .grid import distance
from .invariants import Invariants  # the topic below (a chain)
from .model import Creature, condition_catalogue, network_examples, network_kinds

NETWORK_KINDS = tuple(k for k in network_kinds() if k != "personal")
"""The kinds of network one can create (networks.toml; a personal network comes with the
networked aspect, P-NET-21)."""


def personal_network(owner: str) -> str:
    """The name of a creature's personal network (P-NET-21)."""
    return f"{owner}-pn"


def networks_of(state: EncounterState) -> dict[str, dict[str, Any]]:
    nets: dict[str, dict[str, Any]] = state.extra.get("networks", {})
    return nets


def network_named(state: EncounterState, name: str) -> dict[str, Any]:
    nets = networks_of(state)
    if name not in nets:
        raise InvalidCommand(f"no network named {name!r} (networks: "
                             f"{', '.join(sorted(nets)) or 'none'})")
    return nets[name]


def system_named(rules: PolemosBase, state: EncounterState, name: str) -> Creature:
    entity = rules.creature(state, name)
    if not entity.system:
        raise IllegalCommand(f"{name} is not a system: it runs no computer instructions "
                             "(give it 'system: true', a 'device', or the networked tag)",
                             rule="P-NET-1")
    return entity


def member_of(state: EncounterState, system: str, name: str) -> bool:
    """A member of ``name``: connected normally, or a device paired to a creature that is
    a member, through that creature's personal network ("it then automatically connects
    to all other networks he is a member of", P-NET-22, P-NET-23; hacked networks are not
    proxied). Other systems on a personal network are only *connectable* to its
    creature's networks (see ``connectable``)."""
    net = networks_of(state).get(name)
    if net is None:
        return False
    if system in net["members"]:
        return True
    entity = entity_at(state.entities, system)
    device = entity.device if isinstance(entity, Creature) else None
    owner = device.get("owner") if device else None
    if not owner or owner == system:
        return False
    pn = networks_of(state).get(personal_network(str(owner)))
    return pn is not None and pn is not net and system in pn["members"] \
        and owner in net["members"]


def connected(state: EncounterState, system: str, name: str) -> bool:
    """Connected to ``name`` as a member (directly or by proxy) or as a hacker."""
    net = networks_of(state).get(name)
    return net is not None and (system in net["hackers"] or
                                member_of(state, system, name))


def connected_systems(state: EncounterState, name: str) -> list[str]:
    net = network_named(state, name)
    return [s for s in state.entities if s in net["hackers"] or
            member_of(state, s, name)]


def affecting(state: EncounterState, system: str) -> list[str]:
    """The processes whose effect applies to ``system``: those on every network it is a
    member of (P-NET-17, stacking), never where it only hacked in (P-NET-18), and only while
    their host is still connected (P-NET-19)."""
    out = []
    for pid, proc in sorted(state.extra.get("processes", {}).items()):
        if member_of(state, system, proc["network"]) and \
                connected(state, proc["host"], proc["network"]):
            out.append(pid)
    return out


def process_conditions(state: EncounterState) -> dict[str, dict[str, list[str]]]:
    """The conditions network processes give now: by system, each condition's name and
    the processes that give it (P-NET-17: every member, effects stacking; P-NET-18 never a
    hacker; P-NET-19 not once either side has disconnected)."""
    procs = state.extra.get("processes", {})
    if not any(proc["condition"] for proc in procs.values()):
        return {}
    out: dict[str, dict[str, list[str]]] = {}
    for entity in state.entities.values():
        for pid in affecting(state, entity.id):
            name = procs[pid]["condition"]
            if name:
                out.setdefault(entity.id, {}).setdefault(name, []).append(pid)
    return out


def given_by_processes(state: EncounterState, who: str, name: str) -> bool:
    return name in process_conditions(state).get(who, {})


def process_events(state: EncounterState) -> list[Event]:
    """The conditions processes give land on the members they affect, and leave those
    they no longer affect (P-NET-15, P-NET-17..19): caused by them (``processes``), at the
    level of how many processes give each (their effects stack)."""
    if "processes" not in state.extra:
        return []
    wanted = process_conditions(state)
    # removed by a lasting effect, it comes back when that ends (P-CON-6), not before
    waiting = {(q["target"], q["payload"].get("name")) for q in state.extra.get("readd", [])
               if q["kind"] == "condition"}
    out: list[Event] = []
    for entity in state.entities.values():
        want = {name: pids for name, pids in wanted.get(entity.id, {}).items()
                if (entity.id, name) not in waiting}
        have = {c.name: c for c in entity.conditions
                if c.duration.kind == "caused" and c.duration.cause == PROCESS_CAUSE}
        for name, cond in have.items():
            if cond.data.get("processes") == want.get(name):
                continue
            out.append(Event("condition_removed", {
                "target": entity.id, "name": name,
                "why": "its processes changed" if name in want
                else "no process gives it any more"}))
        for name, pids in want.items():
            if name in have and have[name].data.get("processes") == pids:
                continue
            spec = condition_catalogue().get(name, UNLISTED)
            cond = Condition(name, len(pids), spec.tags, pids[0],
                             Duration("caused", cause=PROCESS_CAUSE), {"processes": pids})
            out.append(Event("condition_added", {"target": entity.id,
                                                 "condition": cond.to_json()}))
    return out


def with_processes(rules: PolemosBase, state: EncounterState, events: list[Event]) -> list[Event]:
    """``events`` and the process conditions that follow from them."""
    return events + process_events(rules.lookahead(state, events))


def knows(state: EncounterState, system: str, name: str) -> bool:
    net = networks_of(state).get(name)
    return name in state.extra.get("known", {}).get(system, []) or (
        net is not None and (system in net["admins"] or connected(state, system, name)))


def in_signal(rules: PolemosBase, state: EncounterState, system: str, name: str,
              command: Command | None = None) -> bool:
    """Wireless signal (P-NET-10, P-NET-24, AP-28): within the network's reach of its
    transmitter; the GM has the final say with ``in_range`` (P-NET-9)."""
    given = rules.bound(command).a.in_range if command is not None else None
    if given is not None:
        return bool(given)
    net = network_named(state, name)
    reach = int(net["range"])
    if reach < 0:
        return True
    here = rules.square_of(state, system)
    there = rules.square_of(state, str(net["transmitter"])) if net.get("transmitter") \
        else None
    if here is None or there is None:
        return True
    gap = distance(here, there, rules.ruling(state, "POL-3"))
    return gap <= reach if rules.ruling(state, "AP-28") == "inclusive" else gap < reach


def connectable(rules: PolemosBase, state: EncounterState, actor: str, name: str,
                command: Command | None = None, wired: str | None = None) -> None:
    """P-REQ-11: the network is known, and wired (P-NET-11) or wireless signal reaches it,
    or the actor is on a personal network whose creature is a member (P-NET-22).
    Refused with the reason otherwise."""
    net = network_named(state, name)
    if not knows(state, actor, name):
        raise IllegalCommand(f"{name} is not connectable by {actor}: {actor} does not know "
                             "that network exists", rule="P-REQ-11")
    if wired is not None:
        feed = system_named(rules, state, wired)
        if "secured" in feed.tags:
            raise IllegalCommand(f"{wired} is secured against relaying network signals "
                                 "through its ports", rule="P-NET-11")
        if not connected(state, wired, name):
            raise IllegalCommand(f"{wired} is not connected to {name}, so plugging into it "
                                 "gives no feed", rule="P-NET-11")
        # plugging in is a physical act: the system must be within reach (P-REQ-5)
        rules.check_reachable(state, rules.creature(state, actor), feed, None, command)
        return
    for pn_name, pn in networks_of(state).items():
        owner = pn.get("personal")
        if owner and pn_name != name and actor in pn["members"] + pn["hackers"] \
                and owner in net["members"]:
            return  # P-NET-22: the personal network proxies to its creature's networks
    if not in_signal(rules, state, actor, name, command):
        raise IllegalCommand(f"{name} is not connectable by {actor}: no wireless signal "
                             f"there and no wired feed", rule="P-REQ-11")


def system_connectable(state: EncounterState, actor: str, target: str, network: str | None) -> str:
    """P-REQ-12, P-REQ-13: the actor is connected to a network the system is on and has
    discovered its address. Returns that network."""
    nets = [network] if network else sorted(networks_of(state))
    shared = [n for n in nets if connected(state, actor, n)
              and connected(state, target, n)]
    if not shared:
        raise IllegalCommand(f"{target} is not connectable by {actor}: {actor} is not "
                             f"connected to a network {target} is on", rule="P-REQ-12")
    if target != actor and target not in state.extra.get("addresses", {}).get(actor, []):
        raise IllegalCommand(f"{target} is not connectable by {actor}: its network address "
                             "has not been discovered (map the network first)",
                             rule="P-REQ-13")
    return shared[0]


def administering(state: EncounterState, actor: str, name: str) -> dict[str, Any]:
    net = network_named(state, name)
    if actor not in net["admins"]:
        raise IllegalCommand(f"only an administrator of {name} can do that, and {actor} "
                             "is not one", rule="P-NET-7")
    if not connected(state, actor, name):
        raise IllegalCommand(f"{actor} administers {name} but is not connected to it now; "
                             "control returns on reconnecting", rule="P-NET-8")
    return net


def has_paired_devices(state: EncounterState) -> bool:
    """Whether any personal-network device has an owner (``auto_pair_events`` looks at
    nothing else)."""
    return any(isinstance(entity, Creature) and entity.device
               and entity.device.get("personal") and entity.device.get("owner")
               for entity in state.entities.values())


def auto_pair_events(rules: PolemosBase, state: EncounterState) -> list[Event]:
    """P-NET-23: a personal-network device connects to its owner's personal network
    whenever it is in range, even when not activated; out of range, it drops off."""
    out: list[Event] = []
    for entity in state.entities.values():
        if not isinstance(entity, Creature) or not entity.device \
                or not entity.device.get("personal") or not entity.device.get("owner"):
            continue
        name = personal_network(str(entity.device["owner"]))
        net = networks_of(state).get(name)
        if net is None:
            continue
        inside = in_signal(rules, state, entity.id, name)
        on = entity.id in net["members"]
        if inside and not on:
            out.append(Event("network_connected", {"system": entity.id, "network": name,
                                                   "as": "member", "why": "paired"}))
        elif on and not inside:
            out.append(Event("network_disconnected", {"system": entity.id,
                                                      "network": name,
                                                      "why": "out of range"}))
    return out


@mypyc_attr(allow_interpreted_subclasses=True)
class NetworkRules(Invariants):
    """Systems, devices and networks."""

    def member_of(self, state: EncounterState, system: str, name: str) -> bool:
        """Whether ``system`` is a member of the network ``name`` (``member_of`` above)."""
        return member_of(state, system, name)

    def apply_entity_added(self, state: EncounterState, data: kernel_payloads.EntityAdded) -> None:
        super().apply_entity_added(state, data)
        entity = state.entities[data["id"]]
        if "networked" in entity.tags and entity.kind == "creature":
            # P-NET-21: implicit, always on, its creature administers it
            name = personal_network(entity.id)
            state.extra.setdefault("networks", {})[name] = {
                "kind": "personal", "public": False,
                "range": int(network_kinds()["personal"]["range"]),
                "transmitter": entity.id, "admins": [entity.id], "allowed": [entity.id],
                "members": [entity.id], "hackers": [], "personal": entity.id}

    @command("Create a network; its creator administers it.", who="player",
             actor="required", rules=("P-NET-6", "P-NET-24", "POL-7"),
             name=args.text("the network's name (default: the example's)", max_len=64),
             example=args.choice("one of networks.toml's example networks",
                                 *network_examples()),
             kind=args.choice("adhoc, city, regional, national or global (default: the "
                              "example's, else adhoc)", *NETWORK_KINDS),
             public=args.flag("anyone may join as a member (default: the kind's)",
                              default=None),
             range=args.integer("the GM's wireless reach in squares, from the size of its "
                                "transmitter (-1: no fixed reach; default: the kind's)",
                                lo=-1, hi=200_000, who="gm"))
    def do_network(self, state: EncounterState, command: Command,
                   dice: DiceSource) -> list[Event]:
        """Create a network, named or one of networks.toml's examples: its creator
        administers it (P-NET-6); its kind gives its reach and whether it is public
        (P-NET-24, POL-7)."""
        a = command.a
        actor = system_named(self, state, self.actor(state, command).id)
        example = a.example
        preset: Mapping[str, Any] = {}
        if example is not None:
            preset = network_examples()[example]
        name = example if a.name is None else a.name
        if name is None:
            raise InvalidCommand("network: give it a 'name'")
        if name in networks_of(state):
            raise IllegalCommand(f"a network named {name!r} already exists")
        kind = str(preset.get("kind", "adhoc")) if a.kind is None else a.kind
        kinds = network_kinds()
        if kind not in kinds or kind == "personal":
            raise InvalidCommand(f"network: kind must be one of "
                                 f"{', '.join(k for k in kinds if k != 'personal')}")
        reach = kinds[kind]["range"]
        if kind == "adhoc":
            reach = int(self.ruling(state, "POL-7"))  # roughly a city block (P-NET-24)
        if a.range is not None:
            reach = a.range
        public = bool(kinds[kind]["public"]) if a.public is None else a.public
        return [Event("network_created", {"actor": actor.id, "name": name, "kind": kind,
                                          "public": public, "range": reach})]

    @event("{actor} creates the {kind} network {name} ({public?public|private}, reach "
           "{range} squares).",
           actor=args.creature("the creator, its administrator"),
           name=args.text("the network"), kind=args.text("its kind"),
           public=args.flag("public"), range=args.integer("its reach in squares (-1: none)"))
    def apply_network_created(self, state: EncounterState, data: payloads.NetworkCreated) -> None:
        state.extra.setdefault("networks", {})[data["name"]] = {
            "kind": data["kind"], "public": data["public"], "range": data["range"],
            "transmitter": data["actor"], "admins": [data["actor"]],
            "allowed": [data["actor"]], "members": [data["actor"]], "hackers": [],
            "personal": None}

    @command("A connected administrator tears down a network (never a personal one).",
             who="player", actor="required", rules=("P-NET-7", "P-NET-8", "P-NET-21"),
             network=args.text("the network", required=True, max_len=64))
    def do_destroy(self, state: EncounterState, command: Command,
                   dice: DiceSource) -> list[Event]:
        """A connected administrator tears down a network (P-NET-7, P-NET-8); personal
        networks are never destroyed (P-NET-21)."""
        actor = self.actor(state, command).id
        name = command.a.network
        net = network_named(state, name)
        if net.get("personal"):
            raise IllegalCommand(f"{name} is a personal network: always on, never destroyed",
                                 rule="P-NET-21")
        administering(state, actor, name)
        return with_processes(self, state, [Event("network_destroyed", {"network": name})])

    @event("The network {network} is torn down.", network=args.text("the network"))
    def apply_network_destroyed(self, state: EncounterState,
                                data: payloads.NetworkDestroyed) -> None:
        networks_of(state).pop(data["network"], None)
        procs = state.extra.get("processes", {})
        for pid in [p for p, v in procs.items() if v["network"] == data["network"]]:
            del procs[pid]

    @command("A system learns that a network exists (a rumour, a scan, the GM's word).",
             actor="required", rules=("P-REQ-11",),
             network=args.text("the network", required=True, max_len=64))
    def do_learn(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """A system learns that a network exists (a rumour, a scan, the GM; P-REQ-11)."""
        actor = system_named(self, state, self.actor(state, command).id)
        name = command.a.network
        network_named(state, name)
        return [Event("network_learned", {"system": actor.id, "network": name})]

    @event("{system} learns that the network {network} exists.",
           system=args.creature("who learns it"), network=args.text("the network"))
    def apply_network_learned(self, state: EncounterState, data: payloads.NetworkLearned) -> None:
        known = state.extra.setdefault("known", {}).setdefault(data["system"], [])
        if data["network"] not in known:
            known.append(data["network"])

    @also(**reach_args())
    @command("Connect to a network as a member, or hack in.", who="player",
             actor="required",
             rules=("P-REQ-11", "P-NET-5", "P-NET-9", "P-NET-10", "P-NET-11", "P-NET-12",
                    "P-NET-13", "P-NET-14", "P-NET-22", "P-NET-23", "AP-28"),
             network=args.text("the network", required=True, max_len=64),
             hack=args.flag("hack in: no authorisation needed, but not a member"),
             via=args.creature("a system to plug into by wire"),
             in_range=args.flag("the GM's word on whether the wireless signal reaches",
                                default=None, who="gm"),
             approved_by=args.creature("an administrator who lets it in now (for a player: "
                                       "one of their own characters)", refers="own"))
    def do_connect(self, state: EncounterState, command: Command,
                   dice: DiceSource) -> list[Event]:
        """Connect a system to a connectable network (P-REQ-11: known, and a wired feed,
        P-NET-11, or the wireless signal, P-NET-9): as a member with an administrator's
        authorisation (P-NET-12, P-NET-13), or hacking in without one, never a member
        (P-NET-14)."""
        a = command.a
        actor = system_named(self, state, self.actor(state, command).id)
        name = a.network
        net = network_named(state, name)
        hack = a.hack
        if connected(state, actor.id, name):
            raise IllegalCommand(f"{actor.id} is already connected to {name}")
        connectable(self, state, actor.id, name, command, a.via)
        events: list[Event] = []
        if not hack and not net["public"] and actor.id not in net["allowed"]:
            approver = a.approved_by
            if approver is None:
                raise IllegalCommand(f"{actor.id} has no authorisation to join {name} as a "
                                     "member (an administrator must approve, or hack in)",
                                     rule="P-NET-12")
            administering(state, approver, name)
            events.append(Event("network_authorized", {"network": name, "system": actor.id,
                                                       "by": approver}))
        events.append(Event("network_connected", {"system": actor.id, "network": name,
                                                  "as": "hacker" if hack else "member"}))
        return with_processes(
            self, state, events + auto_pair_events(self, self.lookahead(state, events)))

    @also(system=args.creature("who connects"), network=args.text("the network"),
          **{"as": args.text("member or hacker")},
          why=args.text("paired: a personal-network device joining its owner's network"))
    @event("{system} connects to {network} as a {as}[ ({why})].",
           optional=("why",))
    def apply_network_connected(self, state: EncounterState,
                                data: payloads.NetworkConnected) -> None:
        net = networks_of(state)[data["network"]]
        key = "hackers" if data["as"] == "hacker" else "members"
        if data["system"] not in net[key]:
            net[key].append(data["system"])

    @command("An administrator lets a system join a network as a member.", who="player",
             when="any", actor="required", rules=("P-NET-7", "P-NET-8", "P-NET-13"),
             network=args.text("the network", required=True, max_len=64),
             system=args.creature("the system let in", required=True))
    def do_authorize(self, state: EncounterState, command: Command,
                     dice: DiceSource) -> list[Event]:
        """A connected administrator lets a system join as a member (P-NET-7, P-NET-8,
        P-NET-13)."""
        actor = self.actor(state, command).id
        name = command.a.network
        administering(state, actor, name)
        system = system_named(self, state, command.a.system)
        return [Event("network_authorized", {"network": name, "system": system.id,
                                             "by": actor})]

    @event("{by} lets {system} join {network} as a member.",
           network=args.text("the network"), system=args.creature("the system let in"),
           by=args.creature("the administrator"))
    def apply_network_authorized(self, state: EncounterState,
                                 data: payloads.NetworkAuthorized) -> None:
        allowed = networks_of(state)[data["network"]]["allowed"]
        if data["system"] not in allowed:
            allowed.append(data["system"])

    @command("Disconnect from a network: its effects and processes stop.", who="player",
             actor="required", rules=("P-NET-15", "P-NET-19"),
             network=args.text("the network", required=True, max_len=64))
    def do_disconnect(self, state: EncounterState, command: Command,
                      dice: DiceSource) -> list[Event]:
        """Disconnect a system from a network: its effects from the network end (P-NET-15)
        and its processes stop affecting the network (P-NET-19)."""
        actor = self.actor(state, command).id
        name = command.a.network
        net = network_named(state, name)
        if actor not in net["members"] + net["hackers"]:
            raise IllegalCommand(f"{actor} is not connected to {name}")
        return with_processes(self, state, [Event("network_disconnected", {
            "system": actor, "network": name, "why": "disconnected"})])

    @event("{system} is disconnected from {network}[ ({why})].",
           system=args.creature("who is disconnected"), network=args.text("the network"),
           why=args.text("why"))
    def apply_network_disconnected(self, state: EncounterState,
                                   data: payloads.NetworkDisconnected) -> None:
        net = networks_of(state).get(data["network"])
        if net is not None:
            net["members"] = [s for s in net["members"] if s != data["system"]]
            net["hackers"] = [s for s in net["hackers"] if s != data["system"]]

    @command("A system loses all connectivity: it is disconnected from every network.",
             rules=("P-NET-16",),
             target=args.creature("the system", required=True))
    def do_offline(self, state: EncounterState, command: Command,
                   dice: DiceSource) -> list[Event]:
        """A system loses all connectivity (e.g. its implants fail): it is at once
        disconnected from every network (P-NET-16)."""
        target = system_named(self, state, command.a.target)
        return with_processes(self, state, [
            Event("network_disconnected", {"system": target.id, "network": name,
                                           "why": "lost all connectivity"})
            for name, net in sorted(networks_of(state).items())
            if target.id in net["members"] + net["hackers"]])

    @command("Map a network: discover the address of every system connected to it.",
             who="player", actor="required", rules=("P-REQ-12", "P-REQ-13", "AP-31"),
             network=args.text("the network", required=True, max_len=64))
    def do_map(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Map a network (the network mapping ability, AP-31): a connected system discovers
        the address of every other connected system (P-REQ-12, P-REQ-13)."""
        actor = self.actor(state, command).id
        name = command.a.network
        if not connected(state, actor, name):
            raise IllegalCommand(f"{actor} must be connected to {name} to map it",
                                 rule="P-REQ-12")
        found = [s for s in connected_systems(state, name) if s != actor]
        return [Event("network_mapped", {"system": actor, "network": name, "found": found})]

    @event("{system} maps {network} and finds {found}.",
           system=args.creature("who maps it"), network=args.text("the network"),
           found=args.creatures("the systems whose address it discovers"))
    def apply_network_mapped(self, state: EncounterState, data: payloads.NetworkMapped) -> None:
        known = state.extra.setdefault("addresses", {}).setdefault(data["system"], [])
        known.extend(s for s in data["found"] if s not in known)
