"""The connectm command line dispatches to connectm.cmd_<name> modules."""

from __future__ import annotations

import argparse
import sys
import types

import pytest

from connectm import cli


def test_play_prints_empty_board(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["play"]) == 0
    out = capsys.readouterr().out.split()
    assert len(out) >= 6 and all(set(r) <= set(".") for r in out[:6])


def test_no_command_is_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([]) == 2


def test_value_error_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def run(args: argparse.Namespace) -> int:
        raise ValueError("bad board size 99x1")

    def register(sub: argparse._SubParsersAction) -> None:
        sub.add_parser("boom").set_defaults(func=run)

    fake = types.ModuleType("connectm.cmd_boom")
    fake.register = register  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "connectm.cmd_boom", fake)
    monkeypatch.setattr(cli, "COMMANDS", cli.COMMANDS + ["boom"])
    cli.build_parser.cache_clear()  # the parser is built once per process
    monkeypatch.setattr(cli, "build_parser", cli.build_parser.__wrapped__)
    assert cli.main(["boom"]) == 2
    assert capsys.readouterr().err == "connectm: error: bad board size 99x1\n"
