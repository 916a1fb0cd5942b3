"""Arithmetic and descriptive statistics on lists of numbers, computed exactly and rounded.

Every result is a plain function of the arguments, rounded to six decimals, so the same
call always gives the same text.
"""

from __future__ import annotations

import ast
import math
import operator
import statistics
from collections.abc import Callable
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from mcptrials.bundled.servers._runtime import serve

DYNAMISM = "static"
CATEGORY = "math"
DESCRIPTION = "Calculator and statistics: mean, median, spread, percentiles, correlation, regression."

mcp = MCPServer("mathstats", log_level="WARNING")

Numbers = Annotated[list[float], Field(min_length=1, max_length=10000, description="The data values")]
Pairs = Annotated[list[float], Field(min_length=2, max_length=10000)]
Kind = Annotated[Literal["sample", "population"],
                 Field(description="'sample' divides by n-1, 'population' by n")]


def _r(value: float) -> float:
    """Round for display; turn -0.0 into 0.0."""
    if math.isnan(value) or math.isinf(value):
        raise ToolError("the result is not a finite number")
    out = round(value, 6)
    return 0.0 if out == 0 else out


# --------------------------------------------------------------------------- expressions

BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
}
UNARY: dict[type, Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}
FUNCTIONS: dict[str, Callable[..., float]] = {
    "sqrt": math.sqrt, "log": math.log, "log10": math.log10, "log2": math.log2, "exp": math.exp,
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "abs": abs, "round": round, "min": min,
    "max": max, "floor": math.floor, "ceil": math.ceil,
}
CONSTANTS = {"pi": math.pi, "e": math.e}


def _eval(node: ast.AST) -> float:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if (isinstance(node, ast.Constant) and isinstance(node.value, int | float)
            and not isinstance(node.value, bool)):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow) and (abs(right) > 1000 or abs(left) > 1e100):
            raise ToolError("exponent too large")
        return BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and type(node.op) in UNARY:
        return UNARY[type(node.op)](_eval(node.operand))
    if isinstance(node, ast.Name) and node.id in CONSTANTS:
        return CONSTANTS[node.id]
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTIONS
            and not node.keywords):
        return FUNCTIONS[node.func.id](*[_eval(a) for a in node.args])
    raise ToolError(f"unsupported syntax in expression: {ast.dump(node)[:60]}")


@mcp.tool()
def evaluate(
    expression: Annotated[str, Field(max_length=500, description="e.g. '(3 + 4) * 2 / sqrt(16)'")],
) -> dict[str, Any]:
    """Evaluate an arithmetic expression.

    Supports + - * / // % ** and parentheses, the constants pi and e, and the functions
    sqrt, log (natural), log10, log2, exp, sin, cos, tan, abs, round, min, max, floor and ceil.
    Variables, attribute access and any other Python syntax are rejected.
    """
    try:
        tree = ast.parse(expression.replace("^", "**"), mode="eval")
        value = _eval(tree)
    except ToolError:
        raise
    except (SyntaxError, ZeroDivisionError, ValueError, OverflowError, TypeError) as exc:
        raise ToolError(f"cannot evaluate {expression!r}: {exc}") from None
    return {"expression": expression, "result": _r(float(value))}


# --------------------------------------------------------------------------- statistics


@mcp.tool()
def mean(values: Numbers) -> dict[str, Any]:
    """Arithmetic mean (average) of the values."""
    return {"count": len(values), "mean": _r(statistics.fmean(values))}


@mcp.tool()
def weighted_mean(
    values: Numbers,
    weights: Annotated[list[float], Field(min_length=1, description="One non-negative weight per value")],
) -> dict[str, Any]:
    """Weighted average: sum(value * weight) / sum(weights)."""
    if len(weights) != len(values):
        raise ToolError(f"got {len(values)} values but {len(weights)} weights")
    if any(w < 0 for w in weights) or sum(weights) == 0:
        raise ToolError("weights must be non-negative and not all zero")
    return {"count": len(values), "weighted_mean": _r(sum(v * w for v, w in zip(values, weights, strict=True))
                                                       / sum(weights))}


@mcp.tool()
def median(values: Numbers) -> dict[str, Any]:
    """Median: the middle value after sorting (the mean of the two middle values for an even count)."""
    return {"count": len(values), "median": _r(statistics.median(values))}


@mcp.tool()
def mode(values: Numbers) -> dict[str, Any]:
    """Most frequent value(s)."""
    modes = statistics.multimode(values)
    return {"count": len(values), "modes": sorted(_r(m) for m in modes),
            "frequency": values.count(modes[0])}


@mcp.tool()
def stdev(values: Pairs, kind: Kind = "sample") -> dict[str, Any]:
    """Standard deviation of the values (square root of the variance)."""
    value = statistics.stdev(values) if kind == "sample" else statistics.pstdev(values)
    return {"count": len(values), "kind": kind, "stdev": _r(value)}


@mcp.tool()
def variance(values: Pairs, kind: Kind = "sample") -> dict[str, Any]:
    """Variance of the values: the mean squared deviation from the mean."""
    value = statistics.variance(values) if kind == "sample" else statistics.pvariance(values)
    return {"count": len(values), "kind": kind, "variance": _r(value)}


