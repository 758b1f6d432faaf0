// The SpiderMonkey engine in-process, through Runtime: output capture, lifecycle, the REPL
// path, and error reporting that the CLI tests cannot see from outside.
#include <gtest/gtest.h>

#include <fstream>

#include "alknet/runtime/runtime.h"

namespace alknet::runtime {
namespace {

namespace fs = std::filesystem;

struct Captured {
  std::string out, err;
};

std::unique_ptr<Runtime> MakeRuntime(Captured& c, RuntimeOptions options = {}) {
  options.write = [&c](OutputStream s, std::string_view text) {
    (s == OutputStream::kStdout ? c.out : c.err) += text;
  };
  auto rt = Runtime::Create(std::move(options));
  if (!rt) {
    ADD_FAILURE() << rt.error().message;
    return nullptr;
  }
  return std::move(*rt);
}

TEST(Engine, IsSpiderMonkey102) {
  Captured c;
  auto rt = MakeRuntime(c);
  ASSERT_TRUE(rt);
  EXPECT_EQ(rt->engine().name().rfind("SpiderMonkey 102.", 0), 0u) << rt->engine().name();
}

TEST(Engine, RuntimesComeAndGoOnOneThread) {
  for (int i = 0; i < 3; ++i) {
    Captured c;
    auto rt = MakeRuntime(c);
    ASSERT_TRUE(rt);
    EXPECT_EQ(rt->RunSource("console.log(`run ${" + std::to_string(i) + "}`)"), 0);
    EXPECT_EQ(c.out, "run " + std::to_string(i) + "\n");
  }
}

TEST(Engine, EmptySourceIsAnEmptyModule) {
  Captured c;
  auto rt = MakeRuntime(c);
  ASSERT_TRUE(rt);
  EXPECT_EQ(rt->RunSource(""), 0) << c.err;
  EXPECT_EQ(c.err, "");
}

TEST(Engine, ConsoleStreams) {
  Captured c;
  auto rt = MakeRuntime(c);
  ASSERT_TRUE(rt);
  EXPECT_EQ(rt->RunSource("console.log('o'); console.error('e'); console.warn('w')"), 0);
  EXPECT_EQ(c.out, "o\n");
  EXPECT_EQ(c.err, "e\nw\n");
}

TEST(Engine, ThrowingMicrotaskEndsTheRunWithItsLocation) {
  Captured c;
  auto rt = MakeRuntime(c);
  ASSERT_TRUE(rt);
  EXPECT_EQ(rt->RunSource("queueMicrotask(() => {\n  undefinedFunction();\n});"), 1);
  EXPECT_NE(c.err.find("Uncaught ReferenceError: undefinedFunction is not defined"),
            std::string::npos)
      << c.err;
  EXPECT_NE(c.err.find("[eval]:2:3"), std::string::npos) << c.err;
}

TEST(Engine, RejectionHandledInTheSameTickIsNotReported) {
  Captured c;
  auto rt = MakeRuntime(c);
  ASSERT_TRUE(rt);
  EXPECT_EQ(rt->RunSource("const p = Promise.reject(new Error('x'));\n"
                          "p.catch((e) => console.log('handled', e.message));"),
            0);
  EXPECT_EQ(c.out, "handled x\n");
  EXPECT_EQ(c.err, "");
}

// The browser default: reported, the script runs on (exit status 1 at the end), and a
// handler attached later fires 'rejectionhandled'.
TEST(Engine, RejectionStillUnhandledAfterTheTickIsReported) {
  Captured c;
  auto rt = MakeRuntime(c);
  ASSERT_TRUE(rt);
  EXPECT_EQ(rt->RunSource("addEventListener('unhandledrejection', (e) => console.log('event', "
                          "e.reason, e.promise === p));\n"
                          "addEventListener('rejectionhandled', (e) => console.log('handled', "
                          "e.reason));\n"
                          "const p = Promise.reject(42);\n"
                          "setTimeout(() => p.catch(() => console.log('too late')), 5);"),
            1);
  EXPECT_EQ(c.out, "event 42 true\ntoo late\nhandled 42\n");
  EXPECT_NE(c.err.find("Uncaught (in promise) 42"), std::string::npos) << c.err;
}

TEST(Engine, UnhandledRejectionThrowModeEndsTheScript) {
  Captured c;
  RuntimeOptions options;
  options.unhandled_rejections_throw = true;
  auto rt = MakeRuntime(c, std::move(options));
  ASSERT_TRUE(rt);
  EXPECT_EQ(rt->RunSource("const p = Promise.reject(42);\n"
                          "setTimeout(() => p.catch(() => console.log('too late')), 5);"),
            1);
  EXPECT_EQ(c.out, "");
  EXPECT_NE(c.err.find("Uncaught (in promise) 42"), std::string::npos) << c.err;
}

TEST(Engine, UnhandledRejectionCancelledByAListenerIsNotReported) {
  Captured c;
  auto rt = MakeRuntime(c);
  ASSERT_TRUE(rt);
  EXPECT_EQ(rt->RunSource("addEventListener('unhandledrejection', (e) => e.preventDefault());\n"
                          "Promise.reject(new Error('quiet'));\n"
                          "setTimeout(() => console.log('after'), 1);"),
            0);
  EXPECT_EQ(c.out, "after\n");
  EXPECT_EQ(c.err, "");
}

TEST(Engine, ReplKeepsBindingsAndAwaitsPromises) {
  Captured c;
  auto rt = MakeRuntime(c);
  ASSERT_TRUE(rt);
  ASSERT_TRUE(rt->EvalRepl("let n = 20"));
  auto v = rt->EvalRepl("n + 1");
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, "21");
  v = rt->EvalRepl("new Promise((r) => setTimeout(() => r({ n }), 3))");
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_EQ(*v, "{ n: 20 }");
  v = rt->EvalRepl("await Promise.resolve('top-level await')");
  ASSERT_TRUE(v) << v.error().message;
  EXPECT_EQ(*v, "'top-level await'");
  v = rt->EvalRepl("Promise.reject(new TypeError('no'))");
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().message.find("Uncaught TypeError: no"), std::string::npos);
  v = rt->EvalRepl("n");  // an error does not end the session
  ASSERT_TRUE(v);
  EXPECT_EQ(*v, "20");
}

