// SHA-256 (FIPS 180-4) kernels: shaders/crypto/*.wgsl.hbs.
#include "alknet/compute/sha256.h"

#include <cmath>
#include <cstring>

#include "alknet/compute/wgsl_generator.h"

namespace alknet::compute {

namespace wg = alknet::webgpu;

namespace {

// FIPS 180-4 4.2.2 and 5.3.3: the first 32 bits of the fractional parts of the cube roots of
// the first 64 primes (K) and of the square roots of the first 8 primes (H0). Computed rather
// than typed in; the tests against OpenSSL would catch a wrong digit either way.
std::vector<uint32_t> Primes(size_t n) {
  std::vector<uint32_t> p;
  for (uint32_t c = 2; p.size() < n; ++c) {
    bool prime = true;
    for (uint32_t q : p) {
      if (q * q > c) break;
      if (c % q == 0) prime = false;
    }
    if (prime) p.push_back(c);
  }
  return p;
}

uint32_t FracBits(long double x) {
  return static_cast<uint32_t>((x - std::floor(x)) * 4294967296.0L);
}

std::string Hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

hbs::Value Context(const Sha256Options& o) {
  hbs::Array k, h0, rounds;
  const auto primes = Primes(64);
  for (size_t i = 0; i < 64; ++i)
    k.push_back(Hex(FracBits(std::cbrt(static_cast<long double>(primes[i])))));
  for (size_t i = 0; i < 8; ++i)
    h0.push_back(Hex(FracBits(std::sqrt(static_cast<long double>(primes[i])))));
  for (int t = 0; t < 64; ++t) {
    // Rolling window: W_t lives in register t % 16, where W_{t-16} was.
    rounds.push_back(hbs::Value::object({{"k", k[t]},
                                         {"w", t % 16},
                                         {"w2", (t + 14) % 16},
                                         {"w7", (t + 9) % 16},
                                         {"w15", (t + 1) % 16},
                                         {"expand", t >= 16}}));
  }
  return hbs::Value::object({{"k_mode", o.k_mode},
                             {"workgroup_size", o.workgroup_size},
                             {"k_table", hbs::Value(std::move(k))},
                             {"h0", hbs::Value(std::move(h0))},
                             {"rounds", hbs::Value(std::move(rounds))}});
}

const WgslGenerator& Generator() {
  static const WgslGenerator gen;
  return gen;
}

Sha256Digest FromWords(const uint32_t* w) {
  Sha256Digest d;
  for (int i = 0; i < 8; ++i) {
    d[4 * i] = static_cast<uint8_t>(w[i] >> 24);
    d[4 * i + 1] = static_cast<uint8_t>(w[i] >> 16);
    d[4 * i + 2] = static_cast<uint8_t>(w[i] >> 8);
    d[4 * i + 3] = static_cast<uint8_t>(w[i]);
  }
  return d;
}

Error Wrap(const wg::Error& e) { return FromWebGpu(e); }

}  // namespace

std::string ToHex(const Sha256Digest& d) {
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  for (uint8_t b : d) {
    s += kDigits[b >> 4];
    s += kDigits[b & 15];
  }
  return s;
}

Sha256::Sha256(Executor& executor, Sha256Options options)
    : ex_(executor), options_(std::move(options)) {}
Sha256::~Sha256() = default;

Status Sha256::CheckOptions() const {
  if (options_.k_mode != "inline" && options_.k_mode != "switch" && options_.k_mode != "array") {
    return Error{ErrorCode::kInvalidArgument,
                 "k_mode '" + options_.k_mode + "' is not inline, switch or array"};
  }
  if (options_.layout != "auto" && options_.layout != "indexed" && options_.layout != "fixed") {
    return Error{ErrorCode::kInvalidArgument,
                 "layout '" + options_.layout + "' is not auto, indexed or fixed"};
  }
  if (options_.per_invocation < 1 || options_.per_invocation > 8) {
    return Error{
        ErrorCode::kInvalidArgument,
        "per_invocation " + std::to_string(options_.per_invocation) + " is not between 1 and 8"};
  }
  if (options_.workgroup_size < 1 || options_.workgroup_size > 1024) {
    return Error{
        ErrorCode::kInvalidArgument,
        "workgroup_size " + std::to_string(options_.workgroup_size) + " is not between 1 and 1024"};
  }
  return Ok{};
}

Result<std::string> Sha256::BatchSource() const {
  ALKNET_TRY(CheckOptions());
  return Generator().Render("crypto/sha256", Context(options_));
}

Result<std::string> Sha256::StreamSource() const {
  ALKNET_TRY(CheckOptions());
  return Generator().Render("crypto/sha256_stream", Context(options_));
}

Result<std::string> Sha256::FixedSource(uint32_t length) const {
  ALKNET_TRY(CheckOptions());
  if (length > kSha256MaxFixedLength) {
    return Error{ErrorCode::kInvalidArgument,
                 "the fixed-length SHA-256 kernel takes messages of at most " +
                     std::to_string(kSha256MaxFixedLength) + " bytes, not " +
                     std::to_string(length)};
  }
  // The padded message (FIPS 180-4 5.1.1) word by word: whole message words are loads, the
  // word holding the last 1..3 bytes is a masked load with 0x80 after them, the rest are
  // constants (0x80 in a word of its own, zeros, the bit length in the last two words).
  const uint32_t blocks = (length + 8) / 64 + 1;
  const uint64_t bits = uint64_t{length} * 8;
  hbs::Array block_list;
  for (uint32_t blk = 0; blk < blocks; ++blk) {
    hbs::Array words;
    for (uint32_t k = 0; k < 16; ++k) {
      const uint32_t t = blk * 16 + k, p = 4 * t;
      const bool last = blk + 1 == blocks;
      if (p + 4 <= length) {
        words.push_back(hbs::Value::object({{"kind", "load"}, {"word", t}}));
      } else if (p < length) {
        const uint32_t n = length - p;
        words.push_back(hbs::Value::object({{"kind", "tail"},
                                            {"word", t},
                                            {"mask", Hex(0xffffffffu << (32 - 8 * n))},
                                            {"pad", Hex(0x80u << (24 - 8 * n))}}));
      } else {
        uint32_t v = p == length ? 0x80000000u : 0u;
        if (last && k == 14) v = static_cast<uint32_t>(bits >> 32);
        if (last && k == 15) v = static_cast<uint32_t>(bits);
        words.push_back(hbs::Value::object({{"kind", "const"}, {"value", Hex(v)}}));
      }
    }
    block_list.push_back(hbs::Value(std::move(words)));
  }
  hbs::Value c = Context(options_);
  hbs::Object& o = c.as_object();
  o.set("message_bytes", length);
  o.set("stride_words", (length + 3) / 4);
  o.set("per_invocation", options_.per_invocation);
  o.set("blocks", hbs::Value(std::move(block_list)));
  return Generator().Render("crypto/sha256_fixed", c);
}

Result<Sha256::Prepared> Sha256::Prepare(std::span<const std::span<const std::byte>> messages) {
  ALKNET_TRY(CheckOptions());
  bool same = !messages.empty();
  for (const auto& m : messages) same = same && m.size() == messages.front().size();
  const bool fixed = same && messages.front().size() <= kSha256MaxFixedLength &&
                     (options_.layout == "fixed" ||
                      (options_.layout == "auto" && messages.size() >= kSha256FixedMinBatch));
  if (options_.layout == "fixed" && !fixed) {
    return Error{ErrorCode::kInvalidArgument,
                 "layout 'fixed' needs messages of one length of at most " +
                     std::to_string(kSha256MaxFixedLength) + " bytes"};
  }
  // Messages start at 4-byte boundaries so whole words can be loaded with one read.
  std::vector<uint32_t> index;
  uint64_t total = 0;
  for (const auto& m : messages) {
    if (m.size() > 0xffffffffull - 64) {
      return Error{ErrorCode::kLimit, "a batch message of " + std::to_string(m.size()) +
                                          " bytes exceeds 32-bit addressing; use HashStream"};
    }
    if (!fixed) {
      index.push_back(static_cast<uint32_t>(total));
      index.push_back(static_cast<uint32_t>(m.size()));
    }
    total += (m.size() + 3) & ~uint64_t{3};
    if (total > ex_.caps().max_storage_binding_bytes || total > 0xffffffffull) {
      return Error{ErrorCode::kLimit, "SHA-256 batch data of more than " + std::to_string(total) +
                                          " bytes exceeds maxStorageBufferBindingSize " +
                                          std::to_string(ex_.caps().max_storage_binding_bytes) +
                                          " (or 4 GiB); split the batch"};
    }
  }
  if (messages.size() * 32 > ex_.caps().max_storage_binding_bytes) {
    return Error{ErrorCode::kLimit, "SHA-256 batch of " + std::to_string(messages.size()) +
                                        " messages: their digests exceed "
                                        "maxStorageBufferBindingSize; split the batch"};
  }
  std::vector<std::byte> packed(std::max<uint64_t>(total, 4));
  {
    uint64_t at = 0;
    for (const auto& m : messages) {
      if (!m.empty()) std::memcpy(packed.data() + at, m.data(), m.size());
      at += (m.size() + 3) & ~uint64_t{3};
    }
  }
  wg::Context& ctx = ex_.context();
  Prepared p;
  p.count = messages.size();
  p.fixed = fixed;
  p.length = fixed ? static_cast<uint32_t>(messages.front().size()) : 0;
  if (fixed) {
    ALKNET_ASSIGN_OR_RETURN(p.source, FixedSource(p.length));
  } else {
    ALKNET_ASSIGN_OR_RETURN(p.source, BatchSource());
  }
  auto make = [&](uint64_t bytes, const char* label) -> Result<std::shared_ptr<wg::Buffer>> {
    auto b = ctx.CreateBuffer(std::max<uint64_t>(bytes, 16), wg::kStorageUsage, label);
    if (!b.ok()) return Wrap(b.error());
    return std::make_shared<wg::Buffer>(std::move(b).value());
  };
  ALKNET_ASSIGN_OR_RETURN(p.data, make(packed.size(), "sha256 data"));
  if (!fixed) {
    ALKNET_ASSIGN_OR_RETURN(p.index, make(index.size() * 4, "sha256 index"));
  }
  ALKNET_ASSIGN_OR_RETURN(p.digests, make(messages.size() * 32, "sha256 digests"));
  if (auto st = ctx.Write(*p.data, 0, packed); !st.ok()) return Wrap(st.error());
  if (!index.empty()) {
    if (auto st = ctx.Write(*p.index, 0, std::as_bytes(std::span<const uint32_t>(index))); !st.ok())
      return Wrap(st.error());
  }
  return p;
}

Status Sha256::Dispatch(const Prepared& p, bool checked) {
  if (p.count == 0) return Ok{};
  wg::Context& ctx = ex_.context();
  const uint64_t invocations =
      p.fixed ? (p.count + options_.per_invocation - 1) / options_.per_invocation : p.count;
  auto grid = ctx.GridFor(invocations, options_.workgroup_size);
  if (!grid.ok())
    return Error{ErrorCode::kLimit,
                 "SHA-256 batch of " + std::to_string(p.count) + ": " + grid.error().message};
  wg::Recorder rec = ctx.BeginCommands("sha256 batch");
  wg::KernelSpec spec;
  spec.wgsl = p.source;
  spec.label = p.fixed ? "sha256/fixed" + std::to_string(p.length) : "sha256/" + options_.k_mode;
  // The index (or digest) binding is sized to the batch so arrayLength() gives its count.
  std::vector<wg::BufferBinding> b;
  if (p.fixed) {
    spec.bindings = {wg::BindingType::kReadOnlyStorage, wg::BindingType::kStorage};
    b = {{p.data.get(), 0, WGPU_WHOLE_SIZE}, {p.digests.get(), 0, p.count * 32}};
  } else {
    spec.bindings = {wg::BindingType::kReadOnlyStorage, wg::BindingType::kReadOnlyStorage,
                     wg::BindingType::kStorage};
    b = {{p.data.get(), 0, WGPU_WHOLE_SIZE},
         {p.index.get(), 0, p.count * 8},
         {p.digests.get(), 0, p.count * 32}};
  }
  auto kernel = ctx.GetKernel(spec);
  if (!kernel.ok()) return Wrap(kernel.error());
  if (auto st = rec.Dispatch(**kernel, b, *grid); !st.ok()) return Wrap(st.error());
  if (checked) return ex_.SubmitChecked(std::move(rec));
  ctx.SubmitUnchecked(std::move(rec));
  return Ok{};
}

Result<std::vector<Sha256Digest>> Sha256::Finish(const Prepared& p) {
  auto errs = ex_.context().TakeUncapturedErrors();
  if (!errs.empty()) return Wrap(errs.front());
  std::vector<uint32_t> words(p.count * 8);
  if (!words.empty()) {
    auto st = ex_.context().Read(*p.digests, 0, std::as_writable_bytes(std::span<uint32_t>(words)));
    if (!st.ok()) return Wrap(st.error());
  }
  std::vector<Sha256Digest> out;
  for (size_t i = 0; i < p.count; ++i) out.push_back(FromWords(&words[8 * i]));
  return out;
}

Result<std::vector<Sha256Digest>> Sha256::HashBatch(
    std::span<const std::span<const std::byte>> messages) {
  ALKNET_ASSIGN_OR_RETURN(Prepared p, Prepare(messages));
  ALKNET_TRY(Dispatch(p, /*checked=*/true));
  return Finish(p);
}

Result<Sha256Digest> Sha256::HashStream(
    const std::function<Result<size_t>(std::span<std::byte>)>& read, uint64_t chunk_bytes) {
  wg::Context& ctx = ex_.context();
  chunk_bytes =
      std::min<uint64_t>(chunk_bytes, ex_.caps().max_storage_binding_bytes) & ~uint64_t{63};
  chunk_bytes = std::min<uint64_t>(chunk_bytes, 1ull << 31);
  if (chunk_bytes == 0)
    return Error{ErrorCode::kInvalidArgument, "chunk size must be at least 64 bytes"};
  ALKNET_ASSIGN_OR_RETURN(std::string source, StreamSource());
  wg::KernelSpec spec{source,
                      "main",
                      {wg::BindingType::kReadOnlyStorage, wg::BindingType::kReadOnlyStorage,
                       wg::BindingType::kStorage},
                      "sha256/stream"};
  auto kernel = ctx.GetKernel(spec);
  if (!kernel.ok()) return Wrap(kernel.error());
  auto data = ctx.CreateBuffer(chunk_bytes, wg::kStorageUsage, "sha256 chunk");
  auto params = ctx.CreateBuffer(16, wg::kStorageUsage, "sha256 params");
  auto state = ctx.CreateBuffer(32, wg::kStorageUsage, "sha256 state");
  if (!data.ok()) return Wrap(data.error());
  if (!params.ok()) return Wrap(params.error());
  if (!state.ok()) return Wrap(state.error());
  hbs::Value c = Context(options_);
  uint32_t h0[8];
  for (int i = 0; i < 8; ++i)
    h0[i] = static_cast<uint32_t>(
        std::stoul(c.as_object().find("h0")->as_array()[i].as_string(), nullptr, 16));
  if (auto st = ctx.Write(*state, 0, std::as_bytes(std::span<const uint32_t>(h0))); !st.ok())
    return Wrap(st.error());

  // Read one chunk ahead: a chunk is final when the next read returns nothing.
  std::vector<std::byte> cur(chunk_bytes), next(chunk_bytes);
  auto fill = [&](std::vector<std::byte>& buf) -> Result<size_t> {
    size_t got = 0;
    while (got < buf.size()) {
      ALKNET_ASSIGN_OR_RETURN(size_t n, read(std::span<std::byte>(buf).subspan(got)));
      if (n == 0) break;
      got += n;
    }
    return got;
  };
  ALKNET_ASSIGN_OR_RETURN(size_t cur_len, fill(cur));
  uint64_t total = 0;
  while (true) {
    size_t next_len = 0;
    if (cur_len == chunk_bytes) {
      ALKNET_ASSIGN_OR_RETURN(next_len, fill(next));
    }
    const bool final_chunk = next_len == 0;
    total += cur_len;
    const uint64_t bits = total * 8;
    const uint32_t p[4] = {static_cast<uint32_t>(cur_len), final_chunk ? 1u : 0u,
                           static_cast<uint32_t>(bits >> 32), static_cast<uint32_t>(bits)};
    if (auto st = ctx.Write(*params, 0, std::as_bytes(std::span<const uint32_t>(p))); !st.ok())
      return Wrap(st.error());
    if (cur_len > 0) {
      if (auto st = ctx.Write(*data, 0, std::span<const std::byte>(cur.data(), cur_len)); !st.ok())
        return Wrap(st.error());
    }
    wg::Recorder rec = ctx.BeginCommands("sha256 stream");
    const wg::BufferBinding b[] = {
        {&*data, 0, WGPU_WHOLE_SIZE}, {&*params, 0, 16}, {&*state, 0, 32}};
    if (auto st = rec.Dispatch(**kernel, b, wg::Grid{1, 1, 1}); !st.ok()) return Wrap(st.error());
    ALKNET_TRY(ex_.SubmitChecked(std::move(rec)));
    if (final_chunk) break;
    std::swap(cur, next);
    cur_len = next_len;
  }
  uint32_t words[8];
  if (auto st = ctx.Read(*state, 0, std::as_writable_bytes(std::span<uint32_t>(words))); !st.ok())
    return Wrap(st.error());
  return FromWords(words);
}

Result<Sha256Digest> Sha256::HashOne(std::span<const std::byte> message, uint64_t chunk_bytes) {
  size_t pos = 0;
  return HashStream(
      [&](std::span<std::byte> out) -> Result<size_t> {
        const size_t n = std::min(out.size(), message.size() - pos);
        if (n) std::memcpy(out.data(), message.data() + pos, n);
        pos += n;
        return n;
      },
      chunk_bytes);
}

}  // namespace alknet::compute
