// Conversions between alknet::call values/errors and the gRPC wire (proto/calls.proto).
#pragma once

#include <grpcpp/grpcpp.h>

#include <vector>

#include "alknet/call/registry.h"
#include "calls.pb.h"

namespace alknet::call {

// Tensors are not embedded: each becomes an index into `tensors`, which the caller encodes
// as the call's payload.
void ToWire(const Value& value, wire::Value* out, std::vector<Tensor>& tensors);
Result<Value> FromWire(const wire::Value& in, const std::vector<Tensor>& tensors);

grpc::Status ToStatus(const Error& error);
Error FromStatus(const grpc::Status& status, const std::multimap<grpc::string_ref,
                 grpc::string_ref>& trailers, std::string_view call);

// ErrorCode values equal gRPC status codes, so the status carries the code; the call name
// travels in this trailing metadata key (a handler error may name another call).
inline constexpr char kCallKey[] = "alknet-call";

}  // namespace alknet::call