TEST(Engine, ModuleReadRuleAllowsTheScriptDirectory) {
  fs::path dir = fs::temp_directory_path() / "alknet_engine_modules";
  fs::remove_all(dir);
  fs::create_directories(dir / "app");
  fs::create_directories(dir / "elsewhere");
  std::ofstream(dir / "app/main.js") << "import { v } from './dep.js';\nconsole.log(v);\n";
  std::ofstream(dir / "app/dep.js") << "export const v = 'dep ok';\n";
  std::ofstream(dir / "app/outside.js") << "import '../elsewhere/x.js';\n";
  std::ofstream(dir / "elsewhere/x.js") << "console.log('x ran');\n";
  {
    Captured c;
    auto rt = MakeRuntime(c);
    EXPECT_EQ(rt->RunFile(dir / "app/main.js"), 0);
    EXPECT_EQ(c.out, "dep ok\n");
  }
  {
    Captured c;
    auto rt = MakeRuntime(c);
    EXPECT_EQ(rt->RunFile(dir / "app/outside.js"), 1);
    EXPECT_NE(c.err.find("--allow-read"), std::string::npos) << c.err;
    EXPECT_EQ(c.out, "");
  }
  {
    Captured c;
    RuntimeOptions o;
    ASSERT_TRUE(*o.permissions.ParseFlag("--allow-read=" + (dir / "elsewhere").string()));
    auto rt = MakeRuntime(c, std::move(o));
    EXPECT_EQ(rt->RunFile(dir / "app/outside.js"), 0) << c.err;
    EXPECT_EQ(c.out, "x ran\n");
  }
  fs::remove_all(dir);
}

TEST(Engine, BuiltinModuleListComesFromTheJsDirectory) {
  auto names = BuiltinModuleNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "fs"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "process"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "internal/prelude"), names.end());
}

}  // namespace
}  // namespace alknet::runtime
