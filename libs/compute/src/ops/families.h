// Each op family file adds its records to the table; OpTable::Default() calls them all.
// (Explicit calls, not static registration: a static library would drop unreferenced
// registrars at link time.)
#pragma once

#include "alknet/compute/op_table.h"

namespace alknet::compute::ops {

void AddUnaryOps(OpTable& table);       // ops/unary.cpp (with IsInf, IsNaN)
void AddActivationOps(OpTable& table);  // ops/activation.cpp
void AddBinaryOps(OpTable& table);      // ops/binary.cpp
void AddSelectOps(OpTable& table);      // ops/select.cpp: Where, Clip, Cast, CastLike
void AddLinalgOps(OpTable& table);      // ops/linalg.cpp: MatMul, Gemm, Trilu, EyeLike, Det
void AddSoftmaxOps(OpTable& table);     // ops/softmax.cpp
void AddMovementOps(
    OpTable& table);  // ops/movement.cpp: Reshape, Transpose, Slice, Concat, Pad, ...
void AddGatherOps(
    OpTable& table);  // ops/gather.cpp: Gather*, Scatter*, OneHot, ReverseSequence, Compress
void AddResizeOps(OpTable& table);  // ops/resize.cpp: Resize, Upsample, GridSample
void AddShapeOps(OpTable& table);   // ops/shape.cpp: Shape, Size, Constant, ConstantOfShape, Range
void AddVariadicOps(OpTable& table);   // ops/variadic.cpp: Sum, Mean
void AddConvOps(OpTable& table);       // ops/conv.cpp: Conv, ConvTranspose
void AddPoolOps(OpTable& table);       // ops/pool.cpp: MaxPool, AveragePool, Global*Pool, MaxUnpool
void AddNormOps(OpTable& table);       // ops/norm.cpp: BatchNormalization, LayerNormalization, ...
void AddReduceOps(OpTable& table);     // ops/reduce.cpp: Reduce*, CumSum
void AddArgTopKOps(OpTable& table);    // ops/argtopk.cpp: ArgMax, ArgMin, Hardmax, TopK
void AddEinsumOps(OpTable& table);     // ops/einsum.cpp
void AddRecurrentOps(OpTable& table);  // ops/recurrent.cpp: RNN, GRU, LSTM
void AddLossOps(
    OpTable& table);  // ops/loss.cpp: NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss
void AddSignalOps(
    OpTable& table);  // ops/signal.cpp: HannWindow, HammingWindow, BlackmanWindow, DFT, STFT
void AddQuantizeOps(OpTable& table);  // ops/quantize.cpp: QuantizeLinear, DequantizeLinear
void AddIntegerOps(OpTable& table);   // ops/integer.cpp: MatMulInteger, ConvInteger, QLinear*
void AddRandomOps(
    OpTable& table);  // ops/random.cpp: RandomUniform(Like), RandomNormal(Like), Bernoulli
void AddTrainingOps(OpTable& table);  // ops/training.cpp: Adagrad, Momentum, Adam
void AddLegacyOps(
    OpTable& table);  // ops/legacy.cpp: opsets 1..10 of Add, Gemm, PRelu, Max, ... as compositions

}  // namespace alknet::compute::ops
