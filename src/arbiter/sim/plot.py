"""Plots of a simulation (rounds and survival) and of a sweep (win probability against a
parameter), drawn with matplotlib's Agg backend into a PNG (or any format by suffix)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt


def _side_colours(sides: list[str]) -> dict[str, Any]:
    cmap = plt.get_cmap("tab10")
    return {side: cmap(i % 10) for i, side in enumerate(sorted(sides))}


def plot_sim(summary: dict[str, Any], out: Path, title: str = "") -> None:
    """Rounds distribution (left) and each creature's chance to be standing at the end."""
    fig, (rounds_ax, alive_ax) = plt.subplots(1, 2, figsize=(11, 4.5))
    dist = summary["rounds"]["distribution"]
    xs = [int(r) for r in dist]
    rounds_ax.bar(xs, [dist[str(r)] for r in xs], color="#4c72b0")
    rounds_ax.set_xlabel("rounds at the end")
    rounds_ax.set_ylabel("share of runs")
    rounds_ax.set_title(f"rounds (mean {summary['rounds']['mean']:.2f})")
    creatures = summary["creatures"]
    colours = _side_colours(list(summary["win_probability"]))
    names = list(creatures)
    standing = [1 - creatures[n]["out"] for n in names]
    alive_ax.barh(names, standing, color=[colours[creatures[n]["side"]] for n in names])
    alive_ax.set_xlim(0, 1)
    alive_ax.invert_yaxis()
    alive_ax.set_xlabel("chance to be standing at the end")
    wins = ", ".join(f"{side} {p:.1%}" for side, p in summary["win_probability"].items())
    alive_ax.set_title(f"survival (wins: {wins})")
    fig.suptitle(title or f"{summary['runs']:,} runs, seed {summary['seed']}")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def plot_sweep(rows: list[dict[str, Any]], path: str, out: Path, title: str = "") -> None:
    """Win probability of each side against the varied value, with 95% intervals."""
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    xs = [row["value"] for row in rows]
    sides = sorted({s for row in rows for s in row["win_probability"]})
    colours = _side_colours(sides)
    for side in sides:
        ys = [row["win_probability"].get(side, 0.0) for row in rows]
        lo = [row["ci95"][side][0] for row in rows]
        hi = [row["ci95"][side][1] for row in rows]
        ax.plot(xs, ys, marker="o", color=colours[side], label=side)
        ax.fill_between(xs, lo, hi, color=colours[side], alpha=0.2)
    ax.set_ylim(0, 1)
    ax.set_xlabel(path)
    ax.set_ylabel("win probability")
    ax.legend()
    ax.grid(alpha=0.3)
    ax.set_title(title or f"win probability against {path}")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
