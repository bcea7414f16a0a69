// Direct3D 11 backend of CharacterRenderer. What each draw contains comes from draw_plan.h (shared with the
// GL backend); this file turns it into Direct3D 11 calls. Shaders: shaders/character.hlsl and
// shaders/lines.hlsl.
#include "ossa/render/d3d11_renderer.h"

#include "ossa/core/file_io.h"

#include <d3d11.h>
#include <d3d11sdklayers.h>
#include <dxgi.h>
#include <windows.h>
#include <wrl/client.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

#include "../baked_morph_plan.h"
#include "../draw_plan.h"
#include "../morph_plan.h"
#include "ossa/runtime/palette_job.h"
#include "shader_compiler.h"

namespace ossa {

using Microsoft::WRL::ComPtr;

namespace {
std::string hresult_text(HRESULT hr) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08lx", static_cast<unsigned long>(hr));
  return text;
}

std::string narrow(const wchar_t* wide) {
  std::string out;
  for (; *wide; ++wide) out += *wide < 128 ? static_cast<char>(*wide) : '?';
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------- device

Result<std::shared_ptr<D3D11Device>> D3D11Device::create(const D3D11DeviceOptions& options) {
  using R = Result<std::shared_ptr<D3D11Device>>;
  const D3D_FEATURE_LEVEL levels[] = {D3D_FEATURE_LEVEL_11_1, D3D_FEATURE_LEVEL_11_0};
  const D3D_DRIVER_TYPE driver = options.warp ? D3D_DRIVER_TYPE_WARP : D3D_DRIVER_TYPE_HARDWARE;
  ID3D11Device* device = nullptr;
  ID3D11DeviceContext* context = nullptr;
  D3D_FEATURE_LEVEL got{};
  bool debug = false;
  HRESULT hr = E_FAIL;
  if (options.debug) {
    hr = D3D11CreateDevice(nullptr, driver, nullptr, D3D11_CREATE_DEVICE_DEBUG, levels, 2, D3D11_SDK_VERSION,
                           &device, &got, &context);
    debug = SUCCEEDED(hr);
  }
  if (!debug) {
    hr =
        D3D11CreateDevice(nullptr, driver, nullptr, 0, levels, 2, D3D11_SDK_VERSION, &device, &got, &context);
    // The first attempt may have failed for want of feature level 11_1 on older runtimes.
    if (hr == E_INVALIDARG)
      hr = D3D11CreateDevice(nullptr, driver, nullptr, 0, levels + 1, 1, D3D11_SDK_VERSION, &device, &got,
                             &context);
  }
  if (FAILED(hr))
    return R::failure("cannot create a Direct3D 11 device (" +
                      std::string(options.warp ? "WARP" : "hardware") +
                      ", feature level 11_0 or later): HRESULT " + hresult_text(hr) +
                      (hr == static_cast<HRESULT>(0x887A0004)
                           ? " (DXGI_ERROR_UNSUPPORTED: no adapter; under Wine this means no X display: run "
                             "inside an X server, e.g. xvfb-run)"
                           : ""));
  if (debug) {  // the layer is only useful with its message queue (Wine accepts the flag but has no queue)
    ComPtr<ID3D11InfoQueue> queue;
    debug = SUCCEEDED(device->QueryInterface(__uuidof(ID3D11InfoQueue), &queue));
  }
  std::shared_ptr<D3D11Device> out(new D3D11Device());
  out->device_ = device;
  out->context_ = context;
  out->debug_layer_ = debug;
  out->feature_level_ = static_cast<int>(got);
  // Empty: the bytecode built into the library (detail::built_in_hlsl_bytecode()).
  const char* env = std::getenv("OSSA_HLSL_COMPILER");
  if (!options.shader_compiler.empty())
    out->shader_compiler_ = options.shader_compiler;
  else if ((env && *env) || detail::built_in_hlsl_bytecode().empty())
    out->shader_compiler_ = detail::run_time_shader_compiler();
  return out;
}

D3D11Device::~D3D11Device() {
  if (context_) static_cast<ID3D11DeviceContext*>(context_)->Release();
  if (device_) static_cast<ID3D11Device*>(device_)->Release();
}

Result<void*> D3D11Device::create_swap_chain(void* window) const {
  auto* d3d = static_cast<ID3D11Device*>(device_);
  ComPtr<IDXGIDevice> dxgi_device;
  ComPtr<IDXGIAdapter> adapter;
  ComPtr<IDXGIFactory> factory;
  d3d->QueryInterface(__uuidof(IDXGIDevice), &dxgi_device);
  if (dxgi_device) dxgi_device->GetAdapter(&adapter);
  if (adapter) adapter->GetParent(__uuidof(IDXGIFactory), &factory);
  RECT client{};
  GetClientRect(static_cast<HWND>(window), &client);
  DXGI_SWAP_CHAIN_DESC chain{};
  chain.BufferDesc.Width = static_cast<UINT>(std::max(1L, client.right - client.left));
  chain.BufferDesc.Height = static_cast<UINT>(std::max(1L, client.bottom - client.top));
  chain.BufferDesc.Format = DXGI_FORMAT_R8G8B8A8_UNORM;
  chain.SampleDesc.Count = 1;
  chain.BufferUsage = DXGI_USAGE_RENDER_TARGET_OUTPUT;
  chain.BufferCount = 2;
  chain.OutputWindow = static_cast<HWND>(window);
  chain.Windowed = TRUE;
  chain.SwapEffect = DXGI_SWAP_EFFECT_DISCARD;
  IDXGISwapChain* swap_chain = nullptr;
  HRESULT hr = factory ? factory->CreateSwapChain(d3d, &chain, &swap_chain) : E_FAIL;
  if (FAILED(hr))
    return Result<void*>::failure("cannot create a swap chain for the window: HRESULT " + hresult_text(hr));
  return static_cast<void*>(swap_chain);
}

namespace {
// Wine's version where this process runs under Wine ("" elsewhere): ntdll exports wine_get_version there.
std::string wine_version() {
  HMODULE ntdll = GetModuleHandleA("ntdll.dll");
  FARPROC proc = ntdll ? GetProcAddress(ntdll, "wine_get_version") : nullptr;
  if (!proc) return {};
  using Version = const char* (*)();
  const char* version = reinterpret_cast<Version>(reinterpret_cast<void (*)()>(proc))();
  return version ? version : "?";
}
}  // namespace

std::string D3D11Device::adapter_name() const {
  auto* device = static_cast<ID3D11Device*>(device_);
  std::string name = "?";
  ComPtr<IDXGIDevice> dxgi;
  ComPtr<IDXGIAdapter> adapter;
  DXGI_ADAPTER_DESC desc{};
  if (SUCCEEDED(device->QueryInterface(__uuidof(IDXGIDevice), &dxgi)) &&
      SUCCEEDED(dxgi->GetAdapter(&adapter)) && SUCCEEDED(adapter->GetDesc(&desc)))
    name = narrow(desc.Description);
  // What the adapter is, where that can be told: Microsoft's software rasteriser (WARP, the Basic Render
  // Driver: vendor 0x1414), or Wine, which names an adapter of its own choosing (an "NVIDIA GeForce GTX 470"
  // over Mesa's llvmpipe) and draws through the X server's OpenGL.
  if (desc.VendorId == 0x1414) name += " (software: Microsoft's WARP rasteriser)";
  if (const std::string wine = wine_version(); !wine.empty())
    name += " (the name Wine " + wine +
            " reports: Direct3D 11 is emulated over the X server's OpenGL, whose renderer "
            "draws)";
  char level[32];
  std::snprintf(level, sizeof level, ", feature level %d_%d", (feature_level_ >> 12) & 0xf,
                (feature_level_ >> 8) & 0xf);
  return name + level;
}

std::vector<std::string> D3D11Device::take_errors() {
  std::vector<std::string> out;
  if (!debug_layer_) return out;
  ComPtr<ID3D11InfoQueue> queue;
  if (FAILED(static_cast<ID3D11Device*>(device_)->QueryInterface(__uuidof(ID3D11InfoQueue), &queue)))
    return out;
  const UINT64 count = queue->GetNumStoredMessages();
  for (UINT64 i = 0; i < count; ++i) {
    SIZE_T size = 0;
    queue->GetMessage(i, nullptr, &size);
    std::vector<char> bytes(size);
    auto* message = reinterpret_cast<D3D11_MESSAGE*>(bytes.data());
    if (FAILED(queue->GetMessage(i, message, &size))) continue;
    if (message->Severity == D3D11_MESSAGE_SEVERITY_ERROR ||
        message->Severity == D3D11_MESSAGE_SEVERITY_CORRUPTION)
      out.emplace_back(message->pDescription, message->DescriptionByteLength);
  }
  queue->ClearStoredMessages();
  return out;
}

// ---------------------------------------------------------------------------------------------- shaders

namespace {
// Shader bytecode per process: the child compiler runs once, whatever the number of renderers.
struct CompiledShaders {
  std::vector<uint8_t> character_vs, character_ps, lines_vs, lines_ps;
};

Result<const CompiledShaders*> compiled_shaders(const std::string& compiler) {
  using R = Result<const CompiledShaders*>;
  static std::mutex mutex;
  static std::map<std::string, CompiledShaders> cache;  // by compiler program
  std::lock_guard<std::mutex> lock(mutex);
  if (auto found = cache.find(compiler); found != cache.end()) return &found->second;
  const std::span<const HlslSource> sources = hlsl_sources();
  const HlslSource *character = nullptr, *lines = nullptr;
  for (const HlslSource& s : sources) {
    const std::string path = s.path;
    if (path.ends_with("/character.hlsl")) character = &s;
    if (path.ends_with("/lines.hlsl")) lines = &s;
  }
  if (!character || !lines) return R::failure("the HLSL sources are missing from this build");
  const detail::HlslJob jobs[] = {{character, "vs_main", "vs_5_0"},
                                  {character, "ps_main", "ps_5_0"},
                                  {lines, "vs_main", "vs_5_0"},
                                  {lines, "ps_main", "ps_5_0"}};
  Result<std::vector<std::vector<uint8_t>>> blobs = std::vector<std::vector<uint8_t>>{};
  if (compiler.empty()) {  // built in at build time
    const std::span<const detail::HlslBytecode> built_in = detail::built_in_hlsl_bytecode();
    for (const detail::HlslJob& job : jobs) {
      auto found = std::find_if(built_in.begin(), built_in.end(), [&](const detail::HlslBytecode& b) {
        return std::string_view(b.path) == job.source->path && std::string_view(b.entry) == job.entry;
      });
      if (found == built_in.end())
        return R::failure(std::string("no built-in bytecode for ") + job.source->path + " " + job.entry);
      blobs->emplace_back(found->code.begin(), found->code.end());
    }
  } else {
    blobs = detail::compile_hlsl(compiler, jobs);
    if (!blobs) return R::failure(blobs.error());
  }
  CompiledShaders& out = cache[compiler];
  out.character_vs = std::move((*blobs)[0]);
  out.character_ps = std::move((*blobs)[1]);
  out.lines_vs = std::move((*blobs)[2]);
  out.lines_ps = std::move((*blobs)[3]);
  return &out;
}

// The cbuffer Frame of character.hlsl, byte for byte.
struct FrameConstants {
  float view_proj[16];
  float world[16];
  float eye[4];
  int32_t mode, lighting, corrected;
  float time;
  float base_color[4];
  int32_t has_diffuse, has_normal_map, has_tangents, padding;
};
static_assert(sizeof(FrameConstants) == 192);
enum : int32_t { kModePalette = 0, kModeStatic = 1, kModeBaked = 2 };

// The cbuffer Morph of character.hlsl (register b1), byte for byte; its MORPH_TARGET expansions and row
// width are written for these sizes.
struct MorphConstants {
  float slots[kMaxGpuMorphTargets * 4];
  int32_t count, texels_per_vertex, padding[2];
};
static_assert(sizeof(MorphConstants) == 144 && kMaxGpuMorphTargets == 8 &&
              detail::kMorphTextureWidth == 4096);
constexpr UINT kMorphConstantsSlot = 1, kMorphDeltasSlot = 6;

// The cbuffer BakedMorph of character.hlsl (register b2), byte for byte: a mesh's baked morph slots
// (baked_morph_plan.h); its BAKED_MORPH_TARGET expansions are written for these sizes.
struct BakedMorphConstants {
  float slots[kMaxGpuMorphTargets * 8];
  int32_t count, texels_per_vertex, padding[2];
};
static_assert(sizeof(BakedMorphConstants) == 272 &&
              sizeof(detail::BakedMorphSlots::slots) == sizeof(BakedMorphConstants::slots));
constexpr UINT kBakedMorphConstantsSlot = 2;

constexpr int kPaletteTexels = detail::kMaxPaletteJoints * 3;  // rows 0-2 per palette slot
constexpr int kBindTableTexels =
    1024;  // 768 correction rows, then each slot's joint (x): no integer division
constexpr int kRemapTexel = detail::kMaxPaletteJoints * 3;

// Rows 0-2 of a column-major Mat4.
void put_rows(const Mat4& m, float* out) {
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) out[r * 4 + c] = m.at(r, c);
}

class D3D11Renderer final : public CharacterRenderer {
 public:
  explicit D3D11Renderer(std::shared_ptr<D3D11Device> device)
      : device_(std::move(device)),
        dev(static_cast<ID3D11Device*>(device_->device())),
        ctx(static_cast<ID3D11DeviceContext*>(device_->context())) {}
  Result<bool> init(const CharacterAsset& asset, std::span<const Material> materials,
                    std::span<const Texture> textures, bool flip_textures);

  const char* backend() const override { return "Direct3D 11"; }
  std::string device_name() const override { return device_->adapter_name(); }
  bool has_per_instance_evaluation() const override { return false; }
  Result<bool> set_baked(const BakedAnimation& baked) override;
  void begin_frame(const FrameSettings& settings) override;
  void draw_palette(const Mat4& world, std::span<const Mat4> model,
                    std::span<const float> morph_weights) override;
  void draw_cpu(const Mat4& world, std::span<const Mat4> model,
                std::span<const float> morph_weights) override;
  MorphDrawStats morph_stats() const override { return morph_.stats(); }
  BakedDrawStats draw_baked(std::span<const BakedInstance> instances, float global_time,
                            const BakedDrawOptions& options) override;
  void draw_skeleton(const Mat4& world, std::span<const Mat4> model) override;
  void draw_world_lines(std::span<const Vec3> endpoints, Vec3 color) override {
    draw_lines(detail::colored_lines(endpoints, color), true);
  }
  Image end_frame() override;
  void finish() override;
  Result<bool> copy_frame_to(ID3D11Texture2D* texture, int x, int y);

 private:
  struct GpuMesh {
    const SkinnedMesh* mesh = nullptr;
    ComPtr<ID3D11Buffer> vertices, indices, skinned;  // skinned: the CPU path's stream (dynamic)
    UINT index_count = 0;
    detail::MeshMaterial material;
    ID3D11ShaderResourceView* diffuse = nullptr;  // owned by textures_
    ID3D11ShaderResourceView* normal_map = nullptr;
    ComPtr<ID3D11ShaderResourceView> bind_table;  // baked: corrections and slot -> joint map
    bool bake_corrected = false;
  };
  Result<ComPtr<ID3D11Buffer>> buffer(UINT bind, const void* data, UINT bytes, bool dynamic);
  Result<ComPtr<ID3D11ShaderResourceView>> float_texture(int width, const float* texels, bool dynamic,
                                                         ComPtr<ID3D11Texture2D>* texture = nullptr);
  void set_constants(int32_t mode, const Mat4& world, const GpuMesh* mesh, float time, bool corrected);
  void bind_character(ID3D11InputLayout* layout);
  void draw_lines(const std::vector<float>& vertices, bool depth_test);
  Result<bool> upload_morph_deltas();
  template <typename Fill>
  void write_dynamic(ID3D11Resource* resource, Fill&& fill) {  // Map(WRITE_DISCARD), fill, Unmap
    D3D11_MAPPED_SUBRESOURCE mapped{};
    if (SUCCEEDED(ctx->Map(resource, 0, D3D11_MAP_WRITE_DISCARD, 0, &mapped))) {
      fill(static_cast<uint8_t*>(mapped.pData));
      ctx->Unmap(resource, 0);
    }
  }

  std::shared_ptr<D3D11Device> device_;
  ID3D11Device* dev;
  ID3D11DeviceContext* ctx;
  const CharacterAsset* asset_ = nullptr;
  std::vector<GpuMesh> meshes_;
  std::vector<ComPtr<ID3D11ShaderResourceView>> textures_;
  ComPtr<ID3D11VertexShader> character_vs_, lines_vs_;
  ComPtr<ID3D11PixelShader> character_ps_, lines_ps_;
  ComPtr<ID3D11InputLayout> static_layout_, cpu_layout_, lines_layout_;
  ComPtr<ID3D11Buffer> frame_constants_, line_constants_, dummy_instance_, instance_buffer_, line_buffer_;
  UINT instance_capacity_ = 0, line_capacity_ = 0;  // bytes
  ComPtr<ID3D11Texture2D> palette_texture_, clip_texture_;
  ComPtr<ID3D11ShaderResourceView> palette_view_, clip_view_, baked_view_;
  ComPtr<ID3D11SamplerState> sampler_;
  ComPtr<ID3D11RasterizerState> rasterizer_;
  ComPtr<ID3D11DepthStencilState> depth_on_, depth_off_;
  ComPtr<ID3D11Texture2D> color_, depth_, staging_;
  ComPtr<ID3D11RenderTargetView> color_view_;
  ComPtr<ID3D11DepthStencilView> depth_view_;
  ComPtr<ID3D11Query> done_query_;
  int width_ = 0, height_ = 0;
  FrameSettings frame_;
  Mat4 view_proj_;
  std::vector<BakedClipInfo> baked_clips_;
  bool has_baked_ = false;
  std::vector<Mat4> palette_;  // scratch
  detail::CpuSkinningScratch cpu_scratch_;
  std::vector<float> skinned_;  // scratch
  detail::BakedDrawPlan plan_;  // scratch
  detail::MorphState morph_;
  ComPtr<ID3D11ShaderResourceView> morph_view_;  // every mesh's morph deltas; null when none is on the GPU
  ComPtr<ID3D11Buffer> morph_constants_, baked_morph_constants_;
  std::vector<detail::BakedMorphSlots> baked_morphs_;  // per mesh: the targets the bake animates
};

Result<ComPtr<ID3D11Buffer>> D3D11Renderer::buffer(UINT bind, const void* data, UINT bytes, bool dynamic) {
  D3D11_BUFFER_DESC desc{};
  desc.ByteWidth = std::max<UINT>(bytes, 16);
  desc.Usage = dynamic ? D3D11_USAGE_DYNAMIC : D3D11_USAGE_IMMUTABLE;
  desc.BindFlags = bind;
  desc.CPUAccessFlags = dynamic ? D3D11_CPU_ACCESS_WRITE : 0;
  std::vector<uint8_t> zeros;
  D3D11_SUBRESOURCE_DATA init{};
  if (!data) {
    zeros.assign(desc.ByteWidth, 0);
    data = zeros.data();
  } else if (bytes < desc.ByteWidth) {
    zeros.assign(desc.ByteWidth, 0);
    std::memcpy(zeros.data(), data, bytes);
    data = zeros.data();
  }
  init.pSysMem = data;
  ComPtr<ID3D11Buffer> out;
  const HRESULT hr = dev->CreateBuffer(&desc, &init, &out);
  if (FAILED(hr))
    return Result<ComPtr<ID3D11Buffer>>::failure("CreateBuffer failed: HRESULT " + hresult_text(hr));
  return out;
}

Result<ComPtr<ID3D11ShaderResourceView>> D3D11Renderer::float_texture(int width, const float* texels,
                                                                      bool dynamic,
                                                                      ComPtr<ID3D11Texture2D>* texture_out) {
  D3D11_TEXTURE2D_DESC desc{};
  desc.Width = static_cast<UINT>(width);
  desc.Height = 1;
  desc.MipLevels = 1;
  desc.ArraySize = 1;
  desc.Format = DXGI_FORMAT_R32G32B32A32_FLOAT;
  desc.SampleDesc.Count = 1;
  desc.Usage = dynamic ? D3D11_USAGE_DYNAMIC : D3D11_USAGE_IMMUTABLE;
  desc.BindFlags = D3D11_BIND_SHADER_RESOURCE;
  desc.CPUAccessFlags = dynamic ? D3D11_CPU_ACCESS_WRITE : 0;
  std::vector<float> zeros;
  if (!texels) {
    zeros.assign(static_cast<size_t>(width) * 4, 0.f);
    texels = zeros.data();
  }
  D3D11_SUBRESOURCE_DATA init{texels, static_cast<UINT>(width * 16), 0};
  ComPtr<ID3D11Texture2D> texture;
  ComPtr<ID3D11ShaderResourceView> view;
  HRESULT hr = dev->CreateTexture2D(&desc, &init, &texture);
  if (SUCCEEDED(hr)) hr = dev->CreateShaderResourceView(texture.Get(), nullptr, &view);
  if (FAILED(hr))
    return Result<ComPtr<ID3D11ShaderResourceView>>::failure(
        "cannot create a " + std::to_string(width) + "-texel table texture: HRESULT " + hresult_text(hr));
  if (texture_out) *texture_out = texture;
  return view;
}

Result<bool> D3D11Renderer::init(const CharacterAsset& asset, std::span<const Material> materials,
                                 std::span<const Texture> texture_files, bool flip_textures) {
  using R = Result<bool>;
  asset_ = &asset;
  auto create_shaders = [&](const std::string& compiler) -> Result<const CompiledShaders*> {
    using S = Result<const CompiledShaders*>;
    auto shaders = compiled_shaders(compiler);
    if (!shaders) return S::failure(shaders.error());
    const CompiledShaders& c = **shaders;
    HRESULT made =
        dev->CreateVertexShader(c.character_vs.data(), c.character_vs.size(), nullptr, &character_vs_);
    if (SUCCEEDED(made))
      made = dev->CreatePixelShader(c.character_ps.data(), c.character_ps.size(), nullptr, &character_ps_);
    if (SUCCEEDED(made))
      made = dev->CreateVertexShader(c.lines_vs.data(), c.lines_vs.size(), nullptr, &lines_vs_);
    if (SUCCEEDED(made))
      made = dev->CreatePixelShader(c.lines_ps.data(), c.lines_ps.size(), nullptr, &lines_ps_);
    if (FAILED(made))
      return S::failure("cannot create the shaders from their " +
                        std::string(compiler.empty() ? "built-in " : "") + "bytecode: HRESULT " +
                        hresult_text(made));
    return &c;
  };
  auto created = create_shaders(device_->shader_compiler());
  // Bytecode built in under Wine and refused by a driver: the HLSL compiled here instead, where a compiler
  // program is beside the program.
  if (!created && device_->shader_compiler().empty()) {
    const std::string fallback = detail::run_time_shader_compiler();
    std::error_code ec;
    if (!std::filesystem::exists(path_from_utf8(fallback), ec))
      return R::failure(created.error() + " (no " + fallback + " to compile the HLSL with instead)");
    auto compiled = create_shaders(fallback);
    if (!compiled) return R::failure(created.error() + "; compiled by " + fallback + ": " + compiled.error());
    created = compiled;
  }
  if (!created) return R::failure(created.error());
  const CompiledShaders& code = **created;
  HRESULT hr = S_OK;

  // Slot 0: static vertices (detail::StaticVertex); slot 1: the CPU-skinned stream (position, normal,
  // tangent); slot 2: per-instance data (detail::kInstanceFloats floats).
  using detail::StaticVertex;
  auto element = [](const char* name, UINT index, DXGI_FORMAT format, UINT slot, UINT offset,
                    bool per_instance) {
    return D3D11_INPUT_ELEMENT_DESC{
        name,
        index,
        format,
        slot,
        offset,
        per_instance ? D3D11_INPUT_PER_INSTANCE_DATA : D3D11_INPUT_PER_VERTEX_DATA,
        per_instance ? 1u : 0u};
  };
  D3D11_INPUT_ELEMENT_DESC layout[] = {
      element("POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, offsetof(StaticVertex, position), false),
      element("NORMAL", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, offsetof(StaticVertex, normal), false),
      element("TANGENT", 0, DXGI_FORMAT_R32G32B32A32_FLOAT, 0, offsetof(StaticVertex, tangent), false),
      element("TEXCOORD", 0, DXGI_FORMAT_R32G32_FLOAT, 0, offsetof(StaticVertex, uv), false),
      element("BLENDINDICES", 0, DXGI_FORMAT_R16G16B16A16_UINT, 0, offsetof(StaticVertex, joints), false),
      element("BLENDWEIGHT", 0, DXGI_FORMAT_R32G32B32A32_FLOAT, 0, offsetof(StaticVertex, weights), false),
      element("INSTANCE_WORLD", 0, DXGI_FORMAT_R32G32B32A32_FLOAT, 2, 0, true),
      element("INSTANCE_WORLD", 1, DXGI_FORMAT_R32G32B32A32_FLOAT, 2, 16, true),
      element("INSTANCE_WORLD", 2, DXGI_FORMAT_R32G32B32A32_FLOAT, 2, 32, true),
      element("INSTANCE_WORLD", 3, DXGI_FORMAT_R32G32B32A32_FLOAT, 2, 48, true),
      element("INSTANCE_ANIM", 0, DXGI_FORMAT_R32G32B32A32_FLOAT, 2, 64, true),
      element("INSTANCE_BLEND", 0, DXGI_FORMAT_R32_FLOAT, 2, 80, true),
  };
  hr = dev->CreateInputLayout(layout, static_cast<UINT>(std::size(layout)), code.character_vs.data(),
                              code.character_vs.size(), &static_layout_);
  // The CPU path: position, normal and tangent from slot 1 instead.
  layout[0] = element("POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 1, 0, false);
  layout[1] = element("NORMAL", 0, DXGI_FORMAT_R32G32B32_FLOAT, 1, 12, false);
  layout[2] = element("TANGENT", 0, DXGI_FORMAT_R32G32B32A32_FLOAT, 1, 24, false);
  if (SUCCEEDED(hr))
    hr = dev->CreateInputLayout(layout, static_cast<UINT>(std::size(layout)), code.character_vs.data(),
                                code.character_vs.size(), &cpu_layout_);
  const D3D11_INPUT_ELEMENT_DESC line_layout[] = {
      element("POSITION", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 0, false),
      element("COLOR", 0, DXGI_FORMAT_R32G32B32_FLOAT, 0, 12, false),
  };
  if (SUCCEEDED(hr))
    hr = dev->CreateInputLayout(line_layout, 2, code.lines_vs.data(), code.lines_vs.size(), &lines_layout_);
  if (FAILED(hr)) return R::failure("cannot create the vertex input layouts: HRESULT " + hresult_text(hr));

  // Textures: RGBA8 with a full mip chain, as the GL backend uploads them.
  std::vector<ID3D11ShaderResourceView*> texture_views(texture_files.size(), nullptr);
  for (size_t t = 0; t < texture_files.size(); ++t) {
    auto image = decode_image(texture_files[t].data, kMaxTextureSide, flip_textures);
    if (!image) continue;  // the mesh is drawn without it, as on GL
    D3D11_TEXTURE2D_DESC desc{};
    desc.Width = static_cast<UINT>(image->width);
    desc.Height = static_cast<UINT>(image->height);
    desc.MipLevels = 0;  // all
    desc.ArraySize = 1;
    desc.Format = DXGI_FORMAT_R8G8B8A8_UNORM;
    desc.SampleDesc.Count = 1;
    desc.Usage = D3D11_USAGE_DEFAULT;
    desc.BindFlags = D3D11_BIND_SHADER_RESOURCE | D3D11_BIND_RENDER_TARGET;
    desc.MiscFlags = D3D11_RESOURCE_MISC_GENERATE_MIPS;
    ComPtr<ID3D11Texture2D> texture;
    ComPtr<ID3D11ShaderResourceView> view;
    hr = dev->CreateTexture2D(&desc, nullptr, &texture);
    if (SUCCEEDED(hr)) hr = dev->CreateShaderResourceView(texture.Get(), nullptr, &view);
    if (FAILED(hr))
      return R::failure("cannot create texture '" + texture_files[t].path + "': HRESULT " + hresult_text(hr));
    ctx->UpdateSubresource(texture.Get(), 0, nullptr, image->rgba.data(), static_cast<UINT>(image->width * 4),
                           0);
    ctx->GenerateMips(view.Get());
    texture_views[t] = view.Get();
    textures_.push_back(view);
  }

  for (const SkinnedMesh& mesh : asset.meshes) {
    if (mesh.joint_remap().size() > detail::kMaxPaletteJoints)
      return R::failure("mesh '" + mesh.name() + "' uses " + std::to_string(mesh.joint_remap().size()) +
                        " palette joints; GPU skinning draws up to 256 per draw (split the mesh by joints)");
    GpuMesh g;
    g.mesh = &mesh;
    const std::vector<StaticVertex> vertices = detail::static_vertices(mesh);
    auto vb = buffer(D3D11_BIND_VERTEX_BUFFER, vertices.data(),
                     static_cast<UINT>(vertices.size() * sizeof(StaticVertex)), false);
    auto ib = buffer(D3D11_BIND_INDEX_BUFFER, mesh.indices().data(),
                     static_cast<UINT>(mesh.indices().size() * 4), false);
    auto sb = buffer(D3D11_BIND_VERTEX_BUFFER, nullptr,
                     static_cast<UINT>(std::max(mesh.vertex_count(), 1) * detail::kSkinnedFloats * 4), true);
    if (!vb || !ib || !sb) return R::failure("mesh '" + mesh.name() + "': cannot create its buffers");
    g.vertices = *vb;
    g.indices = *ib;
    g.skinned = *sb;
    g.index_count = static_cast<UINT>(mesh.indices().size());
    g.material = detail::mesh_material(mesh, materials);
    if (g.material.diffuse >= 0 && g.material.diffuse < static_cast<int>(texture_views.size()))
      g.diffuse = texture_views[g.material.diffuse];
    if (g.material.normal_map >= 0 && g.material.normal_map < static_cast<int>(texture_views.size()))
      g.normal_map = texture_views[g.material.normal_map];
    // The bake bindings as the HLSL reads them: rows 0-2 of each correction, then one joint per texel.
    const detail::BakeBindings bind = detail::bake_bindings(asset, mesh);
    g.bake_corrected = bind.corrected;
    std::vector<float> table(static_cast<size_t>(kBindTableTexels) * 4, 0.f);
    const auto* corrections = reinterpret_cast<const Mat4*>(bind.bytes.data());
    const auto* remap = reinterpret_cast<const int32_t*>(bind.bytes.data() + detail::kMaxPaletteJoints * 64);
    for (int slot = 0; slot < detail::kMaxPaletteJoints; ++slot) {
      put_rows(corrections[slot], &table[static_cast<size_t>(slot) * 12]);
      table[(static_cast<size_t>(kRemapTexel) + slot) * 4] = static_cast<float>(remap[slot]);
    }
    auto view = float_texture(kBindTableTexels, table.data(), false);
    if (!view) return R::failure(view.error());
    g.bind_table = *view;
    meshes_.push_back(std::move(g));
  }

  auto palette = float_texture(kPaletteTexels, nullptr, true, &palette_texture_);
  if (!palette) return R::failure(palette.error());
  palette_view_ = *palette;
  auto clips = float_texture(detail::kMaxBakedClips, nullptr, true, &clip_texture_);
  if (!clips) return R::failure(clips.error());
  clip_view_ = *clips;
  auto constants = buffer(D3D11_BIND_CONSTANT_BUFFER, nullptr, sizeof(FrameConstants), true);
  auto line_constants = buffer(D3D11_BIND_CONSTANT_BUFFER, nullptr, 64, true);
  const float zero_instance[detail::kInstanceFloats] = {};
  auto dummy = buffer(D3D11_BIND_VERTEX_BUFFER, zero_instance, sizeof zero_instance, false);
  if (!constants || !line_constants || !dummy) return R::failure("cannot create the constant buffers");
  frame_constants_ = *constants;
  line_constants_ = *line_constants;
  if (auto morph = upload_morph_deltas(); !morph) return morph;
  dummy_instance_ = *dummy;

  D3D11_SAMPLER_DESC sampler{};
  sampler.Filter = D3D11_FILTER_MIN_MAG_MIP_LINEAR;
  sampler.AddressU = sampler.AddressV = sampler.AddressW = D3D11_TEXTURE_ADDRESS_WRAP;
  sampler.MaxLOD = D3D11_FLOAT32_MAX;
  sampler.ComparisonFunc = D3D11_COMPARISON_NEVER;
  hr = dev->CreateSamplerState(&sampler, &sampler_);

  D3D11_RASTERIZER_DESC raster{};
  raster.FillMode = D3D11_FILL_SOLID;
  raster.CullMode = D3D11_CULL_NONE;  // capes and props are seen from both sides
  raster.DepthClipEnable = TRUE;
  if (SUCCEEDED(hr)) hr = dev->CreateRasterizerState(&raster, &rasterizer_);
  D3D11_DEPTH_STENCIL_DESC depth{};
  depth.DepthEnable = TRUE;
  depth.DepthWriteMask = D3D11_DEPTH_WRITE_MASK_ALL;
  depth.DepthFunc = D3D11_COMPARISON_LESS;
  if (SUCCEEDED(hr)) hr = dev->CreateDepthStencilState(&depth, &depth_on_);
  depth.DepthEnable = FALSE;
  if (SUCCEEDED(hr)) hr = dev->CreateDepthStencilState(&depth, &depth_off_);
  D3D11_QUERY_DESC query{D3D11_QUERY_EVENT, 0};
  if (SUCCEEDED(hr)) hr = dev->CreateQuery(&query, &done_query_);
  if (FAILED(hr)) return R::failure("cannot create the pipeline states: HRESULT " + hresult_text(hr));
  return true;
}

Result<bool> D3D11Renderer::set_baked(const BakedAnimation& baked) {
  baked_view_.Reset();
  has_baked_ = false;
  if (auto fits = detail::check_bake(baked, D3D11_REQ_TEXTURE2D_U_OR_V_DIMENSION,
                                     D3D11_REQ_TEXTURE2D_ARRAY_AXIS_DIMENSION, "Direct3D 11");
      !fits)
    return fits;
  auto morphs = detail::baked_morph_slots(*asset_, baked, morph_.table());
  if (!morphs) return Result<bool>::failure(morphs.error());
  baked_morphs_ = std::move(morphs).value();
  D3D11_TEXTURE2D_DESC desc{};
  desc.Width = static_cast<UINT>(baked.width);
  desc.Height = static_cast<UINT>(baked.height);
  desc.MipLevels = 1;
  desc.ArraySize = static_cast<UINT>(baked.layers);
  desc.Format = baked.half ? DXGI_FORMAT_R16G16B16A16_FLOAT : DXGI_FORMAT_R32G32B32A32_FLOAT;
  desc.SampleDesc.Count = 1;
  desc.Usage = D3D11_USAGE_IMMUTABLE;
  desc.BindFlags = D3D11_BIND_SHADER_RESOURCE;
  const size_t texel_bytes = baked.half ? 8 : 16;
  const auto* bytes = baked.half ? reinterpret_cast<const uint8_t*>(baked.halves.data())
                                 : reinterpret_cast<const uint8_t*>(baked.texels.data());
  std::vector<D3D11_SUBRESOURCE_DATA> layers(static_cast<size_t>(baked.layers));
  const size_t row = static_cast<size_t>(baked.width) * texel_bytes;
  for (int l = 0; l < baked.layers; ++l)
    layers[l] = {bytes + row * baked.height * l, static_cast<UINT>(row),
                 static_cast<UINT>(row * baked.height)};
  ComPtr<ID3D11Texture2D> texture;
  HRESULT hr = dev->CreateTexture2D(&desc, layers.data(), &texture);
  // An array view even for one layer (a default view of a one-layer texture is a Texture2D one, which the
  // shader's Texture2DArray then reads wrongly).
  D3D11_SHADER_RESOURCE_VIEW_DESC view{};
  view.Format = desc.Format;
  view.ViewDimension = D3D11_SRV_DIMENSION_TEXTURE2DARRAY;
  view.Texture2DArray.MipLevels = 1;
  view.Texture2DArray.ArraySize = desc.ArraySize;
  if (SUCCEEDED(hr)) hr = dev->CreateShaderResourceView(texture.Get(), &view, &baked_view_);
  if (FAILED(hr))  // draw_baked() then draws nothing, as before any bake
    return Result<bool>::failure("cannot create the bake's texture array (" + std::to_string(baked.width) +
                                 " x " + std::to_string(baked.height) + " texels x " +
                                 std::to_string(baked.layers) + " clips): HRESULT " + hresult_text(hr));
  const auto table = detail::clip_table(baked);
  write_dynamic(clip_texture_.Get(), [&](uint8_t* out) { std::memcpy(out, table.data(), sizeof table); });
  baked_clips_ = baked.clips;
  has_baked_ = true;
  return true;
}

void D3D11Renderer::begin_frame(const FrameSettings& settings) {
  frame_ = settings;
  morph_.begin_frame();
  if (!color_ || width_ != settings.width || height_ != settings.height) {
    D3D11_TEXTURE2D_DESC desc{};
    desc.Width = static_cast<UINT>(settings.width);
    desc.Height = static_cast<UINT>(settings.height);
    desc.MipLevels = 1;
    desc.ArraySize = 1;
    desc.Format = DXGI_FORMAT_R8G8B8A8_UNORM;
    desc.SampleDesc.Count = 1;
    desc.Usage = D3D11_USAGE_DEFAULT;
    desc.BindFlags = D3D11_BIND_RENDER_TARGET;
    color_.Reset(), depth_.Reset(), staging_.Reset(), color_view_.Reset(), depth_view_.Reset();
    dev->CreateTexture2D(&desc, nullptr, &color_);
    desc.BindFlags = 0;
    desc.Usage = D3D11_USAGE_STAGING;
    desc.CPUAccessFlags = D3D11_CPU_ACCESS_READ;
    dev->CreateTexture2D(&desc, nullptr, &staging_);
    desc.Format = DXGI_FORMAT_D24_UNORM_S8_UINT;
    desc.Usage = D3D11_USAGE_DEFAULT;
    desc.CPUAccessFlags = 0;
    desc.BindFlags = D3D11_BIND_DEPTH_STENCIL;
    dev->CreateTexture2D(&desc, nullptr, &depth_);
    if (color_) dev->CreateRenderTargetView(color_.Get(), nullptr, &color_view_);
    if (depth_) dev->CreateDepthStencilView(depth_.Get(), nullptr, &depth_view_);
    width_ = settings.width;
    height_ = settings.height;
  }
  ID3D11RenderTargetView* targets[] = {color_view_.Get()};
  ctx->OMSetRenderTargets(1, targets, depth_view_.Get());
  const D3D11_VIEWPORT viewport{0, 0, static_cast<float>(settings.width), static_cast<float>(settings.height),
                                0, 1};
  ctx->RSSetViewports(1, &viewport);
  ctx->RSSetState(rasterizer_.Get());
  const float clear[4] = {settings.clear.x, settings.clear.y, settings.clear.z, settings.clear.w};
  if (color_view_) ctx->ClearRenderTargetView(color_view_.Get(), clear);
  if (depth_view_) ctx->ClearDepthStencilView(depth_view_.Get(), D3D11_CLEAR_DEPTH, 1.0f, 0);
  view_proj_ = detail::view_projection(settings, detail::DepthRange::kZeroToOne);
  if (settings.grid) draw_lines(detail::grid_lines(settings.camera), true);
}

void D3D11Renderer::draw_lines(const std::vector<float>& vertices, bool depth_test) {
  if (vertices.empty()) return;
  const UINT bytes = static_cast<UINT>(vertices.size() * 4);
  if (bytes > line_capacity_) {
    auto grown = buffer(D3D11_BIND_VERTEX_BUFFER, nullptr, bytes * 2, true);
    if (!grown) return;
    line_buffer_ = *grown;
    line_capacity_ = bytes * 2;
  }
  write_dynamic(line_buffer_.Get(), [&](uint8_t* out) { std::memcpy(out, vertices.data(), bytes); });
  write_dynamic(line_constants_.Get(), [&](uint8_t* out) { std::memcpy(out, view_proj_.m, 64); });
  ID3D11Buffer* buffers[] = {line_buffer_.Get()};
  const UINT stride = 24, offset = 0;
  ctx->IASetVertexBuffers(0, 1, buffers, &stride, &offset);
  ctx->IASetInputLayout(lines_layout_.Get());
  ctx->IASetPrimitiveTopology(D3D11_PRIMITIVE_TOPOLOGY_LINELIST);
  ctx->VSSetShader(lines_vs_.Get(), nullptr, 0);
  ctx->PSSetShader(lines_ps_.Get(), nullptr, 0);
  ID3D11Buffer* constants[] = {line_constants_.Get()};
  ctx->VSSetConstantBuffers(0, 1, constants);
  ctx->OMSetDepthStencilState(depth_test ? depth_on_.Get() : depth_off_.Get(), 0);
  ctx->Draw(static_cast<UINT>(vertices.size() / 6), 0);
  ctx->OMSetDepthStencilState(depth_on_.Get(), 0);
}

void D3D11Renderer::set_constants(int32_t mode, const Mat4& world, const GpuMesh* mesh, float time,
                                  bool corrected) {
  FrameConstants c{};
  std::memcpy(c.view_proj, view_proj_.m, 64);
  std::memcpy(c.world, world.m, 64);
  c.eye[0] = frame_.camera.eye.x, c.eye[1] = frame_.camera.eye.y, c.eye[2] = frame_.camera.eye.z;
  c.mode = mode;
  c.lighting = static_cast<int32_t>(frame_.lighting);
  c.corrected = corrected;
  c.time = time;
  if (mesh) {
    const Vec4& b = mesh->material.base_color;
    c.base_color[0] = b.x, c.base_color[1] = b.y, c.base_color[2] = b.z, c.base_color[3] = b.w;
    c.has_diffuse = mesh->diffuse != nullptr;
    c.has_normal_map = mesh->normal_map != nullptr;
    c.has_tangents = mesh->material.has_tangents;
  }
  write_dynamic(frame_constants_.Get(), [&](uint8_t* out) { std::memcpy(out, &c, sizeof c); });
}

void D3D11Renderer::bind_character(ID3D11InputLayout* layout) {
  ctx->IASetInputLayout(layout);
  ctx->IASetPrimitiveTopology(D3D11_PRIMITIVE_TOPOLOGY_TRIANGLELIST);
  ctx->VSSetShader(character_vs_.Get(), nullptr, 0);
  ctx->PSSetShader(character_ps_.Get(), nullptr, 0);
  ID3D11Buffer* constants[] = {frame_constants_.Get()};
  ctx->VSSetConstantBuffers(0, 1, constants);
  ctx->PSSetConstantBuffers(0, 1, constants);
  ID3D11SamplerState* samplers[] = {sampler_.Get()};
  ctx->PSSetSamplers(0, 1, samplers);
  ctx->OMSetDepthStencilState(depth_on_.Get(), 0);
}

namespace {
// Vertex slots 0 (static), 1 (CPU-skinned) and 2 (instances), and the mesh's textures; then the draw.
void draw_mesh(ID3D11DeviceContext* ctx, ID3D11Buffer* vertices, ID3D11Buffer* skinned,
               ID3D11Buffer* instances, ID3D11Buffer* indices, UINT index_count, UINT instance_count,
               UINT first_instance, ID3D11ShaderResourceView* const* vertex_views,
               ID3D11ShaderResourceView* diffuse, ID3D11ShaderResourceView* normal_map) {
  ID3D11Buffer* buffers[] = {vertices, skinned, instances};
  const UINT strides[] = {sizeof(detail::StaticVertex), detail::kSkinnedFloats * 4,
                          detail::kInstanceFloats * 4};
  const UINT offsets[] = {0, 0, 0};
  ctx->IASetVertexBuffers(0, 3, buffers, strides, offsets);
  ctx->IASetIndexBuffer(indices, DXGI_FORMAT_R32_UINT, 0);
  ctx->VSSetShaderResources(0, 4, vertex_views);
  ID3D11ShaderResourceView* maps[] = {diffuse, normal_map};
  ctx->PSSetShaderResources(4, 2, maps);
  if (instance_count > 0)
    ctx->DrawIndexedInstanced(index_count, instance_count, 0, 0, first_instance);
  else
    ctx->DrawIndexed(index_count, 0, 0);
}
}  // namespace

void D3D11Renderer::draw_palette(const Mat4& world, std::span<const Mat4> model,
                                 std::span<const float> morph_weights) {
  bind_character(static_layout_.Get());
  ID3D11Buffer* morph_constants[] = {morph_constants_.Get()};
  ctx->VSSetConstantBuffers(kMorphConstantsSlot, 1, morph_constants);
  ID3D11ShaderResourceView* morph_deltas[] = {morph_view_.Get()};
  ctx->VSSetShaderResources(kMorphDeltasSlot, 1, morph_deltas);
  for (size_t m = 0; m < meshes_.size(); ++m) {
    GpuMesh& g = meshes_[m];
    // Each mesh's own palette (its joint slots), rows 0-2 per slot, right before its draw.
    const SkinnedMesh& mesh = *g.mesh;
    palette_.resize(mesh.inverse_binds().size());
    PaletteJob{model, mesh.inverse_binds(), mesh.joint_remap(), palette_, {}}.run();
    write_dynamic(palette_texture_.Get(), [&](uint8_t* out) {
      auto* rows = reinterpret_cast<float*>(out);
      for (size_t k = 0; k < palette_.size(); ++k) put_rows(palette_[k], rows + k * 12);
    });
    const std::span<const float> weights = morph_.mesh_weights(static_cast<int>(m), morph_weights);
    const detail::MorphDraw& plan = morph_.plan(static_cast<int>(m), weights);
    write_dynamic(morph_constants_.Get(), [&](uint8_t* out) {
      MorphConstants c{};
      std::memcpy(c.slots, plan.slots.data(), sizeof c.slots);
      c.count = plan.active;
      c.texels_per_vertex = plan.texels_per_vertex;
      std::memcpy(out, &c, sizeof c);
    });
    if (plan.on_cpu) {  // morphed here, skinned on the GPU from the mesh's streamed vertices (slot 1)
      detail::morph_on_cpu(mesh, weights, cpu_scratch_, skinned_);
      write_dynamic(g.skinned.Get(),
                    [&](uint8_t* out) { std::memcpy(out, skinned_.data(), skinned_.size() * 4); });
      ctx->IASetInputLayout(cpu_layout_.Get());
    }
    set_constants(kModePalette, world, &g, 0, false);
    ID3D11ShaderResourceView* views[] = {palette_view_.Get(), g.bind_table.Get(), baked_view_.Get(),
                                         clip_view_.Get()};
    draw_mesh(ctx, g.vertices.Get(), g.skinned.Get(), dummy_instance_.Get(), g.indices.Get(), g.index_count,
              0, 0, views, g.diffuse, g.normal_map);
    if (plan.on_cpu) ctx->IASetInputLayout(static_layout_.Get());
  }
}

void D3D11Renderer::draw_cpu(const Mat4& world, std::span<const Mat4> model,
                             std::span<const float> morph_weights) {
  bind_character(cpu_layout_.Get());
  for (size_t m = 0; m < meshes_.size(); ++m) {
    GpuMesh& g = meshes_[m];
    detail::skin_on_cpu(*g.mesh, model, morph_.mesh_weights(static_cast<int>(m), morph_weights), cpu_scratch_,
                        skinned_);
    write_dynamic(g.skinned.Get(),
                  [&](uint8_t* out) { std::memcpy(out, skinned_.data(), skinned_.size() * 4); });
    set_constants(kModeStatic, world, &g, 0, false);
    ID3D11ShaderResourceView* views[] = {palette_view_.Get(), g.bind_table.Get(), baked_view_.Get(),
                                         clip_view_.Get()};
    draw_mesh(ctx, g.vertices.Get(), g.skinned.Get(), dummy_instance_.Get(), g.indices.Get(), g.index_count,
              0, 0, views, g.diffuse, g.normal_map);
  }
}

// The morph delta texture, once (morph_plan.h), and the per-draw constants; meshes that do not fit the
// texture are morphed on the CPU.
Result<bool> D3D11Renderer::upload_morph_deltas() {
  morph_.init(*asset_, D3D11_REQ_TEXTURE2D_U_OR_V_DIMENSION);
  auto constants = buffer(D3D11_BIND_CONSTANT_BUFFER, nullptr, sizeof(MorphConstants), true);
  if (!constants) return Result<bool>::failure("cannot create the morph constants: " + constants.error());
  morph_constants_ = *constants;
  auto baked_constants = buffer(D3D11_BIND_CONSTANT_BUFFER, nullptr, sizeof(BakedMorphConstants), true);
  if (!baked_constants)
    return Result<bool>::failure("cannot create the morph constants: " + baked_constants.error());
  baked_morph_constants_ = *baked_constants;
  const detail::MorphDeltaTable& table = morph_.table();
  if (table.rows > 0) {
    D3D11_TEXTURE2D_DESC desc{};
    desc.Width = detail::kMorphTextureWidth;
    desc.Height = static_cast<UINT>(table.rows);
    desc.MipLevels = 1;
    desc.ArraySize = 1;
    desc.Format = DXGI_FORMAT_R32G32B32A32_FLOAT;
    desc.SampleDesc.Count = 1;
    desc.Usage = D3D11_USAGE_IMMUTABLE;
    desc.BindFlags = D3D11_BIND_SHADER_RESOURCE;
    const D3D11_SUBRESOURCE_DATA init{table.texels.data(), detail::kMorphTextureWidth * 16, 0};
    ComPtr<ID3D11Texture2D> texture;
    HRESULT hr = dev->CreateTexture2D(&desc, &init, &texture);
    if (SUCCEEDED(hr)) hr = dev->CreateShaderResourceView(texture.Get(), nullptr, &morph_view_);
    if (FAILED(hr))
      return Result<bool>::failure("cannot create the morph delta texture (4096 x " +
                                   std::to_string(table.rows) + " texels): HRESULT " + hresult_text(hr));
  }
  morph_.release_texels();
  return true;
}

BakedDrawStats D3D11Renderer::draw_baked(std::span<const BakedInstance> instances, float global_time,
                                         const BakedDrawOptions& options) {
  if (!has_baked_ || instances.empty()) return {};
  // Per-vertex evaluation only (no level of detail: it needs per-instance palettes; no decimated meshes).
  detail::plan_baked_draw(instances, global_time, options, false, false, frame_, baked_clips_, plan_);
  if (plan_.visible == 0) return plan_.stats;
  const UINT bytes = static_cast<UINT>(plan_.instance_data.size() * 4);
  if (bytes > instance_capacity_) {
    auto grown = buffer(D3D11_BIND_VERTEX_BUFFER, nullptr, bytes * 2, true);
    if (!grown) return {};
    instance_buffer_ = *grown;
    instance_capacity_ = bytes * 2;
  }
  write_dynamic(instance_buffer_.Get(),
                [&](uint8_t* out) { std::memcpy(out, plan_.instance_data.data(), bytes); });
  bind_character(static_layout_.Get());
  ID3D11Buffer* morph_constants[] = {baked_morph_constants_.Get()};
  ctx->VSSetConstantBuffers(kBakedMorphConstantsSlot, 1, morph_constants);
  ID3D11ShaderResourceView* morph_deltas[] = {morph_view_.Get()};
  ctx->VSSetShaderResources(kMorphDeltasSlot, 1, morph_deltas);
  for (size_t m = 0; m < meshes_.size(); ++m) {
    GpuMesh& g = meshes_[m];
    write_dynamic(baked_morph_constants_.Get(), [&](uint8_t* out) {
      BakedMorphConstants c{};
      std::memcpy(c.slots, baked_morphs_[m].slots.data(), sizeof c.slots);
      c.count = baked_morphs_[m].count;
      c.texels_per_vertex = baked_morphs_[m].texels_per_vertex;
      std::memcpy(out, &c, sizeof c);
    });
    set_constants(kModeBaked, Mat4{}, &g, global_time, g.bake_corrected);
    ID3D11ShaderResourceView* views[] = {palette_view_.Get(), g.bind_table.Get(), baked_view_.Get(),
                                         clip_view_.Get()};
    draw_mesh(ctx, g.vertices.Get(), g.skinned.Get(), instance_buffer_.Get(), g.indices.Get(), g.index_count,
              static_cast<UINT>(plan_.visible), 0, views, g.diffuse, g.normal_map);
    plan_.stats.triangles += static_cast<long long>(plan_.visible) * (g.index_count / 3);
  }
  return plan_.stats;
}

void D3D11Renderer::draw_skeleton(const Mat4& world, std::span<const Mat4> model) {
  draw_lines(detail::skeleton_lines(asset_->skeleton.parents(), world, model), false);
}

void D3D11Renderer::finish() {
  ctx->End(done_query_.Get());
  ctx->Flush();
  while (ctx->GetData(done_query_.Get(), nullptr, 0, 0) == S_FALSE) Sleep(0);
}

Image D3D11Renderer::end_frame() {
  Image image;
  image.width = width_;
  image.height = height_;
  image.rgba.assign(static_cast<size_t>(width_) * height_ * 4, 0);
  if (!color_ || !staging_) return image;
  ctx->CopyResource(staging_.Get(), color_.Get());
  D3D11_MAPPED_SUBRESOURCE mapped{};
  if (FAILED(ctx->Map(staging_.Get(), 0, D3D11_MAP_READ, 0, &mapped))) return image;
  const size_t row = static_cast<size_t>(width_) * 4;
  for (int y = 0; y < height_; ++y)  // top row first, as Direct3D stores it
    std::memcpy(&image.rgba[y * row], static_cast<const uint8_t*>(mapped.pData) + y * mapped.RowPitch, row);
  ctx->Unmap(staging_.Get(), 0);
  return image;
}
Result<bool> D3D11Renderer::copy_frame_to(ID3D11Texture2D* texture, int x, int y) {
  if (!texture || !color_) return Result<bool>::failure("copy_frame_to: no texture or no frame");
  D3D11_TEXTURE2D_DESC desc{};
  texture->GetDesc(&desc);
  if (x < 0 || y < 0 || static_cast<int64_t>(x) + width_ > desc.Width ||
      static_cast<int64_t>(y) + height_ > desc.Height || desc.Format != DXGI_FORMAT_R8G8B8A8_UNORM ||
      desc.SampleDesc.Count != 1)
    return Result<bool>::failure("copy_frame_to: the texture is " + std::to_string(desc.Width) + " x " +
                                 std::to_string(desc.Height) + ": the frame's " + std::to_string(width_) +
                                 " x " + std::to_string(height_) + " at (" + std::to_string(x) + ", " +
                                 std::to_string(y) + ") does not fit, or it is not RGBA8 (single-sampled)");
  ctx->CopySubresourceRegion(texture, 0, static_cast<UINT>(x), static_cast<UINT>(y), 0, color_.Get(), 0,
                             nullptr);
  return true;
}
}  // namespace

Result<bool> copy_frame_to(CharacterRenderer& renderer, void* texture, int x, int y) {
  auto* d3d11 = dynamic_cast<D3D11Renderer*>(&renderer);
  if (!d3d11)
    return Result<bool>::failure(std::string("copy_frame_to: a ") + renderer.backend() + " renderer");
  return d3d11->copy_frame_to(static_cast<ID3D11Texture2D*>(texture), x, y);
}

Result<std::unique_ptr<CharacterRenderer>> create_d3d11_renderer(std::shared_ptr<D3D11Device> device,
                                                                 const CharacterAsset& asset,
                                                                 std::span<const Material> materials,
                                                                 std::span<const Texture> textures,
                                                                 bool flip_textures) {
  using R = Result<std::unique_ptr<CharacterRenderer>>;
  if (!device) return R::failure("create_d3d11_renderer: no D3D11Device");
  auto renderer = std::make_unique<D3D11Renderer>(std::move(device));
  if (auto ok = renderer->init(asset, materials, textures, flip_textures); !ok) return R::failure(ok.error());
  return std::unique_ptr<CharacterRenderer>(std::move(renderer));
}

}  // namespace ossa
