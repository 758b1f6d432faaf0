// The gRPC wire of alknet-call (proto/calls.proto): the two RPCs bound by hand, the framing
// of Invoke messages, and conversions between Values/Errors and wire messages.
//
// Why by hand: gRPC's generated streaming code would put every payload chunk through a
// protobuf `bytes` field (copied into a std::string when sent, again when parsed). With our
// own SerializationTraits a chunk is sent as a slice over the tensor's own memory and
// received as gRPC's slices, copied once into the payload buffer.
#pragma once

#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/client_unary_call.h>
#include <grpcpp/impl/codegen/proto_utils.h>
#include <grpcpp/impl/rpc_method.h>
#include <grpcpp/impl/rpc_service_method.h>
#include <grpcpp/support/method_handler.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "alknet/call/registry.h"
#include "calls.pb.h"

namespace alknet::call {

inline constexpr char kListMethod[] = "/alknet.call.wire.Calls/List";
inline constexpr char kInvokeMethod[] = "/alknet.call.wire.Calls/Invoke";
inline constexpr char kInvokeIdempotentMethod[] = "/alknet.call.wire.Calls/InvokeIdempotent";

// One message of the Invoke stream: a control Frame (header or result) or a payload chunk.
struct StreamFrame {
  bool is_chunk = false;
  wire::Frame control;
  // Sending a chunk: bytes referenced in place; `keep` owns them until gRPC lets go.
  std::span<const std::byte> out_chunk;
  std::shared_ptr<const void> keep;
  // A received chunk, as gRPC's slices (no copy yet).
  std::vector<grpc::Slice> in_slices;
  std::size_t in_size = 0;
  // Why the last received message could not be parsed (empty when it could). gRPC's Read()
  // only returns false then, so the reader looks here to tell a bad frame from a closed stream.
  std::string malformed;

  // Copies a received chunk to dst (dst.size() >= in_size).
  void CopyChunkTo(std::byte* dst) const {
    for (const auto& s : in_slices) {
      std::memcpy(dst, s.begin(), s.size());
      dst += s.size();
    }
  }
};

}  // namespace alknet::call

namespace grpc {

template <>
class SerializationTraits<alknet::call::StreamFrame, void> {
 public:
  static constexpr char kControlTag = 'H';
  static constexpr char kChunkTag = 'C';

  static Status Serialize(const alknet::call::StreamFrame& f, ByteBuffer* out, bool* own) {
    *own = true;
    if (f.is_chunk) {
      static const char tag = kChunkTag;
      // The slice holds a reference to the chunk's owner; gRPC drops it when sent.
      auto* keep = new std::shared_ptr<const void>(f.keep);
      Slice slices[2] = {
          Slice(&tag, 1, Slice::STATIC_SLICE),
          Slice(
              const_cast<std::byte*>(f.out_chunk.data()), f.out_chunk.size(),
              [](void* p) { delete static_cast<std::shared_ptr<const void>*>(p); }, keep)};
      *out = ByteBuffer(slices, 2);
      return Status::OK;
    }
    std::string bytes(1, kControlTag);
    if (!f.control.AppendToString(&bytes)) {
      return Status(StatusCode::INTERNAL, "cannot serialize a control frame");
    }
    Slice slice(bytes);
    *out = ByteBuffer(&slice, 1);
    return Status::OK;
  }

  static Status Deserialize(ByteBuffer* in, alknet::call::StreamFrame* f) {
    Status s = Parse(in, f);
    f->malformed = s.ok() ? std::string() : s.error_message();
    return s;
  }

 private:
  static Status Parse(ByteBuffer* in, alknet::call::StreamFrame* f) {
    std::vector<Slice> slices;
    if (!in->Dump(&slices).ok()) return Status(StatusCode::INTERNAL, "unreadable message");
    in->Clear();
    std::size_t first = 0;
    while (first < slices.size() && slices[first].size() == 0) ++first;
    if (first == slices.size()) {
      return Status(StatusCode::INVALID_ARGUMENT, "an empty message (no frame tag)");
    }
    const char tag = static_cast<char>(*slices[first].begin());
    slices[first] = slices[first].sub(1, slices[first].size());
    f->in_slices.clear();
    f->in_size = 0;
    if (tag == kChunkTag) {
      f->is_chunk = true;
      for (std::size_t i = first; i < slices.size(); ++i) {
        f->in_size += slices[i].size();
        f->in_slices.push_back(std::move(slices[i]));
      }
      return Status::OK;
    }
    if (tag != kControlTag) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(tag));
      return Status(StatusCode::INVALID_ARGUMENT,
                    std::string("unknown frame tag ") + hex + " (expected 'H' or 'C')");
    }
    f->is_chunk = false;
    std::string bytes;
    for (std::size_t i = first; i < slices.size(); ++i) {
      bytes.append(reinterpret_cast<const char*>(slices[i].begin()), slices[i].size());
    }
    if (!f->control.ParseFromString(bytes)) {
      return Status(StatusCode::INVALID_ARGUMENT, "an unparsable control frame (protobuf)");
    }
    return Status::OK;
  }
};

}  // namespace grpc

