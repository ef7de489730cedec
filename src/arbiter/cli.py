"""The ``arbiter`` command line: dice, odds, scenarios, rulings and the demo encounter.

Bad input exits with status 2 and one line saying what was wrong, never a traceback.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .core import RulesError, available, load_ruleset
from .dice import (
    DIALECTS,
    DiceError,
    Node,
    NoExactOdds,
    SeededDice,
    distribution,
    estimate,
    parse,
    roll,
)
from .scenario import ScenarioError, run_file, scenario_files

app = typer.Typer(
    name="arbiter",
    help="Rules engine and game-master console for tabletop role-playing games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console(highlight=False, soft_wrap=True)
err_console = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str) -> NoReturn:
    """Report bad input in one line and exit with status 2."""
    err_console.print(f"arbiter: error: {message}", markup=False)
    raise typer.Exit(2)


def emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2) + "\n")


def percent(p: Fraction | float) -> str:
    return f"{float(p) * 100:.2f}%"


Dialect = Annotated[
    str,
    typer.Option(
        "--dialect",
        help="Read the notation as this tool writes it: arbiter, roll20, foundry or d20.",
        case_sensitive=False,
    ),
]


def read_dice(expression: str, dialect: str) -> Node:
    """The expression parsed in ``dialect``, or exit 2 with what was wrong."""
    if dialect.lower() not in DIALECTS:
        fail(f"unknown dice dialect {dialect!r}; the dialects are {', '.join(DIALECTS)}")
    try:
        return parse(expression, dialect.lower())
    except DiceError as err:
        fail(str(err))


@app.command("roll")
def roll_command(
    expression: Annotated[str, typer.Argument(help="Dice notation, e.g. '4d6kh3' or '1d20+5'.")],
    seed: Annotated[int | None, typer.Option(help="Seed for reproducible dice.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
    dialect: Dialect = "arbiter",
) -> None:
    """Roll dice and show every die with its fate (the expression is shown back as Arbiter
    reads it)."""
    node = read_dice(expression, dialect)
    try:
        result = roll(node, SeededDice(seed))
    except DiceError as err:
        fail(str(err))
    if as_json:
        emit_json({**result.to_json(), "read_as": str(node), "dialect": dialect.lower()})
    else:
        console.print(f"read as {node}", markup=False)
        console.print(result.render(), markup=False)


@app.command("odds")
def odds_command(
    expression: Annotated[str, typer.Argument(help="Dice notation, e.g. '2d6+3'.")],
    at_least: Annotated[int | None, typer.Option("--at-least", help="Show P(total ≥ K).")] = None,
    at_most: Annotated[int | None, typer.Option("--at-most", help="Show P(total ≤ K).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Exact fractions as JSON.")] = False,
    dialect: Dialect = "arbiter",
    seed: Annotated[
        int, typer.Option(help="Seed of the Monte-Carlo estimate, for expressions with no "
                               "exact odds.")
    ] = 0,
) -> None:
    """Show the exact distribution of a dice expression (or, where it has no exact model,
    a Monte-Carlo estimate from 100,000 rolls with its standard errors)."""
    if at_least is not None and at_most is not None:
        fail("give --at-least or --at-most, not both")
    node = read_dice(expression, dialect)
    try:
        dist = distribution(node)
    except NoExactOdds as err:
        estimated(node, str(err), at_least, at_most, as_json, dialect.lower(), seed)
        return
    except DiceError as err:
        fail(str(err))
    if as_json:
        data = {"expression": expression, "read_as": str(node), "dialect": dialect.lower(),
                "exact": True, **dist.to_json()}
        if at_least is not None:
            data["at_least"] = {"k": at_least, "p": str(dist.at_least(at_least))}
        if at_most is not None:
            data["at_most"] = {"k": at_most, "p": str(dist.at_most(at_most))}
        emit_json(data)
        return
    console.print(f"read as {node}", markup=False)
    outcomes = list(dist.items())
    table = Table(title=f"{escape(str(node))}: mean {float(dist.mean):.3f}, sd {dist.stdev:.3f}")
    table.add_column("total", justify="right")
    table.add_column("chance", justify="right")
    table.add_column("≥", justify="right")
    table.add_column("")
    peak = max(p for _, p in outcomes)
    shown, note = _thinned(outcomes)
    for value, p in shown:
        bar = "█" * max(1, round(float(p / peak) * 30)) if p else ""
        table.add_row(str(value), percent(p), percent(dist.at_least(value)), bar)
    console.print(table)
    if note:
        console.print(note)
    if at_least is not None:
        p = dist.at_least(at_least)
        console.print(f"P(total ≥ {at_least}) = {p} ≈ {percent(p)}")
    if at_most is not None:
        p = dist.at_most(at_most)
        console.print(f"P(total ≤ {at_most}) = {p} ≈ {percent(p)}")


T = TypeVar("T")

_ROWS = 60
"""Most rows of an odds table: longer ones show every k-th outcome."""


def _thinned(outcomes: list[T]) -> tuple[list[T], str]:
    """The outcomes a table shows, and a note saying which when it is not all of them."""
    if len(outcomes) <= _ROWS:
        return outcomes, ""
    step = -(-len(outcomes) // _ROWS)
    suffix = "th" if step % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(
        step % 10, "th")
    return outcomes[::step], f"({len(outcomes):,} outcomes; every {step}{suffix} one shown)"


def estimated(node: Node, reason: str, at_least: int | None, at_most: int | None,
              as_json: bool, dialect: str, seed: int) -> None:
    """``arbiter odds`` for an expression with no exact odds: say so (on stderr, as a
    note), then show a Monte-Carlo estimate with its standard errors."""
    try:
        guess = estimate(node, seed=seed, reason=reason)
    except DiceError as err:
        fail(f"{reason}; and no estimate either: {err}")
    if as_json:
        data: dict[str, Any] = {"expression": str(node), "read_as": str(node),
                                "dialect": dialect, **guess.to_json()}
        for key, k, chance in (("at_least", at_least, guess.at_least),
                               ("at_most", at_most, guess.at_most)):
            if k is not None:
                data[key] = {"k": k, "p": chance(k), "error": guess.error(chance(k))}
        emit_json(data)
        return
    err_console.print(f"arbiter: {reason}", markup=False)
    console.print(f"read as {node}", markup=False)
    outcomes = guess.items()
    table = Table(
        title=f"{escape(str(node))}: Monte-Carlo estimate from {guess.rolls:,} rolls "
        f"(seed {seed}): mean {guess.mean:.3f} ± {guess.mean_error:.3f}, sd {guess.stdev:.3f}"
    )
    table.add_column("total", justify="right")
    table.add_column("chance ± s.e.", justify="right")
    table.add_column("≥", justify="right")
    table.add_column("")
    peak = max(p for _, p in outcomes)
    shown, note = _thinned(outcomes)
    for value, p in shown:
        bar = "█" * max(1, round(p / peak * 30))
        table.add_row(str(value), f"{percent(p)} ± {percent(guess.error(p))}",
                      percent(guess.at_least(value)), bar)
    console.print(table)
    if note:
        console.print(note)
    for sign, k, fn in (("≥", at_least, guess.at_least), ("≤", at_most, guess.at_most)):
        if k is not None:
            q = fn(k)
            console.print(f"P(total {sign} {k}) ≈ {percent(q)} ± {percent(guess.error(q))} "
                          "(estimated)")


@app.command("run")
def run_command(
    paths: Annotated[list[Path], typer.Argument(help="Scenario files or folders of them.")],
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show each log entry.")] = False,
) -> None:
    """Play scenario files and check their expectations (exit 1 when one fails)."""
    files = scenario_files(paths)
    missing = [p for p in files if not p.exists()]
    if missing:
        fail(f"no such file or folder: {missing[0]}")
    if not files:
        fail("no scenario files found")
    failed = broken = 0
    for path in files:
        try:
            result = run_file(path)
        except ScenarioError as err:
            broken += 1
            console.print(f"ERROR {err}", markup=False)
            continue
        status = "PASS" if result.passed else "FAIL"
        rules = f" [{', '.join(result.rules)}]" if result.rules else ""
        console.print(f"{status} {path} ({result.steps} steps){rules}", markup=False)
        for failure in result.failures:
            console.print(f"    {failure}", markup=False)
        if verbose and result.encounter is not None:
            for entry in result.encounter.log:
                console.print(f"    #{entry.seq} {entry.command}: "
                              f"{', '.join(e.type for e in entry.events)}", markup=False)
        failed += not result.passed
    passed = len(files) - failed - broken
    console.print(f"{passed} passed, {failed + broken} failed", markup=False)
    if broken:
        raise typer.Exit(2)
    if failed:
        raise typer.Exit(1)


@app.command("rulings")
def rulings_command(
    ruleset: Annotated[str, typer.Argument(help="Ruleset name.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
    coverage: Annotated[bool, typer.Option(
        "--coverage", help="Report which inventory rule ids scenarios and tests cover.")] = False,
    inventory: Annotated[Path | None, typer.Option(
        help="The rules inventory (default: shared/rules/inventory.md in a parent folder).")
    ] = None,
) -> None:
    """List a ruleset's rulings: the question, the default, the alternatives, the citation."""
    try:
        rules = load_ruleset(ruleset)
    except RulesError as err:
        fail(str(err))
    if coverage:
        coverage_report(ruleset, inventory, as_json)
        return
    if as_json:
        emit_json([{"id": r.id, "title": r.title, "citation": r.citation,
                    "question": r.question, "default": r.default, "choices": r.choices,
                    "rules": list(r.rules)} for r in rules.rulings])
        return
    table = Table(title=f"rulings of {ruleset}", show_lines=True)
    for col in ("id", "ruling", "default", "alternatives"):
        table.add_column(col)
    for r in rules.rulings:
        others = "\n".join(f"{k}: {v}" for k, v in r.choices.items() if k != r.default)
        table.add_row(r.id, f"{r.title}\n{r.question}\n[dim]{r.citation}[/dim]",
                      f"{r.default}: {r.choices[r.default]}", others)
    console.print(table)


