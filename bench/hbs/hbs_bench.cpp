// Renders a tiled-matmul WGSL template (loops, partials, helpers) with alknet-hbs and, in the same
// run, with handlebars.js precompiled under node; checks both produce the same bytes and prints
// templates per second for each and the ratio (docs/benchmarks.md).
// usage: hbs_bench [--seconds S] [--check]   (--check: one render each, compare, no timing)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "alknet/hbs/hbs.h"

namespace alknet::bench_hbs {
struct EmbeddedFile {
  std::string_view name;
  std::string_view contents;
};
extern const EmbeddedFile kEmbeddedFiles[];
extern const std::size_t kEmbeddedFileCount;
}  // namespace alknet::bench_hbs

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string run_node(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  if (pclose(p) != 0) out.clear();
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 2.0;
  bool check_only = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--seconds" && i + 1 < argc) seconds = std::atof(argv[++i]);
    else if (a == "--check") check_only = true;
    else {
      std::fprintf(stderr, "usage: hbs_bench [--seconds S] [--check]\n");
      return 2;
    }
  }
  const std::string root = ALKNET_SOURCE_DIR;
  const std::string dir = root + "/bench/hbs";
  alknet::hbs::Value context = alknet::hbs::parse_json(read_file(dir + "/context.json"));

  alknet::hbs::Registry hbs;  // strict, no escaping: the code-generation defaults
  hbs.register_embedded(alknet::bench_hbs::kEmbeddedFiles, alknet::bench_hbs::kEmbeddedFileCount);
  std::string out = hbs.render("matmul.wgsl", context);

  const double js_seconds = check_only ? 0.0 : seconds;
  std::string js = run_node("node " + dir + "/bench_js.js " + root + " " + dir + "/templates matmul.wgsl " +
                            dir + "/context.json " + std::to_string(js_seconds));
  if (js.empty()) {
    std::fprintf(stderr, "hbs_bench: running handlebars.js under node failed (run scripts/setup)\n");
    return 3;
  }
  alknet::hbs::Value js_result = alknet::hbs::parse_json(js);
  const std::string& js_out = js_result.as_object().find("output")->as_string();
  if (js_out != out) {
    std::fprintf(stderr, "hbs_bench: outputs differ\n--- alknet-hbs ---\n%s\n--- handlebars.js ---\n%s\n",
                 out.c_str(), js_out.c_str());
    return 1;
  }
  std::printf("template: bench/hbs/templates/matmul.wgsl.hbs -> %zu bytes of WGSL, identical in both\n",
              out.size());
  if (check_only) return 0;

  using Clock = std::chrono::steady_clock;
  std::size_t n = 0, sink = 0;
  std::string buf;
  auto t0 = Clock::now();
  double elapsed = 0;
  while (elapsed < seconds) {
    for (int i = 0; i < 100; ++i) {
      buf.clear();
      hbs.render_to(buf, "matmul.wgsl", context);
      sink += buf.size();
    }
    n += 100;
    elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  }
  double ours = static_cast<double>(n) / elapsed;
  double theirs = js_result.as_object().find("renders_per_sec")->as_number();
  std::printf("alknet-hbs:               %10.0f templates/s (%.2f us each)\n", ours, 1e6 / ours);
  std::printf("handlebars.js 4.7.8 node: %10.0f templates/s (%.2f us each, precompiled)\n", theirs,
              1e6 / theirs);
  std::printf("ratio: %.2fx (goal >= 5x)\n", ours / theirs);
  return sink == 0;
}
