// The .npy format (numpy's format.py, versions 1-3), shared by the CLI commands that read or
// write NumPy arrays (`tensor convert`, `call`). Only little-endian numeric C-order arrays.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "alknet/tensor/dtype.h"

namespace alknet::cli::npy {

struct Header {
  tensor::DType dtype;
  std::string descr;  // as numpy wrote it, e.g. "<f4"
  std::vector<uint64_t> shape;
  uint64_t data_offset = 0;  // from the start of the .npy bytes
  uint64_t data_bytes = 0;   // exactly what dtype x shape needs; the file holds no more
};

// Reads `n` bytes at `offset` of the .npy bytes, or nullopt past the end.
using ReadFn = std::function<std::optional<std::string>(uint64_t offset, uint64_t n)>;

// Parses and checks the header of .npy bytes of total length `size`. On failure, a message
// saying what is wrong (the caller prefixes the file name).
std::variant<Header, std::string> ParseHeader(const ReadFn& read, uint64_t size);

// The numpy descr of a dtype, or nullopt for dtypes numpy has no equivalent of.
std::optional<std::string_view> Descr(tensor::DType dtype);

// A version 1.0 preamble (magic, version, header dict) that puts the data 64-byte aligned.
std::string MakePreamble(std::string_view descr, std::span<const uint64_t> shape);

}  // namespace alknet::cli::npy
