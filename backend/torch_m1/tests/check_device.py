"""Move tensors to privateuseone, run m1's kernels, ATen's CPU kernels
on the device's memory, the CPU fallback and views; compare every result
with the same computation on the CPU. Prints the SIMD path last:
"isa <name>". Exit status 0 only if everything matched."""
import os
import sys

import torch
import torch_m1


def same(name, got, want):
    if got.device.type != "privateuseone":
        sys.exit(f"{name}: result on {got.device}, not privateuseone")
    if not torch.equal(got.cpu(), want):
        sys.exit(f"{name}: differs from the CPU result:\n{got.cpu()}\n{want}")
    print(f"ok {name}")


dev = torch_m1.device
torch.manual_seed(1)
a = torch.randn(4, 37)
b = torch.randn(4, 37)
da, db = a.to(dev), b.to(dev)
if da.device != torch.device("privateuseone", 0):
    sys.exit(f"to(): tensor on {da.device}")

torch_m1.reset_counters()
same("add (m1)", da + db, a + b)
same("mul (m1)", da * db, a * b)
same("relu (m1)", torch.relu(da), torch.relu(a))
c = torch_m1.counters()
if not (c["m1_add"] == 1 and c["m1_mul"] == 1 and c["m1_relu"] == 1):
    sys.exit(f"m1 kernels not used: {c}")

# Views: share memory, and a transposed (non-contiguous) view goes to
# ATen's CPU kernel on the same memory instead of m1's.
v = da.view(2, 74)
same("view", v, a.view(2, 74))
if v.data_ptr() != da.data_ptr():
    sys.exit("view: does not share memory")
same("as_strided", da.as_strided((3, 3), (37, 1), 1), a.as_strided((3, 3), (37, 1), 1))
same("reshape of a transpose", da.t().reshape(37, 4), a.t().reshape(37, 4))
same("add of a transposed view (ATen kernel)", da.t() + db.t(), a.t() + b.t())
same("add with alpha (ATen kernel)", torch.add(da, db, alpha=2), torch.add(a, b, alpha=2))
if torch_m1.counters()["aten_cpu_kernel"] < 2:
    sys.exit(f"ATen CPU kernel path not taken: {torch_m1.counters()}")

# Operators m1 does not implement: the boxed CPU fallback.
same("sub (fallback)", da - db, a - b)
same("matmul (fallback)", da @ db.t(), a @ b.t())
same("sum (fallback)", da.sum(dim=1), a.sum(dim=1))
if torch_m1.counters()["cpu_fallback"] < 3:
    sys.exit(f"CPU fallback not taken: {torch_m1.counters()}")

print("from", os.path.dirname(torch_m1.__file__))
print("counters", torch_m1.counters())
print("isa", torch_m1.isa())