def _percentile(values: list[float], q: float, method: str) -> float:
    data = sorted(values)
    position = (len(data) - 1) * q / 100
    low, high = math.floor(position), math.ceil(position)
    if method == "lower":
        return data[low]
    if method == "higher":
        return data[high]
    if method == "nearest":
        return data[round(position)]
    if method == "midpoint":
        return (data[low] + data[high]) / 2
    return data[low] + (data[high] - data[low]) * (position - low)


@mcp.tool()
def percentile(
    values: Numbers,
    q: Annotated[float, Field(ge=0, le=100, description="Percentile between 0 and 100, e.g. 90")],
    method: Annotated[
        Literal["linear", "lower", "higher", "nearest", "midpoint"],
        Field(description="How to pick between the two closest ranks"),
    ] = "linear",
) -> dict[str, Any]:
    """The q-th percentile of the values (q=50 is the median, q=25 and 75 the quartiles).

    With method 'linear' the value is interpolated between the two closest ranks, as most
    spreadsheet programs do; the other methods pick a rank instead of interpolating.
    """
    return {"count": len(values), "q": q, "method": method, "percentile": _r(_percentile(values, q, method))}


def _ranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def _pearson(x: list[float], y: list[float]) -> float:
    mx, my = statistics.fmean(x), statistics.fmean(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx == 0 or syy == 0:
        raise ToolError("correlation is undefined when one series is constant")
    return sxy / math.sqrt(sxx * syy)


def _paired(x: list[float], y: list[float]) -> None:
    if len(x) != len(y):
        raise ToolError(f"x has {len(x)} values but y has {len(y)}; they must pair up")


@mcp.tool()
def correlation(
    x: Pairs,
    y: Pairs,
    method: Literal["pearson", "spearman"] = "pearson",
) -> dict[str, Any]:
    """Correlation coefficient between two equally long lists of numbers (-1 to 1)."""
    _paired(x, y)
    value = _pearson(x, y) if method == "pearson" else _pearson(_ranks(x), _ranks(y))
    return {"n": len(x), "method": method, "correlation": _r(value)}


@mcp.tool()
def linear_regression(
    x: Annotated[list[float], Field(min_length=2, description="Explanatory values")],
    y: Annotated[list[float], Field(min_length=2, description="Values to predict, same length as x")],
    predict_at: Annotated[list[float] | None, Field(description="Optional x values to predict y for")] = None,
) -> dict[str, Any]:
    """Least-squares line y = slope * x + intercept, with R squared and optional predictions."""
    _paired(x, y)
    mx, my = statistics.fmean(x), statistics.fmean(y)
    sxx = sum((a - mx) ** 2 for a in x)
    if sxx == 0:
        raise ToolError("all x values are equal; the slope is undefined")
    slope = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True)) / sxx
    intercept = my - slope * mx
    ss_tot = sum((b - my) ** 2 for b in y)
    ss_res = sum((b - (slope * a + intercept)) ** 2 for a, b in zip(x, y, strict=True))
    result: dict[str, Any] = {"n": len(x), "slope": _r(slope), "intercept": _r(intercept),
                              "r_squared": _r(1 - ss_res / ss_tot) if ss_tot else 1.0}
    if predict_at:
        result["predictions"] = [{"x": p, "y": _r(slope * p + intercept)} for p in predict_at]
    return result


@mcp.tool()
def summarize(values: Numbers) -> dict[str, Any]:
    """Summary statistics in one call: count, sum, min, max, mean, median, quartiles, sample stdev."""
    return {
        "count": len(values), "sum": _r(math.fsum(values)), "min": _r(min(values)), "max": _r(max(values)),
        "mean": _r(statistics.fmean(values)), "median": _r(statistics.median(values)),
        "q1": _r(_percentile(values, 25, "linear")), "q3": _r(_percentile(values, 75, "linear")),
        "stdev": _r(statistics.stdev(values)) if len(values) > 1 else 0.0,
    }


@mcp.tool()
def zscores(values: Pairs) -> dict[str, Any]:
    """Standard scores: how many sample standard deviations each value lies from the mean."""
    m, s = statistics.fmean(values), statistics.stdev(values)
    if s == 0:
        raise ToolError("all values are equal; z-scores are undefined")
    return {"mean": _r(m), "stdev": _r(s), "zscores": [_r((v - m) / s) for v in values]}


@mcp.tool()
def percent_change(old: float, new: float) -> dict[str, Any]:
    """Percentage change from old to new."""
    if old == 0:
        raise ToolError("the old value is zero; percentage change is undefined")
    return {"old": old, "new": new, "change": _r(new - old),
            "percent_change": _r((new - old) / abs(old) * 100)}


@mcp.tool()
def cagr(
    start_value: Annotated[float, Field(gt=0)],
    end_value: Annotated[float, Field(gt=0)],
    years: Annotated[float, Field(gt=0, le=200)],
) -> dict[str, Any]:
    """Compound annual growth rate between two values a number of years apart, in percent."""
    rate = (end_value / start_value) ** (1 / years) - 1
    return {"start_value": start_value, "end_value": end_value, "years": years,
            "cagr_percent": _r(rate * 100)}


if __name__ == "__main__":
    serve(mcp)
