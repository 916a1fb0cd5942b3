"""Model-based judges that run after the deterministic Tier-1 verdict, only where no rule decides.

One module per judge behind one small protocol (``base.Judge``): Tier-2 effect equivalence,
key points, the shuffled rubric, and error types. ``agreement`` measures any scorer against
labels; ``labels/`` ships a reviewed label set so ``mcptrials agree`` runs out of the box.
"""

from mcptrials.judges.base import JUDGE_ERROR, Judge, JudgeModel, build_judges, judge_factories

__all__ = ["JUDGE_ERROR", "Judge", "JudgeModel", "build_judges", "judge_factories"]
