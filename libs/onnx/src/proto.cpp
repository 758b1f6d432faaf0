#include "proto.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <climits>
#include <cstring>

#include "alknet/base/file.h"

namespace alknet::onnx::detail {

namespace fs = std::filesystem;

namespace {

// Caps on sizes a file declares, checked before allocating from them.
constexpr uint64_t kMaxElements = uint64_t{1} << 34;
constexpr int kMaxRank = 32;

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

Status PreadAll(int fd, uint64_t offset, std::span<std::byte> out, const std::string& what) {
  size_t done = 0;
  while (done < out.size()) {
    const ssize_t n =
        ::pread(fd, out.data() + done, out.size() - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Error{ErrorCode::kInvalidArgument, what + ": read failed: " + std::strerror(errno)};
    }
    if (n == 0)
      return Error{ErrorCode::kInvalidArgument,
                   what + ": the file ended early (it shrank while being read?)"};
    done += static_cast<size_t>(n);
  }
  return Ok{};
}

Result<uint64_t> ParseU64(const std::string& s, const std::string& what) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size()) {
    return Error{ErrorCode::kInvalidArgument, what + " is '" + s + "', not a non-negative integer"};
  }
  return v;
}

// External data (onnx.proto: data_location = EXTERNAL; keys location, offset, length).
Result<std::vector<std::byte>> ReadExternal(const ::onnx::TensorProto& tp, const fs::path& base_dir,
                                            uint64_t expected_bytes, const std::string& what,
                                            const ReadCheck& check) {
  std::string location;
  std::optional<uint64_t> offset, length;
  for (const auto& kv : tp.external_data()) {
    if (kv.key() == "location") {
      location = kv.value();
    } else if (kv.key() == "offset") {
      ALKNET_ASSIGN_OR_RETURN(offset, ParseU64(kv.value(), what + ": external data offset"));
    } else if (kv.key() == "length") {
      ALKNET_ASSIGN_OR_RETURN(length, ParseU64(kv.value(), what + ": external data length"));
    }
  }
  if (location.empty())
    return Error{ErrorCode::kInvalidArgument, what + ": external data without a location"};
  const std::string where = what + ": external data '" + location + "'";
  if (base_dir.empty()) {
    return Error{ErrorCode::kInvalidArgument,
                 where + " cannot be resolved: the model was not loaded from a file"};
  }
  if (location.find('\0') != std::string::npos) {
    return Error{ErrorCode::kInvalidArgument, where + ": the location contains a NUL byte"};
  }
  const fs::path loc(location);
  if (loc.is_absolute() || loc.has_root_name() || loc.has_root_directory()) {
    return Error{ErrorCode::kInvalidArgument,
                 where + " is an absolute path; locations must be relative to the model's folder"};
  }
  for (const auto& part : loc) {
    if (part == "..") {
      return Error{ErrorCode::kInvalidArgument,
                   where + " has a '..' component; locations must stay inside the model's folder"};
    }
  }
  // The model's folder is the trusted anchor (it may be reached through links); the location
  // is opened beneath it with base::OpenBeneath: no link in any component is followed, so
  // what is read is the file under the folder, whatever the path text resolved to before.
  std::error_code ec;
  const fs::path dir = fs::canonical(base_dir, ec);
  if (ec)
    return Error{ErrorCode::kInvalidArgument,
                 where + ": the model folder " + base_dir.string() + ": " + ec.message()};
  const fs::path relative = loc.lexically_normal();
  const fs::path file = dir / relative;
  if (check) {
    if (Status allowed = check(file); !allowed.ok()) {
      return Error{allowed.error().code, where + ": " + allowed.error().message};
    }
  }
  // O_NONBLOCK + fstat before any read (alknet/base/file.h): a FIFO is refused, not waited on.
  auto opened = base::OpenBeneath(dir.native(), relative.generic_string(), base::OpenMode::kRead);
  if (!opened) {
    return Error{ErrorCode::kInvalidArgument,
                 where + ": " + opened.error().message +
                     " (external data is opened beneath the model's folder " + dir.string() +
                     ", without following links)"};
  }
  Fd fd(opened->release());
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return Error{ErrorCode::kInvalidArgument,
                 where + ": " + file.string() + " is not a regular file"};
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  const uint64_t off = offset.value_or(0);
  if (off > size) {
    return Error{ErrorCode::kInvalidArgument, where + ": offset " + std::to_string(off) +
                                                  " is past the end of the " +
                                                  std::to_string(size) + "-byte file"};
  }
  const uint64_t len = length.value_or(expected_bytes);
  if (len > size - off) {
    return Error{ErrorCode::kInvalidArgument,
                 where + ": offset " + std::to_string(off) + " + length " + std::to_string(len) +
                     " runs past the end of the " + std::to_string(size) + "-byte file"};
  }
  if (len != expected_bytes) {
    return Error{ErrorCode::kInvalidArgument, where + ": length " + std::to_string(len) +
                                                  " but the tensor's shape and type need " +
                                                  std::to_string(expected_bytes) + " bytes"};
  }
  std::vector<std::byte> data(len);
  ALKNET_TRY(PreadAll(fd.get(), off, data, where));
  return data;
}