def coverage_report(ruleset: str, inventory: Path | None, as_json: bool) -> None:
    """The coverage of the ruleset's own inventory (``inventory.toml`` in its package), or of
    the inventory given with ``--inventory`` or ``$ARBITER_INVENTORY``, by the project in the
    current folder."""
    from .coverage import InventoryError, load_inventory, measure

    root = Path.cwd()
    try:
        path, parsed = load_inventory(inventory, load_ruleset(ruleset).package_dir)
    except InventoryError as err:
        fail(str(err))
    report = measure(ruleset, parsed, root)
    if as_json:
        emit_json(report.to_json())
        return
    table = Table(title=f"inventory coverage of {ruleset} ({path})")
    for col in ("class", "covered", "total", "not covered"):
        table.add_column(col)
    for cls, (covered, uncovered) in report.by_class.items():
        table.add_row(cls, str(len(covered)), str(len(covered) + len(uncovered)),
                      ", ".join(uncovered) or "-")
    console.print(table)


@app.command("commands")
def commands_command(
    ruleset: Annotated[str, typer.Argument(help="Ruleset name.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON, with each "
                                          "command's JSON Schema.")] = False,
    as_markdown: Annotated[bool, typer.Option(
        "--markdown", help="Print the command table of docs/rulesets/RULESET.md.")] = False,
    write: Annotated[Path | None, typer.Option(
        help="Write the command table into this Markdown file, between its markers.")
    ] = None,
) -> None:
    """List a ruleset's commands: arguments, who may issue them, cost and rule ids."""
    from .core.catalogue import markdown, who_text, with_table

    try:
        rules = load_ruleset(ruleset)
    except RulesError as err:
        fail(str(err))
    catalogue = rules.catalogue
    if write is not None:
        try:
            document = write.read_text(encoding="utf-8")
            write.write_text(with_table(document, markdown(catalogue)), encoding="utf-8")
        except (OSError, ValueError) as err:
            fail(f"{write}: {err}")
        return
    if as_markdown:
        sys.stdout.write(markdown(catalogue))
        return
    if as_json:
        emit_json({name: {**spec.to_json(), "schema": spec.schema()}
                   for name, spec in catalogue.items()})
        return
    table = Table(title=f"commands of {ruleset}")
    for col in ("command", "who", "cost", "arguments", "what it does"):
        table.add_column(col)
    for name, spec in catalogue.items():
        given = [("actor" if spec.actor == "required" else "[actor]")] \
            if spec.actor != "none" else []
        given += [k if a.required else f"[{k}]" for k, a in spec.args.items()]
        table.add_row(name, who_text(spec), spec.cost or "-", escape(", ".join(given)),
                      escape(spec.summary + (f" ({', '.join(spec.rules)})" if spec.rules
                                             else "")))
    console.print(table)


