// OpenGL 4.5 core renderer of skinned characters; headless context through EGL (libepoxy).
#include "ossa/render/gl_renderer.h"

#include "ossa/import/imported_scene.h"  // plain data: the ImportedScene overload of create() reads its fields

#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <mutex>

#include "ossa/runtime/palette_job.h"
#include "ossa/runtime/skinning_job.h"
#include "shaders.h"

namespace ossa {

const char* to_string(LightingMode mode) {
  switch (mode) {
    case LightingMode::kPhong:
      return "phong";
    case LightingMode::kBlinnPhong:
      return "blinn-phong";
    case LightingMode::kLambert:
      return "lambert";
    case LightingMode::kUnlit:
      return "unlit";
    case LightingMode::kTextureOnly:
      return "texture-only";
  }
  return "?";
}

bool parse_lighting_mode(const std::string& text, LightingMode& out) {
  for (LightingMode m : {LightingMode::kPhong, LightingMode::kBlinnPhong, LightingMode::kLambert,
                         LightingMode::kUnlit, LightingMode::kTextureOnly})
    if (text == to_string(m)) {
      out = m;
      return true;
    }
  if (text == "blinn") return out = LightingMode::kBlinnPhong, true;
  if (text == "texture") return out = LightingMode::kTextureOnly, true;
  return false;
}

Camera frame_bounds(Vec3 lo, Vec3 hi, float aspect) {
  Camera c;
  Vec3 center = (lo + hi) * 0.5f;
  float radius = std::max(length(hi - lo) * 0.5f, 1e-3f);
  float fov = c.fov_y_degrees * 3.14159265f / 180.f;
  float fit = std::min(fov, 2 * std::atan(std::tan(fov / 2) * std::min(aspect, 1.f)));
  float distance = radius / std::sin(fit / 2) * 1.05f;
  Vec3 direction = normalize(Vec3{0.45f, 0.3f, 1.0f});  // front-right, slightly above (the model faces +z)
  c.target = center;
  c.eye = center + direction * distance;
  c.near_plane = std::max(distance - radius * 2, distance * 0.01f);
  c.far_plane = distance + radius * 4;
  return c;
}

namespace {
Mat4 look_at(Vec3 eye, Vec3 target, Vec3 up) {
  Vec3 f = normalize(target - eye), s = normalize(cross(f, up)), u = cross(s, f);
  Mat4 m;
  m.at(0, 0) = s.x, m.at(0, 1) = s.y, m.at(0, 2) = s.z, m.at(0, 3) = -dot(s, eye);
  m.at(1, 0) = u.x, m.at(1, 1) = u.y, m.at(1, 2) = u.z, m.at(1, 3) = -dot(u, eye);
  m.at(2, 0) = -f.x, m.at(2, 1) = -f.y, m.at(2, 2) = -f.z, m.at(2, 3) = dot(f, eye);
  return m;
}

Mat4 perspective(float fov_y, float aspect, float near_plane, float far_plane) {
  Mat4 m;
  float f = 1 / std::tan(fov_y / 2);
  m.at(0, 0) = f / aspect;
  m.at(1, 1) = f;
  m.at(2, 2) = (far_plane + near_plane) / (near_plane - far_plane);
  m.at(2, 3) = 2 * far_plane * near_plane / (near_plane - far_plane);
  m.at(3, 2) = -1;
  m.at(3, 3) = 0;
  return m;
}

std::mutex g_errors_mutex;
int g_live_contexts = 0;  // EGL displays are shared per process: terminate only when the last context goes
std::vector<std::string>* g_errors = nullptr;

void GLAPIENTRY debug_callback(GLenum, GLenum type, GLuint, GLenum severity, GLsizei, const GLchar* message,
                               const void*) {
  if (type != GL_DEBUG_TYPE_ERROR && severity != GL_DEBUG_SEVERITY_HIGH) return;
  std::lock_guard<std::mutex> lock(g_errors_mutex);
  if (g_errors) g_errors->push_back(message);
}

std::vector<std::string> g_error_storage;

// Compiles a shader from source parts (concatenated by GL); on failure `error` names the stage.
GLuint compile(GLenum type, std::initializer_list<const char*> parts, std::string& error) {
  GLuint shader = glCreateShader(type);
  std::vector<const char*> sources(parts);
  glShaderSource(shader, static_cast<GLsizei>(sources.size()), sources.data(), nullptr);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok && error.empty()) {
    char log[4096];
    glGetShaderInfoLog(shader, sizeof log, nullptr, log);
    const char* stage = type == GL_VERTEX_SHADER     ? "vertex"
                        : type == GL_FRAGMENT_SHADER ? "fragment"
                                                     : "compute";
    error = std::string(stage) + " shader compile failed: " + log;
  }
  return shader;
}

GLuint link(std::initializer_list<GLuint> shaders, std::string& error) {
  GLuint program = glCreateProgram();
  for (GLuint shader : shaders) glAttachShader(program, shader);
  glLinkProgram(program);
  for (GLuint shader : shaders) glDeleteShader(shader);
  GLint ok = 0;
  glGetProgramiv(program, GL_LINK_STATUS, &ok);
  if (!ok && error.empty()) {
    char log[4096];
    glGetProgramInfoLog(program, sizeof log, nullptr, log);
    error = std::string("program link failed: ") + log;
  }
  return program;
}

GLuint link(const char* vs, const char* fs, std::string& error) {
  return link({compile(GL_VERTEX_SHADER, {vs}, error), compile(GL_FRAGMENT_SHADER, {fs}, error)}, error);
}
}  // namespace

// ---------------------------------------------------------------------------------------------- context

