#include "alknet/tensor/convert/to_mtf.h"

#include <algorithm>
#include <span>
#include <vector>

#include "alknet/tensor/convert/npy.h"
#include "alknet/tensor/convert/npz.h"
#include "alknet/tensor/convert/safetensors.h"

namespace alknet::tensor::convert {

namespace fs = std::filesystem;

bool IsForeignTensorFile(const fs::path& path) {
  const std::string ext = path.extension().string();
  return ext == ".npy" || ext == ".npz" || ext == ".safetensors";
}

Result<size_t> ConvertToMtf(const fs::path& in_path, const fs::path& out,
                            const WriteOptions& options, const ForeignLimits& limits) {
  if (!IsForeignTensorFile(in_path)) {
    return Error(ErrorCode::kInvalidArgument,
                 in_path.string() + ": not a .npy, .npz or .safetensors file");
  }
  ALKNET_ASSIGN_OR_RETURN(auto in, FileSource::Open(in_path));
  const std::string ext = in_path.extension().string();
  Result<ForeignFile> read = ext == ".npy"   ? ReadNpy(*in, in_path.stem().string(), limits)
                             : ext == ".npz" ? ReadNpz(*in, limits)
                                             : ReadSafetensors(*in, limits);
  if (!read) return read.error();
  const ForeignFile& file = *read;
  ALKNET_ASSIGN_OR_RETURN(auto fw, FileWriter::Create(out, options));
  Writer& w = fw->writer();
  ALKNET_TRY(w.SetMetadata("alknet.converted_from", in_path.filename().string()));
  for (const auto& e : file.metadata) ALKNET_TRY(w.SetMetadata("safetensors." + e.key, e.value));
  if (options.placement == IndexPlacement::kBeforeData) {
    for (const auto& t : file.tensors) ALKNET_TRY(w.Declare(t.name, t.dtype, t.shape));
  }
  std::vector<std::byte> buf(8u << 20);
  for (const auto& t : file.tensors) {
    ALKNET_TRY(w.BeginTensor(t.name, t.dtype, t.shape));
    for (uint64_t done = 0; done < t.byte_length;) {
      const auto chunk = std::span(buf).first(std::min<uint64_t>(buf.size(), t.byte_length - done));
      ALKNET_TRY(in->ReadAt(t.offset + done, chunk));
      ALKNET_TRY(w.Write(chunk));
      done += chunk.size();
    }
    ALKNET_TRY(w.EndTensor());
  }
  ALKNET_TRY(fw->Commit());
  return file.tensors.size();
}

}  // namespace alknet::tensor::convert
