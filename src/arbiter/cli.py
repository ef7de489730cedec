"""The ``arbiter`` command line: dice, odds, scenarios, rulings and the demo encounter.

Bad input exits with status 2 and one line saying what was wrong, never a traceback.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console
from rich.table import Table

from .dice import DiceError, SeededDice, distribution, roll

app = typer.Typer(
    name="arbiter",
    help="Rules engine and game-master console for tabletop role-playing games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)


def fail(message: str) -> NoReturn:
    """Report bad input in one line and exit with status 2."""
    err_console.print(f"arbiter: error: {message}", markup=False)
    raise typer.Exit(2)


def emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2) + "\n")


def percent(p: Fraction) -> str:
    return f"{float(p) * 100:.2f}%"


@app.command("roll")
def roll_command(
    expression: Annotated[str, typer.Argument(help="Dice notation, e.g. '4d6kh3' or '1d20+5'.")],
    seed: Annotated[int | None, typer.Option(help="Seed for reproducible dice.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Roll dice and show every die with its fate."""
    try:
        result = roll(expression, SeededDice(seed))
    except DiceError as err:
        fail(str(err))
    if as_json:
        emit_json(result.to_json())
    else:
        console.print(result.render(), markup=False)


@app.command("odds")
def odds_command(
    expression: Annotated[str, typer.Argument(help="Dice notation, e.g. '2d6+3'.")],
    at_least: Annotated[int | None, typer.Option("--at-least", help="Show P(total ≥ K).")] = None,
    at_most: Annotated[int | None, typer.Option("--at-most", help="Show P(total ≤ K).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Exact fractions as JSON.")] = False,
) -> None:
    """Show the exact distribution of a dice expression."""
    if at_least is not None and at_most is not None:
        fail("give --at-least or --at-most, not both")
    try:
        dist = distribution(expression)
    except DiceError as err:
        fail(str(err))
    if as_json:
        data = {"expression": expression, **dist.to_json()}
        if at_least is not None:
            data["at_least"] = {"k": at_least, "p": str(dist.at_least(at_least))}
        if at_most is not None:
            data["at_most"] = {"k": at_most, "p": str(dist.at_most(at_most))}
        emit_json(data)
        return
    outcomes = list(dist.items())
    table = Table(title=f"{expression}: mean {float(dist.mean):.3f}, sd {dist.stdev:.3f}")
    table.add_column("total", justify="right")
    table.add_column("chance", justify="right")
    table.add_column("≥", justify="right")
    table.add_column("")
    peak = max(p for _, p in outcomes)
    shown = outcomes if len(outcomes) <= 60 else outcomes[:: max(1, len(outcomes) // 60)]
    for value, p in shown:
        bar = "█" * max(1, round(float(p / peak) * 30)) if p else ""
        table.add_row(str(value), percent(p), percent(dist.at_least(value)), bar)
    console.print(table)
    if len(shown) < len(outcomes):
        console.print(f"({len(outcomes)} outcomes; every {len(outcomes) // len(shown)}th shown)")
    if at_least is not None:
        p = dist.at_least(at_least)
        console.print(f"P(total ≥ {at_least}) = {p} ≈ {percent(p)}")
    if at_most is not None:
        p = dist.at_most(at_most)
        console.print(f"P(total ≤ {at_most}) = {p} ≈ {percent(p)}")


def main() -> None:
    """Entry point of the ``arbiter`` console script."""
    app()