namespace alknet::call {

using ServerStream = grpc::ServerReaderWriter<StreamFrame, StreamFrame>;
using ClientStream = grpc::ClientReaderWriter<StreamFrame, StreamFrame>;

inline std::unique_ptr<ClientStream> OpenInvoke(grpc::Channel* channel, grpc::ClientContext* ctx,
                                                bool idempotent = false) {
  const grpc::internal::RpcMethod method(idempotent ? kInvokeIdempotentMethod : kInvokeMethod,
                                         grpc::internal::RpcMethod::BIDI_STREAMING);
  return std::unique_ptr<ClientStream>(
      grpc::internal::ClientReaderWriterFactory<StreamFrame, StreamFrame>::Create(channel, method,
                                                                                  ctx));
}

inline grpc::Status CallList(grpc::Channel* channel, grpc::ClientContext* ctx,
                             const wire::ListRequest& request, wire::ListReply* reply) {
  const grpc::internal::RpcMethod method(kListMethod, grpc::internal::RpcMethod::NORMAL_RPC);
  return grpc::internal::BlockingUnaryCall<
      wire::ListRequest, wire::ListReply, grpc::protobuf::MessageLite, grpc::protobuf::MessageLite>(
      channel, method, ctx, request, reply);
}

// The server side: a Service with the two methods, forwarding to `Handler`'s List and Invoke.
template <typename Handler>
class CallsService : public grpc::Service {
 public:
  explicit CallsService(Handler* handler) {
    AddMethod(new grpc::internal::RpcServiceMethod(
        kListMethod, grpc::internal::RpcMethod::NORMAL_RPC,
        new grpc::internal::RpcMethodHandler<Handler, wire::ListRequest, wire::ListReply,
                                             grpc::protobuf::MessageLite,
                                             grpc::protobuf::MessageLite>(
            [](Handler* h, grpc::ServerContext* ctx, const wire::ListRequest* req,
               wire::ListReply* reply) { return h->List(ctx, req, reply); },
            handler)));
    AddMethod(new grpc::internal::RpcServiceMethod(
        kInvokeMethod, grpc::internal::RpcMethod::BIDI_STREAMING,
        new grpc::internal::BidiStreamingHandler<Handler, StreamFrame, StreamFrame>(
            [](Handler* h, grpc::ServerContext* ctx, ServerStream* stream) {
              return h->Invoke(ctx, stream, false);
            },
            handler)));
    AddMethod(new grpc::internal::RpcServiceMethod(
        kInvokeIdempotentMethod, grpc::internal::RpcMethod::BIDI_STREAMING,
        new grpc::internal::BidiStreamingHandler<Handler, StreamFrame, StreamFrame>(
            [](Handler* h, grpc::ServerContext* ctx, ServerStream* stream) {
              return h->Invoke(ctx, stream, true);
            },
            handler)));
  }
};

// Tensors are not embedded: each becomes an index into `tensors`, which the caller encodes
// as the call's payload.
void ToWire(const Value& value, wire::Value* out, std::vector<Tensor>& tensors);
Result<Value> FromWire(const wire::Value& in, const std::vector<Tensor>& tensors);

grpc::Status ToStatus(const Error& error);
Error FromStatus(const grpc::Status& status,
                 const std::multimap<grpc::string_ref, grpc::string_ref>& trailers,
                 std::string_view call);

// HTTP/2 settings both ends use: large frames and a large flow-control window, so a
// streamed tensor is not cut into 16 KiB frames nor stalled waiting for window updates.
// (gRPC's own socket read sizes measured best; forcing them larger or smaller was slower.)
template <typename SetInt>
void ApplyTransportTuning(SetInt&& set_int) {
  set_int(GRPC_ARG_HTTP2_MAX_FRAME_SIZE, (1 << 24) - 1);
  set_int(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 64 << 20);
}

// Keeps large buffers in the process's heap instead of fresh mmap()s: glibc malloc's mmap
// threshold and trim threshold at 1 GiB, once per process, by the first RemoteRegistry or
// CallServer (ALKNET_MALLOC_TUNING=off leaves malloc alone). Without it every received
// payload buffer and gRPC's 4 MiB slices were new mappings, page-faulted and zeroed per call:
// 256 MiB loopback transfers ran at ~10% of a raw TCP copy, with it 45-85% (ADR 0017,
// docs/benchmarks.md). The cost: up to ~1 GiB of freed heap kept mapped after a large call.
void TuneAllocatorForLargeMessages();

// ErrorCode values equal gRPC status codes, so the status carries the code; the call name
// travels in this trailing metadata key (a handler error may name another call).
inline constexpr char kCallKey[] = "alknet-call";

}  // namespace alknet::call