@app.command("invariants")
def invariants_command(
    ruleset: Annotated[str, typer.Argument(help="Ruleset name.")],
    as_markdown: Annotated[bool, typer.Option(
        "--markdown", help="Print the invariant table of docs/rulesets/RULESET.md.")] = False,
    write: Annotated[Path | None, typer.Option(
        help="Write the invariant table into this Markdown file, between its markers.")
    ] = None,
) -> None:
    """List what a ruleset keeps true of every state: each invariant, its rule, and when
    it is checked (after every event, every command, or a turn's start or end)."""
    from .core.catalogue import with_table
    from .core.invariants import MARKERS, WHEN, markdown

    try:
        rules = load_ruleset(ruleset)
    except RulesError as err:
        fail(str(err))
    table_text = markdown(rules.invariants)
    if write is not None:
        try:
            document = write.read_text(encoding="utf-8")
            write.write_text(with_table(document, table_text, MARKERS), encoding="utf-8")
        except (OSError, ValueError) as err:
            fail(f"{write}: {err}")
        return
    if as_markdown:
        sys.stdout.write(table_text)
        return
    table = Table(title=f"invariants of {ruleset}")
    for col in ("rule", "checked after", "what holds", "invariant"):
        table.add_column(col)
    for inv in sorted(rules.invariants, key=lambda i: (i.rule, i.name)):
        table.add_row(inv.rule, WHEN[inv.after], escape(inv.text), inv.name)
    console.print(table)


