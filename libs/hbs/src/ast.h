// The parsed form of a template: handlebars.js's AST (compiler/ast.js), plus what the renderer
// resolves once at parse time (helper/ambiguous/simple classification, block-parameter slots,
// the inline partials each program declares).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "alknet/hbs/value.h"

namespace alknet::hbs::detail {

struct Loc {
  int line = 1;    // 1-based
  int column = 1;  // 1-based
};

struct StripFlags {
  bool open = false;   // `{{~`
  bool close = false;  // `~}}`
};

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

struct HashPair {
  std::string key;
  ExprPtr value;
};

// How a call site finds what it calls (handlebars.js compiler.js classifySexpr).
enum class CallKind {
  kSimple,     // a context lookup, never a helper (`{{a.b}}`, `{{this}}`, `{{../x}}`)
  kAmbiguous,  // `{{name}}`: a helper if one is registered, else a context lookup
  kHelper,     // has params or hash, or is a subexpression: must be a helper
};

struct HelperEntry;
struct Template;

struct Call {
  ExprPtr path;  // kPath, or kLiteral (partial names), or kSubExpr (dynamic partials)
  std::vector<ExprPtr> params;
  std::vector<HashPair> hash;
  CallKind kind = CallKind::kSimple;
  // The registered helper this call names, bound when the template or a helper is registered
  // (bind_template) so rendering never hashes a name.
  const HelperEntry* helper = nullptr;
  // For a partial with a static name: the registered template of that name, bound likewise.
  const Template* partial = nullptr;
};

struct Expr {
  enum class Type { kPath, kLiteral, kSubExpr };
  // Fields the renderer reads on every lookup come first (one cache line).
  Type type = Type::kPath;
  bool data = false;           // kPath: `@name`
  bool scoped = false;         // kPath: starts with `this` or `.`: never a helper
  int depth = 0;               // kPath: number of `../`
  int block_param_level = -1;  // >= 0: parts[0] names a block param this many scopes out
  int block_param_index = -1;
  std::vector<std::string> parts;
  Loc loc;

  std::string original;  // the path as written, for messages and block-close matching

  // kLiteral: the value, and `original` holds its JavaScript string form.
  Value literal;
  bool is_string_literal = false;

  // kSubExpr
  std::unique_ptr<Call> call;
};

struct Program;

struct Statement {
  enum class Type {
    kContent,
    kComment,
    kMustache,
    kBlock,
    kPartial,
    kPartialBlock,
    kDecorator,
    kDecoratorBlock,
  };
  // Fields the renderer reads on every statement come first.
  Type type = Type::kContent;
  bool escaped = true;  // kMustache: `{{x}}` (not `{{{x}}}` / `{{& x}}`)
  Loc loc;
  std::string value;  // kContent: the text after whitespace control
  // kMustache, kBlock, kDecorator*, kPartial* (path = partial name)
  Call call;

  // kContent
  std::string original;
  bool left_stripped = false;
  bool right_stripped = false;

  // kComment, kMustache, kDecorator, kPartial
  StripFlags strip;

  // kBlock, kDecoratorBlock, kPartialBlock
  std::unique_ptr<Program> program;
  std::unique_ptr<Program> inverse;
  StripFlags open_strip, inverse_strip, close_strip;

  // kPartial
  std::string indent;
};

// What the renderer executes for one statement: text and plain lookups inline (the common case
// in generated code), everything else through the statement. Built by bind_template, because
// whether `{{name}}` is a plain lookup depends on the registered helpers.
struct Op {
  // kTextLookup: text then a lookup, the most common pair (`acc_{{i}}`): one dispatch for two.
  enum class Kind : std::uint8_t { kText, kLookup, kTextLookup, kStatement };
  Kind kind = Kind::kStatement;
  bool escaped = true;
  // Compat mode replays how handlebars.js joins a program's output with JavaScript `+` (see
  // JsValue in render.cpp): a run of text pieces between two blocks is summed on its own first.
  bool js_group_open = false;   // this op starts such a run
  bool js_group_close = false;  // this op ends it
  std::string_view text;        // kText
  const Statement* statement = nullptr;
};

struct Program {
  std::vector<Statement> body;
  std::vector<Op> ops;
  // handlebars.js compiles a one-statement program to `return <value>` and otherwise starts
  // from "" unless the first piece is text (compat-mode output joining, see render.cpp).
  bool js_simple = false;
  bool js_starts_with_block = false;
  std::vector<std::string> block_params;
  bool chained = false;  // the inverse of `{{else if}}`: one block, no scope of its own
  // `{{#*inline "name"}}` blocks directly in this program; active while it renders.
  std::vector<std::pair<std::string, const Program*>> inline_partials;
};

struct Template {
  std::string name;  // for messages
  Program root;
};

// Parses source into a Template (handlebars.js parse + WhitespaceControl + compile-time
// classification). Throws ParseError.
std::unique_ptr<Template> parse_template(std::string_view source, std::string name);

}  // namespace alknet::hbs::detail
