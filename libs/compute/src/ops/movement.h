// Helpers shared by the data-movement families (ops/movement.cpp, gather.cpp, resize.cpp,
// shape.cpp) and the other kernels that index tensors (linalg.cpp, signal.cpp): axis
// normalisation, host-input decoding, constants for decompositions, the common kernel context
// (one invocation per output element, grid-stride on CPU adapters) and the reference of a
// strided view.
#pragma once

#include <string>
#include <vector>

#include "alknet/compute/op_table.h"

namespace alknet::compute::ops {

// `axis` in [-rank, rank) (or [-rank-1, rank] with `extra`: Unsqueeze, OneHot), made
// non-negative; the error names the node and what the attribute or input is.
Result<int64_t> NormalizeAxis(const OpNode& node, int64_t axis, size_t rank,
                              const std::string& what, bool extra = false);

// The integer values of a host input (Reshape's shape, Slice's starts, ...), checked to be
// integers that fit int64.
Result<std::vector<int64_t>> HostInts(const OpNode& node, size_t input, const std::string& what);
// A host input's values as given (scalars and 1-D lists of float or int).
std::vector<double> HostValues(const OpNode& node, size_t input);

// A composite whose one output is a constant computed on the host (EyeLike, the window
// functions): an Identity of an uploaded value.
Graph ConstantGraph(int num_inputs, RefTensor value);

// One invocation per item, in workgroups of the device's linear size.
inline DispatchPlan LinearOver(uint64_t n) {
  DispatchPlan p;
  p.invocations = n;
  return p;
}

// Divisors in kernel index math: a zero extent means no invocation runs, but WGSL rejects a
// constant division by zero, so the template gets 1.
inline uint64_t NonZero(uint64_t v) { return v == 0 ? 1 : v; }

// A constant for Graph::Node::input_values.
ConstValue MakeConst(DType dtype, Shape shape, std::vector<double> data);
ConstValue IntList(const std::vector<int64_t>& v);

// out[i] = in[offset + sum_d coord_d(i) * strides[d]] over a contiguous RefTensor: how a
// strided view reads its input. Strides may be negative or zero.
RefTensor StridedRead(const RefTensor& in, const Shape& shape, int64_t offset,
                      const std::vector<int64_t>& strides);

// Context and dispatch of the movement kernels: `n` output elements (or vec4 groups), each
// handled by one invocation on GPUs and by a grid-stride loop of `per_invocation` on CPUs.
hbs::Value LinearContext(uint64_t n, uint32_t vec, const DeviceCaps& caps);
DispatchPlan LinearDispatch(uint64_t n, const DeviceCaps& caps);

// Output coordinates as template terms, innermost first: {extent, stride (of the operand),
// last}; dimensions of extent 1 are dropped.
hbs::Array CoordTerms(const Shape& shape, const std::vector<int64_t>& strides);

// Wraps a 32-bit result like the device's integer types (the references of integer outputs).
double WrapInt(double v, DType dtype);

// Fails with kLimit when a tensor is too large for 32-bit shader indexing.
Status CheckIndexable(const OpNode& node, uint64_t elements);

}  // namespace alknet::compute::ops
