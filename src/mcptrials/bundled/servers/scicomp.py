"""Small-matrix linear algebra on named tensors kept for the session.

Tensors are vectors or matrices of floats stored under a name, in ``scicomp/tensors.json``
inside the sandbox, so two episodes never see each other's tensors and what an episode left
behind can be checked. Everything is pure Python: it is meant for matrices up to about 20x20.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from mcptrials.bundled.servers._runtime import serve
from mcptrials.bundled.servers._workspace import read_state, write_state

DYNAMISM = "stateful_write"
CATEGORY = "science"
DESCRIPTION = "Named vectors and matrices: products, inverse, determinant, eigenvalues, solving."

mcp = MCPServer("scicomp", log_level="WARNING",
                instructions="Create tensors by name first, then refer to them by name in later calls.")

Matrix = list[list[float]]
Name = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,31}$", description="Tensor name, e.g. 'A'")]
EPS = 1e-12
STATE = "scicomp/tensors.json"


def _store() -> dict[str, dict[str, Any]]:
    store: dict[str, dict[str, Any]] = read_state(STATE, dict)
    return store


def _clean(x: float) -> float:
    out = round(x, 10)
    return 0.0 if out == 0 else out


def _shape(data: Any) -> list[int]:
    return [len(data), len(data[0])] if data and isinstance(data[0], list) else [len(data)]


def _describe(name: str, tensor: dict[str, Any]) -> dict[str, Any]:
    data = tensor["data"]
    shown = [[_clean(x) for x in row] for row in data] if tensor["shape"].__len__() == 2 else [
        _clean(x) for x in data]
    return {"name": name, "shape": tensor["shape"], "data": shown}


def _put(name: str, data: Any) -> dict[str, Any]:
    tensor = {"shape": _shape(data), "data": data}
    store = _store()
    store[name] = tensor
    write_state(STATE, store)
    return _describe(name, tensor)


def _get(name: str) -> dict[str, Any]:
    tensor = _store().get(name)
    if tensor is None:
        known = ", ".join(sorted(_store())) or "none"
        raise ToolError(f"no tensor named {name!r} (existing: {known}); create it with create_tensor")
    return tensor


def _matrix(name: str, *, square: bool = False) -> Matrix:
    tensor = _get(name)
    if len(tensor["shape"]) != 2:
        raise ToolError(f"{name!r} is a vector of length {tensor['shape'][0]}, a matrix is needed")
    rows, cols = tensor["shape"]
    if square and rows != cols:
        raise ToolError(f"{name!r} is {rows}x{cols}; this operation needs a square matrix")
    return [list(r) for r in tensor["data"]]


def _check_result_name(result: str | None) -> None:
    if result is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,31}", result):
        raise ToolError(f"invalid result name {result!r}")


def _lu(a: Matrix) -> tuple[Matrix, list[int], int]:
    """LU decomposition with partial pivoting, in place on a copy; returns (lu, perm, sign)."""
    n = len(a)
    lu = [row[:] for row in a]
    perm, sign = list(range(n)), 1
    for k in range(n):
        pivot = max(range(k, n), key=lambda i: abs(lu[i][k]))
        if abs(lu[pivot][k]) < EPS:
            raise ToolError("the matrix is singular (determinant 0)")
        if pivot != k:
            lu[k], lu[pivot] = lu[pivot], lu[k]
            perm[k], perm[pivot] = perm[pivot], perm[k]
            sign = -sign
        for i in range(k + 1, n):
            lu[i][k] /= lu[k][k]
            for j in range(k + 1, n):
                lu[i][j] -= lu[i][k] * lu[k][j]
    return lu, perm, sign


def _solve_lu(lu: Matrix, perm: list[int], b: list[float]) -> list[float]:
    n = len(lu)
    y = [b[perm[i]] for i in range(n)]
    for i in range(n):
        y[i] -= sum(lu[i][j] * y[j] for j in range(i))
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - sum(lu[i][j] * x[j] for j in range(i + 1, n))) / lu[i][i]
    return x


def _det(a: Matrix) -> float:
    try:
        lu, _perm, sign = _lu(a)
    except ToolError:
        return 0.0
    return sign * math.prod(lu[i][i] for i in range(len(a)))


def _matmul(a: Matrix, b: Matrix) -> Matrix:
    return [[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


def _qr(a: Matrix) -> tuple[Matrix, Matrix]:
    """Householder-free QR by modified Gram-Schmidt (fine for small, well-conditioned matrices)."""
    n = len(a)
    q = [[0.0] * n for _ in range(n)]
    r = [[0.0] * n for _ in range(n)]
    cols = [[a[i][j] for i in range(n)] for j in range(n)]
    for j in range(n):
        v = cols[j][:]
        for k in range(j):
            qk = [q[i][k] for i in range(n)]
            r[k][j] = sum(qk[i] * v[i] for i in range(n))
            v = [v[i] - r[k][j] * qk[i] for i in range(n)]
        norm = math.sqrt(sum(x * x for x in v))
        r[j][j] = norm
        for i in range(n):
            q[i][j] = v[i] / norm if norm > EPS else (1.0 if i == j else 0.0)
    return q, r


def _eig_2x2(a: float, b: float, c: float, d: float) -> list[complex]:
    tr, det = a + d, a * d - b * c
    disc = tr * tr / 4 - det
    if disc >= 0:
        root = math.sqrt(disc)
        return [complex(tr / 2 + root), complex(tr / 2 - root)]
    root = math.sqrt(-disc)
    return [complex(tr / 2, root), complex(tr / 2, -root)]


def _eigenvalues(a: Matrix) -> list[complex]:
    """Eigenvalues by the shifted QR algorithm with deflation; complex pairs from 2x2 blocks."""
    h = [row[:] for row in a]
    found: list[complex] = []
    m = len(h)
    steps = 0
    while m > 0:
        if m == 1:
            found.append(complex(h[0][0]))
            break
        scale = sum(abs(h[i][j]) for i in range(m) for j in range(m)) or 1.0
        if sum(abs(h[m - 1][j]) for j in range(m - 1)) < 1e-12 * scale:
            found.append(complex(h[m - 1][m - 1]))
            m, steps = m - 1, 0
            continue
        block_free = m == 2 or sum(abs(h[i][j]) for i in (m - 2, m - 1) for j in range(m - 2)) < 1e-12 * scale
        if block_free and (steps > 60 or m == 2):
            found += _eig_2x2(h[m - 2][m - 2], h[m - 2][m - 1], h[m - 1][m - 2], h[m - 1][m - 1])
            m, steps = m - 2, 0
            continue
        if steps > 3000:
            raise ToolError("the eigenvalue iteration did not converge")
        pair = _eig_2x2(h[m - 2][m - 2], h[m - 2][m - 1], h[m - 1][m - 2], h[m - 1][m - 1])
        shift = min(pair, key=lambda z: abs(z - h[m - 1][m - 1])).real
        if steps and steps % 500 == 0:
            shift += 0.5 * scale / m  # exceptional shift to break cycles
        sub = [[h[i][j] - (shift if i == j else 0.0) for j in range(m)] for i in range(m)]
        q, r = _qr(sub)
        rq = _matmul(r, q)
        for i in range(m):
            for j in range(m):
                h[i][j] = rq[i][j] + (shift if i == j else 0.0)
        steps += 1
    return sorted(found, key=lambda z: (-round(z.real, 9), -round(z.imag, 9)))


def _is_symmetric(a: Matrix) -> bool:
    return all(abs(a[i][j] - a[j][i]) < 1e-12 for i in range(len(a)) for j in range(i))


# --------------------------------------------------------------------------- tools


@mcp.tool()
def create_tensor(
    name: Name,
    values: Annotated[
        list[list[float]] | list[float],
        Field(description="A vector [1, 2, 3] or a matrix given as rows [[1, 2], [3, 4]]"),
    ],
    overwrite: bool = False,
) -> dict[str, Any]:
    """Store a vector or matrix under a name so later calls can use it."""
    if name in _store() and not overwrite:
        raise ToolError(f"a tensor named {name!r} already exists; pass overwrite=true to replace it")
    if not values:
        raise ToolError("values must not be empty")
    if isinstance(values[0], list):
        width = len(values[0])
        if width == 0 or any(not isinstance(r, list) or len(r) != width for r in values):
            raise ToolError("every row of a matrix must have the same, non-zero length")
        if len(values) > 20 or width > 20:
            raise ToolError("matrices are limited to 20x20")
        data: Any = [[float(x) for x in row] for row in values]
    else:
        if len(values) > 400:
            raise ToolError("vectors are limited to 400 entries")
        data = [float(x) for x in values]
    return {"created": _put(name, data)}


@mcp.tool()
def create_identity(name: Name, size: Annotated[int, Field(ge=1, le=20)]) -> dict[str, Any]:
    """Identity matrix of the given size."""
    if name in _store():
        raise ToolError(f"a tensor named {name!r} already exists")
    return {"created": _put(name, [[1.0 if i == j else 0.0 for j in range(size)] for i in range(size)])}


@mcp.tool()
def list_tensors() -> dict[str, Any]:
    """Names and shapes of all stored tensors."""
    return {"tensors": [{"name": n, "shape": t["shape"]} for n, t in sorted(_store().items())]}


@mcp.tool()
def get_tensor(name: str) -> dict[str, Any]:
    """Return a stored tensor's shape and values."""
    return _describe(name, _get(name))


