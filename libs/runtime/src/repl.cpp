#include "alknet/runtime/repl.h"

#include <editline/readline.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace alknet::runtime {

namespace {

std::string DefaultHistoryFile() {
  if (const char* env = std::getenv("ALKNET_REPL_HISTORY")) return env;
  if (const char* home = std::getenv("HOME")) return std::string(home) + "/.alknet_history";
  return {};
}

// One input line; false at end of input.
bool ReadLine(bool interactive, const char* prompt, std::string* out) {
  if (!interactive) return static_cast<bool>(std::getline(std::cin, *out));
  char* line = readline(prompt);
  if (line == nullptr) return false;
  *out = line;
  if (!out->empty()) add_history(line);
  std::free(line);
  return true;
}

}  // namespace

int RunRepl(Runtime& runtime, const ReplOptions& options) {
  const bool interactive = isatty(STDIN_FILENO) != 0;
  std::string history = options.history_file.empty() ? DefaultHistoryFile() : options.history_file;
  if (interactive) {
    using_history();
    if (!history.empty()) read_history(history.c_str());
    if (!options.quiet) {
      std::printf("alknet repl (%s). .exit or Ctrl-D to leave.\n", runtime.engine().name().c_str());
    }
  }
  std::string line, input;
  while (ReadLine(interactive, input.empty() ? "> " : "... ", &line)) {
    if (input.empty() && line == ".exit") break;
    if (input.empty() && line.find_first_not_of(" \t") == std::string::npos) continue;
    input += line;
    input += '\n';
    if (!runtime.engine().IsCompilableUnit(input)) continue;  // e.g. an open `{`: read on
    auto result = runtime.EvalRepl(input);
    input.clear();
    if (runtime.exit_requested()) break;
    if (result) {
      std::printf("%s\n", result->c_str());
    } else {
      std::fprintf(stderr, "%s\n", result.error().message.c_str());
    }
    std::fflush(stdout);
  }
  if (interactive && !history.empty()) write_history(history.c_str());
  return runtime.exit_code();
}

}  // namespace alknet::runtime
