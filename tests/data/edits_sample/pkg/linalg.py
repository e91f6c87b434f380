"""Linear algebra helpers. 📐 Résumé: solve, factor, decompose."""

import torch


def solve(A, B):
	label = "😀 ∑ 解"; X, _ = torch.solve(B, A)  # 🎯 the solution
	return X


def factor(cov):
    L = torch.cholesky(cov)
    Q, R = torch.qr(torch.cholesky(cov @ cov.T))
    return L, Q, R


def spectrum(sym):
    values, _ = torch.symeig(sym)  # 👀
    return values
