// ossa/render/d3d11_renderer.h — the Direct3D 11 backend of CharacterRenderer (ossa/render/renderer.h),
// Windows.
//
// Used as the OpenGL backend is (see the example in ossa/render/renderer.h), with ossa::D3D11Device::create()
// (the hardware adapter, offscreen) in place of the GL context and create_d3d11_renderer(*device, asset,
// materials, textures) in place of create_gl_renderer(); end_frame() copies the render target to a staging
// texture and reads it back as RGBA8.
//
// How the classic Direct3D 11 skinning design maps onto it:
// - The palette (each mesh's model x inverse bind per palette slot) is a 768 x 1 RGBA32F texture, three
// texels
//   (matrix rows 0-2) per slot, read with Load() in the vertex shader: Wine 8's HLSL compiler refuses a
//   constant-buffer float4x4[256] indexed per vertex, and a texture has no 256-joint constant-buffer limit.
// - The bake (every clip's frames x joints, ossa/render/baked_animation.h) is a Texture2DArray, one layer per
//   clip; the per-instance data of an instanced draw (world matrix, clip, time, speed, second clip and its
//   weight) is a vertex buffer stepped per instance, and the vertex shader interpolates between frames and
//   clips. Per-instance evaluation in a compute pass is the GL backend's; here draw_baked() evaluates per
//   vertex.
// - Shaders are HLSL files in the repository (src/render/d3d11/shaders/), built into the library and compiled
//   with D3DCompile when the first renderer is made, in a child process (ossa_hlslc.exe), because Wine 8's
//   compiler aborts the whole process on some inputs: a compile error, or a crash of the compiler, is an
//   error naming the file, the line and the compiler's message. Compiled shaders are kept for the process's
//   life.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ossa/render/renderer.h"

namespace ossa {

struct D3D11DeviceOptions {
  // WARP (Microsoft's software rasteriser) instead of the hardware adapter.
  bool warp = false;
  // Asks for the debug layer (D3D11_CREATE_DEVICE_DEBUG); where it is missing (Wine, Windows without the SDK
  // layers) the device is made without it and debug_layer() says so.
  bool debug = false;
  // Empty (the default): the shaders compiled at build time and built into the library; no program runs.
  // A path, or $OSSA_HLSL_COMPILER: the HLSL compiled when the first renderer is made, by that program
  // (ossa_hlslc.exe: for work on the shaders, and for builds with OSSA_PRECOMPILE_HLSL=OFF, which use the
  // ossa_hlslc.exe beside the running program). Built-in bytecode that a driver refuses is compiled again by
  // the ossa_hlslc.exe beside the program, where there is one.
  std::string shader_compiler;
};

class D3D11Device {
 public:
  // A device and its immediate context. Fails with a message (never a crash) where no device can be made,
  // for example under Wine without an X server.
  static Result<std::shared_ptr<D3D11Device>> create(const D3D11DeviceOptions& options = {});
  ~D3D11Device();
  D3D11Device(const D3D11Device&) = delete;
  D3D11Device& operator=(const D3D11Device&) = delete;

  std::string adapter_name() const;  // the adapter's description and feature level
  bool debug_layer() const { return debug_layer_; }
  // Debug-layer messages of severity error or corruption since the last call (empty without the layer).
  std::vector<std::string> take_errors();
  const std::string& shader_compiler() const { return shader_compiler_; }  // empty: the built-in shaders

  void* device() const { return device_; }    // ID3D11Device*
  void* context() const { return context_; }  // ID3D11DeviceContext*

  // A swap chain (IDXGISwapChain*, two R8G8B8A8_UNORM buffers of the window's client size) for `window` (an
  // HWND), from the factory of this device's adapter: where a window shows frames (copy_frame_to into its
  // back buffer). The caller owns it (Release()).
  Result<void*> create_swap_chain(void* window) const;

 private:
  D3D11Device() = default;
  void* device_ = nullptr;
  void* context_ = nullptr;
  bool debug_layer_ = false;
  int feature_level_ = 0;
  std::string shader_compiler_;
};

// Runtime assets with their materials and textures (as an OssaFile holds them). `flip_textures`: the images
// have v = 0 at their bottom (FBX, COLLADA), not at their top (glTF). The renderer keeps the device alive.
Result<std::unique_ptr<CharacterRenderer>> create_d3d11_renderer(std::shared_ptr<D3D11Device> device,
                                                                 const CharacterAsset& asset,
                                                                 std::span<const Material> materials,
                                                                 std::span<const Texture> textures,
                                                                 bool flip_textures = true);

// Copies the renderer's frame (what was drawn since begin_frame()) into `texture`, an ID3D11Texture2D* in
// DXGI_FORMAT_R8G8B8A8_UNORM (a swap chain's back buffer, say), with the frame's top-left corner at texel
// (x, y), on the GPU: how a window shows it (tools/ossa_d3d11_demo; `ossa view` puts it between its panels).
// Fails for a renderer of another backend, or a frame that does not fit there.
Result<bool> copy_frame_to(CharacterRenderer& renderer, void* texture, int x = 0, int y = 0);

// The HLSL sources built into the library (src/render/d3d11/shaders/), by their repository paths.
struct HlslSource {
  const char* path;  // src/render/d3d11/shaders/NAME.hlsl
  const char* text;
};
std::span<const HlslSource> hlsl_sources();

}  // namespace ossa