@app.command("payloads")
def payloads_command(
    write: Annotated[bool, typer.Option(
        "--write", help="Write every stale payloads.py.")] = False,
) -> None:
    """Check (or, with --write, write) each package's payloads.py: the typed payload of
    every event, made from its @event declaration (docs/extending.md)."""
    from .core.payloads import generated

    stale = 0
    for path, text in generated().items():
        if path.is_file() and path.read_text(encoding="utf-8") == text:
            continue
        stale += 1
        if write:
            path.write_text(text, encoding="utf-8")
            console.print(f"wrote {path}", markup=False)
        else:
            console.print(f"stale: {path}", markup=False)
    if stale and not write:
        fail(f"{stale} payload module(s) differ from the declarations: arbiter payloads --write")


@app.command("rulesets")
def rulesets_command() -> None:
    """List the installed rulesets."""
    for name in available():
        console.print(f"{name}: {load_ruleset(name).title}", markup=False)


@app.command("new-ruleset")
def new_ruleset_command(
    name: Annotated[str, typer.Argument(help="The new ruleset's name: 2 to 11 lowercase letters.")],
    folder: Annotated[Path, typer.Option("--dir", help="Where its package goes.")] = Path(
        "src/arbiter/rulesets"),
    scenarios: Annotated[Path, typer.Option(help="Where its scenario folder goes.")] = Path(
        "scenarios"),
    docs: Annotated[Path, typer.Option(help="Where its page goes.")] = Path("docs/rulesets"),
) -> None:
    """Write a new ruleset package of the one shape (a 1d6 duel) and its scenario, and say
    which entry point to add (docs/extending.md)."""
    from .templates import NewRulesetError, entry_point, write_ruleset

    try:
        written = write_ruleset(name, folder, scenarios, docs, tuple(available()))
    except NewRulesetError as err:
        fail(str(err))
    for path in written:
        console.print(f"wrote {path}", markup=False)
    module = f"arbiter.rulesets.{name}" if folder == Path("src/arbiter/rulesets") else name
    console.print('add to pyproject.toml under [project.entry-points."arbiter.rulesets"], '
                  "then reinstall (pip install -e .):", markup=False)
    console.print(f"    {entry_point(name, module)}", markup=False)
    console.print(f"and fill its page's command table: arbiter commands {name} --write "
                  f"{docs / f'{name}.md'}", markup=False)
    console.print("and write its typed event payloads: arbiter payloads --write", markup=False)


@app.command("demo")
def demo_command(
    seed: Annotated[int, typer.Option(help="Seed for the dice.")] = 7,
) -> None:
    """Play a short demo encounter in the terminal."""
    from .demo import play_demo

    try:
        play_demo(console, seed)
    except RulesError as err:
        fail(str(err))


