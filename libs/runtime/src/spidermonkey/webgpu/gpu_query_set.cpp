// GPUQuerySet: destroy, type, count. https://www.w3.org/TR/webgpu/#gpuqueryset
#include "spidermonkey/webgpu/gpu_common.h"
#include "spidermonkey/webgpu/gpu_enums.h"

namespace alknet::runtime::sm::gpu {

ALKNET_GPU_CLASS(GPUQuerySet, 0);

namespace {

bool Destroy(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUQuerySet, "GPUQuerySet.destroy");
  wg::P().QuerySetDestroy(self->set.get());
  args.rval().setUndefined();
  return true;
}

bool GetType(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUQuerySet, "GPUQuerySet.type");
  JSString* s = NewString(cx, EnumName(kQueryType, wg::P().QuerySetGetType(self->set.get())));
  if (!s) return false;
  args.rval().setString(s);
  return true;
}

bool GetCount(JSContext* cx, unsigned argc, JS::Value* vp) {
  ALKNET_GPU_THIS(GPUQuerySet, "GPUQuerySet.count");
  args.rval().setNumber(wg::P().QuerySetGetCount(self->set.get()));
  return true;
}

const JSPropertySpec kProperties[] = {JS_PSG("type", GetType, JSPROP_ENUMERATE),
                                      JS_PSG("count", GetCount, JSPROP_ENUMERATE), JS_PS_END};
const JSFunctionSpec kMethods[] = {JS_FN("destroy", Destroy, 0, JSPROP_ENUMERATE), JS_FS_END};

}  // namespace

bool DefineGPUQuerySet(JSContext* cx, JS::HandleObject global) {
  return DefineInterface(cx, global, {&GPUQuerySet::kClass, kProperties, kMethods});
}

}  // namespace alknet::runtime::sm::gpu