template <typename T, typename Field>
std::vector<std::byte> PackField(const Field& f) {
  std::vector<std::byte> out(static_cast<size_t>(f.size()) * sizeof(T));
  for (int i = 0; i < f.size(); ++i) {
    const T v = static_cast<T>(f.Get(i));
    std::memcpy(out.data() + static_cast<size_t>(i) * sizeof(T), &v, sizeof(T));
  }
  return out;
}

}  // namespace

Result<std::vector<std::byte>> ReadFileBytes(const fs::path& path, uint64_t max_bytes) {
  auto opened = base::OpenRegularFile(path.native());  // a FIFO never blocks the load
  if (!opened) return Error{ErrorCode::kInvalidArgument, opened.error().message};
  Fd fd(opened->release());
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return Error{ErrorCode::kInvalidArgument, path.string() + ": not a regular file"};
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes) {
    return Error{ErrorCode::kLimit, path.string() + ": " + std::to_string(size) +
                                        " bytes, more than the limit of " +
                                        std::to_string(max_bytes)};
  }
  std::vector<std::byte> data(size);
  ALKNET_TRY(PreadAll(fd.get(), 0, data, path.string()));
  return data;
}

Result<std::unique_ptr<::onnx::ModelProto>> ParseModel(std::span<const std::byte> bytes,
                                                       const std::string& what) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) {
    return Error{ErrorCode::kLimit,
                 what + ": " + std::to_string(bytes.size()) +
                     " bytes; protobuf messages are limited to 2 GiB (use external data)"};
  }
  auto m = std::make_unique<::onnx::ModelProto>();
  if (!m->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Error{ErrorCode::kInvalidArgument,
                 what + ": not a valid ONNX model (protobuf parsing failed)"};
  }
  if (!m->has_graph()) return Error{ErrorCode::kInvalidArgument, what + ": the model has no graph"};
  return m;
}

