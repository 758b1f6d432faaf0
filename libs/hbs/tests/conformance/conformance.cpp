// Differential conformance: renders each corpus case with alknet-hbs in compat mode and compares
// the bytes with what handlebars.js produced for the same case (render_js.js). Both must agree on
// success or failure; successful outputs must be identical.
// usage: hbs_conformance JS_RESULTS.json CORPUS.json...
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "alknet/hbs/hbs.h"

using alknet::hbs::Value;

namespace {

std::string read_file(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::cerr << "cannot read " << path << "\n";
    std::exit(2);
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string quote(const std::string& s) { return Value(s).to_json(); }

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: hbs_conformance JS_RESULTS.json CORPUS.json...\n";
    return 2;
  }
  Value expected = alknet::hbs::parse_json(read_file(argv[1]));
  const auto& results = expected.as_array();
  std::size_t index = 0, failures = 0, errors_agreed = 0;
  for (int f = 2; f < argc; ++f) {
    Value corpus = alknet::hbs::parse_json(read_file(argv[f]));
    for (const auto& group : corpus.as_object().find("groups")->as_array()) {
      const auto& g = group.as_object();
      for (const auto& entry : g.find("templates")->as_array()) {
        Value c = entry.is_string() ? Value::object({{"t", entry}}) : entry;
        const auto& co = c.as_object();
        const std::string& tpl = co.find("t")->as_string();
        const Value* data = co.find("data") ? co.find("data") : g.find("data");
        Value empty = Value::object({});
        if (!data) data = &empty;
        alknet::hbs::Registry hbs = alknet::hbs::Registry::compat();
        hbs.set_logger([](int, std::string_view) {});
        // The same test helper as render_js.js: shows the arguments and hash a call received.
        hbs.register_helper("echo", [](const alknet::hbs::HelperCall& call) {
          auto show = [](const Value& v) {
            return v.is_undefined() ? std::string("U") : v.to_json();
          };
          std::string out;
          for (std::size_t i = 0; i < call.param_count(); ++i)
            out += (i ? "," : "") + show(call.param(i));
          for (std::size_t i = 0; i < call.hash_count(); ++i)
            out += ";" + std::string(call.hash_entry(i).first) + "=" +
                   show(*call.hash_entry(i).second);
          return Value(out);
        });
        std::string out, error;
        bool ok = true;
        try {
          for (const Value* partials : {g.find("partials"), co.find("partials")}) {
            if (!partials) continue;
            for (const auto& [name, src] : partials->as_object().entries())
              hbs.register_partial(name, src.as_string());
          }
          hbs.register_template_string("case", tpl);
          out = hbs.render("case", *data);
        } catch (const alknet::hbs::Error& e) {
          ok = false;
          error = e.what();
        }
        if (index >= results.size()) {
          std::cerr << "fewer reference results than cases\n";
          return 1;
        }
        const auto& ref = results[index].as_object();
        bool ref_ok = ref.find("ok")->as_bool();
        std::string where = std::string(argv[f]) + " [" + g.find("name")->as_string() + "] case #" +
                            std::to_string(index);
        if (ref_ok != ok) {
          ++failures;
          std::cout << "MISMATCH " << where << "\n  template: " << quote(tpl) << "\n"
                    << (ok ? "  alknet-hbs rendered " + quote(out) +
                                 "\n  handlebars.js failed: " + ref.find("error")->as_string()
                           : "  alknet-hbs failed: " + error + "\n  handlebars.js rendered " +
                                 quote(ref.find("out")->as_string()))
                    << "\n";
        } else if (ok && ref.find("out")->as_string() != out) {
          ++failures;
          std::cout << "MISMATCH " << where << "\n  template: " << quote(tpl)
                    << "\n  handlebars.js: " << quote(ref.find("out")->as_string())
                    << "\n  alknet-hbs:    " << quote(out) << "\n";
        } else if (!ok) {
          ++errors_agreed;
        }
        ++index;
      }
    }
  }
  if (index != results.size()) {
    std::cerr << "reference has " << results.size() << " results for " << index << " cases\n";
    return 1;
  }
  std::cout << index << " cases, " << (index - failures) << " identical (" << errors_agreed
            << " fail in both), " << failures << " mismatches\n";
  return failures == 0 ? 0 : 1;
}
