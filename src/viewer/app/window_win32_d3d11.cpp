// The viewer's window on Windows (window.h): a Win32 window with a DXGI swap chain on the Direct3D 11
// renderer's device, Dear ImGui's Win32 and Direct3D 11 backends for the panels, and the renderer's frame
// copied into the back buffer on the GPU (copy_frame_to). Keys reach Dear ImGui only through the viewer's
// queue (key_input.h), as on Linux: this window translates Windows' virtual keys to the viewer's key codes
// and back.
#include <d3d11.h>
#include <dxgi.h>
#include <imgui.h>
#include <shellapi.h>
#include <windows.h>
#include <wrl/client.h>

#include "backends/imgui_impl_dx11.h"
#include "backends/imgui_impl_win32.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>

#include "ossa/core/file_io.h"
#include "ossa/render/d3d11_renderer.h"
#include "viewer/app/window.h"

// The backend's message handler (its header leaves the declaration to the application).
extern IMGUI_IMPL_API LRESULT ImGui_ImplWin32_WndProcHandler(HWND hwnd, UINT msg, WPARAM wparam,
                                                             LPARAM lparam);

namespace ossa::viewer {
namespace {

using Microsoft::WRL::ComPtr;

struct KeyPair {
  int key;    // key_input.h
  WPARAM vk;  // VK_*
};
constexpr KeyPair kKeys[] = {
    {key::kSpace, VK_SPACE},
    {key::kEscape, VK_ESCAPE},
    {key::kEnter, VK_RETURN},
    {key::kTab, VK_TAB},
    {key::kBackspace, VK_BACK},
    {key::kInsert, VK_INSERT},
    {key::kDelete, VK_DELETE},
    {key::kRight, VK_RIGHT},
    {key::kLeft, VK_LEFT},
    {key::kDown, VK_DOWN},
    {key::kUp, VK_UP},
    {key::kPageUp, VK_PRIOR},
    {key::kPageDown, VK_NEXT},
    {key::kHome, VK_HOME},
    {key::kEnd, VK_END},
    {key::kLeftShift, VK_LSHIFT},
    {key::kRightShift, VK_RSHIFT},
    {key::kLeftControl, VK_LCONTROL},
    {key::kRightControl, VK_RCONTROL},
    {key::kLeftAlt, VK_LMENU},
    {key::kRightAlt, VK_RMENU},
};

// A key message's key, or -1. Windows reports Shift, Ctrl and Alt without their side: the scan code (Shift)
// or the extended-key flag (Ctrl, Alt) tells it.
int key_of(WPARAM vk, LPARAM lparam) {
  if ((vk >= 'A' && vk <= 'Z') || (vk >= '0' && vk <= '9')) return static_cast<int>(vk);
  if (vk >= VK_F1 && vk <= VK_F12) return key::kF1 + static_cast<int>(vk - VK_F1);
  const bool extended = (lparam >> 24) & 1;
  if (vk == VK_SHIFT) return ((lparam >> 16) & 0xff) == 0x36 ? key::kRightShift : key::kLeftShift;
  if (vk == VK_CONTROL) return extended ? key::kRightControl : key::kLeftControl;
  if (vk == VK_MENU) return extended ? key::kRightAlt : key::kLeftAlt;
  for (const KeyPair& pair : kKeys)
    if (pair.vk == vk) return pair.key;
  return -1;
}

WPARAM virtual_key_of(int key) {
  if ((key >= 'A' && key <= 'Z') || (key >= '0' && key <= '9')) return static_cast<WPARAM>(key);
  if (key >= key::kF1 && key <= key::kF12) return VK_F1 + static_cast<WPARAM>(key - key::kF1);
  for (const KeyPair& pair : kKeys)
    if (pair.key == key) return pair.vk;
  return 0;
}

class Win32D3D11Window final : public Window {
 public:
  explicit Win32D3D11Window(WindowEvents events) : events_(std::move(events)) {}
  ~Win32D3D11Window() override {
    if (imgui_ready_) {
      ImGui_ImplDX11_Shutdown();
      ImGui_ImplWin32_Shutdown();
      imgui_ready_ = false;  // the messages DestroyWindow sends no longer reach the backend
    }
    target_.Reset();
    swap_chain_.Reset();
    if (hwnd_) DestroyWindow(hwnd_);
  }

