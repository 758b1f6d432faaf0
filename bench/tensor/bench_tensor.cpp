// Metatensor benchmarks, each with its peer in the same run:
//   open   : Reader::Open (full index validation) + first tensor access, for 10,000 small
//            tensors and for a 4 GiB file; peer: open + one pread of the index bytes (the I/O
//            floor), and the same tensor count with 1000x less data (size independence).
//   write  : streaming Writer to a file vs plain write() of the same bytes, same chunking.
//   convert: `alknet tensor convert` of a large .safetensors vs `cp` of the same file.
// Usage: bench_tensor DIR [--alknet BINARY] [--only open|write|convert]
//        (DIR needs ~5 GiB free; every file is removed afterwards)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "alknet/tensor/tensor.h"

using namespace alknet::tensor;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

template <typename F>
double Median(int runs, F f) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    const auto a = Clock::now();
    f();
    t.push_back(Seconds(a, Clock::now()));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void Die(const std::string& what) {
  std::fprintf(stderr, "bench_tensor: %s\n", what.c_str());
  std::exit(1);
}

void MakeFile(const fs::path& path, size_t tensors, uint64_t bytes_each) {
  auto fw = FileWriter::Create(path);
  if (!fw) Die(fw.error().ToString());
  std::vector<std::byte> chunk(std::min<uint64_t>(bytes_each, 64u << 20), std::byte{1});
  for (size_t i = 0; i < tensors; ++i) {
    const std::vector<uint64_t> shape{bytes_each / 4};
    Status s = (*fw)->writer().BeginTensor("model.layers." + std::to_string(i) + ".weight",
                                           DType::kF32, shape);
    for (uint64_t done = 0; s.ok() && done < bytes_each; done += chunk.size()) {
      s = (*fw)->writer().Write(
          std::span(chunk).first(std::min<uint64_t>(chunk.size(), bytes_each - done)));
    }
    if (s.ok()) s = (*fw)->writer().EndTensor();
    if (!s.ok()) Die(s.error().ToString());
  }
  if (auto s = (*fw)->Commit(); !s) Die(s.error().ToString());
}

// Reader::Open validates every record and the metadata; then the first tensor's first byte.
double OpenAndTouch(const fs::path& path) {
  return Median(21, [&] {
    auto r = Reader::Open(path);
    if (!r) Die(r.error().ToString());
    auto t = r->Tensor(0);
    if (!t) Die(t.error().ToString());
    volatile std::byte b = t->data[0];
    (void)b;
  });
}

// The floor: open the file and read its index bytes once, no parsing.
double PreadIndex(const fs::path& path) {
  auto r = Reader::Open(path);
  const uint64_t off = r->preamble().index_offset, len = r->preamble().index_length;
  std::vector<char> buf(len);
  return Median(21, [&] {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (::pread(fd, buf.data(), len, static_cast<off_t>(off)) != static_cast<ssize_t>(len))
      Die("pread");
    ::close(fd);
  });
}

void BenchOpen(const fs::path& dir) {
  const fs::path many = dir / "many.mtf", big = dir / "big.mtf", small = dir / "small.mtf";
  MakeFile(many, 10000, 64);
  MakeFile(big, 16, 256ull << 20);    // 4 GiB
  MakeFile(small, 16, 256ull << 10);  // 4 MiB, same index
  const double t_many = OpenAndTouch(many), f_many = PreadIndex(many);
  const double t_big = OpenAndTouch(big), t_small = OpenAndTouch(small);
  std::printf(
      "open+validate+first access, 10,000 tensors (%.1f MiB): %.3f ms "
      "(open+pread of the index alone: %.3f ms, ratio %.1fx)\n",
      fs::file_size(many) / 1048576.0, t_many * 1e3, f_many * 1e3, t_many / f_many);
  std::printf(
      "open+validate+first access, 4 GiB file (16 tensors): %.3f ms; same index with 4 MiB "
      "of data: %.3f ms (ratio %.2f)\n",
      t_big * 1e3, t_small * 1e3, t_big / t_small);
  fs::remove(many);
  fs::remove(big);
  fs::remove(small);
}

