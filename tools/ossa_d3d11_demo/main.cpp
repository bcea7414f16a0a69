// ossa-d3d11-demo FILE.ossa: a character in a Win32 window through Ossa's Direct3D 11 renderer and a swap
// chain. It cycles the file's clips with crossfades; keys change what is drawn; frame times are printed.
//
//   Space pause   N next clip (0.3 s crossfade)   + / - speed   L lighting mode   S skinning path
//   (GPU palette, CPU, baked instancing)   C crowd size (1, 100, 1,000)   Esc quit
//
// For tests and scripts: --frames N stops after N frames, --screenshot OUT.png writes the last one, --size
// WxH,
// --crowd N and --skinning gpu|cpu|baked set the start.
#include <d3d11.h>
#include <dxgi.h>
#include <windows.h>
#include <wrl/client.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "../ossa/size_option.h"
#include "ossa/render/d3d11_renderer.h"
#include "ossa/runtime/animator.h"
#include "ossa/serialize/load.h"

namespace {
using Microsoft::WRL::ComPtr;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string file, screenshot;
  int frames = 0;  // 0: until the window closes
  int width = 960, height = 600, crowd = 1;
  ossa::SkinningPath path = ossa::SkinningPath::kGpuPalette;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* what) -> const char* {
      if (i + 1 >= argc) std::fprintf(stderr, "ossa-d3d11-demo: %s needs a value\n", what);
      return i + 1 < argc ? argv[++i] : nullptr;
    };
    if (a == "--frames") {
      const char* v = value("--frames");
      if (!v || (o.frames = std::atoi(v)) <= 0) return false;
    } else if (a == "--screenshot") {
      const char* v = value("--screenshot");
      if (!v) return false;
      o.screenshot = v;
    } else if (a == "--size") {
      const char* v = value("--size");
      ossa::cli::SizeOption size;
      if (!v || !ossa::cli::parse_size_option(v, 16, 4096, size)) return false;
      o.width = size.width;
      o.height = size.height;
    } else if (a == "--crowd") {
      const char* v = value("--crowd");
      if (!v || (o.crowd = std::atoi(v)) < 1 || o.crowd > 10000) return false;
    } else if (a == "--skinning") {
      const char* v = value("--skinning");
      if (!v) return false;
      const std::string s = v;
      if (s == "gpu")
        o.path = ossa::SkinningPath::kGpuPalette;
      else if (s == "cpu")
        o.path = ossa::SkinningPath::kCpu;
      else if (s == "baked")
        o.path = ossa::SkinningPath::kBaked;
      else
        return false;
    } else if (o.file.empty() && a[0] != '-') {
      o.file = a;
    } else {
      return false;
    }
  }
  return !o.file.empty();
}

const char* path_name(ossa::SkinningPath p) {
  return p == ossa::SkinningPath::kGpuPalette ? "GPU palette"
         : p == ossa::SkinningPath::kCpu      ? "CPU"
                                              : "baked";
}

// Keys pressed since the last frame (the window procedure queues them).
std::vector<WPARAM> g_keys;
bool g_closed = false;

LRESULT CALLBACK window_proc(HWND window, UINT message, WPARAM w, LPARAM l) {
  switch (message) {
    case WM_CHAR:
      g_keys.push_back(w);
      return 0;
    case WM_KEYDOWN:
      if (w == VK_ESCAPE) g_closed = true;
      return 0;
    case WM_CLOSE:
    case WM_DESTROY:
      g_closed = true;
      return 0;
    default:
      return DefWindowProcW(window, message, w, l);
  }
}

