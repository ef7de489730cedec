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
"""

from __future__ import annotations

from typing import Any

from ...core import (
    Command,
    Condition,
    Duration,
    EncounterState,
    Event,
    IllegalCommand,
    InvalidCommand,
)
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...dice import DiceSource
from .base import PROCESS_CAUSE
from .commands import also
from .grid import distance
from .injuries import InjuryRules
from .model import QUADRANTS, Creature, condition_catalogue, network_examples, network_kinds

NETWORK_KINDS = tuple(k for k in network_kinds() if k != "personal")
"""The kinds of network one can create (networks.toml; a personal network comes with the
networked aspect, P-NET-21)."""


def reach_args() -> dict[str, args.Arg]:
    """The arguments that checking whether something is within reach reads (P-REQ-5..8,
    and the ranges across the combat spheres, AP-25)."""
    return {
        "carrier_allows": args.flag("the creature carrying the target lets it be reached "
                                    "(P-REQ-8)"),
        "path_blocked": args.flag("the GM rules the path blocked (P-REQ-6)"),
        "sphere_range": args.integer("the GM's range between combat spheres the text leaves "
                                     "open (AP-25)", lo=0, hi=200_000),
        "edge": args.choice("the contact-sphere edge a support unit's range crosses "
                            "(default: the nearest)", *QUADRANTS),
    }


def personal_network(owner: str) -> str:
    """The name of a creature's personal network (P-NET-21)."""
    return f"{owner}-pn"


