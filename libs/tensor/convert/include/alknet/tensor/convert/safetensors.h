// The .safetensors format (https://github.com/huggingface/safetensors, "Format"): an 8-byte
// little-endian header length N, N bytes of a JSON object {NAME: {"dtype", "shape",
// "data_offsets": [BEGIN, END]}, optional "__metadata__": {string: string}}, then the data
// buffer the offsets index. The rules are those of the reference reader
// (safetensors/src/tensor.rs): header at most 100,000,000 bytes and starting with '{', tensors
// that tile the buffer exactly (no gap, no overlap, nothing after the last), byte lengths that
// match dtype x shape. Stricter than the reference: offsets and dimensions must be JSON integers
// (1.0 is refused), and a tensor entry may not carry keys besides those three.
#pragma once

#include "alknet/tensor/convert/source.h"

namespace alknet::tensor::convert {

// The tensors of a .safetensors source and its __metadata__ (in the header's order).
// Errors name the file and the tensor: "<file>: tensor 'w': data_offsets ...".
Result<ForeignFile> ReadSafetensors(const ByteSource& src, const ForeignLimits& limits = {});

}  // namespace alknet::tensor::convert
