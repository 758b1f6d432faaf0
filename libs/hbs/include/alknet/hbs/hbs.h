// alknet-hbs public API: Value (JSON-like context), Registry (templates, partials, helpers),
// ParseError / RenderError.
#pragma once

#include "alknet/hbs/error.h"
#include "alknet/hbs/registry.h"
#include "alknet/hbs/value.h"