class NetworkRules(InjuryRules):
    """Systems, devices and networks."""

    # -- reading the network state ------------------------------------------------------
    @staticmethod
    def networks(state: EncounterState) -> dict[str, dict[str, Any]]:
        nets: dict[str, dict[str, Any]] = state.extra.get("networks", {})
        return nets

    def network(self, state: EncounterState, name: str) -> dict[str, Any]:
        nets = self.networks(state)
        if name not in nets:
            raise InvalidCommand(f"no network named {name!r} (networks: "
                                 f"{', '.join(sorted(nets)) or 'none'})")
        return nets[name]

    def system(self, state: EncounterState, name: str) -> Creature:
        entity = self.creature(state, name)
        if not entity.system:
            raise IllegalCommand(f"{name} is not a system: it runs no computer instructions "
                                 "(give it 'system: true', a 'device', or the networked tag)",
                                 rule="P-NET-1")
        return entity

    def member_of(self, state: EncounterState, system: str, name: str) -> bool:
        """A member of ``name``: connected normally, or a device paired to a creature that is
        a member, through that creature's personal network ("it then automatically connects
        to all other networks he is a member of", P-NET-22, P-NET-23; hacked networks are not
        proxied). Other systems on a personal network are only *connectable* to its
        creature's networks (see ``connectable``)."""
        net = self.networks(state).get(name)
        if net is None:
            return False
        if system in net["members"]:
            return True
        entity = state.entities.get(system)
        device = entity.device if isinstance(entity, Creature) else None
        owner = device.get("owner") if device else None
        if not owner or owner == system:
            return False
        pn = self.networks(state).get(personal_network(str(owner)))
        return pn is not None and pn is not net and system in pn["members"] \
            and owner in net["members"]

    def connected(self, state: EncounterState, system: str, name: str) -> bool:
        """Connected to ``name`` as a member (directly or by proxy) or as a hacker."""
        net = self.networks(state).get(name)
        return net is not None and (system in net["hackers"] or
                                    self.member_of(state, system, name))

    def connected_systems(self, state: EncounterState, name: str) -> list[str]:
        net = self.network(state, name)
        return [s for s in state.entities if s in net["hackers"] or
                self.member_of(state, s, name)]

    def affecting(self, state: EncounterState, system: str) -> list[str]:
        """The processes whose effect applies to ``system``: those on every network it is a
        member of (P-NET-17, stacking), never where it only hacked in (P-NET-18), and only while
        their host is still connected (P-NET-19)."""
        out = []
        for pid, proc in sorted(state.extra.get("processes", {}).items()):
            if self.member_of(state, system, proc["network"]) and \
                    self.connected(state, proc["host"], proc["network"]):
                out.append(pid)
        return out

    def _process_conditions(self, state: EncounterState) -> dict[str, dict[str, list[str]]]:
        """The conditions network processes give now: by system, each condition's name and
        the processes that give it (P-NET-17: every member, effects stacking; P-NET-18 never a
        hacker; P-NET-19 not once either side has disconnected)."""
        procs = state.extra.get("processes", {})
        if not any(proc["condition"] for proc in procs.values()):
            return {}
        out: dict[str, dict[str, list[str]]] = {}
        for entity in state.entities.values():
            for pid in self.affecting(state, entity.id):
                name = procs[pid]["condition"]
                if name:
                    out.setdefault(entity.id, {}).setdefault(name, []).append(pid)
        return out

    def _given_by_processes(self, state: EncounterState, who: str, name: str) -> bool:
        return name in self._process_conditions(state).get(who, {})

    def _process_events(self, state: EncounterState) -> list[Event]:
        """The conditions processes give land on the members they affect, and leave those
        they no longer affect (P-NET-15, P-NET-17..19): caused by them (``processes``), at the
        level of how many processes give each (their effects stack)."""
        if "processes" not in state.extra:
            return []
        wanted = self._process_conditions(state)
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
                spec = condition_catalogue().get(name, {})
                cond = Condition(name, len(pids), tuple(spec.get("tags", [])), pids[0],
                                 Duration("caused", cause=PROCESS_CAUSE), {"processes": pids})
                out.append(Event("condition_added", {"target": entity.id,
                                                     "condition": cond.to_json()}))
        return out

    def _with_processes(self, state: EncounterState, events: list[Event]) -> list[Event]:
        """``events`` and the process conditions that follow from them."""
        return events + self._process_events(self.lookahead(state, events))

    def knows(self, state: EncounterState, system: str, name: str) -> bool:
        net = self.networks(state).get(name)
        return name in state.extra.get("known", {}).get(system, []) or (
            net is not None and (system in net["admins"] or self.connected(state, system, name)))

    def in_signal(self, state: EncounterState, system: str, name: str,
                  command: Command | None = None) -> bool:
        """Wireless signal (P-NET-10, P-NET-24, AP-28): within the network's reach of its
        transmitter; the GM has the final say with ``in_range`` (P-NET-9)."""
        if command is not None and "in_range" in command.args:
            return self.arg(command, "in_range", bool)
        net = self.network(state, name)
        reach = int(net["range"])
        if reach < 0:
            return True
        here = self.square_of(state, system)
        there = self.square_of(state, str(net["transmitter"])) if net.get("transmitter") \
            else None
        if here is None or there is None:
            return True
        gap = distance(here, there, self.rule(state, "POL-3"))
        return gap <= reach if self.rule(state, "AP-28") == "inclusive" else gap < reach

    def square_of(self, state: EncounterState, who: str) -> tuple[int, int] | None:
        """Where an entity is: its own square, or its carrier's (P-TGT-1: gear is its own
        object but travels with whoever carries it)."""
        entity = state.entities.get(who)
        if isinstance(entity, Creature) and entity.position is not None:  # the usual case
            return entity.position[0], entity.position[1]
        seen: set[str] = set()
        while isinstance(entity, Creature) and entity.id not in seen:
            seen.add(entity.id)
            if entity.position is not None:
                return entity.position[0], entity.position[1]
            holder = entity.carried_by or entity.installed_in
            entity = state.entities.get(holder) if holder else None
        return None

    def connectable(self, state: EncounterState, actor: str, name: str,
                    command: Command | None = None, wired: str | None = None) -> None:
        """P-REQ-11: the network is known, and wired (P-NET-11) or wireless signal reaches it,
        or the actor is on a personal network whose creature is a member (P-NET-22).
        Refused with the reason otherwise."""
        net = self.network(state, name)
        if not self.knows(state, actor, name):
            raise IllegalCommand(f"{name} is not connectable by {actor}: {actor} does not know "
                                 "that network exists", rule="P-REQ-11")
        if wired is not None:
            feed = self.system(state, wired)
            if "secured" in feed.tags:
                raise IllegalCommand(f"{wired} is secured against relaying network signals "
                                     "through its ports", rule="P-NET-11")
            if not self.connected(state, wired, name):
                raise IllegalCommand(f"{wired} is not connected to {name}, so plugging into it "
                                     "gives no feed", rule="P-NET-11")
            # plugging in is a physical act: the system must be within reach (P-REQ-5)
            self.check_reachable(state, self.creature(state, actor), feed, None, command)
            return
        for pn_name, pn in self.networks(state).items():
            owner = pn.get("personal")
            if owner and pn_name != name and actor in pn["members"] + pn["hackers"] \
                    and owner in net["members"]:
                return  # P-NET-22: the personal network proxies to its creature's networks
        if not self.in_signal(state, actor, name, command):
            raise IllegalCommand(f"{name} is not connectable by {actor}: no wireless signal "
                                 f"there and no wired feed", rule="P-REQ-11")

    def system_connectable(self, state: EncounterState, actor: str, target: str,
                           network: str | None) -> str:
        """P-REQ-12, P-REQ-13: the actor is connected to a network the system is on and has
        discovered its address. Returns that network."""
        nets = [network] if network else sorted(self.networks(state))
        shared = [n for n in nets if self.connected(state, actor, n)
                  and self.connected(state, target, n)]
        if not shared:
            raise IllegalCommand(f"{target} is not connectable by {actor}: {actor} is not "
                                 f"connected to a network {target} is on", rule="P-REQ-12")
        if target != actor and target not in state.extra.get("addresses", {}).get(actor, []):
            raise IllegalCommand(f"{target} is not connectable by {actor}: its network address "
                                 "has not been discovered (map the network first)",
                                 rule="P-REQ-13")
        return shared[0]

    def administering(self, state: EncounterState, actor: str, name: str) -> dict[str, Any]:
        net = self.network(state, name)
        if actor not in net["admins"]:
            raise IllegalCommand(f"only an administrator of {name} can do that, and {actor} "
                                 "is not one", rule="P-NET-7")
        if not self.connected(state, actor, name):
            raise IllegalCommand(f"{actor} administers {name} but is not connected to it now; "
                                 "control returns on reconnecting", rule="P-NET-8")
        return net

    # -- personal networks -------------------------------------------------------------
    def apply_entity_added(self, state: EncounterState, data: dict[str, Any]) -> None:
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

    @staticmethod
    def _has_paired_devices(state: EncounterState) -> bool:
        """Whether any personal-network device has an owner (``_auto_pair_events`` looks at
        nothing else)."""
        return any(isinstance(entity, Creature) and entity.device
                   and entity.device.get("personal") and entity.device.get("owner")
                   for entity in state.entities.values())

    def _auto_pair_events(self, state: EncounterState) -> list[Event]:
        """P-NET-23: a personal-network device connects to its owner's personal network
        whenever it is in range, even when not activated; out of range, it drops off."""
        out: list[Event] = []
        for entity in state.entities.values():
            if not isinstance(entity, Creature) or not entity.device \
                    or not entity.device.get("personal") or not entity.device.get("owner"):
                continue
            name = personal_network(str(entity.device["owner"]))
            net = self.networks(state).get(name)
            if net is None:
                continue
            inside = self.in_signal(state, entity.id, name)
            on = entity.id in net["members"]
            if inside and not on:
                out.append(Event("network_connected", {"system": entity.id, "network": name,
                                                       "as": "member", "why": "paired"}))
            elif on and not inside:
                out.append(Event("network_disconnected", {"system": entity.id,
                                                          "network": name,
                                                          "why": "out of range"}))
        return out

    # -- commands ----------------------------------------------------------------------
    @command("Create a network; its creator administers it.", who="player",
             actor="required", rules=("P-NET-6", "P-NET-24", "POL-7"),
             name=args.text("the network's name (default: the example's)", max_len=64),
             example=args.text("one of networks.toml's example networks", max_len=64),
             kind=args.choice("adhoc, city, regional, national or global (default: the "
                              "example's, else adhoc)", *NETWORK_KINDS),
             public=args.flag("anyone may join as a member (default: the kind's)"),
             range=args.integer("wireless reach in squares (-1: no fixed reach; default: the "
                                "kind's)", lo=-1, hi=200_000))
    def do_network(self, state: EncounterState, command: Command,
                   dice: DiceSource) -> list[Event]:
        """Create a network: actor (a system), name (or example: one of networks.toml's
        examples), [kind] (adhoc, city, regional, national, global), [public], [range]
        (squares). The creator administers it (P-NET-6)."""
        actor = self.system(state, self.actor(state, command).id)
        example = self.opt(command, "example", str)
        preset: dict[str, Any] = {}
        if example is not None:
            if example not in network_examples():
                raise InvalidCommand(f"no example network {example!r} (examples: "
                                     f"{', '.join(network_examples())})")
            preset = network_examples()[example]
        name = self.arg(command, "name", str, example)
        if name is None:
            raise InvalidCommand("network: give it a 'name'")
        if name in self.networks(state):
            raise IllegalCommand(f"a network named {name!r} already exists")
        kind = self.arg(command, "kind", str, str(preset.get("kind", "adhoc")))
        kinds = network_kinds()
        if kind not in kinds or kind == "personal":
            raise InvalidCommand(f"network: kind must be one of "
                                 f"{', '.join(k for k in kinds if k != 'personal')}")
        reach = kinds[kind]["range"]
        if kind == "adhoc":
            reach = int(self.rule(state, "POL-7"))  # roughly a city block (P-NET-24)
        reach = self.arg(command, "range", int, reach)
        public = self.arg(command, "public", bool, bool(kinds[kind]["public"]))
        return [Event("network_created", {"actor": actor.id, "name": name, "kind": kind,
                                          "public": public, "range": reach})]

    @event("{actor} creates the {kind} network {name} ({public?public|private}, reach "
           "{range} squares).",
           actor=args.creature("the creator, its administrator"),
           name=args.text("the network"), kind=args.text("its kind"),
           public=args.flag("public"), range=args.integer("its reach in squares (-1: none)"))
    def apply_network_created(self, state: EncounterState, data: dict[str, Any]) -> None:
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
        """Tear down a network: actor (a connected administrator), network. Personal networks
        are never destroyed (P-NET-21)."""
        actor = self.actor(state, command).id
        name = self.arg(command, "network", str)
        net = self.network(state, name)
        if net.get("personal"):
            raise IllegalCommand(f"{name} is a personal network: always on, never destroyed",
                                 rule="P-NET-21")
        self.administering(state, actor, name)
        return self._with_processes(state, [Event("network_destroyed", {"network": name})])

    @event("The network {network} is torn down.", network=args.text("the network"))
    def apply_network_destroyed(self, state: EncounterState, data: dict[str, Any]) -> None:
        self.networks(state).pop(data["network"], None)
        procs = state.extra.get("processes", {})
        for pid in [p for p, v in procs.items() if v["network"] == data["network"]]:
            del procs[pid]

    @command("A system learns that a network exists (a rumour, a scan, the GM's word).",
             actor="required", rules=("P-REQ-11",),
             network=args.text("the network", required=True, max_len=64))
    def do_learn(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """A system learns that a network exists (a rumour, a scan, the GM): actor, network."""
        actor = self.system(state, self.actor(state, command).id)
        name = self.arg(command, "network", str)
        self.network(state, name)
        return [Event("network_learned", {"system": actor.id, "network": name})]

    @event("{system} learns that the network {network} exists.",
           system=args.creature("who learns it"), network=args.text("the network"))
    def apply_network_learned(self, state: EncounterState, data: dict[str, Any]) -> None:
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
             in_range=args.flag("the GM's word on whether the wireless signal reaches"),
             approved_by=args.creature("an administrator who lets it in now"))
    def do_connect(self, state: EncounterState, command: Command,
                   dice: DiceSource) -> list[Event]:
        """Connect a system to a network: actor, network, [hack] (hack in instead: no
        authorisation needed, but not a member, P-NET-14), [via] (a system to plug into by
        wire, P-NET-11), [in_range] (the GM's word on the signal, P-NET-9), [approved_by] (an
        administrator who lets the system in now, P-NET-13)."""
        actor = self.system(state, self.actor(state, command).id)
        name = self.arg(command, "network", str)
        net = self.network(state, name)
        hack = self.arg(command, "hack", bool, False)
        if self.connected(state, actor.id, name):
            raise IllegalCommand(f"{actor.id} is already connected to {name}")
        self.connectable(state, actor.id, name, command, self.opt(command, "via", str))
        events: list[Event] = []
        if not hack and not net["public"] and actor.id not in net["allowed"]:
            approver = self.opt(command, "approved_by", str)
            if approver is None:
                raise IllegalCommand(f"{actor.id} has no authorisation to join {name} as a "
                                     "member (an administrator must approve, or hack in)",
                                     rule="P-NET-12")
            self.administering(state, approver, name)
            events.append(Event("network_authorized", {"network": name, "system": actor.id,
                                                       "by": approver}))
        events.append(Event("network_connected", {"system": actor.id, "network": name,
                                                  "as": "hacker" if hack else "member"}))
        return self._with_processes(
            state, events + self._auto_pair_events(self.lookahead(state, events)))

    @also(system=args.creature("who connects"), network=args.text("the network"),
          **{"as": args.text("member or hacker")},
          why=args.text("paired: a personal-network device joining its owner's network"))
    @event("{system} connects to {network} as a {as}[ ({why})].")
    def apply_network_connected(self, state: EncounterState, data: dict[str, Any]) -> None:
        net = self.networks(state)[data["network"]]
        key = "hackers" if data["as"] == "hacker" else "members"
        if data["system"] not in net[key]:
            net[key].append(data["system"])

    @command("An administrator lets a system join a network as a member.", who="player",
             when="any", actor="required", rules=("P-NET-7", "P-NET-8", "P-NET-13"),
             network=args.text("the network", required=True, max_len=64),
             system=args.creature("the system let in", required=True))
    def do_authorize(self, state: EncounterState, command: Command,
                     dice: DiceSource) -> list[Event]:
        """An administrator lets a system join as a member: actor, network, system
        (P-NET-7, P-NET-8, P-NET-13)."""
        actor = self.actor(state, command).id
        name = self.arg(command, "network", str)
        self.administering(state, actor, name)
        system = self.system(state, self.arg(command, "system", str))
        return [Event("network_authorized", {"network": name, "system": system.id,
                                             "by": actor})]

    @event("{by} lets {system} join {network} as a member.",
           network=args.text("the network"), system=args.creature("the system let in"),
           by=args.creature("the administrator"))
    def apply_network_authorized(self, state: EncounterState, data: dict[str, Any]) -> None:
        allowed = self.networks(state)[data["network"]]["allowed"]
        if data["system"] not in allowed:
            allowed.append(data["system"])

    @command("Disconnect from a network: its effects and processes stop.", who="player",
             actor="required", rules=("P-NET-15", "P-NET-19"),
             network=args.text("the network", required=True, max_len=64))
    def do_disconnect(self, state: EncounterState, command: Command,
                      dice: DiceSource) -> list[Event]:
        """Disconnect a system from a network: actor, network. Its effects from the network
        end (P-NET-15) and its processes stop affecting the network (P-NET-19)."""
        actor = self.actor(state, command).id
        name = self.arg(command, "network", str)
        net = self.network(state, name)
        if actor not in net["members"] + net["hackers"]:
            raise IllegalCommand(f"{actor} is not connected to {name}")
        return self._with_processes(state, [Event("network_disconnected", {
            "system": actor, "network": name, "why": "disconnected"})])

    @event("{system} is disconnected from {network}[ ({why})].",
           system=args.creature("who is disconnected"), network=args.text("the network"),
           why=args.text("why"))
    def apply_network_disconnected(self, state: EncounterState, data: dict[str, Any]) -> None:
        net = self.networks(state).get(data["network"])
        if net is not None:
            net["members"] = [s for s in net["members"] if s != data["system"]]
            net["hackers"] = [s for s in net["hackers"] if s != data["system"]]

    @command("A system loses all connectivity: it is disconnected from every network.",
             rules=("P-NET-16",),
             target=args.creature("the system", required=True))
    def do_offline(self, state: EncounterState, command: Command,
                   dice: DiceSource) -> list[Event]:
        """A system loses all connectivity (e.g. its implants fail): target. It is at once
        disconnected from every network (P-NET-16)."""
        target = self.system(state, self.arg(command, "target", str))
        return self._with_processes(state, [
            Event("network_disconnected", {"system": target.id, "network": name,
                                           "why": "lost all connectivity"})
            for name, net in sorted(self.networks(state).items())
            if target.id in net["members"] + net["hackers"]])

    @command("Map a network: discover the address of every system connected to it.",
             who="player", actor="required", rules=("P-REQ-12", "P-REQ-13", "AP-31"),
             network=args.text("the network", required=True, max_len=64))
    def do_map(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Map a network (the network mapping ability, AP-31): actor, network. The actor must
        be connected; it discovers the address of every connected system (P-REQ-13)."""
        actor = self.actor(state, command).id
        name = self.arg(command, "network", str)
        if not self.connected(state, actor, name):
            raise IllegalCommand(f"{actor} must be connected to {name} to map it",
                                 rule="P-REQ-12")
        found = [s for s in self.connected_systems(state, name) if s != actor]
        return [Event("network_mapped", {"system": actor, "network": name, "found": found})]

    @event("{system} maps {network} and finds {found}.",
           system=args.creature("who maps it"), network=args.text("the network"),
           found=args.creatures("the systems whose address it discovers"))
    def apply_network_mapped(self, state: EncounterState, data: dict[str, Any]) -> None:
        known = state.extra.setdefault("addresses", {}).setdefault(data["system"], [])
        known.extend(s for s in data["found"] if s not in known)

    @command("Run a process on a network; its effect applies to every member.",
             who="player", actor="required", rules=("P-NET-17",),
             network=args.text("the network", required=True, max_len=64),
             process=args.text("the process's name", required=True, max_len=64),
             condition=args.text("the condition it gives every member (none: no effect)",
                                 default="", max_len=64))
    def do_run(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Run a process on a network: actor (its host system, connected), network, process
        (a name), [condition] (its effect on every member, P-NET-17)."""
        actor = self.system(state, self.actor(state, command).id)
        name = self.arg(command, "network", str)
        if not self.connected(state, actor.id, name):
            raise IllegalCommand(f"{actor.id} must be connected to {name} to run a process "
                                 "there", rule="P-NET-17")
        count = int(state.extra.get("process_count", 0)) + 1
        return self._with_processes(state, [Event("process_started", {
            "pid": f"p{count}", "count": count, "name": self.arg(command, "process", str),
            "network": name, "host": actor.id,
            "condition": self.arg(command, "condition", str, "")})])

    @event("{host} runs the process {name} ({pid}) on {network}{condition?, which gives "
           "its members|.} {condition}{condition?.|}",
           pid=args.text("the process's id"), count=args.integer("processes numbered so far"),
           name=args.text("its name"), network=args.text("the network"),
           host=args.creature("the system it runs on"),
           condition=args.text("the condition it gives every member (empty: none)"))
    def apply_process_started(self, state: EncounterState, data: dict[str, Any]) -> None:
        state.extra["process_count"] = data["count"]
        state.extra.setdefault("processes", {})[data["pid"]] = {
            "name": data["name"], "network": data["network"], "host": data["host"],
            "condition": data["condition"]}

    @command("Stop a process the actor runs.", who="player", actor="required",
             rules=("P-NET-17",),
             process=args.text("the process's id", required=True, max_len=64))
    def do_stop(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Stop a process: actor (its host), process (its id)."""
        pid = self.arg(command, "process", str)
        procs = state.extra.get("processes", {})
        if pid not in procs:
            raise InvalidCommand(f"no process {pid!r} (processes: "
                                 f"{', '.join(sorted(procs)) or 'none'})")
        if procs[pid]["host"] != self.actor(state, command).id:
            raise IllegalCommand("a process runs on the system that created it, and only "
                                 "that system stops it", rule="P-NET-17")
        return self._with_processes(state, [Event("process_stopped", {"pid": pid})])

    @event("The process {pid} stops.", pid=args.text("the process's id"))
    def apply_process_stopped(self, state: EncounterState, data: dict[str, Any]) -> None:
        state.extra.get("processes", {}).pop(data["pid"], None)

    @command("Which processes affect a system now, and the conditions they give (changes "
             "nothing).", rules=("P-NET-17", "P-NET-18", "P-NET-19"),
             target=args.creature("the system", required=True))
    def do_effects(self, state: EncounterState, command: Command,
                   dice: DiceSource) -> list[Event]:
        """Which processes affect a system now, and the conditions they give (P-NET-17..19):
        target. Changes nothing; see ``last.processes`` and ``last.conditions``."""
        target = self.system(state, self.arg(command, "target", str))
        pids = self.affecting(state, target.id)
        procs = state.extra.get("processes", {})
        return [Event("effects_listed", {"target": target.id, "processes": pids,
                                         "conditions": [procs[p]["condition"] for p in pids
                                                        if procs[p]["condition"]]})]

    @command("The processes a connected system knows on a network, and the hosts it "
             "knows (changes nothing).", who="player", when="any", actor="required",
             rules=("P-NET-20", "P-REQ-14", "AP-27"),
             network=args.text("the network", required=True, max_len=64))
    def do_processes(self, state: EncounterState, command: Command,
                     dice: DiceSource) -> list[Event]:
        """The processes a connected system knows on a network: actor, network. Every
        connected system knows every process (P-NET-20, P-REQ-14); which system hosts one is
        known only to those who know that system (AP-27). See ``last.processes``."""
        actor = self.actor(state, command).id
        name = self.arg(command, "network", str)
        if not self.connected(state, actor, name):
            raise IllegalCommand(f"{actor} is not connected to {name} and knows none of its "
                                 "processes", rule="P-REQ-12")
        addresses = state.extra.get("addresses", {}).get(actor, [])
        hosts_shown = self.rule(state, "AP-27") == "host-known"
        listed = {}
        for pid, proc in sorted(state.extra.get("processes", {}).items()):
            if proc["network"] != name:
                continue
            host = proc["host"] if (hosts_shown or proc["host"] in addresses
                                    or proc["host"] == actor) else None
            listed[pid] = {"name": proc["name"], "host": host}
        return [Event("processes_listed", {"actor": actor, "network": name,
                                           "processes": listed})]

    @event("Processes affecting {target}: {processes}[; conditions: {conditions}].",
           target=args.creature("the system"),
           processes=args.items("the ids of the processes affecting it"),
           conditions=args.items("the conditions they give"))
    def apply_effects_listed(self, state: EncounterState, data: dict[str, Any]) -> None:
        return None

    @event("{actor} knows the processes on {network}.",
           actor=args.creature("who asks"), network=args.text("the network"),
           processes=args.mapping("by id: the name and the host (none when unknown)"))
    def apply_processes_listed(self, state: EncounterState, data: dict[str, Any]) -> None:
        return None

    @command("Pair a personal-network device to the actor: it joins the actor's personal "
             "network whenever in range.", who="player", actor="required",
             rules=("P-NET-21", "P-NET-23", "AP-31"),
             device=args.creature("the [personal network] device", required=True))
    def do_pair(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Pair a personal-network device to its new owner (the pair device ability, AP-31):
        actor, device. It then joins the owner's personal network whenever in range
        (P-NET-23)."""
        actor = self.creature(state, self.actor(state, command).id)
        device = self.creature(state, self.arg(command, "device", str))
        if not device.device or not device.device.get("personal"):
            raise IllegalCommand(f"{device.id} is not a [personal network] device",
                                 rule="P-NET-23")
        if personal_network(actor.id) not in self.networks(state):
            raise IllegalCommand(f"{actor.id} has no personal network (the networked aspect)",
                                 rule="P-NET-21")
        events: list[Event] = []
        old = device.device.get("owner")
        if old and old != actor.id:
            net = self.networks(state).get(personal_network(str(old)))
            if net and device.id in net["members"]:
                events.append(Event("network_disconnected", {
                    "system": device.id, "network": personal_network(str(old)),
                    "why": "paired to another owner"}))
        events.append(Event("device_paired", {"device": device.id, "owner": actor.id}))
        return self._with_processes(
            state, events + self._auto_pair_events(self.lookahead(state, events)))

    @event("{device} is paired to {owner}.", device=args.creature("the device"),
           owner=args.creature("its new owner"))
    def apply_device_paired(self, state: EncounterState, data: dict[str, Any]) -> None:
        device = self.creature(state, data["device"])
        assert device.device is not None
        device.device = {**device.device, "owner": data["owner"]}
        net = self.networks(state)[personal_network(data["owner"])]
        if data["device"] not in net["allowed"]:
            net["allowed"].append(data["device"])
        known = state.extra.setdefault("addresses", {}).setdefault(data["owner"], [])
        if data["device"] not in known:
            known.append(data["device"])

    @command("Use one of a device's actions, by hand or remotely over a network.",
             who="player", actor="required", cost="minor",
             rules=("P-NET-3", "P-NET-4", "P-REQ-5", "P-REQ-12", "P-REQ-13"),
             device=args.creature("the device", required=True),
             action=args.text("one of its actions (activate and deactivate when it lists "
                              "none)", default="activate", max_len=64),
             remote=args.flag("over a network instead of by hand"),
             network=args.text("the network to use remotely (default: any shared one)",
                               max_len=64),
             kind=args.text("the kind of action it takes", default="minor", max_len=16))
    def do_operate(self, state: EncounterState, command: Command,
                   dice: DiceSource) -> list[Event]:
        """Use one of a device's actions: actor, device, [action] (default activate; a device
        that lists none can activate and deactivate, P-NET-3), [remote] (over a network,
        P-NET-4: the device must be connectable, P-REQ-12, P-REQ-13), [network], [kind]."""
        actor = self.creature(state, self.actor(state, command).id)
        device = self.creature(state, self.arg(command, "device", str))
        if device.device is None:
            raise IllegalCommand(f"{device.id} is not a device: it has no actions",
                                 rule="P-NET-3")
        action = self.arg(command, "action", str, "activate")
        if action not in device.device["actions"]:
            raise IllegalCommand(f"{device.id} has no action {action!r} (actions: "
                                 f"{', '.join(device.device['actions'])})", rule="P-NET-3")
        remote = self.arg(command, "remote", bool, False)
        data: dict[str, Any] = {"device": device.id, "action": action, "by": actor.id,
                                "remote": remote}
        if remote:
            data["network"] = self.system_connectable(state, actor.id, device.id,
                                                      self.opt(command, "network", str))
        else:
            if not device.device.get("manual", True):
                raise IllegalCommand(f"{device.id} cannot be operated by hand",
                                     rule="P-NET-4")
            self.check_reachable(state, actor, device, None)
        if action in ("activate", "deactivate"):
            data["active"] = action == "activate"
        use = self.use(state, actor, str(command.args.get("kind", "minor")),
                       f"operate {device.id}")
        return [Event("acted", {**use, "target": device.id, "attack": False, "effects": 1,
                                "cost": {}}), Event("device_operated", data)]

    @event("{by} uses {device}'s action {action} {remote?remotely|by hand}[ over "
           "{network}].",
           device=args.creature("the device"), action=args.text("the action"),
           by=args.creature("who operates it"), remote=args.flag("over a network"),
           network=args.text("the network used"),
           active=args.flag("the device is now active"))
    def apply_device_operated(self, state: EncounterState, data: dict[str, Any]) -> None:
        device = self.creature(state, data["device"])
        if device.device is not None and "active" in data:
            device.device = {**device.device, "active": data["active"]}

    def check_reachable(self, state: EncounterState, actor: Creature, target: Creature,
                        reach: int | None, command: Command | None = None) -> None:
        """Overridden by the targeting rules (P-REQ-5)."""
        return None
