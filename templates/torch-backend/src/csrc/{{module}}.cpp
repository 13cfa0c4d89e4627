/*
 * {{module}}._C: the C++ half of {{name}}, a PyTorch 1.13 device on the
 * PrivateUse1 dispatch key, torch.device("privateuseone").
 *
 * The device's memory is host memory; what makes it a device is that its
 * tensors carry the PrivateUse1 key, so each operator on them dispatches
 * to what is registered here, and to nothing else:
 *   - an allocator, and a device guard (one device, nothing to switch);
 *   - the factories torch.empty and tensor.to() call: empty.memory_format
 *     and empty_strided;
 *   - _copy_from, where copies between the CPU and the device end
 *     (tensor.to("privateuseone"), tensor.cpu(), contiguous());
 *   - one compute operator, add.Tensor, on the device.
 * Any other operator on a device tensor raises NotImplementedError,
 * naming it: register it below (TORCH_LIBRARY_IMPL) when you need it.
 *
 * Loading this module runs the registrations (static initialisers); the
 * Python module itself has no functions. It uses CPython's C API, not
 * pybind11, so it needs libc10 and libtorch_cpu only.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <c10/core/Allocator.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/core/impl/alloc_cpu.h>
#include <torch/library.h>

namespace {

constexpr c10::DeviceType kDevice = c10::DeviceType::PrivateUse1;
const c10::DispatchKeySet device_keys(c10::DispatchKey::PrivateUse1);

/* ----------------------------------------------------- allocator, guard */

void device_free(void *p)
{
	c10::free_cpu(p);
}

/* A real device allocates its own memory here (and frees it above). */
struct DeviceAllocator final : at::Allocator {
	at::DataPtr allocate(size_t nbytes) const override
	{
		void *data = nbytes ? c10::alloc_cpu(nbytes) : nullptr;
		return {data, data, &device_free, at::Device(kDevice, 0)};
	}
	at::DeleterFnPtr raw_deleter() const override
	{
		return &device_free;
	}
};

DeviceAllocator allocator;
REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &allocator);
C10_REGISTER_GUARD_IMPL(PrivateUse1,
			c10::impl::NoOpDeviceGuardImpl<c10::DeviceType::PrivateUse1>);

/* ----------------------------------------------------------- factories */

at::Tensor device_empty(c10::SymIntArrayRef size,
			c10::optional<at::ScalarType> dtype,
			c10::optional<at::Layout> layout,
			c10::optional<at::Device> device,
			c10::optional<bool> pin_memory,
			c10::optional<at::MemoryFormat> memory_format)
{
	(void)layout, (void)device, (void)pin_memory;
	return at::detail::empty_generic(c10::asIntArrayRefSlow(size),
					 &allocator, device_keys,
					 c10::dtype_or_default(dtype),
					 memory_format);
}

at::Tensor device_empty_strided(c10::SymIntArrayRef size,
				c10::SymIntArrayRef stride,
				c10::optional<at::ScalarType> dtype,
				c10::optional<at::Layout> layout,
				c10::optional<at::Device> device,
				c10::optional<bool> pin_memory)
{
	(void)layout, (void)device, (void)pin_memory;
	return at::detail::empty_strided_generic(
		c10::asIntArrayRefSlow(size), c10::asIntArrayRefSlow(stride),
		&allocator, device_keys, c10::dtype_or_default(dtype));
}

/* --------------------------------------------------------------- copies */

/* The same memory seen as a CPU tensor: the device's memory is the host's. */
at::Tensor host_view(const at::Tensor &t)
{
	if (t.device().type() != kDevice)
		return t;
	return at::from_blob(t.data_ptr(), t.sizes(), t.strides(),
			     t.options().device(at::kCPU));
}

/* src into dst: CPU to device, device to CPU, or device to device. */
at::Tensor device_copy_from(const at::Tensor &src, const at::Tensor &dst,
			    bool non_blocking)
{
	(void)non_blocking;
	TORCH_CHECK(src.device().type() == kDevice || src.is_cpu(),
		    "{{module}}: cannot copy from ", src.device());
	TORCH_CHECK(dst.device().type() == kDevice || dst.is_cpu(),
		    "{{module}}: cannot copy to ", dst.device());
	host_view(dst).copy_(host_view(src));
	return dst;
}

/* ------------------------------------------------------- compute: add */

/* self + alpha * other, for float32 device tensors of one shape. */
at::Tensor device_add(const at::Tensor &self, const at::Tensor &other,
		      const at::Scalar &alpha)
{
	TORCH_CHECK(self.device().type() == kDevice &&
			    other.device().type() == kDevice,
		    "{{module}}: add: both operands must be on privateuseone, got ",
		    self.device(), " and ", other.device());
	TORCH_CHECK(self.scalar_type() == at::kFloat &&
			    other.scalar_type() == at::kFloat,
		    "{{module}}: add: only float32 is implemented, got ",
		    self.scalar_type(), " and ", other.scalar_type());
	TORCH_CHECK(self.sizes() == other.sizes(),
		    "{{module}}: add: the shapes differ: ", self.sizes(),
		    " and ", other.sizes());

	at::Tensor a = self.contiguous(), b = other.contiguous();
	at::Tensor out = at::empty(a.sizes(), a.options());
	const float *pa = a.data_ptr<float>(), *pb = b.data_ptr<float>();
	float *po = out.data_ptr<float>();
	const float k = alpha.to<float>();

	for (int64_t i = 0, n = out.numel(); i < n; i++)
		po[i] = pa[i] + k * pb[i];
	return out;
}

} // namespace

/* Each aten operator this device implements, by its schema name. */
TORCH_LIBRARY_IMPL(aten, PrivateUse1, m)
{
	m.impl("empty.memory_format", &device_empty);
	m.impl("empty_strided", &device_empty_strided);
	m.impl("_copy_from", &device_copy_from);
	m.impl("add.Tensor", &device_add);
}

/* -------------------------------------------------------- Python module */

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT,
	"{{module}}._C",
	"Registers the {{name}} backend on PrivateUse1 as it loads.",
	-1,
	nullptr,
	nullptr,
	nullptr,
	nullptr,
	nullptr,
};

PyMODINIT_FUNC PyInit__C(void)
{
	return PyModule_Create(&module);
}
