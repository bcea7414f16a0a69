// What every backend draws (draw_plan.h), and the backend-neutral parts of ossa/render/renderer.h.
#include "draw_plan.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "morph_plan.h"
#include "ossa/runtime/morph_job.h"
#include "ossa/runtime/palette_job.h"
#include "ossa/runtime/skinning_job.h"

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

Result<LodMeshInfo> CharacterRenderer::make_lod_mesh(float) {
  return Result<LodMeshInfo>::failure(std::string("the ") + backend() +
                                      " renderer has no decimated level of detail");
}

const char* to_string(BakedEvaluation evaluation) {
  return evaluation == BakedEvaluation::kPerInstance ? "per-instance" : "per-vertex";
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

std::vector<BakedInstance> crowd_grid(const CharacterAsset& asset, int count, float spacing, uint32_t seed) {
  std::vector<BakedInstance> out;
  if (count <= 0 || asset.clips.empty()) return out;
  std::mt19937 rng(seed);
  const int side = static_cast<int>(std::ceil(std::sqrt(static_cast<double>(count))));
  for (int i = 0; i < count; ++i) {
    BakedInstance b;
    const float x = (static_cast<float>(i % side) - static_cast<float>(side - 1) / 2.f) * spacing,
                z = -static_cast<float>(i / side) * spacing;
    b.world = translation_matrix({x, 0, z}) * rotation_matrix(quat_from_axis_angle(
                                                  {0, 1, 0}, static_cast<float>(rng() % 628) / 100.f * 0.3f));
    b.clip = static_cast<int>(rng() % asset.clips.size());
    b.time = std::uniform_real_distribution<float>(0, asset.clips[b.clip].duration())(rng);
    b.speed = 1;
    out.push_back(b);
  }
  return out;
}

namespace detail {

Mat4 look_at(Vec3 eye, Vec3 target, Vec3 up) {
  Vec3 f = normalize(target - eye), s = normalize(cross(f, up)), u = cross(s, f);
  Mat4 m;
  m.at(0, 0) = s.x, m.at(0, 1) = s.y, m.at(0, 2) = s.z, m.at(0, 3) = -dot(s, eye);
  m.at(1, 0) = u.x, m.at(1, 1) = u.y, m.at(1, 2) = u.z, m.at(1, 3) = -dot(u, eye);
  m.at(2, 0) = -f.x, m.at(2, 1) = -f.y, m.at(2, 2) = -f.z, m.at(2, 3) = dot(f, eye);
  return m;
}

Mat4 view_projection(const FrameSettings& frame, DepthRange range) {
  const Camera& c = frame.camera;
  const float aspect = static_cast<float>(frame.width) / static_cast<float>(frame.height);
  const float f = 1 / std::tan(c.fov_y_degrees * 3.14159265f / 180.f / 2);
  const float n = c.near_plane, far = c.far_plane;
  Mat4 p;
  p.at(0, 0) = f / aspect;
  p.at(1, 1) = f;
  if (range == DepthRange::kMinusOneToOne) {
    p.at(2, 2) = (far + n) / (n - far);
    p.at(2, 3) = 2 * far * n / (n - far);
  } else {
    p.at(2, 2) = far / (n - far);
    p.at(2, 3) = far * n / (n - far);
  }
  p.at(3, 2) = -1;
  p.at(3, 3) = 0;
  return p * look_at(c.eye, c.target, {0, 1, 0});
}

std::vector<float> grid_lines(const Camera& c) {
  const float extent = length(c.eye - c.target);
  const float cell = std::pow(10.f, std::floor(std::log10(std::max(extent / 10, 1e-4f))));
  std::vector<float> lines;
  const int half = 10;
  const Vec3 o{std::round(c.target.x / cell) * cell, 0, std::round(c.target.z / cell) * cell};
  for (int i = -half; i <= half; ++i) {
    const float shade = i == 0 ? 0.55f : 0.32f;
    const float a = static_cast<float>(i) * cell, e = half * cell;
    lines.insert(lines.end(),
                 {o.x + a, 0, o.z - e, shade, shade, shade, o.x + a, 0, o.z + e, shade, shade, shade});
    lines.insert(lines.end(),
                 {o.x - e, 0, o.z + a, shade, shade, shade, o.x + e, 0, o.z + a, shade, shade, shade});
  }
  return lines;
}

std::vector<float> skeleton_lines(std::span<const int> parents, const Mat4& world,
                                  std::span<const Mat4> model) {
  std::vector<float> lines;
  for (size_t j = 0; j < model.size() && j < parents.size(); ++j) {
    if (parents[j] < 0) continue;
    const Vec3 a = transform_point(world, model[parents[j]].translation()),
               b = transform_point(world, model[j].translation());
    lines.insert(lines.end(), {a.x, a.y, a.z, 1.f, 0.85f, 0.2f, b.x, b.y, b.z, 1.f, 0.85f, 0.2f});
  }
  return lines;
}

std::vector<float> colored_lines(std::span<const Vec3> endpoints, Vec3 color) {
  std::vector<float> lines;
  lines.reserve(endpoints.size() / 2 * 12);
  for (size_t i = 0; i + 1 < endpoints.size(); i += 2)
    for (const Vec3& p : {endpoints[i], endpoints[i + 1]})
      lines.insert(lines.end(), {p.x, p.y, p.z, color.x, color.y, color.z});
  return lines;
}

std::vector<StaticVertex> static_vertices(const SkinnedMesh& mesh) {
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
  return vertices;
}

void skin_on_cpu(const SkinnedMesh& mesh, std::span<const Mat4> model, std::span<const float> morph_weights,
                 CpuSkinningScratch& scratch, std::vector<float>& stream) {
  const int n = mesh.vertex_count();
  scratch.palette.resize(mesh.inverse_binds().size());
  PaletteJob{model, mesh.inverse_binds(), mesh.joint_remap(), scratch.palette, {}}.run();
  stream.assign(static_cast<size_t>(n) * kSkinnedFloats, 0.f);
  std::span<const float> in_normals = mesh.normals();
  std::span<const float> in_tangents = mesh.tangents();
  if (mesh.normals().empty()) {
    scratch.normals.assign(static_cast<size_t>(n) * 3, 0.f);
    in_normals = scratch.normals;
  }
  if (mesh.tangents().empty()) {
    scratch.tangents.assign(static_cast<size_t>(n) * 4, 0.f);
    for (int v = 0; v < n; ++v) scratch.tangents[v * 4] = 1, scratch.tangents[v * 4 + 3] = 1;
    in_tangents = scratch.tangents;
  }
  // One interleaved stream (position, normal, tangent) through the strided SkinningJob.
  SkinningJob job = SkinningJob::for_mesh(mesh, scratch.palette);
  if (any_active(morph_weights)) {  // morph before skinning: MorphJob's output is SkinningJob's input
    scratch.morphed_positions.resize(mesh.positions().size());
    scratch.morphed_normals.resize(mesh.normals().size());
    scratch.morphed_tangents.resize(mesh.tangents().size());
    MorphJob morph = MorphJob::for_mesh(mesh, morph_weights);
    morph.out_positions = scratch.morphed_positions;
    morph.out_normals = scratch.morphed_normals;
    morph.out_tangents = scratch.morphed_tangents;
    if (morph.run()) {
      job.in_positions = scratch.morphed_positions;
      if (!mesh.normals().empty()) in_normals = scratch.morphed_normals;
      if (!mesh.tangents().empty()) in_tangents = scratch.morphed_tangents;
    }
  }
  job.in_normals = in_normals;
  job.in_tangents = in_tangents;
  const size_t stride = kSkinnedFloats * sizeof(float), count = static_cast<size_t>(n);
  job.out_positions = strided_span(stream.data(), stride, count, 3);
  job.out_normals = strided_span(stream.data() + 3, stride, count, 3);
  job.out_tangents = strided_span(stream.data() + 6, stride, count, 4);
  job.out_positions_stride = job.out_normals_stride = job.out_tangents_stride = stride;
  job.run();
}

MeshMaterial mesh_material(const SkinnedMesh& mesh, std::span<const Material> materials) {
  MeshMaterial out;
  out.has_tangents = !mesh.tangents().empty();
  if (mesh.material() >= 0 && mesh.material() < static_cast<int>(materials.size())) {
    const Material& m = materials[mesh.material()];
    out.base_color = m.base_color;
    out.diffuse = m.diffuse_texture;
    out.normal_map = m.normal_texture;
  }
  return out;
}

BakeBindings bake_bindings(const CharacterAsset& asset, const SkinnedMesh& mesh) {
  BakeBindings out;
  out.bytes.assign(kBakeBindingsBytes, 0);
  auto* corrections = reinterpret_cast<Mat4*>(out.bytes.data());
  auto* remap = reinterpret_cast<int32_t*>(out.bytes.data() + kMaxPaletteJoints * 64);
  for (size_t k = 0; k < mesh.joint_remap().size() && k < kMaxPaletteJoints; ++k) {
    const Mat4& skeleton_bind = asset.skeleton.inverse_binds()[mesh.joint_remap()[k]];
    corrections[k] = inverse(skeleton_bind) * mesh.inverse_binds()[k];
    for (int e = 0; e < 16; ++e)
      out.corrected = out.corrected || std::fabs(corrections[k].m[e] - Mat4{}.m[e]) > 1e-5f;
    remap[k] = mesh.joint_remap()[k];
  }
  return out;
}

Result<bool> check_bake(const BakedAnimation& baked, int max_side, int max_layers, const char* device) {
  const auto texels = static_cast<uint64_t>(std::max(baked.width, 0)) *
                      static_cast<uint64_t>(std::max(baked.height, 0)) *
                      static_cast<uint64_t>(std::max(baked.layers, 0)) * 4;
  const uint64_t held = baked.half ? baked.halves.size() : baked.texels.size();
  if (baked.width <= 0 || baked.height <= 0 || baked.layers <= 0 || held != texels)
    return Result<bool>::failure("the bake is malformed: " + std::to_string(baked.width) + " x " +
                                 std::to_string(baked.height) + " x " + std::to_string(baked.layers) +
                                 " texels, " + std::to_string(held) + " values");
  if (baked.width > max_side || baked.height > max_side || baked.layers > max_layers)
    return Result<bool>::failure(
        "the bake is " + std::to_string(baked.width) + " x " + std::to_string(baked.height) + " texels x " +
        std::to_string(baked.layers) + " clips; " + device + " holds at most " + std::to_string(max_side) +
        " a side and " + std::to_string(max_layers) + " layers: bake at a lower frame rate or fewer clips");
  return true;
}

std::array<float, kMaxBakedClips * 4> clip_table(const BakedAnimation& baked) {
  std::array<float, kMaxBakedClips * 4> table{};
  for (size_t c = 0; c < baked.clips.size() && c < kMaxBakedClips; ++c) {
    const BakedClipInfo& i = baked.clips[c];
    table[c * 4] = static_cast<float>(i.frame_count);
    table[c * 4 + 1] = i.frame_rate;
    table[c * 4 + 2] = i.duration;
    table[c * 4 + 3] = static_cast<float>(i.layer);
  }
  return table;
}

namespace {
// The frame index the baked shaders start from at time t (baked_model(), in double precision).
int baked_frame(const BakedClipInfo& clip, double t) {
  t = clip.duration > 0 ? t - clip.duration * std::floor(t / clip.duration) : 0;
  return std::clamp(static_cast<int>(std::floor(t * clip.frame_rate)), 0, clip.frame_count - 1);
}

// Frustum planes (a, b, c, d: inside where a x + b y + c z + d >= 0) of a [-1, 1]-depth view-projection.
std::array<Vec4, 6> frustum_planes(const Mat4& m) {
  auto row = [&](int r) { return Vec4{m.at(r, 0), m.at(r, 1), m.at(r, 2), m.at(r, 3)}; };
  const Vec4 x = row(0), y = row(1), z = row(2), w = row(3);
  auto add = [](Vec4 a, Vec4 b, float s) {
    return Vec4{a.x + s * b.x, a.y + s * b.y, a.z + s * b.z, a.w + s * b.w};
  };
  return {add(w, x, 1), add(w, x, -1), add(w, y, 1), add(w, y, -1), add(w, z, 1), add(w, z, -1)};
}

// The box around instance `b`'s skinned vertices at `global_time` (model space), from the bake's bounds.
void animated_box(std::span<const BakedClipInfo> clips, const BakedInstance& b, float global_time, Vec3& lo,
                  Vec3& hi) {
  lo = {1e30f, 1e30f, 1e30f}, hi = {-1e30f, -1e30f, -1e30f};
  const double t = static_cast<double>(b.time) + static_cast<double>(global_time) * b.speed;
  auto add_clip = [&](int c) {
    if (c < 0 || c >= static_cast<int>(clips.size())) return;
    const BakedClipInfo& clip = clips[c];
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
}  // namespace

void plan_baked_draw(std::span<const BakedInstance> instances, float global_time,
                     const BakedDrawOptions& options, bool reduce, bool decimate, const FrameSettings& frame,
                     std::span<const BakedClipInfo> clips, BakedDrawPlan& plan) {
  plan.instance_data.clear();
  for (auto& group : plan.deferred) group.clear();
  plan.stats = {};
  const bool reducing = reduce && options.lod_pixels > 0,
             decimating = decimate && options.lod_mesh_pixels > 0;
  // Culling is geometric: the [-1, 1] convention's planes are the same planes whatever the backend's depth.
  const std::array<Vec4, 6> planes = frustum_planes(view_projection(frame, DepthRange::kMinusOneToOne));
  const Camera& camera = frame.camera;
  // Screen pixels per unit of size at distance 1 (the projection's vertical scale).
  const float pixels_per_unit =
      0.5f * static_cast<float>(frame.height) / std::tan(camera.fov_y_degrees * 3.14159265f / 360.f);
  auto append = [&](const BakedInstance& b) {
    const size_t at = plan.instance_data.size();
    plan.instance_data.resize(at + kInstanceFloats, 0.f);
    float* d = &plan.instance_data[at];
    std::memcpy(d, b.world.m, 64);
    d[16] = static_cast<float>(b.clip), d[17] = b.time, d[18] = b.speed, d[19] = static_cast<float>(b.clip2);
    d[20] = b.weight;
  };
  for (const BakedInstance& b : instances) {
    int group = 0;
    if (options.cull || reducing || decimating) {
      Vec3 lo, hi;
      animated_box(clips, b, global_time, lo, hi);
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
        ++plan.stats.culled;
        continue;
      }
      const float radius = length(extent), distance = length(centre - camera.eye);
      if (distance > radius) {
        const float pixels = radius / distance * pixels_per_unit;
        if (reducing && pixels < options.lod_pixels) group |= kLodGroupInfluences;
        if (decimating && pixels < options.lod_mesh_pixels) group |= kLodGroupDecimated;
      }
    }
    if (group == 0)
      append(b);
    else
      plan.deferred[group].push_back(&b);
  }
  plan.group_first[0] = 0;
  for (int g = 1; g < kLodGroups; ++g) {
    plan.group_first[g] = static_cast<int>(plan.instance_data.size() / kInstanceFloats);
    for (const BakedInstance* b : plan.deferred[g]) append(*b);
  }
  plan.visible = plan.group_first[kLodGroups] = static_cast<int>(plan.instance_data.size() / kInstanceFloats);
  plan.stats.drawn = plan.visible;
  for (int g = 1; g < kLodGroups; ++g) {
    const int count = plan.group_first[g + 1] - plan.group_first[g];
    if (g & kLodGroupInfluences) plan.stats.reduced += count;
    if (g & kLodGroupDecimated) plan.stats.decimated += count;
  }
}

}  // namespace detail
}  // namespace ossa
