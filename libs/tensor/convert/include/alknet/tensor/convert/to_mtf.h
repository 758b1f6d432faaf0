// Converting a foreign tensor file (.npy, .npz, .safetensors) into a .mtf file: the reader
// of its format validates the input, then each tensor's bytes are streamed through a bounded
// buffer into a FileWriter (atomic: the output appears whole or not at all), so memory stays
// constant for any input size. `alknet tensor convert` and the Python package use it.
#pragma once

#include <cstddef>
#include <filesystem>

#include "alknet/tensor/convert/source.h"
#include "alknet/tensor/writer.h"

namespace alknet::tensor::convert {

// The format is chosen by the input's extension: .npy (one tensor named after the file's
// stem), .npz, .safetensors (its __metadata__ kept as "safetensors.<key>" string entries).
// The output's metadata "alknet.converted_from" names the input file. Returns the number of
// tensors written.
Result<size_t> ConvertToMtf(const std::filesystem::path& in, const std::filesystem::path& out,
                            const WriteOptions& options = {}, const ForeignLimits& limits = {});

// True for the extensions ConvertToMtf reads.
bool IsForeignTensorFile(const std::filesystem::path& path);

}  // namespace alknet::tensor::convert
