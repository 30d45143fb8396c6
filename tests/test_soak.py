"""Self-play soak (tools/soak.py): every move checked against a brute-force rules checker.
200 games by default, 10,000 with --extended (~35 s on 2 cores)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

import soak  # noqa: E402


def test_soak(extended: bool, record_property: Callable[[str, Any], None]) -> None:
    games = 10_000 if extended else 200
    out = soak.soak(games, seed=1)
    record_property("soak games", games)
    record_property("soak seconds", round(out["seconds"], 1))
    assert out["games"] == games
    assert out["exceptions"] == 0 and out["disagreements"] == 0, out
    assert out["wins1"] and out["wins2"] and out["draws"]  # every outcome seen


def test_checker_catches_a_wrong_engine(monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    # The checker is independent: an engine that never reports a win is caught.
    monkeypatch.setattr(soak.cmboard.Board, "over", lambda self: 0)
    out = soak.soak(20, seed=1, quiet=True)
    assert out["disagreements"] > 0
    assert "disagreement" in capsys.readouterr().err


def test_grid_rules() -> None:
    g = soak.Grid(4, 4, 3)
    for col in (0, 1, 1, 2, 3, 2):
        g.drop(col)
    assert g.winner() == 0
    g.drop(2)  # first player: (0,0) (1,1) (2,2) diagonal
    assert g.winner() == 1 and g.outcome() == 1
    assert not soak.Grid(3, 3, 3).winner()
