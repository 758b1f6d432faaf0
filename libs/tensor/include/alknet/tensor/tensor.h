// alknet-tensor: the metatensor binary format (docs/metatensor-format.md). C++ standard
// library only, so that any model server can embed it.
#pragma once

#include "alknet/tensor/crc32c.h"
#include "alknet/tensor/dtype.h"
#include "alknet/tensor/error.h"
#include "alknet/tensor/format.h"
#include "alknet/tensor/metadata.h"
#include "alknet/tensor/reader.h"
#include "alknet/tensor/tensor_view.h"
#include "alknet/tensor/writer.h"