  bool open(int width, int height, bool vsync, std::string& error) {
    vsync_ = vsync;
    auto device = D3D11Device::create();
    if (!device) {
      error = device.error();
      return false;
    }
    device_ = std::move(device).value();
    auto* d3d = static_cast<ID3D11Device*>(device_->device());
    context_ = static_cast<ID3D11DeviceContext*>(device_->context());

    const HINSTANCE instance = GetModuleHandleW(nullptr);
    WNDCLASSEXW window_class{};
    window_class.cbSize = sizeof window_class;
    window_class.lpfnWndProc = &Win32D3D11Window::window_proc;
    window_class.hInstance = instance;
    window_class.hCursor = LoadCursor(nullptr, IDC_ARROW);
    window_class.lpszClassName = L"OssaViewer";
    RegisterClassExW(&window_class);  // fails harmlessly when a second window registers it again
    RECT rect{0, 0, width, height};   // the client area is the size asked for
    AdjustWindowRect(&rect, WS_OVERLAPPEDWINDOW, FALSE);
    hwnd_ = CreateWindowExW(0, window_class.lpszClassName, L"Ossa viewer", WS_OVERLAPPEDWINDOW, CW_USEDEFAULT,
                            CW_USEDEFAULT, rect.right - rect.left, rect.bottom - rect.top, nullptr, nullptr,
                            instance, this);
    if (!hwnd_) {
      error = "cannot create a window (error " + std::to_string(GetLastError()) + ")";
      return false;
    }
    DragAcceptFiles(hwnd_, TRUE);

    auto chain = device_->create_swap_chain(hwnd_);
    if (!chain) {
      error = chain.error();
      return false;
    }
    swap_chain_.Attach(static_cast<IDXGISwapChain*>(*chain));
    if (!make_target()) {
      error = "cannot make the window's back buffer a render target";
      return false;
    }
    ShowWindow(hwnd_, SW_SHOW);
    ImGui_ImplWin32_Init(hwnd_);
    ImGui_ImplDX11_Init(d3d, context_);
    imgui_ready_ = true;
    return true;
  }

  float content_scale() const override { return 1; }  // not DPI-aware: Windows scales the window
  void size(int& width, int& height) const override {
    RECT client{};
    GetClientRect(hwnd_, &client);
    width = client.right - client.left;
    height = client.bottom - client.top;
  }
  void framebuffer_size(int& width, int& height) const override { size(width, height); }
  // UTF-8 to UTF-16 through the one conversion the project has (file_io.h: a path's native form).
  void set_title(const std::string& title) override { SetWindowTextW(hwnd_, path_from_utf8(title).c_str()); }
  bool closing() const override { return closing_; }
  void poll() override {
    MSG message;
    while (PeekMessageW(&message, nullptr, 0, 0, PM_REMOVE)) {
      TranslateMessage(&message);
      DispatchMessageW(&message);
    }
  }

  void new_imgui_frame() override {
    ImGui_ImplDX11_NewFrame();
    ImGui_ImplWin32_NewFrame();
  }
  // The Win32 backend reads io.KeysDown by virtual key (its io.KeyMap); the modifiers follow their keys.
  void key_to_imgui(int key, KeyAction action) override {
    const WPARAM vk = virtual_key_of(key);
    if (vk == 0) return;
    ImGuiIO& io = ImGui::GetIO();
    const bool down = action != KeyAction::kRelease;
    io.KeysDown[vk] = down;
    io.KeysDown[VK_SHIFT] = io.KeysDown[VK_LSHIFT] || io.KeysDown[VK_RSHIFT];
    io.KeysDown[VK_CONTROL] = io.KeysDown[VK_LCONTROL] || io.KeysDown[VK_RCONTROL];
    io.KeysDown[VK_MENU] = io.KeysDown[VK_LMENU] || io.KeysDown[VK_RMENU];
    io.KeyShift = io.KeysDown[VK_SHIFT];
    io.KeyCtrl = io.KeysDown[VK_CONTROL];
    io.KeyAlt = io.KeysDown[VK_MENU];
  }
  void character_to_imgui(uint32_t codepoint) override { ImGui::GetIO().AddInputCharacter(codepoint); }
  void render_imgui() override {
    ID3D11RenderTargetView* target = target_.Get();
    context_->OMSetRenderTargets(1, &target, nullptr);
    ImGui_ImplDX11_RenderDrawData(ImGui::GetDrawData());
  }

