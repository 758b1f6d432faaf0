// JSON in and out of Values, for the command line (`alknet call` arguments and --json
// output). Bytes appear as {"$bytes": "<base64>"}; a tensor is summarised as
// {"$tensor": {"dtype", "shape", "bytes"}} because its data belongs in a file, not in JSON.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "alknet/call/error.h"
#include "alknet/call/registry.h"
#include "alknet/call/value.h"

namespace alknet::call {

// JSON through alknet's one reader and writer (alknet/base/json.h): strict RFC 8259, UTF-8
// only, a duplicate key is an error, nesting is limited to 128 levels. Integers without
// fraction or exponent become int (an int64 overflow is an error), other numbers float.
// Errors give line:column. ToJson writes a float so that it reads back as one ("3.0").
Result<Value> ParseJson(std::string_view text);

std::string ToJson(const Value& value);

// The `alknet calls --json` document: [{"name", "signature", "owner", "async",
// "side_effects", "idempotent", "doc"}, ...].
std::string CallInfosToJson(const std::vector<CallInfo>& calls);
Value CallInfosToValue(const std::vector<CallInfo>& calls);

}  // namespace alknet::call
