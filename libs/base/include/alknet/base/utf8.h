// UTF-8 as RFC 3629 defines it: no overlong forms, no surrogates (U+D800..U+DFFF), nothing
// above U+10FFFF. The JSON reader validates strings with it; writers use it to replace bytes
// that are not UTF-8, so what they emit is always valid text.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace alknet::base::utf8 {

// U+FFFD, what a writer puts in place of a byte that is not UTF-8.
inline constexpr char32_t kReplacementCharacter = 0xFFFD;

// The start of a non-empty text: when `valid`, `length` bytes (1..4) give `code_point`;
// otherwise `length` (1..3) is the maximal ill-formed subpart (Unicode 15, section 3.9, U+FFFD
// substitution): the bytes one U+FFFD replaces, as Python's errors="replace" and the WHATWG
// decoder do.
struct Decoded {
  char32_t code_point = 0;
  std::size_t length = 0;
  bool valid = false;
};
Decoded DecodeFirst(std::string_view text);

// The offset of the first byte that does not begin a well-formed sequence, or
// std::string_view::npos when the whole text is valid UTF-8.
std::size_t FindInvalid(std::string_view text);
inline bool IsValid(std::string_view text) { return FindInvalid(text) == std::string_view::npos; }

// Appends the UTF-8 form of `code_point` (a Unicode scalar value: <= U+10FFFF and not a
// surrogate). Returns false, appending nothing, for any other number.
bool Append(std::string& out, char32_t code_point);

// `text` with every ill-formed byte replaced by U+FFFD.
std::string Sanitize(std::string_view text);

}  // namespace alknet::base::utf8