  void clear() override {
    const float color[4] = {0.1f, 0.1f, 0.12f, 1};
    context_->ClearRenderTargetView(target_.Get(), color);
  }
  Result<std::unique_ptr<CharacterRenderer>> create_renderer(const LoadedCharacter& c) override {
    return create_d3d11_renderer(device_, c.asset, c.materials, c.textures, c.flip_textures);
  }
  void present(CharacterRenderer& renderer, int x, int y, int) override {
    ComPtr<ID3D11Texture2D> back_buffer;
    swap_chain_->GetBuffer(0, __uuidof(ID3D11Texture2D), &back_buffer);
    // Cannot fail: the renderer is a Direct3D 11 one made by create_renderer(), its frame inside the window.
    (void)copy_frame_to(renderer, back_buffer.Get(), x, y);
  }

  Image read_back() override {
    Image image;
    ComPtr<ID3D11Texture2D> back_buffer;
    swap_chain_->GetBuffer(0, __uuidof(ID3D11Texture2D), &back_buffer);
    D3D11_TEXTURE2D_DESC desc{};
    back_buffer->GetDesc(&desc);
    desc.Usage = D3D11_USAGE_STAGING;
    desc.BindFlags = 0;
    desc.CPUAccessFlags = D3D11_CPU_ACCESS_READ;
    desc.MiscFlags = 0;
    ComPtr<ID3D11Texture2D> staging;
    if (FAILED(static_cast<ID3D11Device*>(device_->device())->CreateTexture2D(&desc, nullptr, &staging)))
      return image;
    context_->CopyResource(staging.Get(), back_buffer.Get());
    D3D11_MAPPED_SUBRESOURCE mapped{};
    if (FAILED(context_->Map(staging.Get(), 0, D3D11_MAP_READ, 0, &mapped))) return image;
    image.width = static_cast<int>(desc.Width);
    image.height = static_cast<int>(desc.Height);
    image.rgba.resize(static_cast<size_t>(desc.Width) * desc.Height * 4);
    const size_t row = static_cast<size_t>(desc.Width) * 4;
    for (UINT y = 0; y < desc.Height; ++y)
      std::memcpy(&image.rgba[y * row], static_cast<const uint8_t*>(mapped.pData) + y * mapped.RowPitch, row);
    context_->Unmap(staging.Get(), 0);
    for (size_t i = 3; i < image.rgba.size(); i += 4) image.rgba[i] = 255;  // the window is opaque
    return image;
  }
  void swap() override { swap_chain_->Present(vsync_ ? 1 : 0, 0); }

 private:
  bool make_target() {
    ComPtr<ID3D11Texture2D> back_buffer;
    if (FAILED(swap_chain_->GetBuffer(0, __uuidof(ID3D11Texture2D), &back_buffer))) return false;
    return SUCCEEDED(static_cast<ID3D11Device*>(device_->device())
                         ->CreateRenderTargetView(back_buffer.Get(), nullptr, &target_));
  }
  void resized(UINT width, UINT height) {
    if (!swap_chain_ || width == 0 || height == 0) return;
    context_->OMSetRenderTargets(0, nullptr, nullptr);
    target_.Reset();
    swap_chain_->ResizeBuffers(0, width, height, DXGI_FORMAT_UNKNOWN, 0);
    make_target();
  }

