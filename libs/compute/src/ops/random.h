// The counter-based generator of ops/random.cpp, for records that draw through RandomUniformLike
// in a composite (Dropout in training mode) and must give the same numbers in their reference.
#pragma once

#include <cstdint>

namespace alknet::compute::ops {

// Element `index`'s uniform draw in [0, 1) (24 bits, exact in float32) for a node whose `seed`
// attribute is `seed`: what RandomUniformLike(low 0, high 1) gives there.
double UniformDraw(uint64_t index, double seed);

}  // namespace alknet::compute::ops
