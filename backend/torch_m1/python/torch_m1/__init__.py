"""torch_m1: the m1 device backend for PyTorch, as torch.device("privateuseone").

Importing this package imports torch, then loads the extension, whose
static initialisers register m1's allocator, device guard and kernels
for the PrivateUse1 dispatch key.
"""
import torch

from . import _C

device = torch.device("privateuseone", 0)


def isa():
    """The m1 kernel table this CPU runs: avx2, sse2 or neon."""
    return _C.isa()


def counters():
    """Calls so far to m1 kernels, ATen CPU kernels and the CPU fallback."""
    return _C.counters()


def reset_counters():
    _C.reset_counters()


__all__ = ["device", "isa", "counters", "reset_counters"]