@mcp.tool()
def delete_tensor(name: str) -> dict[str, Any]:
    """Remove a stored tensor. This cannot be undone."""
    _get(name)
    store = _store()
    del store[name]
    write_state(STATE, store)
    return {"deleted": name, "remaining": sorted(store)}


@mcp.tool()
def matmul(
    a: Annotated[str, Field(description="Name of the left matrix")],
    b: Annotated[str, Field(description="Name of the right matrix or vector")],
    result: Annotated[str | None, Field(description="Store the product under this name")] = None,
) -> dict[str, Any]:
    """Matrix product a @ b (a matrix times a matrix, or a matrix times a vector)."""
    _check_result_name(result)
    left = _matrix(a)
    right_t = _get(b)
    vector = len(right_t["shape"]) == 1
    right = [[x] for x in right_t["data"]] if vector else [list(r) for r in right_t["data"]]
    if len(left[0]) != len(right):
        raise ToolError(f"shapes do not align: {a} is {len(left)}x{len(left[0])}, {b} has {len(right)} rows")
    product = _matmul(left, right)
    data: Any = [row[0] for row in product] if vector else product
    if result:
        return {"stored_as": result, **_put(result, data)}
    return _describe("(product)", {"shape": _shape(data), "data": data})


@mcp.tool()
def transpose(name: str, result: str | None = None) -> dict[str, Any]:
    """Transpose of a matrix (rows become columns)."""
    _check_result_name(result)
    m = _matrix(name)
    data = [list(col) for col in zip(*m, strict=True)]
    if result:
        return {"stored_as": result, **_put(result, data)}
    return _describe(f"{name}^T", {"shape": _shape(data), "data": data})


