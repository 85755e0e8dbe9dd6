"""The simulation testing kit: scripted teams, transcripts, and a pytest fixture.

Kept out of ``import autobyteus_like``; import it from tests.
"""

from autobyteus_like.testing._simulation import SimulatedTeam, scripted_team
from autobyteus_like.testing._transcript import Transcript

__all__ = ["SimulatedTeam", "Transcript", "scripted_team"]
