/*
 * torch_m1: the m1 backend as a PyTorch 1.13 device, on the PrivateUse1
 * dispatch key (torch.device("privateuseone")).
 *
 * Memory is host memory; what makes it a device is that tensors carry
 * the PrivateUse1 key, so every operator dispatches here first:
 *   - allocator and device guard, registered for PrivateUse1;
 *   - factories (empty.memory_format, empty_strided), copies in and out
 *     (_copy_from, _copy_from_and_resize) and the views a user hits
 *     first (as_strided, view, _reshape_alias);
 *   - add.Tensor, mul.Tensor and relu on m1's SIMD kernels (AVX2 or
 *     SSE2 chosen at run time on x86-64, NEON on aarch64) for
 *     contiguous float32 operands of one shape; other operands of these
 *     operators run ATen's CPU kernel on the same memory;
 *   - every other operator through ATen's boxed CPU fallback.
 *
 * One translation unit on purpose: torch's headers cost ~30-60 s each.
 * The Python module uses the CPython C API, not pybind11, so the
 * extension needs libc10 and libtorch_cpu only, not libtorch_python.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <atomic>
#include <cstring>

#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <ATen/native/CPUFallback.h>
#include <ATen/ops/_reshape_alias_native.h>
#include <ATen/ops/as_strided_native.h>
#include <ATen/ops/view_native.h>
#include <c10/core/Allocator.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <c10/core/impl/alloc_cpu.h>
#include <torch/library.h>

extern "C" {
#include "kernels.h"
}

namespace {

constexpr c10::DeviceType kM1 = c10::DeviceType::PrivateUse1;

/* ------------------------------------------------------------ counters */

enum Counter { C_ADD, C_MUL, C_RELU, C_ATEN, C_FALLBACK, C_COPY, NR_COUNTERS };
const char *const counter_names[NR_COUNTERS] = {
	"m1_add", "m1_mul", "m1_relu", "aten_cpu_kernel", "cpu_fallback",
	"copy",
};
std::atomic<long> counters[NR_COUNTERS];

void count(Counter c) { counters[c].fetch_add(1, std::memory_order_relaxed); }

/* ------------------------------------------------------------- kernels */

const struct m1_kernels *choose_kernels()
{
#if defined(__x86_64__)
	if (m1_kernels_avx2.supported())
		return &m1_kernels_avx2;
	return &m1_kernels_sse2;
#elif defined(__aarch64__)
	return &m1_kernels_neon;
#else
	return &m1_kernels_scalar;
#endif
}

const struct m1_kernels *kernels()
{
	static const struct m1_kernels *k = choose_kernels();
	return k;
}

/* ----------------------------------------------------- allocator, guard */

void m1_free(void *p) { c10::free_cpu(p); }

struct M1Allocator final : at::Allocator {
	at::DataPtr allocate(size_t nbytes) const override
	{
		void *data = nbytes ? c10::alloc_cpu(nbytes) : nullptr;
		return {data, data, &m1_free, at::Device(kM1, 0)};
	}
	at::DeleterFnPtr raw_deleter() const override { return &m1_free; }
};

M1Allocator m1_allocator;
REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &m1_allocator);

/* One device, one stream: nothing to switch. */
struct M1GuardImpl final : c10::impl::DeviceGuardImplInterface {
	c10::DeviceType type() const override { return kM1; }
	c10::Device exchangeDevice(c10::Device) const override
	{
		return c10::Device(kM1, 0);
	}
	c10::Device getDevice() const override { return c10::Device(kM1, 0); }
	void setDevice(c10::Device d) const override
	{
		TORCH_CHECK(d.type() == kM1 && d.index() <= 0,
			    "torch_m1 has one device, privateuseone:0; got ",
			    d);
	}
	void uncheckedSetDevice(c10::Device) const noexcept override {}
	c10::Stream getStream(c10::Device d) const noexcept override
	{
		return c10::Stream(c10::Stream::DEFAULT, d);
	}
	c10::Stream exchangeStream(c10::Stream s) const noexcept override
	{
		return s;
	}
	c10::DeviceIndex deviceCount() const noexcept override { return 1; }
};

C10_REGISTER_GUARD_IMPL(PrivateUse1, M1GuardImpl);

/* ----------------------------------------------------------- factories */

const c10::DispatchKeySet m1_keys(c10::DispatchKey::PrivateUse1);