// The box around the bind pose's vertices.
void bind_bounds(const ossa::CharacterAsset& asset, ossa::Vec3& lo, ossa::Vec3& hi) {
  lo = {1e30f, 1e30f, 1e30f}, hi = {-1e30f, -1e30f, -1e30f};
  for (const ossa::SkinnedMesh& m : asset.meshes)
    for (size_t i = 0; i + 2 < m.positions().size(); i += 3) {
      lo = {std::min(lo.x, m.positions()[i]), std::min(lo.y, m.positions()[i + 1]),
            std::min(lo.z, m.positions()[i + 2])};
      hi = {std::max(hi.x, m.positions()[i]), std::max(hi.y, m.positions()[i + 1]),
            std::max(hi.z, m.positions()[i + 2])};
    }
  if (lo.x > hi.x) lo = hi = {};
}
}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) {
    std::fprintf(
        stderr,
        "usage: ossa-d3d11-demo FILE.ossa [--frames N] [--screenshot OUT.png] [--size WxH] [--crowd N] "
        "[--skinning gpu|cpu|baked]\n");
    return 2;
  }
  auto loaded = ossa::load_ossa_character(o.file);
  if (!loaded) return std::fprintf(stderr, "ossa-d3d11-demo: %s\n", loaded.error().c_str()), 1;
  const ossa::LoadedCharacter& character = **loaded;
  const ossa::CharacterAsset& asset = character.asset;
  if (asset.clips.empty())
    return std::fprintf(stderr, "ossa-d3d11-demo: %s has no clips\n", o.file.c_str()), 1;

  auto device = ossa::D3D11Device::create();
  if (!device) return std::fprintf(stderr, "ossa-d3d11-demo: %s\n", device.error().c_str()), 1;
  auto made = ossa::create_d3d11_renderer(*device, asset, character.materials, character.textures,
                                          character.flip_textures);
  if (!made) return std::fprintf(stderr, "ossa-d3d11-demo: %s\n", made.error().c_str()), 1;
  ossa::CharacterRenderer& renderer = **made;
  auto baked = ossa::bake_animation(asset);
  if (!baked) return std::fprintf(stderr, "ossa-d3d11-demo: %s\n", baked.error().c_str()), 1;
  if (auto set = renderer.set_baked(*baked); !set)
    return std::fprintf(stderr, "ossa-d3d11-demo: %s\n", set.error().c_str()), 1;

  // The window, sized so that its client area is the frame's size.
  const HINSTANCE instance = GetModuleHandleW(nullptr);
  WNDCLASSEXW window_class{};
  window_class.cbSize = sizeof window_class;
  window_class.lpfnWndProc = window_proc;
  window_class.hInstance = instance;
  window_class.hCursor = LoadCursor(nullptr, IDC_ARROW);
  window_class.lpszClassName = L"OssaD3D11Demo";
  RegisterClassExW(&window_class);
  RECT rect{0, 0, o.width, o.height};
  AdjustWindowRect(&rect, WS_OVERLAPPEDWINDOW, FALSE);
  HWND window = CreateWindowExW(0, window_class.lpszClassName, L"Ossa - Direct3D 11", WS_OVERLAPPEDWINDOW,
                                CW_USEDEFAULT, CW_USEDEFAULT, rect.right - rect.left, rect.bottom - rect.top,
                                nullptr, nullptr, instance, nullptr);
  if (!window) return std::fprintf(stderr, "ossa-d3d11-demo: cannot create a window\n"), 1;
  ShowWindow(window, SW_SHOW);

  auto made_chain = device->create_swap_chain(window);
  if (!made_chain) return std::fprintf(stderr, "ossa-d3d11-demo: %s\n", made_chain.error().c_str()), 1;
  ComPtr<IDXGISwapChain> swap_chain;
  swap_chain.Attach(static_cast<IDXGISwapChain*>(*made_chain));

  ossa::Animator animator = character.animator();
  int clip = 0;
  static_cast<void>(animator.play(clip));  // no clip: the rest pose
  float speed = 1;
  bool paused = false;
  int lighting = static_cast<int>(ossa::LightingMode::kBlinnPhong);
  ossa::SkinningPath path = o.path;
  int crowd_size = o.crowd;
  ossa::Vec3 lo, hi;
  bind_bounds(asset, lo, hi);
  const float spacing = std::max(hi.x - lo.x, hi.z - lo.z) * 1.6f + 1e-3f;
  std::vector<ossa::BakedInstance> crowd;
  ossa::FrameSettings frame;
  frame.width = o.width;
  frame.height = o.height;
  auto arrange = [&] {  // the crowd and a camera that sees it
    crowd = ossa::crowd_grid(asset, crowd_size, spacing);
    const int side = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(crowd_size))));
    const float half = static_cast<float>(side - 1) / 2.f * spacing;
    const ossa::Vec3 margin = (hi - lo) * 0.3f;
    frame.camera = ossa::frame_bounds(
        lo - margin + ossa::Vec3{-half, 0, -static_cast<float>(side - 1) * spacing},
        hi + margin + ossa::Vec3{half, 0, 0}, static_cast<float>(o.width) / static_cast<float>(o.height));
  };
  arrange();
  std::printf("ossa-d3d11-demo: %s, %zu clips, %s\n", o.file.c_str(), asset.clips.size(),
              renderer.device_name().c_str());

  const float dt = 1.f / 60.f;
  float clock = 0, since_switch = 0;
  double frame_ms = 0, update_ms = 0, draw_ms = 0;
  int measured = 0;
  ossa::Image last;
  for (int f = 0; !g_closed && (o.frames == 0 || f < o.frames); ++f) {
    MSG message;
    while (PeekMessageW(&message, nullptr, 0, 0, PM_REMOVE)) {
      TranslateMessage(&message);
      DispatchMessageW(&message);
    }
    for (WPARAM key : g_keys) {
      switch (key) {
        case ' ':
          paused = !paused;
          break;
        case 'n':
        case 'N':
          since_switch = 1e9f;
          break;
        case '+':
        case '=':
          speed = std::min(speed * 1.25f, 8.f);
          break;
        case '-':
          speed = std::max(speed / 1.25f, 0.125f);
          break;
        case 'l':
        case 'L':
          lighting = (lighting + 1) % 5;
          break;
        case 's':
        case 'S':
          path = path == ossa::SkinningPath::kGpuPalette ? ossa::SkinningPath::kCpu
                 : path == ossa::SkinningPath::kCpu      ? ossa::SkinningPath::kBaked
                                                         : ossa::SkinningPath::kGpuPalette;
          break;
        case 'c':
        case 'C':
          crowd_size = crowd_size == 1 ? 100 : crowd_size == 100 ? 1000 : 1;
          arrange();
          break;
        default:
          break;
      }
      std::printf("  clip %s, speed %.2f%s, %s lighting, %s skinning, %d characters\n",
                  asset.clips[clip].name().c_str(), speed, paused ? " (paused)" : "",
                  ossa::to_string(static_cast<ossa::LightingMode>(lighting)), path_name(path), crowd_size);
    }
    g_keys.clear();

    const auto start = Clock::now();
    const float step = paused ? 0.f : dt * speed;
    clock += step;
    since_switch += step;
    if (since_switch > 3.f && asset.clips.size() > 1) {  // the next clip every 3 s, crossfading
      clip = (clip + 1) % static_cast<int>(asset.clips.size());
      static_cast<void>(animator.crossfade(clip, 0.3f));  // clip is one of the asset's
      since_switch = 0;
    }
    animator.update(step);
    const auto updated = Clock::now();
    frame.lighting = static_cast<ossa::LightingMode>(lighting);
    renderer.begin_frame(frame);
    if (path == ossa::SkinningPath::kBaked) {
      renderer.draw_baked(crowd, clock);
    } else {
      for (const ossa::BakedInstance& b : crowd)
        path == ossa::SkinningPath::kCpu
            ? renderer.draw_cpu(b.world, animator.model(), animator.morph_weights())
            : renderer.draw_palette(b.world, animator.model(), animator.morph_weights());
    }
    ComPtr<ID3D11Texture2D> back_buffer;
    swap_chain->GetBuffer(0, __uuidof(ID3D11Texture2D), &back_buffer);
    if (auto copied = ossa::copy_frame_to(renderer, back_buffer.Get()); !copied)
      return std::fprintf(stderr, "ossa-d3d11-demo: %s\n", copied.error().c_str()), 1;
    swap_chain->Present(0, 0);
    renderer.finish();
    const auto drawn = Clock::now();
    if (f > 0) {  // the first frame includes one-time work
      update_ms += std::chrono::duration<double, std::milli>(updated - start).count();
      draw_ms += std::chrono::duration<double, std::milli>(drawn - updated).count();
      frame_ms += std::chrono::duration<double, std::milli>(drawn - start).count();
      ++measured;
    }
    if (measured > 0 && (measured % 60 == 0 || (o.frames > 0 && f + 1 == o.frames))) {
      std::printf("frames %d: %.2f ms per frame (update %.3f ms, draw %.2f ms), %s skinning, %d characters\n",
                  measured, frame_ms / measured, update_ms / measured, draw_ms / measured, path_name(path),
                  crowd_size);
      std::fflush(stdout);
    }
    if (!o.screenshot.empty() && o.frames > 0 && f + 1 == o.frames) last = renderer.end_frame();
  }
  if (!o.screenshot.empty()) {
    if (last.rgba.empty()) last = renderer.end_frame();
    if (auto written = ossa::write_png(last, o.screenshot); !written)
      return std::fprintf(stderr, "ossa-d3d11-demo: %s\n", written.error().c_str()), 1;
    std::printf("wrote %s\n", o.screenshot.c_str());
  }
  DestroyWindow(window);
  return 0;
}