def port_in_use(host: str, port: int) -> str:
    """Why ``host:port`` cannot be listened on (empty when it can): bound for a moment the
    way uvicorn binds it (``SO_REUSEADDR``, so a port left in TIME_WAIT counts as free)."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except OSError as err:
        return f"cannot resolve {host}: {err}"
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as err:
            return err.strerror or str(err)
    return ""


@app.command("serve")
def serve_command(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.")] = 8000,
    db: Annotated[Path | None, typer.Option(help="SQLite file (default: ./arbiter.db).")] = None,
    admin_token: Annotated[str | None, typer.Option(
        envvar="ARBITER_ADMIN_TOKEN",
        help="Token needed to create or import campaigns (default: none on 127.0.0.1, a "
             "fresh one on any other address).")] = None,
    trusted_proxy: Annotated[list[str] | None, typer.Option(
        help="Address of a reverse proxy whose X-Forwarded-For header names the client for "
             "the rate limit (repeat for several; default: none, the header is ignored).")
    ] = None,
    allowed_host: Annotated[list[str] | None, typer.Option(
        help="A Host name the server answers to besides localhost, 127.0.0.1, ::1 and "
             "--host (repeat for several); other Hosts get 400, against DNS rebinding.")
    ] = None,
) -> None:
    """Run the game server (GM console and API) on an embedded SQLite database."""
    from .server import run_server

    if db is not None:
        folder = db.expanduser().resolve().parent
        if not folder.is_dir():  # a mistyped path must not make folders and a new database
            fail(f"--db {db}: the folder {folder} does not exist (create it first, or check "
                 "the path)")
        if db.exists() and not db.is_file():
            fail(f"--db {db}: that is not a file")
    # Before the database is opened (and the demo campaigns made and their links printed):
    # a port another program holds is said in one line, and nothing is created.
    busy = port_in_use(host, port)
    if busy:
        fail(f"--port {port}: {host}:{port} is already in use ({busy}); stop the other "
             f"server or give another port (make run PORT={port + 1})")
    run_server(host=host, port=port, db=db, admin_token=admin_token,
               trusted_proxies=tuple(trusted_proxy or ()),
               allowed_hosts=tuple(allowed_host or ()))


# -- campaigns: export, import, the roster of a campaign file ------------------------------
campaign_app = typer.Typer(help="Campaign files: export, import, and their roster.",
                           no_args_is_help=True)
app.add_typer(campaign_app, name="campaign")
DbOpt = Annotated[Path, typer.Option(help="SQLite file of the server (arbiter serve --db).")]


def _open_db(db: Path, must_exist: bool = True) -> Any:
    """The game service on an SQLite file, or exit 2 saying what is wrong with the path."""
    from .store import EventStore, GameService, StoreError

    if must_exist and not db.is_file():
        fail(f"--db {db}: no such database file")
    try:
        return GameService(EventStore.open(db))
    except StoreError as err:
        fail(f"--db {db}: {err}")


def _read_document(path: Path) -> Any:
    from .limits import IMPORT_BYTES

    try:
        if path.stat().st_size > IMPORT_BYTES:
            fail(f"{path}: larger than {IMPORT_BYTES:,} bytes, the most an import takes")
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as err:
        fail(f"{path}: cannot read: {err}")
    except json.JSONDecodeError as err:
        fail(f"{path}: not JSON (line {err.lineno}: {err.msg})")


def read_roster(path: Path) -> Any:
    """The roster of an exported campaign file (``RosterLoaded``), read by importing the
    file into a scratch database (so it is checked and brought up to date as an import
    is); exits 2 naming what is wrong with the file."""
    import shutil
    import tempfile

    from .store import ExportFormatError

    document = _read_document(path)
    folder = tempfile.mkdtemp(prefix="arbiter-")
    service = _open_db(Path(folder) / "scratch.db", must_exist=False)
    try:
        record = service.import_campaign(document)
        return service.roster(record.id, lambda r: r)
    except (ExportFormatError, RulesError) as err:
        fail(f"{path}: {err}")
    finally:
        service.store.close()
        shutil.rmtree(folder, ignore_errors=True)


def describe_lasting(ruleset: str, lasting: dict[str, Any]) -> str:
    """A character's lasting state in words (the roster listing)."""
    parts: list[str] = []
    for key, value in lasting.items():
        if key == "wounds" and value:
            parts.append("wounds: " + ", ".join(
                f"{w.get('name')}" + (f" ({w['area'].replace('_', ' ')})"
                                      if w.get("area") else "") for w in value))
        elif key == "afflictions" and value:
            parts.append("afflictions: " + ", ".join(str(a.get("name")) for a in value))
        elif key == "conditions" and value:
            parts.append(", ".join(f"{c.get('name')}" + (f" {c['level']}" if c.get(
                "level", 1) != 1 else "") for c in value))
        elif key == "vitality_now":
            parts.append("vitality " + ", ".join(f"{a.replace('_', ' ')} {v}"
                                                 for a, v in value.items()))
        elif key.endswith("_now"):
            parts.append(f"{key[:-4].replace('_', ' ')} {value}")
        elif key == "ammo" and value:
            parts.append("ammo " + ", ".join(f"{k} {v}" for k, v in value.items()))
        elif key == "stress" and value:
            parts.append(f"stress {value}")
    return "; ".join(parts) or "unhurt"


