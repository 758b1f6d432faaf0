// Renders a tiled-matmul WGSL template (loops, partials, helpers) with alknet-hbs and, in the same
// run, with handlebars.js precompiled under node; checks both produce the same bytes, then
// alternates timed rounds of the two engines (so machine noise hits both alike) and reports the
// best round of each and their ratio (docs/benchmarks.md).
// usage: hbs_bench [--rounds N] [--seconds S] [--check]   (--check: compare outputs only)
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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

// handlebars.js in a node child process, driven line by line over pipes.
class NodePeer {
 public:
  bool start(const std::vector<std::string>& argv) {
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0) return false;
    pid_ = fork();
    if (pid_ < 0) return false;
    if (pid_ == 0) {
      dup2(to_child[0], 0);
      dup2(from_child[1], 1);
      close(to_child[1]);
      close(from_child[0]);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execvp(args[0], args.data());
      _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    in_ = fdopen(to_child[1], "w");
    out_ = fdopen(from_child[0], "r");
    return in_ && out_;
  }
  bool send(const std::string& line) {
    return std::fputs((line + "\n").c_str(), in_) >= 0 && std::fflush(in_) == 0;
  }
  std::string receive() {
    std::string line;
    int c;
    while ((c = std::fgetc(out_)) != EOF && c != '\n') line += static_cast<char>(c);
    return line;
  }
  ~NodePeer() {
    if (in_) std::fclose(in_);
    if (out_) std::fclose(out_);
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
  }

 private:
  pid_t pid_ = -1;
  FILE* in_ = nullptr;
  FILE* out_ = nullptr;
};

}  // namespace

int main(int argc, char** argv) {
  double seconds = 0.5;
  int rounds = 6;
  bool check_only = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--seconds" && i + 1 < argc)
      seconds = std::atof(argv[++i]);
    else if (a == "--rounds" && i + 1 < argc)
      rounds = std::atoi(argv[++i]);
    else if (a == "--check")
      check_only = true;
    else {
      std::fprintf(stderr, "usage: hbs_bench [--rounds N] [--seconds S] [--check]\n");
      return 2;
    }
  }
  const std::string root = ALKNET_SOURCE_DIR;
  const std::string dir = root + "/bench/hbs";
  alknet::hbs::Value context = alknet::hbs::parse_json(read_file(dir + "/context.json"));

  alknet::hbs::Registry hbs;  // strict, no escaping: the code-generation defaults
  hbs.register_embedded(alknet::bench_hbs::kEmbeddedFiles, alknet::bench_hbs::kEmbeddedFileCount);
  std::string out = hbs.render("matmul.wgsl", context);

  NodePeer node;
  std::string first;
  if (!node.start({ALKNET_NODE, dir + "/bench_js.js", root, dir + "/templates", "matmul.wgsl",
                   dir + "/context.json"}) ||
      (first = node.receive()).empty()) {
    std::fprintf(stderr,
                 "hbs_bench: running handlebars.js under node failed (run scripts/setup)\n");
    return 3;
  }
  // Keep the parsed reply alive: js_out refers into it.
  const alknet::hbs::Value reply = alknet::hbs::parse_json(first);
  const std::string& js_out = reply.as_object().find("output")->as_string();
  if (js_out != out) {
    std::fprintf(stderr,
                 "hbs_bench: outputs differ\n--- alknet-hbs ---\n%s\n--- handlebars.js ---\n%s\n",
                 out.c_str(), js_out.c_str());
    return 1;
  }
  std::printf(
      "template: bench/hbs/templates/matmul.wgsl.hbs (+4 partials) -> %zu bytes of WGSL, "
      "identical in both engines\n",
      out.size());
  if (check_only) return 0;

  using Clock = std::chrono::steady_clock;
  std::size_t sink = 0;
  std::string buf;
  auto ours_round = [&] {
    std::size_t n = 0;
    auto t0 = Clock::now();
    double elapsed = 0;
    while (elapsed < seconds) {
      for (int i = 0; i < 50; ++i) {
        buf.clear();
        hbs.render_to(buf, "matmul.wgsl", context);
        sink += buf.size();
      }
      n += 50;
      elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
    }
    return static_cast<double>(n) / elapsed;
  };
  std::vector<double> ours, theirs, ratios;
  for (int r = 0; r < rounds; ++r) {
    node.send(std::to_string(seconds));
    double js =
        alknet::hbs::parse_json(node.receive()).as_object().find("renders_per_sec")->as_number();
    double cc = ours_round();
    theirs.push_back(js);
    ours.push_back(cc);
    ratios.push_back(cc / js);
    std::printf("round %d: alknet-hbs %8.0f/s  handlebars.js %8.0f/s  ratio %.2fx\n", r + 1, cc, js,
                cc / js);
  }
  double best_ours = *std::max_element(ours.begin(), ours.end());
  double best_theirs = *std::max_element(theirs.begin(), theirs.end());
  std::sort(ratios.begin(), ratios.end());
  std::printf("alknet-hbs:               %10.0f templates/s (%.1f us each, best of %d)\n",
              best_ours, 1e6 / best_ours, rounds);
  std::printf(
      "handlebars.js 4.7.8 node: %10.0f templates/s (%.1f us each, precompiled, best of %d)\n",
      best_theirs, 1e6 / best_theirs, rounds);
  std::printf("ratio (best/best): %.2fx; median round ratio: %.2fx (goal >= 5x)\n",
              best_ours / best_theirs, ratios[ratios.size() / 2]);
  return sink == 0;
}
