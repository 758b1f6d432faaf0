// alknet-hbs reports failures with one exception family: Error, split into ParseError (the
// template text is malformed) and RenderError (rendering a well-formed template failed: missing
// variable, helper or partial, a helper refused its arguments).
#pragma once

#include <stdexcept>
#include <string>

namespace alknet::hbs {

class Error : public std::runtime_error {
 public:
  // message says what is wrong; what() appends " at template:line:column".
  Error(std::string message, std::string template_name, int line, int column);

  const std::string& message() const { return message_; }
  const std::string& template_name() const { return template_name_; }
  int line() const { return line_; }      // 1-based
  int column() const { return column_; }  // 1-based

 private:
  std::string message_;
  std::string template_name_;
  int line_;
  int column_;
};

class ParseError : public Error {
 public:
  using Error::Error;
};

class RenderError : public Error {
 public:
  using Error::Error;
};

}  // namespace alknet::hbs
