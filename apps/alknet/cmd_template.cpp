// `alknet template render`: renders a Handlebars template from the command line, so templates
// can be developed and debugged without writing C++.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "alknet/base/file.h"
#include "alknet/hbs/hbs.h"
#include "command.h"

namespace {

using alknet::cli::kExitFailure;
using alknet::cli::kExitOk;
using alknet::cli::kExitUsage;

constexpr const char* kUsage =
    "Usage: alknet template render FILE [--data JSON_FILE|-] [--partial NAME=FILE ...] [--compat]\n"
    "\n"
    "Renders the Handlebars template FILE to standard output.\n"
    "\n"
    "Options:\n"
    "  --data JSON_FILE   the context, as JSON ('-' reads standard input; default: {})\n"
    "  --partial NAME=FILE\n"
    "                     registers FILE as the partial NAME (repeatable)\n"
    "  --compat           handlebars.js defaults: HTML-escape {{x}}, render missing values as ''\n"
    "                     (default: strict, no escaping: a missing variable, helper or partial\n"
    "                     is an error)\n"
    "  -h, --help         this help\n"
    "\n"
    "Exit codes: 0 rendered, 1 the template or data is invalid (message on stderr with\n"
    "file:line:column), 2 bad command line.\n";

// Templates, partials and data files: regular files only (a directory or FIFO is an error, not
// an empty template or a hang), at most this many bytes; '-' is standard input, capped the same.
constexpr std::uint64_t kMaxInputBytes = 256ull << 20;

bool read_file(const std::string& path, std::string& out) {
  auto text = path == "-" ? alknet::base::ReadAllFd(0, "standard input", kMaxInputBytes)
                          : alknet::base::ReadRegularFile(path, kMaxInputBytes);
  if (!text) {
    std::fprintf(stderr, "alknet template: %s\n", text.error().message.c_str());
    return false;
  }
  out = std::move(text).value();
  return true;
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "alknet template: %s\n\n%s", message.c_str(), kUsage);
  return kExitUsage;
}

int RunRender(std::span<const std::string_view> args) {
  std::string file, data_file;
  std::vector<std::pair<std::string, std::string>> partials;
  bool compat = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view a = args[i];
    if (a == "--compat") {
      compat = true;
    } else if (a == "--data" || a == "--partial") {
      if (i + 1 >= args.size()) return usage_error(std::string(a) + " needs a value");
      std::string v(args[++i]);
      if (a == "--data") {
        if (!data_file.empty()) return usage_error("--data given twice");
        data_file = v;
      } else {
        auto eq = v.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
          return usage_error("--partial needs NAME=FILE, got '" + v + "'");
        partials.emplace_back(v.substr(0, eq), v.substr(eq + 1));
      }
    } else if (a.size() > 1 && a[0] == '-') {
      return usage_error("unknown option '" + std::string(a) + "'");
    } else if (file.empty()) {
      file = a;
    } else {
      return usage_error("only one template FILE may be given");
    }
  }
  if (file.empty()) return usage_error("missing template FILE");

  alknet::hbs::Registry hbs(compat ? alknet::hbs::Mode::kCompat : alknet::hbs::Mode::kStrict);
  alknet::hbs::Value context = alknet::hbs::Value::object({});
  try {
    if (!data_file.empty()) {
      std::string json;
      if (!read_file(data_file, json)) {
        std::fprintf(stderr, "alknet template: cannot read data file '%s'\n", data_file.c_str());
        return kExitFailure;
      }
      try {
        context = alknet::hbs::parse_json(json);
      } catch (const alknet::hbs::JsonError& e) {
        std::fprintf(stderr, "alknet template: %s: %s\n", data_file.c_str(), e.what());
        return kExitFailure;
      }
    }
    for (const auto& [name, path] : partials) {
      std::string src;
      if (!read_file(path, src)) {
        std::fprintf(stderr, "alknet template: cannot read partial file '%s'\n", path.c_str());
        return kExitFailure;
      }
      hbs.register_template_string(name, src, path);
    }
    std::string src;
    if (!read_file(file, src)) {
      std::fprintf(stderr, "alknet template: cannot read template file '%s'\n", file.c_str());
      return kExitFailure;
    }
    // Registered under its path so a partial of the same name cannot shadow it.
    hbs.register_template_string("\x01main", src, file);
    std::string out = hbs.render("\x01main", context);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return std::fflush(stdout) == 0 ? kExitOk : kExitFailure;
  } catch (const alknet::hbs::ParseError& e) {
    std::fprintf(stderr, "alknet template: parse error: %s\n", e.what());
  } catch (const alknet::hbs::RenderError& e) {
    std::fprintf(stderr, "alknet template: render error: %s\n", e.what());
  }
  return kExitFailure;
}

int RunTemplate(std::span<const std::string_view> args) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    std::fputs(kUsage, args.empty() ? stderr : stdout);
    return args.empty() ? kExitUsage : kExitOk;
  }
  if (args[0] != "render") return usage_error("unknown subcommand '" + std::string(args[0]) + "'");
  if (alknet::cli::WantsHelp(args.subspan(1))) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  return RunRender(args.subspan(1));
}

const alknet::cli::Registration kReg{
    {"template", "Render a Handlebars template (alknet-hbs)", &RunTemplate}};

}  // namespace