void BenchWrite(const fs::path& dir) {
  const uint64_t total = 1ull << 30, chunk_size = 8u << 20;
  std::vector<std::byte> chunk(chunk_size);
  for (size_t i = 0; i < chunk.size(); ++i) chunk[i] = static_cast<std::byte>(i * 131);
  const size_t tensors = 32;
  const uint64_t per = total / tensors;
  auto plain = [&] {
    const fs::path p = dir / "plain.bin";
    const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    for (uint64_t done = 0; done < total; done += chunk_size) {
      if (::write(fd, chunk.data(), chunk_size) != static_cast<ssize_t>(chunk_size)) Die("write");
    }
    ::close(fd);
    fs::remove(p);
  };
  auto ours = [&](bool checksums) {
    const fs::path p = dir / "w.mtf";
    WriteOptions o;
    o.checksums = checksums;
    const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    FdSink sink(fd);
    Writer w(sink, o);
    for (size_t t = 0; t < tensors; ++t) {
      const std::vector<uint64_t> shape{per};
      if (!w.BeginTensor("t" + std::to_string(t), DType::kU8, shape).ok()) Die("begin");
      for (uint64_t done = 0; done < per; done += chunk_size) {
        if (!w.Write(chunk).ok()) Die("write");
      }
      if (!w.EndTensor().ok()) Die("end");
    }
    if (!w.Finish().ok()) Die("finish");
    ::close(fd);
    fs::remove(p);
  };
  // Interleave the runs so that page-cache and disk state affect all three alike.
  // Rotate the order each round so page-cache and writeback state favour none of the three.
  std::vector<double> tp, tw, tc;
  for (int i = 0; i < 9; ++i) {
    for (int k = 0; k < 3; ++k) {
      switch ((i + k) % 3) {
        case 0: tp.push_back(Median(1, plain)); break;
        case 1: tw.push_back(Median(1, [&] { ours(false); })); break;
        case 2: tc.push_back(Median(1, [&] { ours(true); })); break;
      }
    }
  }
  for (auto* v : {&tp, &tw, &tc}) std::sort(v->begin(), v->end());
  const size_t mid = tp.size() / 2;
  if (std::getenv("BENCH_VERBOSE")) {
    for (size_t i = 0; i < tp.size(); ++i)
      std::printf("    run %zu: %.3f %.3f %.3f s\n", i, tp[i], tw[i], tc[i]);
  }
  const double gib = total / 1073741824.0;
  std::printf("streaming write of 1 GiB in 32 tensors, 8 MiB chunks, into %s (median of 9):\n",
              dir.string().c_str());
  // Median and best run: on a VM disk, writeback stalls hit single runs at random.
  auto line = [&](const char* what, const std::vector<double>& t) {
    std::printf("  %-27s median %.2f GiB/s (%3.0f%% of write()), best %.2f GiB/s (%3.0f%%)\n", what,
                gib / t[mid], 100 * tp[mid] / t[mid], gib / t[0], 100 * tp[0] / t[0]);
  };
  line("plain write():", tp);
  line("Writer, no checksums:", tw);
  line("Writer, CRC32C per tensor:", tc);
}

void BenchConvert(const fs::path& dir, const std::string& alknet) {
  // A 1 GiB safetensors file of 64 f32 tensors: u64 header length, JSON header, data.
  const fs::path st = dir / "big.safetensors", out = dir / "big.mtf", copy = dir / "copy.bin";
  const uint64_t per = 16u << 20, n = 64;
  std::string h = "{\"__metadata__\":{\"format\":\"pt\"}";
  for (uint64_t i = 0; i < n; ++i) {
    h += ",\"w" + std::to_string(i) + "\":{\"dtype\":\"F32\",\"shape\":[" +
         std::to_string(per / 4) + "],\"data_offsets\":[" + std::to_string(i * per) + "," +
         std::to_string((i + 1) * per) + "]}";
  }
  h += "}";
  while (h.size() % 8) h += ' ';
  {
    const int fd = ::open(st.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const uint64_t hl = h.size();
    if (::write(fd, &hl, 8) != 8 ||
        ::write(fd, h.data(), h.size()) != static_cast<ssize_t>(h.size()))
      Die("write");
    std::vector<char> buf(per, 3);
    for (uint64_t i = 0; i < n; ++i) {
      if (::write(fd, buf.data(), per) != static_cast<ssize_t>(per)) Die("write");
    }
    ::close(fd);
  }
  const std::string conv =
      alknet + " tensor convert " + st.string() + " " + out.string() + " >/dev/null";
  const std::string cp = "cp " + st.string() + " " + copy.string() + " && sync " + copy.string();
  std::vector<double> tc, tp;
  for (int i = 0; i < 5; ++i) {
    tc.push_back(Median(1, [&] {
      if (std::system(conv.c_str()) != 0) Die("convert failed");
    }));
    fs::remove(out);
    tp.push_back(Median(1, [&] {
      if (std::system(cp.c_str()) != 0) Die("cp failed");
    }));
    fs::remove(copy);
  }
  std::sort(tc.begin(), tc.end());
  std::sort(tp.begin(), tp.end());
  std::printf(
      "convert 1 GiB .safetensors (64 tensors) -> .mtf, fsynced: median %.2f s, best %.2f s; "
      "cp + sync of the same file: median %.2f s, best %.2f s (ratio median %.2f, best %.2f)\n",
      tc[2], tc[0], tp[2], tp[0], tc[2] / tp[2], tc[0] / tp[0]);
  fs::remove(st);
  fs::remove(out);
  fs::remove(copy);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_tensor DIR [--alknet BINARY] [--only open|write|convert]\n");
    return 2;
  }
  const fs::path dir = argv[1];
  std::string alknet, only;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--alknet") == 0) alknet = argv[i + 1];
    if (std::strcmp(argv[i], "--only") == 0) only = argv[i + 1];
  }
  fs::create_directories(dir);
  if (only.empty() || only == "open") BenchOpen(dir);
  if (only.empty() || only == "write") {
    BenchWrite(dir);
    // tmpfs: no disk writeback, so the ratio shows the writer's own CPU cost.
    if (fs::is_directory("/dev/shm")) BenchWrite("/dev/shm");
  }
  if ((only.empty() || only == "convert") && !alknet.empty()) BenchConvert(dir, alknet);
  return 0;
}
