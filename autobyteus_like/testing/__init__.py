"""The simulation testing kit: scripted teams and agents, approval policies, transcripts, and
a pytest fixture.

Kept out of ``import autobyteus_like``; import it from tests.
"""

from autobyteus_like.llm import FunctionLLM, ScriptedReply
from autobyteus_like.testing._agent import SimulatedAgent, scripted_agent
from autobyteus_like.testing._approvals import Approvals
from autobyteus_like.testing._export import export_session
from autobyteus_like.testing._outline import compare_outlines, session_outline
from autobyteus_like.testing._replay import RecordedResults, replay_export
from autobyteus_like.testing._simulation import SimulatedTeam, scripted_team
from autobyteus_like.testing._transcript import Transcript

__all__ = ["Approvals", "FunctionLLM", "RecordedResults", "ScriptedReply", "SimulatedAgent",
           "SimulatedTeam", "Transcript", "compare_outlines", "export_session", "replay_export",
           "scripted_agent", "scripted_team", "session_outline"]
