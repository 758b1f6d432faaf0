// GPUShaderModule: getCompilationInfo. https://www.w3.org/TR/webgpu/#gpushadermodule
#include "spidermonkey/webgpu/gpu_common.h"

namespace alknet::runtime::sm::gpu {

ALKNET_GPU_CLASS(GPUShaderModule, 0);

namespace {

struct InfoRequest : PendingPromise {
  InfoRequest(JSContext* cx, JSObject* module) : PendingPromise(cx), module_object(cx, module) {}
  JS::PersistentRootedObject module_object;
};

bool DefineNumber(JSContext* cx, JS::HandleObject obj, const char* name, double v) {
  JS::RootedValue value(cx, JS::NumberValue(v));
  return JS_DefineProperty(cx, obj, name, value, JSPROP_ENUMERATE);
}

void OnCompilationInfo(WGPUCompilationInfoRequestStatus status, const WGPUCompilationInfo* info,
                       void* ud, void*) {
  std::unique_ptr<InfoRequest> req(static_cast<InfoRequest*>(ud));
  if (State(req->cx).closing) return;
  JSContext* cx = req->cx;
  if (status != WGPUCompilationInfoRequestStatus_Success || info == nullptr) {
    req->RejectWith("OperationError", "getCompilationInfo was cancelled");
    return;
  }
  JS::RootedObject messages(cx, JS::NewArrayObject(cx, info->messageCount));
  JS::RootedObject result(cx, JS_NewPlainObject(cx));
  bool ok = messages && result;
  for (size_t i = 0; ok && i < info->messageCount; ++i) {
    const WGPUCompilationMessage& m = info->messages[i];
    JS::RootedObject msg(cx, JS_NewPlainObject(cx));
    const char* type = m.type == WGPUCompilationMessageType_Error     ? "error"
                       : m.type == WGPUCompilationMessageType_Warning ? "warning"
                                                                      : "info";
    JS::RootedString text(cx, NewString(cx, wg::FromSv(m.message)));
    JS::RootedString type_str(cx, NewString(cx, type));
    ok = msg && text && type_str && JS_DefineProperty(cx, msg, "message", text, JSPROP_ENUMERATE) &&
         JS_DefineProperty(cx, msg, "type", type_str, JSPROP_ENUMERATE) &&
         DefineNumber(cx, msg, "lineNum", static_cast<double>(m.lineNum)) &&
         DefineNumber(cx, msg, "linePos", static_cast<double>(m.linePos)) &&
         DefineNumber(cx, msg, "offset", static_cast<double>(m.offset)) &&
         DefineNumber(cx, msg, "length", static_cast<double>(m.length)) &&
         JS_SetElement(cx, messages, static_cast<uint32_t>(i), msg);
  }
  ok = ok && JS_DefineProperty(cx, result, "messages", messages, JSPROP_ENUMERATE);
  JS::RootedValue data(cx, JS::ObjectOrNullValue(result));
  JS::RootedObject compilation_info(cx,
                                    ok ? MakeFromData(cx, "GPUCompilationInfo", data) : nullptr);
  if (!compilation_info) {
    JS_ClearPendingException(cx);
    req->RejectWith("OperationError", "getCompilationInfo: out of memory");
    return;
  }
  JS::RootedValue v(cx, JS::ObjectValue(*compilation_info));
  req->Resolve(v);
}

bool GetCompilationInfo(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUShaderModule, "GPUShaderModule.getCompilationInfo");
  auto req = std::make_unique<InfoRequest>(cx, &args.thisv().toObject());
  args.rval().setObject(*req->promise);
  WGPUCompilationInfoCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.callback = &OnCompilationInfo;
  cb.userdata1 = req.release();
  wg::P().ShaderModuleGetCompilationInfo(self->module.get(), cb);
  return true;
}

const JSFunctionSpec kMethods[] = {
    JS_FN("getCompilationInfo", GetCompilationInfo, 0, JSPROP_ENUMERATE), JS_FS_END};

}  // namespace

bool DefineGPUShaderModule(JSContext* cx, JS::HandleObject global) {
  return DefineInterface(cx, global, {&GPUShaderModule::kClass, nullptr, kMethods});
}

}  // namespace alknet::runtime::sm::gpu