@campaign_app.command("export")
def campaign_export(
    campaign: Annotated[str, typer.Argument(help="The campaign's id (c-...).")],
    db: DbOpt = Path("arbiter.db"),
    out: Annotated[Path | None, typer.Option(
        "--out", help="Write the file here (default: standard output).")] = None,
) -> None:
    """Export a campaign (its encounters, roster, bestiary and logs) as one JSON file."""
    from .store import NotFound

    service = _open_db(db)
    try:
        document = service.export_campaign(campaign)
    except NotFound as err:
        fail(str(err))
    finally:
        service.store.close()
    text = json.dumps(document, indent=1) + "\n"
    if out is None:
        sys.stdout.write(text)
        return
    try:
        out.write_text(text, encoding="utf-8")
    except OSError as err:
        fail(f"--out {out}: {err}")
    console.print(f"campaign {campaign} written to {out}", markup=False)


@campaign_app.command("import")
def campaign_import(
    file: Annotated[Path, typer.Argument(help="A campaign file (arbiter campaign export).")],
    db: DbOpt = Path("arbiter.db"),
) -> None:
    """Import a campaign file into the server's database (all of it, or nothing)."""
    from .store import AlreadyExists, ExportFormatError

    document = _read_document(file)
    folder = db.expanduser().resolve().parent
    if not folder.is_dir():
        fail(f"--db {db}: the folder {folder} does not exist")
    service = _open_db(db, must_exist=False)
    try:
        record = service.import_campaign(document)
        characters, bestiary = service.roster(
            record.id, lambda r: (len(r.state.characters), len(r.state.bestiary)))
    except (ExportFormatError, AlreadyExists, RulesError) as err:
        fail(f"{file}: {err}")
    finally:
        service.store.close()
    console.print(f"imported campaign {record.id} ({record.name}, {record.ruleset}): "
                  f"{characters} character(s), {bestiary} bestiary creature(s)", markup=False)


@campaign_app.command("characters")
def campaign_characters(
    file: Annotated[Path, typer.Argument(help="A campaign file (arbiter campaign export).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print as JSON.")] = False,
) -> None:
    """List the roster characters of a campaign file with what they carry, and its
    bestiary."""
    roster = read_roster(file)
    state = roster.state
    ruleset = roster.roster.ruleset.name
    if as_json:
        emit_json({"ruleset": ruleset, "time": state.clock,
                   "characters": list(state.characters.values()),
                   "bestiary": list(state.bestiary.values())})
        return
    table = Table(title=f"roster of {file.name} ({ruleset})")
    for col in ("id", "name", "side", "owner", "template", "carries"):
        table.add_column(col)
    for ident, record in state.characters.items():
        table.add_row(ident, str(record.get("name", ident)), str(record.get("side") or ""),
                      str(record.get("owner") or ""), str(record.get("template") or ""),
                      describe_lasting(ruleset, dict(record.get("lasting") or {})))
    console.print(table)
    if state.bestiary:
        console.print("bestiary: " + ", ".join(
            f"{k} ({v.get('name', k)})" for k, v in state.bestiary.items()), markup=False)


def _register_sim() -> None:
    from .sim.cli import sim_command, sweep_command

    app.command("sim")(sim_command)
    app.command("sweep")(sweep_command)


_register_sim()


def main() -> None:
    """Entry point of the ``arbiter`` console script."""
    app()
