"""{{name}}: a PyTorch device backend, torch.device("privateuseone").

Importing this package imports torch, then loads the extension _C, whose
static initialisers register the device's allocator and operators for
the PrivateUse1 dispatch key:

    import torch, {{module}}
    x = torch.ones(3).to({{module}}.device)
    print((x + x).cpu())

PyTorch 2.0 added torch.utils.rename_privateuse1_backend("{{module}}"),
which lets users write device="{{module}}"; the torch this backend is
built against (Debian 12's 1.13) has no such call, so the device keeps
its name, "privateuseone". Write {{module}}.device rather than the name.
"""
import torch

from . import _C  # noqa: F401 (loading it registers the backend)

device = torch.device("privateuseone", 0)

__all__ = ["device"]
