"""Mixed-precision training step (torch 1.10 AMP), with Windows line endings."""

import torch
from torch.cuda.amp import autocast, GradScaler


def make_scaler(enabled=True):
    return GradScaler(enabled=enabled)


def train_step(model, optimizer, scaler, batch, use_cuda):
    x, y = batch
    optimizer.zero_grad()
    with autocast(enabled=use_cuda):
        loss = torch.nn.functional.cross_entropy(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    return loss.item()


def evaluate(model, batch, use_cuda):
    with torch.no_grad(), autocast(enabled=use_cuda):
        return model(batch[0]).argmax(-1)