at::Tensor m1_empty(c10::SymIntArrayRef size,
		    c10::optional<at::ScalarType> dtype,
		    c10::optional<at::Layout> layout,
		    c10::optional<at::Device> device,
		    c10::optional<bool> pin_memory,
		    c10::optional<at::MemoryFormat> memory_format)
{
	(void)layout, (void)device, (void)pin_memory;
	return at::detail::empty_generic(c10::asIntArrayRefSlow(size),
					 &m1_allocator, m1_keys,
					 c10::dtype_or_default(dtype),
					 memory_format);
}

at::Tensor m1_empty_strided(c10::SymIntArrayRef size,
			    c10::SymIntArrayRef stride,
			    c10::optional<at::ScalarType> dtype,
			    c10::optional<at::Layout> layout,
			    c10::optional<at::Device> device,
			    c10::optional<bool> pin_memory)
{
	(void)layout, (void)device, (void)pin_memory;
	return at::detail::empty_strided_generic(
		c10::asIntArrayRefSlow(size), c10::asIntArrayRefSlow(stride),
		&m1_allocator, m1_keys, c10::dtype_or_default(dtype));
}

/* --------------------------------------------------------------- views */

at::Tensor m1_as_strided(const at::Tensor &self, c10::SymIntArrayRef size,
			 c10::SymIntArrayRef stride,
			 c10::optional<c10::SymInt> storage_offset)
{
	c10::optional<int64_t> off;

	if (storage_offset)
		off = storage_offset->expect_int();
	return at::native::as_strided_tensorimpl(
		self, c10::asIntArrayRefSlow(size),
		c10::asIntArrayRefSlow(stride), off);
}

at::Tensor m1_view(const at::Tensor &self, c10::SymIntArrayRef size)
{
	return at::native::view(self, c10::asIntArrayRefSlow(size));
}

at::Tensor m1_reshape_alias(const at::Tensor &self, c10::SymIntArrayRef size,
			    c10::SymIntArrayRef stride)
{
	return at::native::_reshape_alias(self, c10::asIntArrayRefSlow(size),
					  c10::asIntArrayRefSlow(stride));
}

/* --------------------------------------------------------------- copies */

/* The same memory, seen as a CPU tensor (host memory is what m1 has). */
at::Tensor host_alias(const at::Tensor &t)
{
	if (t.device().type() != kM1)
		return t;
	return at::from_blob(t.data_ptr(), t.sizes(), t.strides(),
			     t.options().device(at::kCPU));
}

at::Tensor m1_copy_from(const at::Tensor &self, const at::Tensor &dst,
			bool non_blocking)
{
	(void)non_blocking;
	count(C_COPY);
	TORCH_CHECK(self.device().type() == kM1 || self.is_cpu(),
		    "torch_m1: cannot copy from ", self.device());
	TORCH_CHECK(dst.device().type() == kM1 || dst.is_cpu(),
		    "torch_m1: cannot copy to ", dst.device());
	host_alias(dst).copy_(host_alias(self));
	return dst;
}

at::Tensor m1_copy_from_and_resize(const at::Tensor &self,
				   const at::Tensor &dst)
{
	dst.resize_(self.sizes());
	return m1_copy_from(self, dst, false);
}

/* resize_ is what the CPU fallback calls on out= results. */
const at::Tensor &m1_resize(const at::Tensor &self, c10::SymIntArrayRef size,
			    c10::optional<at::MemoryFormat> memory_format)
{
	at::IntArrayRef sz = c10::asIntArrayRefSlow(size);
	int64_t n = c10::multiply_integers(sz);
	size_t need = (size_t)(n + self.storage_offset()) * self.itemsize();

	if (self.sizes() == sz && !memory_format)
		return self;
	if (need > self.storage().nbytes()) {
		at::DataPtr p = m1_allocator.allocate(need);
		size_t keep = self.storage().nbytes();
		if (keep && self.storage().data())
			std::memcpy(p.get(), self.storage().data(), keep);
		self.storage().set_data_ptr_noswap(std::move(p));
		self.storage().set_nbytes(need);
	}
	self.unsafeGetTensorImpl()->set_sizes_contiguous(sz);
	if (memory_format)
		self.unsafeGetTensorImpl()->empty_tensor_restride(
			*memory_format);
	return self;
}

/* ------------------------------------------------------------ kernels */

