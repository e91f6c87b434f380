# -*- coding: latin-1 -*-
"""Spectral features (déjà vu: the 1.7 FFT API)."""
import torch


def features(signal):
    spec = torch.rfft(signal, 1, onesided=True)  # café
    back = torch.irfft(spec, 1, signal_sizes=signal.shape[-1:])
    return spec, back