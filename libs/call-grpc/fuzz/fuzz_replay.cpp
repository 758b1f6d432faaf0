// CI smoke run of fuzz_call_request.cpp without libFuzzer: seeds built with the real
// encoders (a request with tensors, JSON, signatures), then seeded random mutations of each.
// The long run: the "fuzz" preset builds fuzz_call_request for libFuzzer.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "alknet/call/value.h"
#include "tensor_payload.h"
#include "wire.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace ac = alknet::call;

namespace {

std::vector<std::uint8_t> Tagged(std::uint8_t tag, std::string_view text) {
  std::vector<std::uint8_t> v{tag};
  v.insert(v.end(), text.begin(), text.end());
  return v;
}

std::vector<std::uint8_t> RequestSeed() {
  std::vector<float> a{1, 2, 3, 4, 5, 6};
  std::vector<ac::Value> args{
      ac::Value(ac::Tensor::Copy("f32", {2, 3}, std::as_bytes(std::span(a)))), ac::Value(7),
      ac::Value(ac::Value::List{ac::Value("x"), ac::Value()})};
  ac::wire::Frame frame;
  std::vector<ac::Tensor> tensors;
  for (const auto& v : args) ac::ToWire(v, frame.mutable_header()->add_args(), tensors);
  auto enc = ac::EncodePayload(tensors);
  std::string control = frame.SerializeAsString();
  std::vector<std::uint8_t> out{2, 0, 0, 0, 0};
  const auto len = static_cast<std::uint32_t>(control.size());
  std::memcpy(&out[1], &len, 4);
  out.insert(out.end(), control.begin(), control.end());
  for (auto piece : enc->pieces) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(piece.data());
    out.insert(out.end(), p, p + piece.size());
  }
  return out;
}

// A control message as it travels: the 'H' tag, then a Frame with a header.
std::string ControlMessageSeed() {
  ac::wire::Frame frame;
  frame.mutable_header()->set_call("test.echo");
  frame.mutable_header()->set_payload_bytes(64);
  frame.mutable_header()->add_args()->set_i(7);
  return "H" + frame.SerializeAsString();
}

}  // namespace

// Usage: call_fuzz_replay [MUTATIONS]   (default 2000)
//        call_fuzz_replay --write-seeds DIR   (the seeds as files: a corpus for libFuzzer)
int main(int argc, char** argv) {
  const std::vector<std::vector<std::uint8_t>> seeds = {
      RequestSeed(),
      Tagged(0, R"({"a": [1, -2.5e3, true, null], "s": "\u00e9\ud83d\ude00", "n": {}})"),
      Tagged(1, "(t: tensor, axis: int?, ...rest: any) -> map"),
      Tagged(3, ControlMessageSeed()),
      Tagged(3, "Cchunk bytes"),
  };
  if (argc > 2 && std::string(argv[1]) == "--write-seeds") {
    for (std::size_t i = 0; i < seeds.size(); ++i) {
      const std::string path = std::string(argv[2]) + "/seed-" + std::to_string(i);
      std::FILE* f = std::fopen(path.c_str(), "wb");
      if (f == nullptr || std::fwrite(seeds[i].data(), 1, seeds[i].size(), f) != seeds[i].size()) {
        std::fprintf(stderr, "call_fuzz_replay: cannot write %s\n", path.c_str());
        return 1;
      }
      std::fclose(f);
    }
    std::printf("%zu seeds written to %s\n", seeds.size(), argv[2]);
    return 0;
  }
  const int mutations = argc > 1 ? std::atoi(argv[1]) : 2000;
  std::mt19937_64 rng(2024);
  std::size_t runs = 0;
  for (const auto& seed : seeds) {
    LLVMFuzzerTestOneInput(seed.data(), seed.size());
    ++runs;
    for (int m = 0; m < mutations; ++m) {
      std::vector<std::uint8_t> v = seed;
      const int edits = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < edits && v.size() > 1; ++k) {
        const std::size_t at = 1 + rng() % (v.size() - 1);  // keep the parser selector
        switch (rng() % 3) {
          case 0: v[at] ^= static_cast<std::uint8_t>(1u << (rng() % 8)); break;
          case 1: v[at] = static_cast<std::uint8_t>(rng()); break;
          case 2: v.resize(at); break;
        }
      }
      LLVMFuzzerTestOneInput(v.data(), v.size());
      ++runs;
    }
  }
  std::printf("%zu inputs, no crash\n", runs);
  return 0;
}
