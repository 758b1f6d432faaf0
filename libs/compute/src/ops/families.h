// Each op family file adds its records to the table; OpTable::Default() calls them all.
// (Explicit calls, not static registration: a static library would drop unreferenced
// registrars at link time.)
#pragma once

#include "alknet/compute/op_table.h"

namespace alknet::compute::ops {

void AddUnaryOps(OpTable& table);       // ops/unary.cpp
void AddActivationOps(OpTable& table);  // ops/activation.cpp
void AddBinaryOps(OpTable& table);      // ops/binary.cpp
void AddSelectOps(OpTable& table);      // ops/select.cpp: Where, Clip, Cast
void AddLinalgOps(OpTable& table);      // ops/matmul.cpp: MatMul, Gemm
void AddSoftmaxOps(OpTable& table);     // ops/softmax.cpp
void AddMovementOps(OpTable& table);    // ops/movement.cpp: Reshape, ...
void AddVariadicOps(OpTable& table);    // ops/variadic.cpp: Sum, Mean
void AddLossOps(OpTable& table);        // ops/loss.cpp: NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
void AddMiscOps(OpTable& table);        // ops/misc.cpp: Trilu, IsInf, IsNaN, GatherND, ScatterND, ...
void AddQuantizeOps(OpTable& table);    // ops/quantize.cpp: QuantizeLinear, DequantizeLinear
void AddTrainingOps(OpTable& table);    // ops/training.cpp: Adagrad, Momentum, Adam

}  // namespace alknet::compute::ops
