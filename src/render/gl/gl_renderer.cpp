// OpenGL 4.5 core backend of CharacterRenderer; headless context through EGL (libepoxy). What each draw
// contains comes from draw_plan.h; this file only turns it into GL calls.
#include "ossa/render/gl_renderer.h"

#include "ossa/import/imported_scene.h"  // plain data: the ImportedScene overload of create() reads its fields

#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>

#include "../baked_morph_plan.h"
#include "../draw_plan.h"
#include "../mesh_lod.h"
#include "../morph_plan.h"
#include "morph_shaders.h"
#include "ossa/runtime/palette_job.h"
#include "shaders.h"

namespace ossa {

namespace {
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

// A new live context (made or adopted, now current): counted, its debug output routed to take_errors().
void track_context() {
  {
    std::lock_guard<std::mutex> lock(g_errors_mutex);
    g_errors = &g_error_storage;
    ++g_live_contexts;
  }
  // Not GL_DEBUG_OUTPUT_SYNCHRONOUS: it turns Mesa's threaded dispatch (glthread) off. Errors are collected
  // under a lock and read after the frame, so the thread they arrive on does not matter.
  glEnable(GL_DEBUG_OUTPUT);
  glDebugMessageCallback(debug_callback, nullptr);
}

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
  track_context();
  return gl;
}

Result<std::shared_ptr<GlContext>> GlContext::adopt_current() {
  using R = Result<std::shared_ptr<GlContext>>;
  if (!glGetString(GL_VERSION)) return R::failure("no OpenGL context is current on this thread");
  if (!epoxy_is_desktop_gl() || epoxy_gl_version() < 45)
    return R::failure(std::string("Ossa needs OpenGL 4.5 core; the current context is ") +
                      reinterpret_cast<const char*>(glGetString(GL_VERSION)));
  std::shared_ptr<GlContext> gl(new GlContext());
  track_context();
  return gl;
}

GlContext::~GlContext() {
  bool last = false;
  {
    std::lock_guard<std::mutex> lock(g_errors_mutex);
    last = --g_live_contexts == 0;
    if (last) g_errors = nullptr;
  }
  if (!context_) return;  // adopted: its owner ends it
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

namespace {
using detail::kSkinnedFloats;
using detail::StaticVertex;

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

class GlRenderer final : public CharacterRenderer {
 public:
  explicit GlRenderer(std::shared_ptr<GlContext> context) : context_(std::move(context)) {}
  ~GlRenderer() override;
  Result<bool> init(const CharacterAsset& asset, std::span<const Material> materials,
                    std::span<const Texture> textures, bool flip_textures);

  const char* backend() const override { return "OpenGL 4.5"; }
  std::string device_name() const override { return context_->renderer_name(); }
  bool has_per_instance_evaluation() const override { return pose_program != 0; }
  Result<bool> set_baked(const BakedAnimation& baked) override;
  void begin_frame(const FrameSettings& settings) override;
  void draw_palette(const Mat4& world, std::span<const Mat4> model,
                    std::span<const float> morph_weights) override;
  void draw_cpu(const Mat4& world, std::span<const Mat4> model,
                std::span<const float> morph_weights) override;
  MorphDrawStats morph_stats() const override { return morph.stats(); }
  LodMeshInfo lod_mesh() const override { return lod_info; }
  Result<LodMeshInfo> make_lod_mesh(float target_error) override;
  BakedDrawStats draw_baked(std::span<const BakedInstance> instances, float global_time,
                            const BakedDrawOptions& options) override;
  void draw_skeleton(const Mat4& world, std::span<const Mat4> model) override;
  void draw_world_lines(std::span<const Vec3> endpoints, Vec3 color) override {
    draw_lines(detail::colored_lines(endpoints, color), true);
  }
  Image end_frame() override;
  void finish() override { glFinish(); }
  void present(int x, int y) const {
    glBlitNamedFramebuffer(fbo, 0, 0, 0, fbo_width, fbo_height, x, y, x + fbo_width, y + fbo_height,
                           GL_COLOR_BUFFER_BIT, GL_NEAREST);
  }

 private:
  struct GpuMesh {
    const SkinnedMesh* mesh = nullptr;
    GLuint vao = 0, static_vbo = 0, skinned_vbo = 0, index_buffer = 0;
    GLsizei index_count = 0;
    // The decimated level of detail (mesh_lod.h): its own index buffer over the same vertices; 0 and the
    // full count where nothing was simplified.
    GLuint lod_index_buffer = 0;
    GLsizei lod_index_count = 0;
    detail::MeshMaterial material;
    GLuint diffuse = 0, normal_map = 0;
    GLuint bake_bind_ubo = 0;  // baked path: palette-slot -> joint map and bind corrections, made once
    bool bake_corrected = false;
  };
  // A uniform's location in the program in use (the mode program, or `in`), looked up once: no string lookup
  // per frame, and no glGetUniformLocation per draw, which makes a threaded GL driver (Mesa's glthread) wait
  // for its queue. `name` is a string literal: the cache compares pointers.
  GLint loc(const char* name, GLuint in = 0);
  void use_program(int mode, const Mat4& world);  // the uniforms every character draw shares
  // Material, then the draw (instanced when instances > 0, from instance `first`; the decimated mesh when
  // `decimated`).
  void draw_mesh(const GpuMesh& g, GLsizei instances, GLuint first = 0, bool decimated = false);
  void draw_lines(const std::vector<float>& vertices, bool depth_test);
  // Draws the mesh with position, normal and tangent from `stream` (kSkinnedFloats a vertex) instead of its
  // static vertices: the CPU path, and palette skinning of a mesh morphed on the CPU.
  void draw_streamed(GpuMesh& g, const std::vector<float>& stream);
  void upload_morph_deltas();
  void evaluate_baked_weights(int visible, float global_time);

  std::shared_ptr<GlContext> context_;
  const CharacterAsset* asset = nullptr;
  std::vector<GpuMesh> meshes;
  std::vector<GLuint> textures;
  GLuint mode_programs[detail::kModes] = {};  // the character pipeline, one program per skinning mode
  GLuint program = 0, line_program = 0;       // program: the mode program in use
  GLuint pose_program =
      0;  // per-instance evaluation of the bake (0 where vertex shaders cannot read storage)
  GLuint palette_ubo = 0, clips_ubo = 0;
  GLuint weight_program = 0;  // per-instance evaluation of the baked morph weights (with pose_program)
  GLuint baked_texture = 0, instance_vbo = 0, pose_ssbo = 0, weight_ssbo = 0;
  GLsizeiptr instance_capacity = 0, pose_capacity = 0,
             weight_capacity = 0;          // bytes allocated in instance_vbo, pose_ssbo and weight_ssbo
  std::vector<BakedClipInfo> baked_clips;  // frame counts, rates, per-frame bounds (culling)
  std::vector<detail::BakedMorphSlots> baked_morphs;  // per mesh: the targets the bake animates
  detail::BakedDrawPlan plan;                         // scratch: the visible instances
  std::vector<int> palette_base;                      // scratch: each mesh's first per-instance palette row
  std::vector<int> weight_base;                       // scratch: each mesh's first per-instance weight vector
  GLuint dummy_instance_vbo = 0;  // one zero instance: keeps binding 2 valid for non-instanced draws
  GLuint line_vao = 0, line_vbo = 0;
  GLuint fbo = 0, color_rb = 0, depth_rb = 0;
  int fbo_width = 0, fbo_height = 0;
  FrameSettings frame;
  Mat4 view_proj;
  std::vector<Mat4> palette;  // scratch, per mesh
  struct UniformLocation {
    GLuint program;
    const char* name;
    GLint location;
  };
  std::vector<UniformLocation> uniform_locations;  // loc()'s cache
  detail::CpuSkinningScratch cpu_scratch;
  std::vector<float> skinned;  // scratch for the CPU path
  bool has_baked = false;
  detail::MorphState morph;
  GLuint morph_texture = 0;  // every mesh's morph deltas (morph_plan.h); 0 when none is on the GPU
  LodMeshInfo lod_info;
};

GlRenderer::~GlRenderer() {
  for (auto& m : meshes) {
    glDeleteVertexArrays(1, &m.vao);
    GLuint buffers[] = {m.static_vbo, m.skinned_vbo, m.index_buffer, m.bake_bind_ubo, m.lod_index_buffer};
    glDeleteBuffers(5, buffers);
  }
  glDeleteTextures(static_cast<GLsizei>(textures.size()), textures.data());
  GLuint buffers[] = {palette_ubo,        clips_ubo, instance_vbo, line_vbo,
                      dummy_instance_vbo, pose_ssbo, weight_ssbo};
  glDeleteBuffers(7, buffers);
  glDeleteProgram(pose_program);
  glDeleteProgram(weight_program);
  glDeleteTextures(1, &baked_texture);
  glDeleteTextures(1, &morph_texture);
  glDeleteVertexArrays(1, &line_vao);
  for (GLuint p : mode_programs) glDeleteProgram(p);
  glDeleteProgram(line_program);
  glDeleteFramebuffers(1, &fbo);
  GLuint rbs[] = {color_rb, depth_rb};
  glDeleteRenderbuffers(2, rbs);
}

Result<bool> GlRenderer::init(const CharacterAsset& character, std::span<const Material> materials,
                              std::span<const Texture> texture_files, bool flip_textures) {
  asset = &character;
  std::string error;
  // Per-instance evaluation needs vertex shaders that read shader storage (GL 4.5 allows none; Mesa has
  // them).
  GLint vertex_storage_blocks = 0;
  glGetIntegerv(GL_MAX_VERTEX_SHADER_STORAGE_BLOCKS, &vertex_storage_blocks);
  const bool instance_poses = vertex_storage_blocks > 0;
  for (int mode = 0; mode < detail::kModes; ++mode) {
    if (mode == detail::kModeBakedPerInstance && !instance_poses) continue;
    const std::string mode_define = "#define OSSA_MODE " + std::to_string(mode) + "\n";
    mode_programs[mode] =
        link({compile(GL_VERTEX_SHADER,
                      {detail::kGlslVersion, mode_define.c_str(),
                       instance_poses ? detail::kInstancePosesDefine : "", detail::kCharacterVertexInputs,
                       detail::kBakedSampling, detail::kMorphVertexFunctions, detail::kBakedMorphFunctions,
                       detail::kCharacterVertexMain},
                      error),
              compile(GL_FRAGMENT_SHADER, {detail::kCharacterFragmentShader}, error)},
             error);
  }
  if (!error.empty()) return Result<bool>::failure(error);
  if (instance_poses) {
    pose_program = link(
        {compile(GL_COMPUTE_SHADER,
                 {detail::kGlslVersion, detail::kBakedSampling, detail::kBakedPoseComputeShader}, error)},
        error);
    weight_program = link(
        {compile(GL_COMPUTE_SHADER,
                 {detail::kGlslVersion, detail::kBakedSampling, detail::kBakedWeightComputeShader}, error)},
        error);
    if (!error.empty()) return Result<bool>::failure(error);
  }
  line_program = link(detail::kLineVertexShader, detail::kLineFragmentShader, error);
  if (!error.empty()) return Result<bool>::failure(error);

  std::vector<GLuint> texture_ids(texture_files.size(), 0);
  for (size_t t = 0; t < texture_files.size(); ++t) {
    std::string warning;
    texture_ids[t] = upload_texture(texture_files[t], flip_textures, warning);
    if (texture_ids[t]) textures.push_back(texture_ids[t]);
  }

  for (const SkinnedMesh& mesh : character.meshes) {
    if (mesh.joint_remap().size() > detail::kMaxPaletteJoints)
      return Result<bool>::failure(
          "mesh '" + mesh.name() + "' uses " + std::to_string(mesh.joint_remap().size()) +
          " palette joints; GPU skinning draws up to 256 per draw (split the mesh by "
          "joints)");
    GpuMesh g;
    g.mesh = &mesh;
    const std::vector<StaticVertex> vertices = detail::static_vertices(mesh);
    const int n = mesh.vertex_count();
    glCreateVertexArrays(1, &g.vao);
    glCreateBuffers(1, &g.static_vbo);
    glNamedBufferStorage(g.static_vbo,
                         static_cast<GLsizeiptr>(std::max<size_t>(vertices.size(), 1) * sizeof(StaticVertex)),
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
    g.material = detail::mesh_material(mesh, materials);
    if (g.material.diffuse >= 0) g.diffuse = texture_ids[g.material.diffuse];
    if (g.material.normal_map >= 0) g.normal_map = texture_ids[g.material.normal_map];
    const detail::BakeBindings bind = detail::bake_bindings(character, mesh);
    g.bake_corrected = bind.corrected;
    glCreateBuffers(1, &g.bake_bind_ubo);
    glNamedBufferStorage(g.bake_bind_ubo, static_cast<GLsizeiptr>(bind.bytes.size()), bind.bytes.data(), 0);
    meshes.push_back(g);
  }

  const float zero_instance[detail::kInstanceFloats] = {};
  glCreateBuffers(1, &dummy_instance_vbo);
  glNamedBufferStorage(dummy_instance_vbo, sizeof zero_instance, zero_instance, 0);
  for (GpuMesh& g : meshes) {
    glVertexArrayVertexBuffer(g.vao, 2, dummy_instance_vbo, 0, detail::kInstanceFloats * 4);
    glVertexArrayVertexBuffer(g.vao, 1, g.skinned_vbo, 0, kSkinnedFloats * 4);
  }
  glCreateBuffers(1, &instance_vbo);  // mutable: re-specified (orphaned) by each draw_baked()
  glCreateBuffers(1, &pose_ssbo);
  glCreateBuffers(1, &weight_ssbo);
  glCreateBuffers(1, &palette_ubo);
  glNamedBufferStorage(palette_ubo, detail::kMaxPaletteJoints * 64, nullptr, GL_DYNAMIC_STORAGE_BIT);
  glCreateBuffers(1, &clips_ubo);
  glNamedBufferStorage(clips_ubo, detail::kMaxBakedClips * 16, nullptr, GL_DYNAMIC_STORAGE_BIT);
  upload_morph_deltas();
  // The decimated level of detail; none for a character without extent (no meshes, or all at one point).
  if (const float error = detail::default_lod_mesh_error(character);
      detail::has_mesh_simplifier() && error > 0)
    if (auto made = make_lod_mesh(error); !made) return Result<bool>::failure(made.error());
  glCreateVertexArrays(1, &line_vao);
  glEnableVertexArrayAttrib(line_vao, 0);
  glVertexArrayAttribFormat(line_vao, 0, 3, GL_FLOAT, GL_FALSE, 0);
  glVertexArrayAttribBinding(line_vao, 0, 0);
  glEnableVertexArrayAttrib(line_vao, 1);
  glVertexArrayAttribFormat(line_vao, 1, 3, GL_FLOAT, GL_FALSE, 12);
  glVertexArrayAttribBinding(line_vao, 1, 0);
  return true;
}

Result<bool> GlRenderer::set_baked(const BakedAnimation& baked) {
  if (baked_texture) glDeleteTextures(1, &baked_texture);
  baked_texture = 0;
  has_baked = false;
  GLint max_side = 0, max_layers = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_side);
  glGetIntegerv(GL_MAX_ARRAY_TEXTURE_LAYERS, &max_layers);
  if (auto fits = detail::check_bake(baked, max_side, max_layers, "this OpenGL device"); !fits) return fits;
  auto morphs = detail::baked_morph_slots(*asset, baked, morph.table());
  if (!morphs) return Result<bool>::failure(morphs.error());
  baked_morphs = std::move(morphs).value();
  glCreateTextures(GL_TEXTURE_2D_ARRAY, 1, &baked_texture);
  glTextureStorage3D(baked_texture, 1, baked.half ? GL_RGBA16F : GL_RGBA32F, baked.width, baked.height,
                     baked.layers);
  if (baked.half)
    glTextureSubImage3D(baked_texture, 0, 0, 0, 0, baked.width, baked.height, baked.layers, GL_RGBA,
                        GL_HALF_FLOAT, baked.halves.data());
  else
    glTextureSubImage3D(baked_texture, 0, 0, 0, 0, baked.width, baked.height, baked.layers, GL_RGBA, GL_FLOAT,
                        baked.texels.data());
  glTextureParameteri(baked_texture, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTextureParameteri(baked_texture, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  const auto clips = detail::clip_table(baked);
  glNamedBufferSubData(clips_ubo, 0, sizeof clips, clips.data());
  baked_clips = baked.clips;
  has_baked = true;
  return true;
}

void GlRenderer::begin_frame(const FrameSettings& settings) {
  frame = settings;
  morph.begin_frame();
  if (!fbo || fbo_width != settings.width || fbo_height != settings.height) {
    if (fbo) {
      glDeleteFramebuffers(1, &fbo);
      GLuint rbs[] = {color_rb, depth_rb};
      glDeleteRenderbuffers(2, rbs);
    }
    glCreateFramebuffers(1, &fbo);
    glCreateRenderbuffers(1, &color_rb);
    glNamedRenderbufferStorage(color_rb, GL_RGBA8, settings.width, settings.height);
    glCreateRenderbuffers(1, &depth_rb);
    glNamedRenderbufferStorage(depth_rb, GL_DEPTH_COMPONENT24, settings.width, settings.height);
    glNamedFramebufferRenderbuffer(fbo, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color_rb);
    glNamedFramebufferRenderbuffer(fbo, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth_rb);
    fbo_width = settings.width;
    fbo_height = settings.height;
  }
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glViewport(0, 0, settings.width, settings.height);
  glClearColor(settings.clear.x, settings.clear.y, settings.clear.z, settings.clear.w);
  glClearDepth(1.0);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDisable(GL_CULL_FACE);  // capes and props are seen from both sides
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  view_proj = detail::view_projection(settings, detail::DepthRange::kMinusOneToOne);
  if (settings.grid) draw_lines(detail::grid_lines(settings.camera), true);
}

void GlRenderer::draw_lines(const std::vector<float>& vertices, bool depth_test) {
  if (vertices.empty()) return;
  if (line_vbo) glDeleteBuffers(1, &line_vbo);
  glCreateBuffers(1, &line_vbo);
  glNamedBufferStorage(line_vbo, static_cast<GLsizeiptr>(vertices.size() * 4), vertices.data(), 0);
  glVertexArrayVertexBuffer(line_vao, 0, line_vbo, 0, 24);
  glUseProgram(line_program);
  glUniformMatrix4fv(loc("u_view_proj", line_program), 1, GL_FALSE, view_proj.m);
  if (!depth_test) glDisable(GL_DEPTH_TEST);
  glBindVertexArray(line_vao);
  glDrawArrays(GL_LINES, 0, static_cast<GLsizei>(vertices.size() / 6));
  glEnable(GL_DEPTH_TEST);
}

GLint GlRenderer::loc(const char* name, GLuint in) {
  if (!in) in = program;
  for (const UniformLocation& u : uniform_locations)
    if (u.program == in && u.name == name) return u.location;
  uniform_locations.push_back({in, name, glGetUniformLocation(in, name)});
  return uniform_locations.back().location;
}

void GlRenderer::use_program(int mode, const Mat4& world) {
  program = mode_programs[mode];
  glUseProgram(program);
  glUniformMatrix4fv(loc("u_world"), 1, GL_FALSE, world.m);
  glUniformMatrix4fv(loc("u_view_proj"), 1, GL_FALSE, view_proj.m);
  glUniform1i(loc("u_lighting"), static_cast<int>(frame.lighting));
  glUniform3f(loc("u_eye"), frame.camera.eye.x, frame.camera.eye.y, frame.camera.eye.z);
  glBindBufferBase(GL_UNIFORM_BUFFER, detail::kBindPalette, palette_ubo);
  glBindBufferBase(GL_UNIFORM_BUFFER, detail::kBindClips, clips_ubo);
  if (baked_texture) glBindTextureUnit(detail::kUnitBaked, baked_texture);
}

void GlRenderer::draw_mesh(const GpuMesh& g, GLsizei instances, GLuint first, bool decimated) {
  const Vec4& c = g.material.base_color;
  glUniform4f(loc("u_base_color"), c.x, c.y, c.z, c.w);
  glUniform1i(loc("u_has_diffuse"), g.diffuse != 0);
  glUniform1i(loc("u_has_normal_map"), g.normal_map != 0);
  glUniform1i(loc("u_has_tangents"), g.material.has_tangents);
  if (g.diffuse) glBindTextureUnit(detail::kUnitDiffuse, g.diffuse);
  if (g.normal_map) glBindTextureUnit(detail::kUnitNormal, g.normal_map);
  glBindVertexArray(g.vao);
  if (decimated && g.lod_index_buffer) {
    // The VAO's element buffer is the full mesh's outside this draw.
    glVertexArrayElementBuffer(g.vao, g.lod_index_buffer);
    glDrawElementsInstancedBaseInstance(GL_TRIANGLES, g.lod_index_count, GL_UNSIGNED_INT, nullptr, instances,
                                        first);
    glVertexArrayElementBuffer(g.vao, g.index_buffer);
  } else if (instances > 0)
    glDrawElementsInstancedBaseInstance(GL_TRIANGLES, g.index_count, GL_UNSIGNED_INT, nullptr, instances,
                                        first);
  else
    glDrawElements(GL_TRIANGLES, g.index_count, GL_UNSIGNED_INT, nullptr);
}

void GlRenderer::draw_palette(const Mat4& world, std::span<const Mat4> model,
                              std::span<const float> morph_weights) {
  use_program(detail::kModePalette, world);
  if (morph_texture) glBindTextureUnit(detail::kUnitMorphDeltas, morph_texture);
  for (size_t m = 0; m < meshes.size(); ++m) {
    GpuMesh& g = meshes[m];
    // Each mesh's own palette (its joint slots) goes into the uniform buffer right before its draw.
    const SkinnedMesh& mesh = *g.mesh;
    palette.resize(mesh.inverse_binds().size());
    PaletteJob{model, mesh.inverse_binds(), mesh.joint_remap(), palette, {}}.run();
    glNamedBufferSubData(palette_ubo, 0, static_cast<GLsizeiptr>(palette.size() * 64), palette.data());
    const std::span<const float> weights = morph.mesh_weights(static_cast<int>(m), morph_weights);
    const detail::MorphDraw& plan = morph.plan(static_cast<int>(m), weights);
    glUniform1i(loc("u_morph_count"), plan.active);
    if (plan.active > 0) {
      glUniform4fv(loc("u_morph"), plan.active, plan.slots.data());
      glUniform1i(loc("u_morph_texels"), plan.texels_per_vertex);
    }
    if (plan.on_cpu) {
      detail::morph_on_cpu(mesh, weights, cpu_scratch, skinned);
      draw_streamed(g, skinned);
    } else {
      draw_mesh(g, 0);
    }
  }
}

void GlRenderer::draw_cpu(const Mat4& world, std::span<const Mat4> model,
                          std::span<const float> morph_weights) {
  use_program(detail::kModeStatic, world);
  for (size_t m = 0; m < meshes.size(); ++m) {
    detail::skin_on_cpu(*meshes[m].mesh, model, morph.mesh_weights(static_cast<int>(m), morph_weights),
                        cpu_scratch, skinned);
    draw_streamed(meshes[m], skinned);
  }
}

void GlRenderer::draw_streamed(GpuMesh& g, const std::vector<float>& stream) {
  glNamedBufferSubData(g.skinned_vbo, 0, static_cast<GLsizeiptr>(stream.size() * 4), stream.data());
  glVertexArrayVertexBuffer(g.vao, 1, g.skinned_vbo, 0, kSkinnedFloats * 4);
  glVertexArrayAttribBinding(g.vao, detail::kAttrPosition, 1);
  glVertexArrayAttribBinding(g.vao, detail::kAttrNormal, 1);
  glVertexArrayAttribBinding(g.vao, detail::kAttrTangent, 1);
  glVertexArrayAttribFormat(g.vao, detail::kAttrPosition, 3, GL_FLOAT, GL_FALSE, 0);
  glVertexArrayAttribFormat(g.vao, detail::kAttrNormal, 3, GL_FLOAT, GL_FALSE, 12);
  glVertexArrayAttribFormat(g.vao, detail::kAttrTangent, 4, GL_FLOAT, GL_FALSE, 24);
  draw_mesh(g, 0);
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

// The delta texture, once (morph_plan.h); meshes that do not fit are morphed on the CPU.
void GlRenderer::upload_morph_deltas() {
  static_assert(detail::kMorphTextureWidth == 4096 && kMaxGpuMorphTargets == 8,
                "kMorphVertexFunctions (morph_shaders.h) assumes these");
  GLint max_side = 0;
  glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_side);
  morph.init(*asset, max_side >= detail::kMorphTextureWidth ? max_side : 0);
  const detail::MorphDeltaTable& table = morph.table();
  if (table.rows > 0) {
    glCreateTextures(GL_TEXTURE_2D, 1, &morph_texture);
    glTextureStorage2D(morph_texture, 1, GL_RGBA32F, detail::kMorphTextureWidth, table.rows);
    glTextureSubImage2D(morph_texture, 0, 0, 0, detail::kMorphTextureWidth, table.rows, GL_RGBA, GL_FLOAT,
                        table.texels.data());
    glTextureParameteri(morph_texture, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTextureParameteri(morph_texture, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  }
  morph.release_texels();
}

// Per-instance morph weights of every mesh with baked morph slots, mesh after mesh, 2 vectors per instance
// (kBakedWeightComputeShader), for the instanced draws of mode 3. The caller issues the barrier.
void GlRenderer::evaluate_baked_weights(int visible, float global_time) {
  weight_base.assign(meshes.size(), 0);
  int total = 0;
  for (size_t m = 0; m < meshes.size(); ++m) {
    weight_base[m] = total;
    if (baked_morphs[m].count > 0) total += visible * 2;
  }
  if (total == 0) return;
  const GLsizeiptr bytes = static_cast<GLsizeiptr>(total) * 16;
  if (bytes > weight_capacity) {
    weight_capacity = bytes * 2;
    glNamedBufferData(weight_ssbo, weight_capacity, nullptr, GL_STREAM_COPY);
  }
  glUseProgram(weight_program);
  auto uniform = [&](const char* name) { return loc(name, weight_program); };
  glUniform1i(uniform("u_instances"), visible);
  glUniform1f(uniform("u_time"), global_time);
  glBindBufferBase(GL_SHADER_STORAGE_BUFFER, detail::kBindWeights, weight_ssbo);
  for (size_t m = 0; m < meshes.size(); ++m) {
    const detail::BakedMorphSlots& morphs = baked_morphs[m];
    if (morphs.count == 0) continue;
    glUniform1i(uniform("u_weight_base"), weight_base[m]);
    glUniform1i(uniform("u_baked_morph_count"), morphs.count);
    glUniform4fv(uniform("u_baked_morph"), 2 * morphs.count, morphs.slots.data());
    glDispatchCompute(static_cast<GLuint>((visible + 63) / 64), 1, 1);
  }
}

BakedDrawStats GlRenderer::draw_baked(std::span<const BakedInstance> instances, float global_time,
                                      const BakedDrawOptions& options) {
  if (!has_baked || instances.empty()) return {};
  const bool per_instance = options.evaluation == BakedEvaluation::kPerInstance && pose_program;
  detail::plan_baked_draw(instances, global_time, options, per_instance, lod_info.available, frame,
                          baked_clips, plan);
  const int visible = plan.visible;
  if (visible == 0) return plan.stats;

  // Orphaned each frame (the driver hands out fresh storage instead of waiting for the previous draw).
  const auto instance_bytes = static_cast<GLsizeiptr>(plan.instance_data.size() * 4);
  if (instance_bytes > instance_capacity) instance_capacity = instance_bytes * 2;
  glNamedBufferData(instance_vbo, instance_capacity, nullptr, GL_STREAM_DRAW);
  glNamedBufferSubData(instance_vbo, 0, instance_bytes, plan.instance_data.data());

  // Per-instance palettes: mesh after mesh, instance-major within a mesh (slot order, as the palette path's).
  palette_base.assign(meshes.size(), 0);
  if (per_instance) {
    int total = 0;
    for (size_t m = 0; m < meshes.size(); ++m) {
      palette_base[m] = total;
      total += visible * static_cast<int>(meshes[m].mesh->joint_remap().size());
    }
    const GLsizeiptr palette_bytes = static_cast<GLsizeiptr>(total) * 48;  // rows 0-2 of each matrix
    if (palette_bytes > pose_capacity) {
      pose_capacity = palette_bytes * 2;
      glNamedBufferData(pose_ssbo, pose_capacity, nullptr, GL_STREAM_COPY);
    }
    glUseProgram(pose_program);
    auto uniform = [&](const char* name) { return loc(name, pose_program); };
    glUniform1i(uniform("u_instances"), visible);
    glUniform1f(uniform("u_time"), global_time);
    glBindBufferBase(GL_UNIFORM_BUFFER, detail::kBindClips, clips_ubo);
    glBindTextureUnit(detail::kUnitBaked, baked_texture);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, instance_vbo);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, detail::kBindPoses, pose_ssbo);
    for (size_t m = 0; m < meshes.size(); ++m) {
      const int slots = static_cast<int>(meshes[m].mesh->joint_remap().size());
      if (slots == 0) continue;
      glBindBufferBase(GL_UNIFORM_BUFFER, detail::kBindMeshBind, meshes[m].bake_bind_ubo);
      glUniform1i(uniform("u_slots"), slots);
      glUniform1i(uniform("u_palette_base"), palette_base[m]);
      glUniform1i(uniform("u_corrected"), meshes[m].bake_corrected);
      const long long invocations = static_cast<long long>(visible) * slots;
      glDispatchCompute(static_cast<GLuint>((invocations + 63) / 64), 1, 1);
    }
    evaluate_baked_weights(visible, global_time);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
  }

  use_program(per_instance ? detail::kModeBakedPerInstance : detail::kModeBaked, Mat4{});
  glUniform1f(loc("u_time"), global_time);
  if (morph_texture) glBindTextureUnit(detail::kUnitMorphDeltas, morph_texture);
  for (size_t m = 0; m < meshes.size(); ++m) {
    GpuMesh& g = meshes[m];
    const int slots = static_cast<int>(g.mesh->joint_remap().size());
    glBindBufferBase(GL_UNIFORM_BUFFER, detail::kBindMeshBind, g.bake_bind_ubo);
    glUniform1i(loc("u_corrected"), g.bake_corrected);
    const detail::BakedMorphSlots& morphs = baked_morphs[m];
    glUniform1i(loc("u_baked_morph_count"), morphs.count);
    if (morphs.count > 0) {
      glUniform4fv(loc("u_baked_morph"), 2 * morphs.count, morphs.slots.data());
      glUniform1i(loc("u_morph_texels"), morphs.texels_per_vertex);
    }
    if (per_instance) glUniform1i(loc("u_slots"), slots);
    glVertexArrayVertexBuffer(g.vao, 2, instance_vbo, 0, detail::kInstanceFloats * 4);
    // One draw per level-of-detail group (draw_plan.h), each from its first instance (the base instance
    // offsets the per-instance attributes; u_palette_base offsets the palettes, as gl_InstanceID starts at
    // 0).
    for (int group = 0; group < detail::kLodGroups; ++group) {
      const int first = plan.group_first[group], count = plan.group_first[group + 1] - first;
      if (count == 0) continue;
      if (per_instance) {
        glUniform1i(loc("u_palette_base"), palette_base[m] + first * slots);
        glUniform1i(loc("u_influences"), group & detail::kLodGroupInfluences ? 2 : 4);
        if (morphs.count > 0) glUniform1i(loc("u_weight_base"), weight_base[m] + first * 2);
      }
      const bool decimated = (group & detail::kLodGroupDecimated) && g.lod_index_buffer;
      draw_mesh(g, count, static_cast<GLuint>(first), decimated);
      plan.stats.triangles +=
          static_cast<long long>(count) * ((decimated ? g.lod_index_count : g.index_count) / 3);
    }
    glVertexArrayVertexBuffer(g.vao, 2, dummy_instance_vbo, 0, detail::kInstanceFloats * 4);
  }
  return plan.stats;
}

Result<LodMeshInfo> GlRenderer::make_lod_mesh(float target_error) {
  using R = Result<LodMeshInfo>;
  if (!detail::has_mesh_simplifier())
    return R::failure(
        "no decimated level of detail: Ossa was built without meshoptimizer (Debian: "
        "libmeshoptimizer-dev)");
  if (!std::isfinite(target_error) || target_error <= 0)
    return R::failure("make_lod_mesh: the target error must be a positive number of model units");
  LodMeshInfo info;
  info.available = true;
  info.target_error = target_error;
  for (GpuMesh& g : meshes) {
    glDeleteBuffers(1, &g.lod_index_buffer);
    g.lod_index_buffer = 0;
    g.lod_index_count = g.index_count;
    const detail::SimplifiedMesh simplified = detail::simplify_mesh(*g.mesh, target_error);
    if (!simplified.indices.empty()) {
      glCreateBuffers(1, &g.lod_index_buffer);
      glNamedBufferStorage(g.lod_index_buffer, static_cast<GLsizeiptr>(simplified.indices.size() * 4),
                           simplified.indices.data(), 0);
      g.lod_index_count = static_cast<GLsizei>(simplified.indices.size());
    }
    info.error = std::max(info.error, simplified.error);
    info.full_triangles += g.index_count / 3;
    info.lod_triangles += g.lod_index_count / 3;
  }
  lod_info = info;
  return info;
}

void GlRenderer::draw_skeleton(const Mat4& world, std::span<const Mat4> model) {
  draw_lines(detail::skeleton_lines(asset->skeleton.parents(), world, model), false);
}

Image GlRenderer::end_frame() {
  Image image;
  image.width = fbo_width;
  image.height = fbo_height;
  image.rgba.resize(static_cast<size_t>(image.width) * image.height * 4);
  std::vector<uint8_t> flipped(image.rgba.size());
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, image.width, image.height, GL_RGBA, GL_UNSIGNED_BYTE, flipped.data());
  const size_t row = static_cast<size_t>(image.width) * 4;
  for (int y = 0; y < image.height; ++y)
    std::memcpy(&image.rgba[y * row], &flipped[(image.height - 1 - y) * row], row);
  return image;
}
}  // namespace

Result<bool> present_gl_frame(CharacterRenderer& renderer, int x, int y) {
  auto* gl = dynamic_cast<GlRenderer*>(&renderer);
  if (!gl)
    return Result<bool>::failure(std::string("present_gl_frame: a ") + renderer.backend() + " renderer");
  gl->present(x, y);
  return true;
}

Result<std::unique_ptr<CharacterRenderer>> create_gl_renderer(std::shared_ptr<GlContext> context,
                                                              const CharacterAsset& asset,
                                                              std::span<const Material> materials,
                                                              std::span<const Texture> textures,
                                                              bool flip_textures) {
  using R = Result<std::unique_ptr<CharacterRenderer>>;
  if (!context) return R::failure("create_gl_renderer: no GlContext");
  auto renderer = std::make_unique<GlRenderer>(std::move(context));
  if (auto ok = renderer->init(asset, materials, textures, flip_textures); !ok) return R::failure(ok.error());
  return std::unique_ptr<CharacterRenderer>(std::move(renderer));
}

Result<std::unique_ptr<CharacterRenderer>> create_gl_renderer(std::shared_ptr<GlContext> context,
                                                              const CharacterAsset& asset,
                                                              const ImportedScene& scene) {
  // Textures: glTF puts v = 0 at the image's top, FBX and COLLADA at its bottom.
  return create_gl_renderer(std::move(context), asset, scene.materials, scene.textures,
                            scene.format != "gltf");
}

}  // namespace ossa