@mcp.tool()
def inverse(
    name: Annotated[str, Field(description="Name of a square, non-singular matrix")],
    result: Annotated[str | None, Field(description="Store the inverse under this name")] = None,
) -> dict[str, Any]:
    """Inverse of a square matrix, computed by LU decomposition with partial pivoting.

    Fails with an explanation when the matrix is singular. Pass ``result`` to keep the
    inverse for later calls; otherwise it is only returned.
    """
    _check_result_name(result)
    m = _matrix(name, square=True)
    lu, perm, _sign = _lu(m)
    n = len(m)
    columns = [_solve_lu(lu, perm, [1.0 if i == j else 0.0 for i in range(n)]) for j in range(n)]
    data = [[columns[j][i] for j in range(n)] for i in range(n)]
    if result:
        return {"stored_as": result, **_put(result, data)}
    return _describe(f"inverse({name})", {"shape": [n, n], "data": data})


@mcp.tool()
def determinant(name: str) -> dict[str, Any]:
    """Determinant of a square matrix."""
    return {"name": name, "determinant": _clean(_det(_matrix(name, square=True)))}


@mcp.tool()
def eigenvalues(name: str) -> dict[str, Any]:
    """Eigenvalues of a square matrix, largest real part first; complex ones come as real/imag pairs."""
    m = _matrix(name, square=True)
    values = _eigenvalues(m)
    out = []
    for z in values:
        if abs(z.imag) < 1e-9:
            out.append({"real": round(z.real, 6) + 0.0, "imag": 0.0})
        else:
            out.append({"real": round(z.real, 6) + 0.0, "imag": round(z.imag, 6) + 0.0})
    return {"name": name, "symmetric": _is_symmetric(m), "eigenvalues": out,
            "trace": _clean(sum(m[i][i] for i in range(len(m))))}


@mcp.tool()
def solve_linear_system(
    a: Annotated[str, Field(description="Name of the square coefficient matrix A")],
    b: Annotated[str, Field(description="Name of the right-hand-side vector b")],
    result: Annotated[str | None, Field(description="Store the solution x under this name")] = None,
) -> dict[str, Any]:
    """Solve A x = b for x."""
    _check_result_name(result)
    m = _matrix(a, square=True)
    rhs = _get(b)
    if len(rhs["shape"]) != 1:
        if rhs["shape"][1] != 1:
            raise ToolError(f"{b!r} must be a vector (or an n x 1 matrix)")
        vector = [row[0] for row in rhs["data"]]
    else:
        vector = list(rhs["data"])
    if len(vector) != len(m):
        raise ToolError(f"{a} is {len(m)}x{len(m)} but {b} has {len(vector)} entries")
    lu, perm, _sign = _lu(m)
    x = _solve_lu(lu, perm, vector)
    if result:
        return {"stored_as": result, **_put(result, x)}
    return _describe("x", {"shape": [len(x)], "data": x})


@mcp.tool()
def norm(name: str, kind: Literal["euclidean", "frobenius", "max", "l1"] = "euclidean") -> dict[str, Any]:
    """Size of a vector or matrix: euclidean (same as frobenius for matrices), max-abs or l1 norm."""
    tensor = _get(name)
    flat = [x for row in tensor["data"] for x in row] if len(tensor["shape"]) == 2 else list(tensor["data"])
    if kind in ("euclidean", "frobenius"):
        value = math.sqrt(sum(x * x for x in flat))
    elif kind == "max":
        value = max(abs(x) for x in flat)
    else:
        value = sum(abs(x) for x in flat)
    return {"name": name, "kind": kind, "norm": _clean(value)}


if __name__ == "__main__":
    serve(mcp)