bool m1_eligible(const at::Tensor &a, const at::Tensor &b)
{
	return a.scalar_type() == at::kFloat && b.scalar_type() == at::kFloat &&
	       a.device().type() == kM1 && b.device().type() == kM1 &&
	       a.is_contiguous() && b.is_contiguous() &&
	       a.sizes() == b.sizes();
}

at::Tensor m1_add(const at::Tensor &self, const at::Tensor &other,
		  const at::Scalar &alpha)
{
	if (m1_eligible(self, other) && alpha.equal(1)) {
		at::Tensor out = at::empty_like(self);
		count(C_ADD);
		kernels()->add(self.data_ptr<float>(), other.data_ptr<float>(),
			       out.data_ptr<float>(), (size_t)self.numel());
		return out;
	}
	count(C_ATEN);
	at::Tensor r = at::add(host_alias(self), host_alias(other), alpha);
	return r.to(at::Device(kM1, 0));
}

at::Tensor m1_mul(const at::Tensor &self, const at::Tensor &other)
{
	if (m1_eligible(self, other)) {
		at::Tensor out = at::empty_like(self);
		count(C_MUL);
		kernels()->mul(self.data_ptr<float>(), other.data_ptr<float>(),
			       out.data_ptr<float>(), (size_t)self.numel());
		return out;
	}
	count(C_ATEN);
	at::Tensor r = at::mul(host_alias(self), host_alias(other));
	return r.to(at::Device(kM1, 0));
}

at::Tensor m1_relu(const at::Tensor &self)
{
	if (m1_eligible(self, self)) {
		at::Tensor out = at::empty_like(self);
		count(C_RELU);
		kernels()->relu(self.data_ptr<float>(), out.data_ptr<float>(),
				(size_t)self.numel());
		return out;
	}
	count(C_ATEN);
	return at::relu(host_alias(self)).to(at::Device(kM1, 0));
}

/* ------------------------------------------------------------ fallback */

void m1_fallback(const c10::OperatorHandle &op, torch::jit::Stack *stack)
{
	count(C_FALLBACK);
	at::native::cpu_fallback(op, stack);
}

} // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m)
{
	m.impl("empty.memory_format", &m1_empty);
	m.impl("empty_strided", &m1_empty_strided);
	m.impl("as_strided", &m1_as_strided);
	m.impl("view", &m1_view);
	m.impl("_reshape_alias", &m1_reshape_alias);
	m.impl("_copy_from", &m1_copy_from);
	m.impl("_copy_from_and_resize", &m1_copy_from_and_resize);
	m.impl("resize_", &m1_resize);
	m.impl("add.Tensor", &m1_add);
	m.impl("mul.Tensor", &m1_mul);
	m.impl("relu", &m1_relu);
}

TORCH_LIBRARY_IMPL(_, PrivateUse1, m)
{
	m.fallback(torch::CppFunction::makeFromBoxedFunction<&m1_fallback>());
}

/* -------------------------------------------------------- Python module */

static PyObject *py_isa(PyObject *, PyObject *)
{
	return PyUnicode_FromString(kernels()->isa);
}

static PyObject *py_counters(PyObject *, PyObject *)
{
	PyObject *d = PyDict_New();

	for (int i = 0; d && i < NR_COUNTERS; i++) {
		PyObject *v = PyLong_FromLong(counters[i].load());
		if (!v || PyDict_SetItemString(d, counter_names[i], v) < 0) {
			Py_XDECREF(v);
			Py_DECREF(d);
			return nullptr;
		}
		Py_DECREF(v);
	}
	return d;
}

static PyObject *py_reset(PyObject *, PyObject *)
{
	for (auto &c : counters)
		c.store(0);
	Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
	{"isa", py_isa, METH_NOARGS,
	 "The m1 kernel table this CPU runs: avx2, sse2 or neon."},
	{"counters", py_counters, METH_NOARGS,
	 "How many calls went to m1 kernels, ATen CPU kernels, the fallback."},
	{"reset_counters", py_reset, METH_NOARGS, "Zero the counters."},
	{nullptr, nullptr, 0, nullptr},
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT, "torch_m1._C",
	"The m1 device backend's kernels, registered on PrivateUse1.", -1,
	methods, nullptr, nullptr, nullptr, nullptr,
};

PyMODINIT_FUNC PyInit__C(void)
{
	return PyModule_Create(&module);
}
