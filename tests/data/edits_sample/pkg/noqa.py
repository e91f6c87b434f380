"""Suppression comments, some of which do nothing: fixes on their lines too."""
import torch


def solve(A, B):
    Q, R = torch.qr(A)  # noqa: TU999, E501
    w = torch.symeig(A, eigenvectors=True)  # torch-upgrade: ignore[TU204]  # kept as it was
    # torch-upgrade: ignore[TU9999]
    return torch.solve(B, A)[0], Q, R, w  # torch-upgrade: ignore[TU201]
