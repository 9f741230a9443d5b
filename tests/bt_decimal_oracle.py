"""A high-precision oracle for the Bradley-Terry fit: Newton's method on the same (penalised) log-likelihood in
``decimal`` arithmetic (60 digits), written from the definitions in pref_eval/zelo/fit.py's module docstring
(Bradley & Terry 1952; the prior's virtual games; SEs from the inverse Fisher information, centred).

``oracle(n, edges, prior)``: ``edges`` lists (u, v, w_uv, w_vu) -- the weight of u beating v and of v beating u,
as floats (the pair weights the fit aggregates, so that only the optimisation is compared). Returns the centred
scores and their SEs as Decimals. With ``prior == 0`` the documents must form one strongly connected component.
"""
from __future__ import annotations

from decimal import Decimal as D
from decimal import localcontext


def _solve(A, b):
    n = len(b)
    M = [row[:] + [b[i]] for i, row in enumerate(A)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(M[r][c]))
        M[c], M[p] = M[p], M[c]
        for r in range(n):
            if r != c and M[r][c] != 0:
                f = M[r][c] / M[c][c]
                M[r] = [M[r][k] - f * M[c][k] for k in range(n + 1)]
    return [M[i][n] / M[i][i] for i in range(n)]


def _inverse(A):
    n = len(A)
    cols = [_solve(A, [D(1) if i == j else D(0) for i in range(n)]) for j in range(n)]
    return [[cols[j][i] for j in range(n)] for i in range(n)]


def _sig(t):
    return 1 / (1 + (-t).exp())


def _grad_hess(W, pr, x):
    n = len(x)
    g = [D(0)] * n
    H = [[D(0)] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            nij = W[i][j] + W[j][i]
            if i == j or nij == 0:
                continue
            p = _sig(x[i] - x[j])
            g[i] += W[i][j] * (1 - p) - W[j][i] * p
            h = nij * p * (1 - p)
            H[i][i] += h
            H[i][j] -= h
        if pr > 0:
            sx = _sig(x[i])
            g[i] += pr * (1 - 2 * sx)
            H[i][i] += 2 * pr * sx * (1 - sx)
    return g, H


def _loglik(W, pr, x):
    t = D(0)
    for i in range(len(x)):
        for j in range(len(x)):
            if W[i][j]:
                t -= W[i][j] * (1 + (x[j] - x[i]).exp()).ln()
        if pr > 0:
            t -= pr * ((1 + (-x[i]).exp()).ln() + (1 + x[i].exp()).ln())
    return t


def _newton(W, pr, n, digits):
    x = [D(0)] * n
    for _ in range(200):
        g, H = _grad_hess(W, pr, x)
        step = _solve([[H[i][j] + (D(1) / n if pr == 0 else 0) for j in range(n)] for i in range(n)], g)
        t, f0 = D(1), _loglik(W, pr, x)
        while True:  # backtracking, for the first steps
            xn = [x[i] + t * step[i] for i in range(n)]
            if _loglik(W, pr, xn) >= f0 - D(10) ** -(digits - 8) * (1 + abs(f0)) or t < D(10) ** -30:
                break
            t /= 2
        x = xn
        if max(abs(s) for s in step) < D(10) ** -(digits - 15):
            return x
    raise RuntimeError("the oracle did not converge")


def oracle(n: int, edges, prior: float, digits: int = 60):
    with localcontext() as ctx:
        ctx.prec = digits
        W = [[D(0)] * n for _ in range(n)]
        for u, v, wuv, wvu in edges:
            W[u][v] += D(wuv)
            W[v][u] += D(wvu)
        pr = D(prior)
        # prior 0: the MLE does not depend on the weights' scale; fitted with the largest weight 1, SEs scaled back
        c = max(max(r) for r in W) if prior == 0 else D(1)
        W = [[wij / c for wij in r] for r in W]
        x = _newton(W, pr, n, digits)
        _, H = _grad_hess(W, pr, x)
        if prior == 0:
            Hi = _inverse([[H[i][j] + D(1) / n for j in range(n)] for i in range(n)])
            cov = [Hi[i][i] - D(1) / n for i in range(n)]
        else:  # C H^-1 C, C = I - 11'/n
            Hi = _inverse(H)
            rows = [sum(r) for r in Hi]
            tot = sum(rows)
            cov = [Hi[i][i] - 2 * rows[i] / n + tot / n / n for i in range(n)]
        m = sum(x) / n
        return [xi - m for xi in x], [(v / c).sqrt() for v in cov]
