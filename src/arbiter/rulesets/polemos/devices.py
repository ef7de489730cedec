"""What runs on and is operated through the networks of the 8th Age: processes and the
conditions they give the members of their network (P-NET-15..20), pairing a device to a
personal network (P-NET-22, P-NET-23) and operating a device by hand or remotely
(P-NET-3, P-NET-4). Reading the networks is ``networks.py``'s.
"""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr

from ...core import (
    Command,
    EncounterState,
    Event,
    IllegalCommand,
    InvalidCommand,
)
from ...core import catalogue as args
from ...core.catalogue import command, event
from ...dice import DiceSource
from . import payloads
from .actions import KINDS
from .cover import CoverRules  # the topic below (a chain)
from .networks import (
    affecting,
    auto_pair_events,
    connected,
    networks_of,
    personal_network,
    system_connectable,
    system_named,
    with_processes,
)


@mypyc_attr(allow_interpreted_subclasses=True)
class DeviceRules(CoverRules):
    """Processes, paired devices and operating devices."""

    @command("Run a process on a network; its effect applies to every member.",
             who="player", actor="required", rules=("P-NET-17",),
             network=args.text("the network", required=True, max_len=64),
             process=args.text("the process's name", required=True, max_len=64),
             condition=args.text("the condition it gives every member, as the GM rules the "
                                 "process's effect (none: no effect)", default="", max_len=64,
                                 who="gm"))
    def do_run(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Run a process on a network its host system is connected to; its effect applies to
        every member (P-NET-17)."""
        actor = system_named(self, state, self.actor(state, command).id)
        name = command.a.network
        if not connected(state, actor.id, name):
            raise IllegalCommand(f"{actor.id} must be connected to {name} to run a process "
                                 "there", rule="P-NET-17")
        count = int(state.extra.get("process_count", 0)) + 1
        return with_processes(self, state, [Event("process_started", {
            "pid": f"p{count}", "count": count, "name": command.a.process,
            "network": name, "host": actor.id, "condition": command.a.condition})])

    @event("{host} runs the process {name} ({pid}) on {network}{condition?, which gives "
           "its members|.} {condition}{condition?.|}",
           pid=args.text("the process's id"), count=args.integer("processes numbered so far"),
           name=args.text("its name"), network=args.text("the network"),
           host=args.creature("the system it runs on"),
           condition=args.text("the condition it gives every member (empty: none)"))
    def apply_process_started(self, state: EncounterState, data: payloads.ProcessStarted) -> None:
        state.extra["process_count"] = data["count"]
        state.extra.setdefault("processes", {})[data["pid"]] = {
            "name": data["name"], "network": data["network"], "host": data["host"],
            "condition": data["condition"]}

    @command("Stop a process the actor runs.", who="player", actor="required",
             rules=("P-NET-17",),
             process=args.text("the process's id", required=True, max_len=64))
    def do_stop(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Stop a process: only the system that runs it may (P-NET-17)."""
        pid = command.a.process
        procs = state.extra.get("processes", {})
        if pid not in procs:
            raise InvalidCommand(f"no process {pid!r} (processes: "
                                 f"{', '.join(sorted(procs)) or 'none'})")
        if procs[pid]["host"] != self.actor(state, command).id:
            raise IllegalCommand("a process runs on the system that created it, and only "
                                 "that system stops it", rule="P-NET-17")
        return with_processes(self, state, [Event("process_stopped", {"pid": pid})])

    @event("The process {pid} stops.", pid=args.text("the process's id"))
    def apply_process_stopped(self, state: EncounterState, data: payloads.ProcessStopped) -> None:
        state.extra.get("processes", {}).pop(data["pid"], None)

    @command("Which processes affect a system now, and the conditions they give (changes "
             "nothing).", rules=("P-NET-17", "P-NET-18", "P-NET-19"),
             target=args.creature("the system", required=True))
    def do_effects(self, state: EncounterState, command: Command,
                   dice: DiceSource) -> list[Event]:
        """Which processes affect a system now, and the conditions they give (P-NET-17..19).
        Changes nothing; see ``last.processes`` and ``last.conditions``."""
        target = system_named(self, state, command.a.target)
        pids = affecting(state, target.id)
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
        """The processes a connected system knows on a network. Every connected system knows
        every process (P-NET-20, P-REQ-14); which system hosts one is known only to those who
        know that system (AP-27). See ``last.processes``."""
        actor = self.actor(state, command).id
        name = command.a.network
        if not connected(state, actor, name):
            raise IllegalCommand(f"{actor} is not connected to {name} and knows none of its "
                                 "processes", rule="P-REQ-12")
        addresses = state.extra.get("addresses", {}).get(actor, [])
        hosts_shown = self.ruling(state, "AP-27") == "host-known"
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
    def apply_effects_listed(self, state: EncounterState, data: payloads.EffectsListed) -> None:
        return None

    @event("{actor} knows the processes on {network}.",
           actor=args.creature("who asks"), network=args.text("the network"),
           processes=args.mapping("by id: the name and the host (none when unknown)"))
    def apply_processes_listed(self, state: EncounterState, data: payloads.ProcessesListed) -> None:
        return None

    @command("Pair a personal-network device to the actor: it joins the actor's personal "
             "network whenever in range.", who="player", actor="required",
             rules=("P-NET-21", "P-NET-23", "AP-31"),
             device=args.creature("the [personal network] device", required=True))
    def do_pair(self, state: EncounterState, command: Command, dice: DiceSource) -> list[Event]:
        """Pair a personal-network device to its new owner (the pair device ability, AP-31):
        it then joins the owner's personal network whenever in range (P-NET-23)."""
        actor = self.creature(state, self.actor(state, command).id)
        device = self.creature(state, command.a.device)
        if not device.device or not device.device.get("personal"):
            raise IllegalCommand(f"{device.id} is not a [personal network] device",
                                 rule="P-NET-23")
        if personal_network(actor.id) not in networks_of(state):
            raise IllegalCommand(f"{actor.id} has no personal network (the networked aspect)",
                                 rule="P-NET-21")
        events: list[Event] = []
        old = device.device.get("owner")
        if old and old != actor.id:
            net = networks_of(state).get(personal_network(str(old)))
            if net and device.id in net["members"]:
                events.append(Event("network_disconnected", {
                    "system": device.id, "network": personal_network(str(old)),
                    "why": "paired to another owner"}))
        events.append(Event("device_paired", {"device": device.id, "owner": actor.id}))
        return with_processes(
            self, state, events + auto_pair_events(self, self.lookahead(state, events)))

    @event("{device} is paired to {owner}.", device=args.creature("the device"),
           owner=args.creature("its new owner"))
    def apply_device_paired(self, state: EncounterState, data: payloads.DevicePaired) -> None:
        device = self.creature(state, data["device"])
        assert device.device is not None
        device.device = {**device.device, "owner": data["owner"]}
        net = networks_of(state)[personal_network(data["owner"])]
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
             kind=args.choice("the kind of action it takes", *KINDS, default="minor",
                              who="gm"))
    def do_operate(self, state: EncounterState, command: Command,
                   dice: DiceSource) -> list[Event]:
        """Use one of a device's actions (P-NET-3: one that lists none can activate and
        deactivate), by hand or remotely over a network (P-NET-4: the device must then be
        connectable, P-REQ-12, P-REQ-13)."""
        a = command.a
        actor = self.creature(state, self.actor(state, command).id)
        device = self.creature(state, a.device)
        if device.device is None:
            raise IllegalCommand(f"{device.id} is not a device: it has no actions",
                                 rule="P-NET-3")
        action = a.action
        if action not in device.device["actions"]:
            raise IllegalCommand(f"{device.id} has no action {action!r} (actions: "
                                 f"{', '.join(device.device['actions'])})", rule="P-NET-3")
        remote = a.remote
        data: dict[str, Any] = {"device": device.id, "action": action, "by": actor.id,
                                "remote": remote}
        if remote:
            data["network"] = system_connectable(state, actor.id, device.id, a.network)
        else:
            if not device.device.get("manual", True):
                raise IllegalCommand(f"{device.id} cannot be operated by hand",
                                     rule="P-NET-4")
            self.check_reachable(state, actor, device, None)
        if action in ("activate", "deactivate"):
            data["active"] = action == "activate"
        use = self.use(state, actor, a.kind, f"operate {device.id}")
        return [Event("acted", {**use, "target": device.id, "attack": False, "effects": 1,
                                "cost": {}}), Event("device_operated", data)]

    @event("{by} uses {device}'s action {action} {remote?remotely|by hand}[ over "
           "{network}].",
           device=args.creature("the device"), action=args.text("the action"),
           by=args.creature("who operates it"), remote=args.flag("over a network"),
           network=args.text("the network used"),
           active=args.flag("the device is now active"),
           optional=("active",))
    def apply_device_operated(self, state: EncounterState, data: payloads.DeviceOperated) -> None:
        device = self.creature(state, data["device"])
        if device.device is not None and "active" in data:
            device.device = {**device.device, "active": data["active"]}
