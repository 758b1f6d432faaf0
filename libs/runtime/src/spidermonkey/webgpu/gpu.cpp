// GPU (navigator.gpu): requestAdapter. https://www.w3.org/TR/webgpu/#gpu-interface
#include "spidermonkey/webgpu/gpu_common.h"

namespace alknet::runtime::sm::gpu {

ALKNET_GPU_CLASS(GPU, GPU::kSlotCount);

namespace {

void OnAdapter(WGPURequestAdapterStatus status, WGPUAdapter adapter, WGPUStringView message,
               void* userdata, void*) {
  std::unique_ptr<PendingPromise> req(static_cast<PendingPromise*>(userdata));
  wg::Adapter owned = wg::Adapter::Adopt(adapter);
  if (State(req->cx).closing) return;
  JSContext* cx = req->cx;
  JS::RootedValue result(cx, JS::NullValue());
  if (owned) {
    // Dawn offers its "Null backend" when no real driver loads (no Vulkan ICD): it accepts
    // every call and computes nothing, so scripts would read garbage. No adapter instead.
    WGPUAdapterInfo info{};
    if (wg::P().AdapterGetInfo(owned.get(), &info) == WGPUStatus_Success) {
      bool null_backend = info.backendType == WGPUBackendType_Null;
      wg::P().AdapterInfoFreeMembers(info);
      if (null_backend) owned = wg::Adapter();
    }
  }
  if (status == WGPURequestAdapterStatus_Success && owned) {
    auto owner = std::make_unique<GPUAdapter>();
    owner->adapter = std::move(owned);
    JSObject* obj = Wrap(cx, &GPUAdapter::kClass, std::move(owner));
    if (!obj) {
      JS_ClearPendingException(cx);
      req->RejectWith("OperationError", "could not wrap the adapter");
      return;
    }
    result.setObject(*obj);
  } else if (status != WGPURequestAdapterStatus_Unavailable &&
             status != WGPURequestAdapterStatus_Success) {
    // Spec: an adapter that cannot be had resolves to null; only a failure of the request
    // itself rejects.
    req->RejectWith("OperationError", "requestAdapter failed: " + std::string(wg::FromSv(message)));
    return;
  }
  req->Resolve(result);
}

// requestAdapter(options): {powerPreference, forceFallbackAdapter}.
bool RequestAdapter(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPU, "GPU.requestAdapter");
  (void)self;
  JS::RootedObject options(cx);
  if (!DictArg(cx, args.get(0), "GPU.requestAdapter options", &options)) return false;
  WGPURequestAdapterOptions opts{};
  opts.featureLevel = WGPUFeatureLevel_Core;
  JS::RootedValue v(cx);
  bool present;
  if (!Member(cx, options, "powerPreference", &v, &present)) return false;
  if (present) {
    std::string pref;
    if (!ValueToUtf8(cx, v, &pref)) return false;
    if (pref == "low-power")
      opts.powerPreference = WGPUPowerPreference_LowPower;
    else if (pref == "high-performance")
      opts.powerPreference = WGPUPowerPreference_HighPerformance;
    else
      return ThrowTypeError(cx, "GPU.requestAdapter: powerPreference '" + pref +
                                    "' is not a valid GPUPowerPreference");
  }
  if (!Member(cx, options, "forceFallbackAdapter", &v, &present)) return false;
  opts.forceFallbackAdapter = present && JS::ToBoolean(v);
  // featureLevel is a DOMString, not an enum: an unknown level resolves null (spec). A
  // "compatibility" request may be given a core adapter, which is what Dawn hands out here.
  bool known_level = true;
  if (!Member(cx, options, "featureLevel", &v, &present)) return false;
  if (present) {
    std::string level;
    if (!ValueToUtf8(cx, v, &level)) return false;
    known_level = level == "core" || level == "compatibility";
  }

  WGPUInstance instance = Instance(cx);
  if (!instance) return false;
  auto req = std::make_unique<PendingPromise>(cx);
  JS::RootedObject promise(cx, req->promise);
  if (!known_level) {
    req->Resolve(JS::NullHandleValue);
    args.rval().setObject(*promise);
    return true;
  }
  WGPURequestAdapterCallbackInfo cb{};
  cb.mode = WGPUCallbackMode_AllowProcessEvents;
  cb.callback = &OnAdapter;
  cb.userdata1 = req.release();
  wg::P().InstanceRequestAdapter(instance, &opts, cb);
  args.rval().setObject(*promise);
  return true;
}

bool GetPreferredCanvasFormat(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPU, "GPU.getPreferredCanvasFormat");
  (void)self;
  JSString* s = NewString(cx, "rgba8unorm");
  if (!s) return false;
  args.rval().setString(s);
  return true;
}