Result<Tensor> DecodeTensor(const ::onnx::TensorProto& tp, const fs::path& base_dir,
                            const std::string& what, const ReadCheck& check) {
  Tensor t;
  t.name = tp.name();
  t.type = static_cast<ElemType>(tp.data_type());
  if (tp.dims_size() > kMaxRank) {
    return Error{ErrorCode::kInvalidArgument, what + ": rank " + std::to_string(tp.dims_size()) +
                                                  " exceeds " + std::to_string(kMaxRank)};
  }
  uint64_t n = 1;
  for (int64_t d : tp.dims()) {
    if (d < 0)
      return Error{ErrorCode::kInvalidArgument, what + ": negative dimension " + std::to_string(d)};
    if (d != 0 && n > kMaxElements / static_cast<uint64_t>(d)) {
      return Error{ErrorCode::kLimit, what + ": more than 2^34 elements"};
    }
    n *= static_cast<uint64_t>(d);
    t.shape.push_back(static_cast<uint64_t>(d));
  }
  if (tp.has_segment())
    return Error{ErrorCode::kUnsupported, what + ": segmented tensors are not supported"};
  if (t.type == ElemType::kString) {
    // string_data only: raw_data and external data have no defined layout for strings.
    if (tp.has_raw_data() || tp.data_location() == ::onnx::TensorProto::EXTERNAL) {
      return Error{ErrorCode::kInvalidArgument,
                   what + ": a STRING tensor must hold its values in string_data"};
    }
    if (static_cast<uint64_t>(tp.string_data_size()) != n) {
      return Error{ErrorCode::kInvalidArgument,
                   what + ": holds " + std::to_string(tp.string_data_size()) +
                       " strings, its shape " + compute::ShapeToString(t.shape) + " needs " +
                       std::to_string(n)};
    }
    t.strings.assign(tp.string_data().begin(), tp.string_data().end());
    return t;
  }
  const size_t es = ElemSize(t.type);
  if (es == 0) {
    return Error{ErrorCode::kUnsupported, what + " has ONNX type " + ElemTypeName(t.type) +
                                              ", which alknet cannot compute with"};
  }
  const uint64_t bytes = n * es;
  if (tp.data_location() == ::onnx::TensorProto::EXTERNAL) {
    ALKNET_ASSIGN_OR_RETURN(t.data, ReadExternal(tp, base_dir, bytes, what, check));
    return t;
  }
  if (tp.has_raw_data()) {
    if (tp.raw_data().size() != bytes) {
      return Error{ErrorCode::kInvalidArgument,
                   what + ": raw_data holds " + std::to_string(tp.raw_data().size()) +
                       " bytes, the shape and type need " + std::to_string(bytes)};
    }
    t.data.resize(bytes);
    if (bytes) std::memcpy(t.data.data(), tp.raw_data().data(), bytes);
    return t;
  }
  // Typed fields (onnx.proto comments say which type lives in which field).
  switch (t.type) {
    case ElemType::kFloat: t.data = PackField<float>(tp.float_data()); break;
    case ElemType::kDouble: t.data = PackField<double>(tp.double_data()); break;
    case ElemType::kInt64: t.data = PackField<int64_t>(tp.int64_data()); break;
    case ElemType::kUint32: t.data = PackField<uint32_t>(tp.uint64_data()); break;
    case ElemType::kUint64: t.data = PackField<uint64_t>(tp.uint64_data()); break;
    case ElemType::kInt32: t.data = PackField<int32_t>(tp.int32_data()); break;
    case ElemType::kInt16: t.data = PackField<int16_t>(tp.int32_data()); break;
    case ElemType::kUint16:
    case ElemType::kFloat16:
    case ElemType::kBFloat16: t.data = PackField<uint16_t>(tp.int32_data()); break;
    case ElemType::kInt8: t.data = PackField<int8_t>(tp.int32_data()); break;
    case ElemType::kUint8:
    case ElemType::kBool: t.data = PackField<uint8_t>(tp.int32_data()); break;
    default: break;
  }
  if (t.data.size() != bytes) {
    return Error{ErrorCode::kInvalidArgument,
                 what + ": holds " + std::to_string(t.data.size() / es) + " values, its shape " +
                     compute::ShapeToString(t.shape) + " needs " + std::to_string(n)};
  }
  if (t.type == ElemType::kBool) {
    for (auto& b : t.data) b = b != std::byte{0} ? std::byte{1} : std::byte{0};
  }
  return t;
}

Result<compute::AttrValue> ConvertAttribute(const ::onnx::AttributeProto& a,
                                            const fs::path& base_dir, bool shader_f16,
                                            const std::string& what, const ReadCheck& check) {
  using A = ::onnx::AttributeProto;
  switch (a.type()) {
    case A::INT: return compute::AttrValue(static_cast<int64_t>(a.i()));
    case A::FLOAT: return compute::AttrValue(static_cast<double>(a.f()));
    case A::STRING: return compute::AttrValue(a.s());
    case A::INTS: return compute::AttrValue(std::vector<int64_t>(a.ints().begin(), a.ints().end()));
    case A::FLOATS: {
      std::vector<double> v(a.floats().begin(), a.floats().end());
      return compute::AttrValue(std::move(v));
    }
    case A::TENSOR: {
      ALKNET_ASSIGN_OR_RETURN(Tensor t, DecodeTensor(a.t(), base_dir, what, check));
      ALKNET_ASSIGN_OR_RETURN(compute::RefTensor r, ToRef(t, shader_f16));
      return compute::AttrValue(std::make_shared<const compute::RefTensor>(std::move(r)));
    }
    case A::UNDEFINED:
      // Writers before IR 3 left the type out; infer it from the one field that is set.
      if (a.has_i()) return compute::AttrValue(static_cast<int64_t>(a.i()));
      if (a.has_f()) return compute::AttrValue(static_cast<double>(a.f()));
      if (a.has_s()) return compute::AttrValue(a.s());
      if (a.ints_size())
        return compute::AttrValue(std::vector<int64_t>(a.ints().begin(), a.ints().end()));
      if (a.floats_size())
        return compute::AttrValue(std::vector<double>(a.floats().begin(), a.floats().end()));
      break;
    default: break;
  }
  return Error{
      ErrorCode::kUnsupported,
      what + " has attribute kind " + A::AttributeType_Name(a.type()) +
          " (graphs are supported only as If, Loop and Scan subgraphs; sparse tensors and type "
          "protos are not supported)"};
}

}  // namespace alknet::onnx::detail