Result<std::shared_ptr<GlContext>> GlContext::create_headless(int major, int minor) {
  using R = Result<std::shared_ptr<GlContext>>;
  const std::string want = "OpenGL " + std::to_string(major) + "." + std::to_string(minor) + " core";
  if (!epoxy_has_egl_extension(EGL_NO_DISPLAY, "EGL_MESA_platform_surfaceless") &&
      !epoxy_has_egl_extension(EGL_NO_DISPLAY, "EGL_EXT_platform_base"))
    return R::failure("cannot create a headless " + want +
                      " context: EGL has no surfaceless platform "
                      "(install Mesa's libegl-mesa0 and libgl1-mesa-dri)");
  // With libepoxy, eglGetPlatformDisplayEXT (not the EGL 1.5 entry point, which epoxy cannot resolve before a
  // display exists).
  EGLDisplay display = eglGetPlatformDisplayEXT(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  EGLint egl_major = 0, egl_minor = 0;
  if (display == EGL_NO_DISPLAY || !eglInitialize(display, &egl_major, &egl_minor))
    return R::failure("cannot create a headless " + want +
                      " context: no EGL surfaceless display (EGL error 0x" +
                      [] {
                        char b[16];
                        std::snprintf(b, sizeof b, "%x", eglGetError());
                        return std::string(b);
                      }() +
                      ")");
  // On failure the display is left initialised: eglTerminate would also end other live contexts.
  if (!eglBindAPI(EGL_OPENGL_API)) {
    return R::failure("cannot create a headless " + want + " context: EGL cannot bind the OpenGL API");
  }
  const EGLint attributes[] = {EGL_CONTEXT_MAJOR_VERSION,
                               major,
                               EGL_CONTEXT_MINOR_VERSION,
                               minor,
                               EGL_CONTEXT_OPENGL_PROFILE_MASK,
                               EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                               EGL_CONTEXT_OPENGL_DEBUG,
                               EGL_TRUE,
                               EGL_NONE};
  EGLContext context = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attributes);
  if (context == EGL_NO_CONTEXT) {
    return R::failure("cannot create a headless " + want + " context: the driver refused it (Ossa needs " +
                      "OpenGL 4.5; Mesa's llvmpipe provides it without a GPU)");
  }
  if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
    eglDestroyContext(display, context);
    return R::failure("cannot make the " + want + " context current (EGL_KHR_surfaceless_context missing?)");
  }
  std::shared_ptr<GlContext> gl(new GlContext());
  gl->display_ = display;
  gl->context_ = context;
  {
    std::lock_guard<std::mutex> lock(g_errors_mutex);
    g_errors = &g_error_storage;
    ++g_live_contexts;
  }
  glEnable(GL_DEBUG_OUTPUT);
  glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
  glDebugMessageCallback(debug_callback, nullptr);
  return gl;
}

GlContext::~GlContext() {
  bool last = false;
  {
    std::lock_guard<std::mutex> lock(g_errors_mutex);
    last = --g_live_contexts == 0;
    if (last) g_errors = nullptr;
  }
  eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(display_, context_);
  if (last) eglTerminate(display_);
}

std::string GlContext::renderer_name() const {
  const GLubyte* r = glGetString(GL_RENDERER);
  const GLubyte* v = glGetString(GL_VERSION);
  return std::string(r ? reinterpret_cast<const char*>(r) : "?") + ", " +
         (v ? reinterpret_cast<const char*>(v) : "?");
}

std::vector<std::string> GlContext::take_errors() {
  std::lock_guard<std::mutex> lock(g_errors_mutex);
  std::vector<std::string> out;
  out.swap(g_error_storage);
  return out;
}

// ---------------------------------------------------------------------------------------------- renderer

struct CharacterRenderer::Impl {
  struct GpuMesh {
    const SkinnedMesh* mesh = nullptr;
    GLuint vao = 0, static_vbo = 0, skinned_vbo = 0, index_buffer = 0;
    GLsizei index_count = 0;
    Vec4 base_color{0.8f, 0.8f, 0.8f, 1};
    GLuint diffuse = 0, normal_map = 0;
    bool has_tangents = false;
    GLuint bake_bind_ubo = 0;  // baked path: palette-slot -> joint map and bind corrections, made once
    bool bake_corrected = false;
  };
  const CharacterAsset* asset = nullptr;
  std::vector<GpuMesh> meshes;
  std::vector<GLuint> textures;
  GLuint program = 0, line_program = 0;
  GLuint pose_program =
      0;  // per-instance evaluation of the bake (0 where vertex shaders cannot read storage)
  GLuint palette_ubo = 0, clips_ubo = 0;
  GLuint baked_texture = 0, instance_vbo = 0, pose_ssbo = 0;
  GLsizeiptr instance_capacity = 0,
             pose_capacity = 0;            // bytes allocated in instance_vbo and pose_ssbo (palettes)
  std::vector<BakedClipInfo> baked_clips;  // frame counts, rates, per-frame bounds (culling)
  std::vector<float> instance_data;        // scratch: the visible instances, 24 floats each
  std::vector<const BakedInstance*> reduced_instances;  // scratch: instances drawn at reduced detail
  std::vector<int> palette_base;                        // scratch: each mesh's first per-instance palette row
  GLuint dummy_instance_vbo = 0;  // one zero instance: keeps binding 2 valid for non-instanced draws
  GLuint line_vao = 0, line_vbo = 0;
  GLuint fbo = 0, color_rb = 0, depth_rb = 0;
  int fbo_width = 0, fbo_height = 0;
  FrameSettings frame;
  Mat4 view_proj;
  std::vector<Mat4> palette;   // scratch, per mesh
  std::vector<float> skinned;  // scratch for the CPU path: position, normal, tangent per vertex
  bool has_baked = false;

  GLint loc(const char* name) const { return glGetUniformLocation(program, name); }
  // The box around instance `b`'s skinned vertices at `global_time` (model space), from the bake's bounds.
  void animated_box(const BakedInstance& b, float global_time, Vec3& lo, Vec3& hi) const;
  void use_program(int mode, const Mat4& world);  // the uniforms every character draw shares
  // Material, then the draw (instanced when instances > 0, from instance `first`).
  void draw_mesh(const GpuMesh& g, GLsizei instances, GLuint first = 0);
  void draw_lines(const std::vector<float>& vertices, bool depth_test);
};

