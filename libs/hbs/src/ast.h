// The parsed form of a template: handlebars.js's AST (compiler/ast.js), plus what the renderer
// resolves once at parse time (helper/ambiguous/simple classification, block-parameter slots,
// the inline partials each program declares).
#pragma once

#include <memory>
#include <string>
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

struct Call {
  ExprPtr path;  // kPath, or kLiteral (partial names), or kSubExpr (dynamic partials)
  std::vector<ExprPtr> params;
  std::vector<HashPair> hash;
  CallKind kind = CallKind::kSimple;
};

struct Expr {
  enum class Type { kPath, kLiteral, kSubExpr };
  Type type = Type::kPath;
  Loc loc;

  // kPath
  bool data = false;    // `@name`
  bool scoped = false;  // starts with `this` or `.`: never a helper
  int depth = 0;        // number of `../`
  std::vector<std::string> parts;
  std::string original;  // the path as written, for messages and block-close matching
  int block_param_level = -1;  // >= 0: parts[0] names a block param this many scopes out
  int block_param_index = -1;

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
  Type type = Type::kContent;
  Loc loc;

  // kContent
  std::string original;
  std::string value;
  bool left_stripped = false;
  bool right_stripped = false;

  // kComment, kMustache, kDecorator, kPartial
  StripFlags strip;

  // kMustache, kBlock, kDecorator*, kPartial* (path = partial name)
  Call call;
  bool escaped = true;

  // kBlock, kDecoratorBlock, kPartialBlock
  std::unique_ptr<Program> program;
  std::unique_ptr<Program> inverse;
  StripFlags open_strip, inverse_strip, close_strip;

  // kPartial
  std::string indent;
};

struct Program {
  std::vector<Statement> body;
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
