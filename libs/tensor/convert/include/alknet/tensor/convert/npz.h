// The .npz format: a ZIP archive (PKWARE APPNOTE 6.3) of .npy members, one per array, as
// np.savez writes it. Members must be stored (method 0); compressed members
// (np.savez_compressed, deflate) are refused with a message saying so, because a converter
// streams each tensor as a byte range of the input. Multi-disk and encrypted archives are
// refused too.
#pragma once

#include "alknet/tensor/convert/source.h"

namespace alknet::tensor::convert {

// The arrays of an .npz source, named after their members without ".npy". Validated first:
// the end of central directory record (zip64 too), every central directory entry and its
// extra fields, every local header, every member's .npy header; members may not share bytes
// (kForeignOverlap) nor repeat a name.
Result<ForeignFile> ReadNpz(const ByteSource& src, const ForeignLimits& limits = {});

}  // namespace alknet::tensor::convert