// [SameObject] wgslLanguageFeatures: what the instance's WGSL compiler accepts (loads the
// library on first use, as requestAdapter does).
bool GetWgslLanguageFeatures(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPU, "GPU.wgslLanguageFeatures");
  (void)self;
  JSObject* obj = &args.thisv().toObject();
  JS::Value cached = JS::GetReservedSlot(obj, GPU::kWgslLanguageFeatures);
  if (cached.isObject()) {
    args.rval().set(cached);
    return true;
  }
  WGPUInstance instance = Instance(cx);
  if (!instance) return false;
  std::vector<std::string> names;
  WGPUSupportedWGSLLanguageFeatures features{};
  if (wg::P().InstanceGetWGSLLanguageFeatures(instance, &features) == WGPUStatus_Success) {
    for (size_t i = 0; i < features.featureCount; ++i) {
      switch (features.features[i]) {
        case WGPUWGSLLanguageFeatureName_ReadonlyAndReadwriteStorageTextures:
          names.emplace_back("readonly_and_readwrite_storage_textures");
          break;
        case WGPUWGSLLanguageFeatureName_Packed4x8IntegerDotProduct:
          names.emplace_back("packed_4x8_integer_dot_product");
          break;
        case WGPUWGSLLanguageFeatureName_UnrestrictedPointerParameters:
          names.emplace_back("unrestricted_pointer_parameters");
          break;
        case WGPUWGSLLanguageFeatureName_PointerCompositeAccess:
          names.emplace_back("pointer_composite_access");
          break;
        default: break;  // Dawn's testing-only features, or ones this table does not name
      }
    }
    wg::P().SupportedWGSLLanguageFeaturesFreeMembers(features);
  }
  JS::RootedObject list(cx, NewStringList(cx, names));
  if (!list) return false;
  JS::RootedValue data(cx, JS::ObjectValue(*list));
  JSObject* set = MakeFromData(cx, "WGSLLanguageFeatures", data);
  if (!set) return false;
  JS::SetReservedSlot(obj, GPU::kWgslLanguageFeatures, JS::ObjectValue(*set));
  args.rval().setObject(*set);
  return true;
}

const JSPropertySpec kProperties[] = {
    JS_PSG("wgslLanguageFeatures", GetWgslLanguageFeatures, JSPROP_ENUMERATE), JS_PS_END};
const JSFunctionSpec kMethods[] = {
    JS_FN("requestAdapter", RequestAdapter, 0, JSPROP_ENUMERATE),
    JS_FN("getPreferredCanvasFormat", GetPreferredCanvasFormat, 0, JSPROP_ENUMERATE), JS_FS_END};

}  // namespace

bool DefineGPU(JSContext* cx, JS::HandleObject global) {
  return DefineInterface(cx, global, {&GPU::kClass, kProperties, kMethods, false});
}

}  // namespace alknet::runtime::sm::gpu

namespace alknet::runtime::sm {

// Every interface on the global, and navigator.gpu. The GPU itself is only touched (library
// loaded, instance created) by the first requestAdapter.
bool InstallWebGpu(JSContext* cx, JS::HandleObject global) {
  using namespace gpu;
  for (auto define : {DefineGPU,
                      DefineGPUAdapter,
                      DefineGPUDevice,
                      DefineGPUQueue,
                      DefineGPUBuffer,
                      DefineGPUShaderModule,
                      DefineGPUComputePipeline,
                      DefineGPUBindGroupLayout,
                      DefineGPUPipelineLayout,
                      DefineGPUBindGroup,
                      DefineGPUCommandEncoder,
                      DefineGPUComputePassEncoder,
                      DefineGPUCommandBuffer,
                      DefineGPUTexture,
                      DefineGPUTextureView,
                      DefineGPUSampler,
                      DefineGPUQuerySet,
                      DefineGPURenderPipeline,
                      DefineGPURenderPassEncoder,
                      DefineGPURenderBundleEncoder,
                      DefineGPURenderBundle}) {
    if (!define(cx, global)) return false;
  }
  JS::RootedObject gpu(cx, Wrap(cx, &GPU::kClass, std::make_unique<GPU>()));
  JS::RootedObject navigator(cx, JS_NewPlainObject(cx));
  if (!gpu || !navigator) return false;
  if (!JS_DefineProperty(cx, navigator, "gpu", gpu, JSPROP_ENUMERATE | JSPROP_READONLY))
    return false;
  return JS_DefineProperty(cx, global, "navigator", navigator, JSPROP_READONLY);
}

}  // namespace alknet::runtime::sm
