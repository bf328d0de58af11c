"""The SPRT stop: a match whose GSPRT has accepted H0 or H1 starts no other game (the
games in flight are finished and counted), and one found decided plays none."""

from __future__ import annotations

from ladder.match.output.outputs import Output, OutputContext, RunView, StoredGames

__all__ = ["SprtStop", "sprt_stop"]


class SprtStop(Output):
    def __init__(self, run: RunView, context: OutputContext):
        self.run, self.console = run, context.console

    def start(self, stored: StoredGames) -> None:
        if self.run.decided:
            ids = ", ".join(self.run.match_ids)
            self.console.print(f"SPRT already decided for {ids}: nothing to play")

    def stop(self) -> bool:
        return self.run.decided


def sprt_stop(context: OutputContext) -> Output:
    return SprtStop(context.run, context)
