// The .npy format (numpy's numpy/lib/format.py, versions 1.0, 2.0 and 3.0): a magic string,
// a header that is a Python dict literal {'descr', 'fortran_order', 'shape'}, then the array's
// bytes. Only little-endian numeric C-order arrays have a metatensor equivalent; the others
// (Fortran order, big-endian, object, string, structured) are refused with the reason.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "alknet/tensor/convert/source.h"

namespace alknet::tensor::convert {

struct NpyHeader {
  DType dtype;
  std::string descr;  // as numpy wrote it, e.g. "<f4"
  std::vector<uint64_t> shape;
  uint64_t data_offset = 0;  // from the start of the .npy bytes
  uint64_t data_bytes = 0;   // exactly dtype x shape; the .npy bytes hold no more and no less
};

// Parses and checks the .npy bytes [base, +length) of src. `where` names them in messages
// ("a.npy", "b.npz: member 'x.npy'"); every error reads "<where>: <what is wrong>".
Result<NpyHeader> ParseNpyHeader(const ByteSource& src, uint64_t base, uint64_t length,
                                 std::string_view where, const ForeignLimits& limits = {});

// A whole .npy source as one tensor called `tensor_name` (a converter uses the file's stem).
Result<ForeignFile> ReadNpy(const ByteSource& src, std::string tensor_name,
                            const ForeignLimits& limits = {});

// The numpy descr of a dtype ("<f4"), or nullopt for dtypes numpy has no equivalent of.
std::optional<std::string_view> NpyDescr(DType dtype);

// A version 1.0 preamble (magic, version, header dict) that puts the data 64-byte aligned, as
// numpy writes it. kInvalidArgument for a dtype numpy lacks or a shape that overflows.
Result<std::string> NpyPreamble(DType dtype, std::span<const uint64_t> shape);

// Writes a .npy file: the preamble, then `data`, which must be exactly dtype x shape bytes.
Status WriteNpyFile(const std::filesystem::path& path, DType dtype, std::span<const uint64_t> shape,
                    std::span<const std::byte> data);

}  // namespace alknet::tensor::convert