namespace {
// Interleaved static vertex: position 3, normal 3, tangent 4, uv 2, joints 4 x u16, weights 4.
struct StaticVertex {
  float position[3], normal[3], tangent[4], uv[2];
  uint16_t joints[4];
  float weights[4];
};
// CPU-skinned stream: position 3, normal 3, tangent 4.
constexpr int kSkinnedFloats = 10;

GLuint upload_texture(const Texture& texture, bool flip, std::string& warning) {
  auto image = decode_image(texture.data, kMaxTextureSide, flip);
  if (!image) {
    warning = "texture '" + texture.path + "': " + image.error();
    return 0;
  }
  const int w = image->width, h = image->height;
  const uint8_t* pixels = image->rgba.data();
  GLuint id = 0;
  glCreateTextures(GL_TEXTURE_2D, 1, &id);
  int levels = 1 + static_cast<int>(std::floor(std::log2(std::max(w, h))));
  glTextureStorage2D(id, levels, GL_RGBA8, w, h);
  glTextureSubImage2D(id, 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
  glGenerateTextureMipmap(id);
  glTextureParameteri(id, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
  glTextureParameteri(id, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTextureParameteri(id, GL_TEXTURE_WRAP_S, GL_REPEAT);
  glTextureParameteri(id, GL_TEXTURE_WRAP_T, GL_REPEAT);
  return id;
}
}  // namespace

CharacterRenderer::CharacterRenderer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

CharacterRenderer::~CharacterRenderer() {
  if (!impl_) return;
  for (auto& m : impl_->meshes) {
    glDeleteVertexArrays(1, &m.vao);
    GLuint buffers[] = {m.static_vbo, m.skinned_vbo, m.index_buffer, m.bake_bind_ubo};
    glDeleteBuffers(4, buffers);
  }
  glDeleteTextures(static_cast<GLsizei>(impl_->textures.size()), impl_->textures.data());
  GLuint buffers[] = {impl_->palette_ubo, impl_->clips_ubo,          impl_->instance_vbo,
                      impl_->line_vbo,    impl_->dummy_instance_vbo, impl_->pose_ssbo};
  glDeleteBuffers(6, buffers);
  glDeleteProgram(impl_->pose_program);
  glDeleteTextures(1, &impl_->baked_texture);
  glDeleteVertexArrays(1, &impl_->line_vao);
  glDeleteProgram(impl_->program);
  glDeleteProgram(impl_->line_program);
  glDeleteFramebuffers(1, &impl_->fbo);
  GLuint rbs[] = {impl_->color_rb, impl_->depth_rb};
  glDeleteRenderbuffers(2, rbs);
}

Result<std::unique_ptr<CharacterRenderer>> CharacterRenderer::create(const CharacterAsset& asset,
                                                                     const ImportedScene& scene) {
  // Textures: glTF puts v = 0 at the image's top, FBX and COLLADA at its bottom.
  return create(asset, scene.materials, scene.textures, scene.format != "gltf");
}

Result<std::unique_ptr<CharacterRenderer>> CharacterRenderer::create(const CharacterAsset& asset,
                                                                     std::span<const Material> materials,
                                                                     std::span<const Texture> textures,
                                                                     bool flip_textures) {
  using R = Result<std::unique_ptr<CharacterRenderer>>;
  auto impl = std::make_unique<Impl>();
  impl->asset = &asset;
  std::string error;
  // Per-instance evaluation needs vertex shaders that read shader storage (GL 4.5 allows none; Mesa has
  // them).
  GLint vertex_storage_blocks = 0;
  glGetIntegerv(GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS, &vertex_storage_blocks);
  const bool instance_poses = vertex_storage_blocks > 0;
  impl->program =
      link({compile(GL_VERTEX_SHADER,
                    {detail::kGlslVersion, instance_poses ? detail::kInstancePosesDefine : "",
                     detail::kCharacterVertexInputs, detail::kBakedSampling, detail::kCharacterVertexMain},
                    error),
            compile(GL_FRAGMENT_SHADER, {detail::kCharacterFragmentShader}, error)},
           error);
  if (!error.empty()) return R::failure(error);
  if (instance_poses) {
    impl->pose_program = link(
        {compile(GL_COMPUTE_SHADER,
                 {detail::kGlslVersion, detail::kBakedSampling, detail::kBakedPoseComputeShader}, error)},
        error);
    if (!error.empty()) return R::failure(error);
  }
  impl->line_program = link(detail::kLineVertexShader, detail::kLineFragmentShader, error);
  if (!error.empty()) return R::failure(error);

  std::vector<GLuint> texture_ids(textures.size(), 0);
  for (size_t t = 0; t < textures.size(); ++t) {
    std::string warning;
    texture_ids[t] = upload_texture(textures[t], flip_textures, warning);
    if (texture_ids[t]) impl->textures.push_back(texture_ids[t]);
  }

  for (const SkinnedMesh& mesh : asset.meshes) {
    if (mesh.joint_remap().size() > 256)
      return R::failure("mesh '" + mesh.name() + "' uses " + std::to_string(mesh.joint_remap().size()) +
                        " palette joints; GPU skinning draws up to 256 per draw (split the mesh by joints)");
    Impl::GpuMesh g;
    g.mesh = &mesh;
    const int n = mesh.vertex_count(), k = mesh.influences();
    std::vector<StaticVertex> vertices(n);
    for (int v = 0; v < n; ++v) {
      StaticVertex& out = vertices[v];
      std::memcpy(out.position, &mesh.positions()[v * 3], 12);
      if (!mesh.normals().empty())
        std::memcpy(out.normal, &mesh.normals()[v * 3], 12);
      else
        out.normal[0] = 0, out.normal[1] = 1, out.normal[2] = 0;
      if (!mesh.tangents().empty())
        std::memcpy(out.tangent, &mesh.tangents()[v * 4], 16);
      else
        out.tangent[0] = 1, out.tangent[1] = out.tangent[2] = 0, out.tangent[3] = 1;
      if (!mesh.uvs().empty())
        std::memcpy(out.uv, &mesh.uvs()[v * 2], 8);
      else
        out.uv[0] = out.uv[1] = 0;
      for (int i = 0; i < 4; ++i) {
        out.joints[i] = i < k ? mesh.joint_indices()[v * k + i] : 0;
        out.weights[i] = i < k ? mesh.joint_weights()[v * k + i] : 0.f;
      }
    }
    g.has_tangents = !mesh.tangents().empty();
    glCreateVertexArrays(1, &g.vao);
    glCreateBuffers(1, &g.static_vbo);
    glNamedBufferStorage(g.static_vbo, static_cast<GLsizeiptr>(vertices.size() * sizeof(StaticVertex)),
                         vertices.data(), 0);
    glCreateBuffers(1, &g.skinned_vbo);
    glNamedBufferStorage(g.skinned_vbo, static_cast<GLsizeiptr>(std::max(n, 1)) * kSkinnedFloats * 4, nullptr,
                         GL_DYNAMIC_STORAGE_BIT);
    glCreateBuffers(1, &g.index_buffer);
    glNamedBufferStorage(g.index_buffer,
                         static_cast<GLsizeiptr>(std::max<size_t>(mesh.indices().size(), 1) * 4),
                         mesh.indices().data(), 0);
    g.index_count = static_cast<GLsizei>(mesh.indices().size());
    glVertexArrayElementBuffer(g.vao, g.index_buffer);
    // Binding 0: static vertices; binding 1: CPU-skinned stream; binding 2: per-instance data.
    glVertexArrayVertexBuffer(g.vao, 0, g.static_vbo, 0, sizeof(StaticVertex));
    auto attribute = [&](int location, int count, GLenum type, size_t offset, int binding,
                         bool integer = false) {
      glEnableVertexArrayAttrib(g.vao, location);
      if (integer)
        glVertexArrayAttribIFormat(g.vao, location, count, type, static_cast<GLuint>(offset));
      else
        glVertexArrayAttribFormat(g.vao, location, count, type, GL_FALSE, static_cast<GLuint>(offset));
      glVertexArrayAttribBinding(g.vao, location, binding);
    };
    attribute(detail::kAttrPosition, 3, GL_FLOAT, offsetof(StaticVertex, position), 0);
    attribute(detail::kAttrNormal, 3, GL_FLOAT, offsetof(StaticVertex, normal), 0);
    attribute(detail::kAttrTangent, 4, GL_FLOAT, offsetof(StaticVertex, tangent), 0);
    attribute(detail::kAttrUv, 2, GL_FLOAT, offsetof(StaticVertex, uv), 0);
    attribute(detail::kAttrJoints, 4, GL_UNSIGNED_SHORT, offsetof(StaticVertex, joints), 0, true);
    attribute(detail::kAttrWeights, 4, GL_FLOAT, offsetof(StaticVertex, weights), 0);
    for (int c = 0; c < 4; ++c)
      attribute(detail::kAttrWorld0 + c, 4, GL_FLOAT, static_cast<size_t>(c) * 16, 2);
    attribute(detail::kAttrAnim, 4, GL_FLOAT, 64, 2);
    attribute(detail::kAttrBlend, 1, GL_FLOAT, 80, 2);
    glVertexArrayBindingDivisor(g.vao, 2, 1);
    if (mesh.material() >= 0 && mesh.material() < static_cast<int>(materials.size())) {
      const Material& m = materials[mesh.material()];
      g.base_color = m.base_color;
      if (m.diffuse_texture >= 0) g.diffuse = texture_ids[m.diffuse_texture];
      if (m.normal_texture >= 0) g.normal_map = texture_ids[m.normal_texture];
    }
    // Baked path: palette-slot -> joint map (std140: ivec4 remap[64]) and, where the mesh was bound at
    // another pose than the skeleton, per-slot corrections from the skeleton's inverse bind to the mesh's.
    std::vector<uint8_t> bind(256 * 64 + 64 * 16, 0);
    Mat4* corrections = reinterpret_cast<Mat4*>(bind.data());
    int32_t* remap = reinterpret_cast<int32_t*>(bind.data() + 256 * 64);
    for (size_t k = 0; k < mesh.joint_remap().size(); ++k) {
      const Mat4& skeleton_bind = asset.skeleton.inverse_binds()[mesh.joint_remap()[k]];
      corrections[k] = inverse(skeleton_bind) * mesh.inverse_binds()[k];
      for (int e = 0; e < 16; ++e)
        g.bake_corrected = g.bake_corrected || std::fabs(corrections[k].m[e] - Mat4{}.m[e]) > 1e-5f;
      remap[k] = mesh.joint_remap()[k];
    }
    glCreateBuffers(1, &g.bake_bind_ubo);
    glNamedBufferStorage(g.bake_bind_ubo, static_cast<GLsizeiptr>(bind.size()), bind.data(), 0);
    impl->meshes.push_back(g);
  }

  const float zero_instance[24] = {};
  glCreateBuffers(1, &impl->dummy_instance_vbo);
  glNamedBufferStorage(impl->dummy_instance_vbo, sizeof zero_instance, zero_instance, 0);
  for (Impl::GpuMesh& g : impl->meshes) {
    glVertexArrayVertexBuffer(g.vao, 2, impl->dummy_instance_vbo, 0, 24 * 4);
    glVertexArrayVertexBuffer(g.vao, 1, g.skinned_vbo, 0, kSkinnedFloats * 4);
  }
  glCreateBuffers(1, &impl->instance_vbo);  // mutable: re-specified (orphaned) by each draw_baked()
  glCreateBuffers(1, &impl->pose_ssbo);
  glCreateBuffers(1, &impl->palette_ubo);
  glNamedBufferStorage(impl->palette_ubo, 256 * 64, nullptr, GL_DYNAMIC_STORAGE_BIT);
  glCreateBuffers(1, &impl->clips_ubo);
  glNamedBufferStorage(impl->clips_ubo, 64 * 16, nullptr, GL_DYNAMIC_STORAGE_BIT);
  glCreateVertexArrays(1, &impl->line_vao);
  glEnableVertexArrayAttrib(impl->line_vao, 0);
  glVertexArrayAttribFormat(impl->line_vao, 0, 3, GL_FLOAT, GL_FALSE, 0);
  glVertexArrayAttribBinding(impl->line_vao, 0, 0);
  glEnableVertexArrayAttrib(impl->line_vao, 1);
  glVertexArrayAttribFormat(impl->line_vao, 1, 3, GL_FLOAT, GL_FALSE, 12);
  glVertexArrayAttribBinding(impl->line_vao, 1, 0);
  return std::unique_ptr<CharacterRenderer>(new CharacterRenderer(std::move(impl)));
}

void CharacterRenderer::set_baked(const BakedAnimation& baked) {
  Impl& s = *impl_;
  if (s.baked_texture) glDeleteTextures(1, &s.baked_texture);
  glCreateTextures(GL_TEXTURE_2D_ARRAY, 1, &s.baked_texture);
  glTextureStorage3D(s.baked_texture, 1, baked.half ? GL_RGBA16F : GL_RGBA32F, baked.width, baked.height,
                     baked.layers);
  if (baked.half)
    glTextureSubImage3D(s.baked_texture, 0, 0, 0, 0, baked.width, baked.height, baked.layers, GL_RGBA,
                        GL_HALF_FLOAT, baked.halves.data());
  else
    glTextureSubImage3D(s.baked_texture, 0, 0, 0, 0, baked.width, baked.height, baked.layers, GL_RGBA,
                        GL_FLOAT, baked.texels.data());
  glTextureParameteri(s.baked_texture, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTextureParameteri(s.baked_texture, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  float clips[64][4] = {};
  for (size_t c = 0; c < baked.clips.size() && c < 64; ++c) {
    const BakedClipInfo& i = baked.clips[c];
    clips[c][0] = static_cast<float>(i.frame_count);
    clips[c][1] = i.frame_rate;
    clips[c][2] = i.duration;
    clips[c][3] = static_cast<float>(i.layer);
  }
  glNamedBufferSubData(s.clips_ubo, 0, sizeof clips, clips);
  s.baked_clips = baked.clips;
  s.has_baked = true;
}

void CharacterRenderer::begin_frame(const FrameSettings& settings) {
  Impl& s = *impl_;
  s.frame = settings;
  if (!s.fbo || s.fbo_width != settings.width || s.fbo_height != settings.height) {
    if (s.fbo) {
      glDeleteFramebuffers(1, &s.fbo);
      GLuint rbs[] = {s.color_rb, s.depth_rb};
      glDeleteRenderbuffers(2, rbs);
    }
    glCreateFramebuffers(1, &s.fbo);
    glCreateRenderbuffers(1, &s.color_rb);
    glNamedRenderbufferStorage(s.color_rb, GL_RGBA8, settings.width, settings.height);
    glCreateRenderbuffers(1, &s.depth_rb);
    glNamedRenderbufferStorage(s.depth_rb, GL_DEPTH_COMPONENT24, settings.width, settings.height);
    glNamedFramebufferRenderbuffer(s.fbo, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, s.color_rb);
    glNamedFramebufferRenderbuffer(s.fbo, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, s.depth_rb);
    s.fbo_width = settings.width;
    s.fbo_height = settings.height;
  }
  glBindFramebuffer(GL_FRAMEBUFFER, s.fbo);
  glViewport(0, 0, settings.width, settings.height);
  glClearColor(settings.clear.x, settings.clear.y, settings.clear.z, settings.clear.w);
  glClearDepth(1.0);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDisable(GL_CULL_FACE);  // capes and props are seen from both sides
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  const Camera& c = settings.camera;
  float aspect = static_cast<float>(settings.width) / static_cast<float>(settings.height);
  s.view_proj = perspective(c.fov_y_degrees * 3.14159265f / 180.f, aspect, c.near_plane, c.far_plane) *
                look_at(c.eye, c.target, {0, 1, 0});
  if (settings.grid) {
    // A ground grid around the target, sized to the view: 20 cells, a power of ten per cell.
    float extent = length(c.eye - c.target);
    float cell = std::pow(10.f, std::floor(std::log10(std::max(extent / 10, 1e-4f))));
    std::vector<float> lines;
    const int half = 10;
    Vec3 o{std::round(c.target.x / cell) * cell, 0, std::round(c.target.z / cell) * cell};
    for (int i = -half; i <= half; ++i) {
      float shade = i == 0 ? 0.55f : 0.32f;
      float a = i * cell, e = half * cell;
      lines.insert(lines.end(),
                   {o.x + a, 0, o.z - e, shade, shade, shade, o.x + a, 0, o.z + e, shade, shade, shade});
      lines.insert(lines.end(),
                   {o.x - e, 0, o.z + a, shade, shade, shade, o.x + e, 0, o.z + a, shade, shade, shade});
    }
    s.draw_lines(lines, true);
  }
}

void CharacterRenderer::Impl::draw_lines(const std::vector<float>& vertices, bool depth_test) {
  if (vertices.empty()) return;
  if (line_vbo) glDeleteBuffers(1, &line_vbo);
  glCreateBuffers(1, &line_vbo);
  glNamedBufferStorage(line_vbo, static_cast<GLsizeiptr>(vertices.size() * 4), vertices.data(), 0);
  glVertexArrayVertexBuffer(line_vao, 0, line_vbo, 0, 24);
  glUseProgram(line_program);
  glUniformMatrix4fv(glGetUniformLocation(line_program, "u_view_proj"), 1, GL_FALSE, view_proj.m);
  if (!depth_test) glDisable(GL_DEPTH_TEST);
  glBindVertexArray(line_vao);
  glDrawArrays(GL_LINES, 0, static_cast<GLsizei>(vertices.size() / 6));
  glEnable(GL_DEPTH_TEST);
}

void CharacterRenderer::Impl::use_program(int mode, const Mat4& world) {
  glUseProgram(program);
  glUniform1i(loc("u_mode"), mode);
  glUniformMatrix4fv(loc("u_world"), 1, GL_FALSE, world.m);
  glUniformMatrix4fv(loc("u_view_proj"), 1, GL_FALSE, view_proj.m);
  glUniform1i(loc("u_lighting"), static_cast<int>(frame.lighting));
  glUniform3f(loc("u_eye"), frame.camera.eye.x, frame.camera.eye.y, frame.camera.eye.z);
  glBindBufferBase(GL_UNIFORM_BUFFER, detail::kBindPalette, palette_ubo);
  glBindBufferBase(GL_UNIFORM_BUFFER, detail::kBindClips, clips_ubo);
  if (baked_texture) glBindTextureUnit(detail::kUnitBaked, baked_texture);
}

void CharacterRenderer::Impl::draw_mesh(const GpuMesh& g, GLsizei instances, GLuint first) {
  glUniform4f(loc("u_base_color"), g.base_color.x, g.base_color.y, g.base_color.z, g.base_color.w);
  glUniform1i(loc("u_has_diffuse"), g.diffuse != 0);
  glUniform1i(loc("u_has_normal_map"), g.normal_map != 0);
  glUniform1i(loc("u_has_tangents"), g.has_tangents);
  if (g.diffuse) glBindTextureUnit(detail::kUnitDiffuse, g.diffuse);
  if (g.normal_map) glBindTextureUnit(detail::kUnitNormal, g.normal_map);
  glBindVertexArray(g.vao);
  if (instances > 0)
    glDrawElementsInstancedBaseInstance(GL_TRIANGLES, g.index_count, GL_UNSIGNED_INT, nullptr, instances,
                                        first);
  else
    glDrawElements(GL_TRIANGLES, g.index_count, GL_UNSIGNED_INT, nullptr);
}

void CharacterRenderer::draw_palette(const Mat4& world, std::span<const Mat4> model) {
  Impl& s = *impl_;
  s.use_program(detail::kModePalette, world);
  for (Impl::GpuMesh& g : s.meshes) {
    // Each mesh's own palette (its joint slots) goes into the uniform buffer right before its draw.
    const SkinnedMesh& mesh = *g.mesh;
    s.palette.resize(mesh.inverse_binds().size());
    PaletteJob{model, mesh.inverse_binds(), mesh.joint_remap(), s.palette, {}}.run();
    glNamedBufferSubData(s.palette_ubo, 0, static_cast<GLsizeiptr>(s.palette.size() * 64), s.palette.data());
    s.draw_mesh(g, 0);
  }
}

void CharacterRenderer::draw_cpu(const Mat4& world, std::span<const Mat4> model) {
  Impl& s = *impl_;
  s.use_program(detail::kModeStatic, world);
  for (Impl::GpuMesh& g : s.meshes) {
    const SkinnedMesh& mesh = *g.mesh;
    const int n = mesh.vertex_count();
    s.palette.resize(mesh.inverse_binds().size());
    PaletteJob{model, mesh.inverse_binds(), mesh.joint_remap(), s.palette, {}}.run();
    // Skin into one interleaved stream (position, normal, tangent) through the strided SkinningJob.
    s.skinned.assign(static_cast<size_t>(n) * kSkinnedFloats, 0.f);
    std::vector<float> normals, tangents;
    const float* in_normals = mesh.normals().data();
    const float* in_tangents = mesh.tangents().data();
    if (mesh.normals().empty()) normals.assign(static_cast<size_t>(n) * 3, 0.f), in_normals = normals.data();
    if (mesh.tangents().empty()) {
      tangents.assign(static_cast<size_t>(n) * 4, 0.f);
      for (int v = 0; v < n; ++v) tangents[v * 4] = 1, tangents[v * 4 + 3] = 1;
      in_tangents = tangents.data();
    }
    SkinningJob job = SkinningJob::for_mesh(mesh, s.palette);
    job.in_normals = in_normals;
    job.in_tangents = in_tangents;
    job.out_positions = s.skinned.data();
    job.out_normals = s.skinned.data() + 3;
    job.out_tangents = s.skinned.data() + 6;
    job.out_positions_stride = job.out_normals_stride = job.out_tangents_stride = kSkinnedFloats * 4;
    job.run();
    glNamedBufferSubData(g.skinned_vbo, 0, static_cast<GLsizeiptr>(s.skinned.size() * 4), s.skinned.data());
    glVertexArrayVertexBuffer(g.vao, 1, g.skinned_vbo, 0, kSkinnedFloats * 4);
    glVertexArrayAttribBinding(g.vao, detail::kAttrPosition, 1);
    glVertexArrayAttribBinding(g.vao, detail::kAttrNormal, 1);
    glVertexArrayAttribBinding(g.vao, detail::kAttrTangent, 1);
    glVertexArrayAttribFormat(g.vao, detail::kAttrPosition, 3, GL_FLOAT, GL_FALSE, 0);
    glVertexArrayAttribFormat(g.vao, detail::kAttrNormal, 3, GL_FLOAT, GL_FALSE, 12);
    glVertexArrayAttribFormat(g.vao, detail::kAttrTangent, 4, GL_FLOAT, GL_FALSE, 24);
    s.draw_mesh(g, 0);
    // Back to the static stream for the other paths.
    glVertexArrayAttribFormat(g.vao, detail::kAttrPosition, 3, GL_FLOAT, GL_FALSE,
                              offsetof(StaticVertex, position));
    glVertexArrayAttribFormat(g.vao, detail::kAttrNormal, 3, GL_FLOAT, GL_FALSE,
                              offsetof(StaticVertex, normal));
    glVertexArrayAttribFormat(g.vao, detail::kAttrTangent, 4, GL_FLOAT, GL_FALSE,
                              offsetof(StaticVertex, tangent));
    for (int a : {detail::kAttrPosition, detail::kAttrNormal, detail::kAttrTangent})
      glVertexArrayAttribBinding(g.vao, a, 0);
  }
}

const char* to_string(BakedEvaluation evaluation) {
  return evaluation == BakedEvaluation::kPerInstance ? "per-instance" : "per-vertex";
}

namespace {
// The frame index the baked shader starts from at time t (baked_model in shaders.h, in double precision).
int baked_frame(const BakedClipInfo& clip, double t) {
  t = clip.duration > 0 ? t - clip.duration * std::floor(t / clip.duration) : 0;
  return std::clamp(static_cast<int>(std::floor(t * clip.frame_rate)), 0, clip.frame_count - 1);
}

// Frustum planes (a, b, c, d: inside where a x + b y + c z + d >= 0) of a view-projection matrix.
std::array<Vec4, 6> frustum_planes(const Mat4& m) {
  auto row = [&](int r) { return Vec4{m.at(r, 0), m.at(r, 1), m.at(r, 2), m.at(r, 3)}; };
  const Vec4 x = row(0), y = row(1), z = row(2), w = row(3);
  auto add = [](Vec4 a, Vec4 b, float s) {
    return Vec4{a.x + s * b.x, a.y + s * b.y, a.z + s * b.z, a.w + s * b.w};
  };
  return {add(w, x, 1), add(w, x, -1), add(w, y, 1), add(w, y, -1), add(w, z, 1), add(w, z, -1)};
}
}  // namespace

void CharacterRenderer::Impl::animated_box(const BakedInstance& b, float global_time, Vec3& lo,
                                           Vec3& hi) const {
  lo = {1e30f, 1e30f, 1e30f}, hi = {-1e30f, -1e30f, -1e30f};
  const double t = static_cast<double>(b.time) + static_cast<double>(global_time) * b.speed;
  auto add_clip = [&](int c) {
    if (c < 0 || c >= static_cast<int>(baked_clips.size())) return;
    const BakedClipInfo& clip = baked_clips[c];
    const int f = baked_frame(clip, t);
    // The shader interpolates frames f and f + 1; one more on each side covers float rounding of f.
    for (int k = std::max(0, f - 1); k <= std::min(clip.frame_count - 1, f + 2); ++k) {
      const float* box = &clip.frame_bounds[static_cast<size_t>(k) * 6];
      lo = {std::min(lo.x, box[0]), std::min(lo.y, box[1]), std::min(lo.z, box[2])};
      hi = {std::max(hi.x, box[3]), std::max(hi.y, box[4]), std::max(hi.z, box[5])};
    }
  };
  add_clip(b.clip);
  if (b.clip2 >= 0 && b.weight > 0) add_clip(b.clip2);
}

BakedDrawStats CharacterRenderer::draw_baked(std::span<const BakedInstance> instances, float global_time,
                                             const BakedDrawOptions& options) {
  Impl& s = *impl_;
  BakedDrawStats stats;
  if (!s.has_baked || instances.empty()) return stats;
  const bool per_instance = options.evaluation == BakedEvaluation::kPerInstance && s.pose_program;
  const std::array<Vec4, 6> planes = frustum_planes(s.view_proj);
  const Camera& camera = s.frame.camera;
  // Screen pixels per unit of size at distance 1 (the projection's vertical scale).
  const float pixels_per_unit =
      0.5f * static_cast<float>(s.frame.height) / std::tan(camera.fov_y_degrees * 3.14159265f / 360.f);
  // Visible instances, full detail first, then the reduced ones: per instance world (16 floats), clip, time,
  // speed, clip2, weight (+3 padding) = 24 floats.
  s.instance_data.clear();
  std::vector<const BakedInstance*>& reduced = s.reduced_instances;
  reduced.clear();
  auto append = [&](const BakedInstance& b) {
    const size_t at = s.instance_data.size();
    s.instance_data.resize(at + 24, 0.f);
    float* d = &s.instance_data[at];
    std::memcpy(d, b.world.m, 64);
    d[16] = static_cast<float>(b.clip), d[17] = b.time, d[18] = b.speed, d[19] = static_cast<float>(b.clip2);
    d[20] = b.weight;
  };
  for (const BakedInstance& b : instances) {
    if (options.cull || options.lod_pixels > 0) {
      Vec3 lo, hi;
      s.animated_box(b, global_time, lo, hi);
      // The box in world space: its centre moved, its half extents through |world| (exact for the box).
      const Vec3 centre = transform_point(b.world, (lo + hi) * 0.5f), half = (hi - lo) * 0.5f;
      Vec3 extent;
      for (int r = 0; r < 3; ++r) {
        float e = 0;
        for (int c = 0; c < 3; ++c)
          e += std::fabs(b.world.at(r, c)) * (c == 0 ? half.x : c == 1 ? half.y : half.z);
        (r == 0 ? extent.x : r == 1 ? extent.y : extent.z) = e;
      }
      bool outside = false;
      for (const Vec4& p : planes) {
        const float reach = std::fabs(p.x) * extent.x + std::fabs(p.y) * extent.y + std::fabs(p.z) * extent.z;
        if (p.x * centre.x + p.y * centre.y + p.z * centre.z + p.w < -reach) outside = true;
      }
      if (options.cull && outside) {
        ++stats.culled;
        continue;
      }
      if (per_instance && options.lod_pixels > 0) {
        const float radius = length(extent), distance = length(centre - camera.eye);
        if (distance > radius && radius / distance * pixels_per_unit < options.lod_pixels) {
          reduced.push_back(&b);
          continue;
        }
      }
    }
    append(b);
  }
  const int full = static_cast<int>(s.instance_data.size() / 24);
  for (const BakedInstance* b : reduced) append(*b);
  const int visible = static_cast<int>(s.instance_data.size() / 24);
  stats.drawn = visible;
  stats.reduced = visible - full;
  if (visible == 0) return stats;

  // Orphaned each frame (the driver hands out fresh storage instead of waiting for the previous draw).
  const auto instance_bytes = static_cast<GLsizeiptr>(s.instance_data.size() * 4);
  if (instance_bytes > s.instance_capacity) s.instance_capacity = instance_bytes * 2;
  glNamedBufferData(s.instance_vbo, s.instance_capacity, nullptr, GL_STREAM_DRAW);
  glNamedBufferSubData(s.instance_vbo, 0, instance_bytes, s.instance_data.data());

  // Per-instance palettes: mesh after mesh, instance-major within a mesh (slot order, as the palette path's).
  std::vector<int>& palette_base = s.palette_base;
  palette_base.assign(s.meshes.size(), 0);
  if (per_instance) {
    int total = 0;
    for (size_t m = 0; m < s.meshes.size(); ++m) {
      palette_base[m] = total;
      total += visible * static_cast<int>(s.meshes[m].mesh->joint_remap().size());
    }
    const GLsizeiptr palette_bytes = static_cast<GLsizeiptr>(total) * 48;  // rows 0-2 of each matrix
    if (palette_bytes > s.pose_capacity) {
      s.pose_capacity = palette_bytes * 2;
      glNamedBufferData(s.pose_ssbo, s.pose_capacity, nullptr, GL_STREAM_COPY);
    }
    glUseProgram(s.pose_program);
    auto uniform = [&](const char* name) { return glGetUniformLocation(s.pose_program, name); };
    glUniform1i(uniform("u_instances"), visible);
    glUniform1f(uniform("u_time"), global_time);
    glBindBufferBase(GL_UNIFORM_BUFFER, detail::kBindClips, s.clips_ubo);
    glBindTextureUnit(detail::kUnitBaked, s.baked_texture);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, s.instance_vbo);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, detail::kBindPoses, s.pose_ssbo);
    for (size_t m = 0; m < s.meshes.size(); ++m) {
      const int slots = static_cast<int>(s.meshes[m].mesh->joint_remap().size());
      if (slots == 0) continue;
      glBindBufferBase(GL_UNIFORM_BUFFER, detail::kBindMeshBind, s.meshes[m].bake_bind_ubo);
      glUniform1i(uniform("u_slots"), slots);
      glUniform1i(uniform("u_palette_base"), palette_base[m]);
      glUniform1i(uniform("u_corrected"), s.meshes[m].bake_corrected);
      const long long invocations = static_cast<long long>(visible) * slots;
      glDispatchCompute(static_cast<GLuint>((invocations + 63) / 64), 1, 1);
    }
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
  }

  s.use_program(per_instance ? detail::kModeBakedPerInstance : detail::kModeBaked, Mat4{});
  glUniform1f(s.loc("u_time"), global_time);
  for (size_t m = 0; m < s.meshes.size(); ++m) {
    Impl::GpuMesh& g = s.meshes[m];
    const int slots = static_cast<int>(g.mesh->joint_remap().size());
    glBindBufferBase(GL_UNIFORM_BUFFER, detail::kBindMeshBind, g.bake_bind_ubo);
    glUniform1i(s.loc("u_corrected"), g.bake_corrected);
    if (per_instance) glUniform1i(s.loc("u_slots"), slots);
    glVertexArrayVertexBuffer(g.vao, 2, s.instance_vbo, 0, 24 * 4);
    // Full detail, then the reduced instances: the second draw starts at instance `full` (the base instance
    // offsets the per-instance attributes; u_palette_base offsets the palettes, as gl_InstanceID starts at
    // 0).
    for (int group = 0; group < 2; ++group) {
      const int first = group == 0 ? 0 : full, count = group == 0 ? full : visible - full;
      if (count == 0) continue;
      if (per_instance) {
        glUniform1i(s.loc("u_palette_base"), palette_base[m] + first * slots);
        glUniform1i(s.loc("u_influences"), group == 0 ? 4 : 2);
      }
      s.draw_mesh(g, count, static_cast<GLuint>(first));
    }
    glVertexArrayVertexBuffer(g.vao, 2, s.dummy_instance_vbo, 0, 24 * 4);
  }
  return stats;
}

void CharacterRenderer::finish() {
  glFinish();
}

void CharacterRenderer::draw_skeleton(const Mat4& world, std::span<const Mat4> model) {
  Impl& s = *impl_;
  std::vector<float> lines;
  const auto parents = s.asset->skeleton.parents();
  for (size_t j = 0; j < model.size() && j < parents.size(); ++j) {
    if (parents[j] < 0) continue;
    Vec3 a = transform_point(world, model[parents[j]].translation()),
         b = transform_point(world, model[j].translation());
    lines.insert(lines.end(), {a.x, a.y, a.z, 1.f, 0.85f, 0.2f, b.x, b.y, b.z, 1.f, 0.85f, 0.2f});
  }
  s.draw_lines(lines, false);
}

Image CharacterRenderer::end_frame() {
  Impl& s = *impl_;
  Image image;
  image.width = s.fbo_width;
  image.height = s.fbo_height;
  image.rgba.resize(static_cast<size_t>(image.width) * image.height * 4);
  std::vector<uint8_t> flipped(image.rgba.size());
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, image.width, image.height, GL_RGBA, GL_UNSIGNED_BYTE, flipped.data());
  const size_t row = static_cast<size_t>(image.width) * 4;
  for (int y = 0; y < image.height; ++y)
    std::memcpy(&image.rgba[y * row], &flipped[(image.height - 1 - y) * row], row);
  return image;
}

}  // namespace ossa