  LRESULT handle(UINT message, WPARAM wparam, LPARAM lparam) {
    switch (message) {
      case WM_CLOSE:
        if (events_.close_requested()) closing_ = true;
        return 0;
      case WM_DROPFILES: {
        const auto drop = reinterpret_cast<HDROP>(wparam);
        const UINT length = DragQueryFileW(drop, 0, nullptr, 0);
        std::wstring path(length, L'\0');
        if (length > 0 && DragQueryFileW(drop, 0, path.data(), length + 1) > 0)
          events_.dropped(utf8_from_path(std::filesystem::path(path)));
        DragFinish(drop);
        return 0;
      }
      case WM_KEYDOWN:
      case WM_SYSKEYDOWN:
      case WM_KEYUP:
      case WM_SYSKEYUP: {
        const int key = key_of(wparam, lparam);
        const bool up = message == WM_KEYUP || message == WM_SYSKEYUP;
        if (key >= 0)
          events_.key(key, up                   ? KeyAction::kRelease
                           : (lparam >> 30) & 1 ? KeyAction::kRepeat
                                                : KeyAction::kPress);
        if (message == WM_SYSKEYDOWN || message == WM_SYSKEYUP)  // Alt+F4 and the system menu
          return DefWindowProcW(hwnd_, message, wparam, lparam);
        return 0;
      }
      case WM_CHAR: {
        const auto unit = static_cast<uint32_t>(wparam);
        if (unit >= 0xD800 && unit < 0xDC00) {  // UTF-16: the first half of a pair
          high_surrogate_ = unit;
          return 0;
        }
        uint32_t codepoint = unit;
        if (unit >= 0xDC00 && unit < 0xE000) {
          if (!high_surrogate_) return 0;
          codepoint = 0x10000 + ((high_surrogate_ - 0xD800) << 10) + (unit - 0xDC00);
        }
        high_surrogate_ = 0;
        if (codepoint >= 32 && codepoint != 127) events_.character(codepoint);
        return 0;
      }
      case WM_SIZE:
        if (wparam != SIZE_MINIMIZED) resized(LOWORD(lparam), HIWORD(lparam));
        return 0;
      default:
        break;
    }
    if (imgui_ready_ && ImGui_ImplWin32_WndProcHandler(hwnd_, message, wparam, lparam)) return 1;
    return DefWindowProcW(hwnd_, message, wparam, lparam);
  }

  static LRESULT CALLBACK window_proc(HWND hwnd, UINT message, WPARAM wparam, LPARAM lparam) {
    if (message == WM_NCCREATE) {
      auto* self = static_cast<Win32D3D11Window*>(reinterpret_cast<CREATESTRUCTW*>(lparam)->lpCreateParams);
      SetWindowLongPtrW(hwnd, GWLP_USERDATA, reinterpret_cast<LONG_PTR>(self));
      self->hwnd_ = hwnd;
    }
    auto* self = reinterpret_cast<Win32D3D11Window*>(GetWindowLongPtrW(hwnd, GWLP_USERDATA));
    return self ? self->handle(message, wparam, lparam) : DefWindowProcW(hwnd, message, wparam, lparam);
  }

  WindowEvents events_;
  HWND hwnd_ = nullptr;
  std::shared_ptr<D3D11Device> device_;
  ID3D11DeviceContext* context_ = nullptr;  // owned by device_
  ComPtr<IDXGISwapChain> swap_chain_;
  ComPtr<ID3D11RenderTargetView> target_;
  bool vsync_ = true;
  bool imgui_ready_ = false;
  bool closing_ = false;
  uint32_t high_surrogate_ = 0;
};

}  // namespace

std::unique_ptr<Window> Window::open(int width, int height, bool vsync, WindowEvents events,
                                     std::string& error) {
  auto window = std::make_unique<Win32D3D11Window>(std::move(events));
  if (!window->open(width, height, vsync, error)) return nullptr;
  return window;
}

}  // namespace ossa::viewer
