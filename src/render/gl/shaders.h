// Internal: GLSL 4.50 sources of the character pipeline (one vertex shader for every skinning path, one
// fragment shader for the five lighting modes), of the per-instance compute pass of baked crowds, and of the
// line pipeline (grid, skeleton).
#pragma once

namespace ossa::detail {

// Vertex attribute locations and uniform-block bindings shared with gl_renderer.cpp.
enum : int {
  kAttrPosition = 0,
  kAttrNormal = 1,
  kAttrTangent = 2,
  kAttrUv = 3,
  kAttrJoints = 4,
  kAttrWeights = 5,
  kAttrWorld0 = 6,  // 6..9: per-instance world matrix columns
  kAttrAnim = 10,   // per instance: clip, time, speed, clip2
  kAttrBlend = 11,  // per instance: weight of clip2
};
enum : int { kBindPalette = 0, kBindMeshBind = 1, kBindClips = 2 };
enum : int { kUnitDiffuse = 0, kUnitNormal = 1, kUnitBaked = 2 };
enum : int { kBindPoses = 3 };    // shader storage: per-instance poses (compute output, vertex input)
enum : int { kBindWeights = 4 };  // shader storage: per-instance morph weights (compute output, vertex input)
enum : int { kModePalette = 0, kModeStatic = 1, kModeBaked = 2, kModeBakedPerInstance = 3, kModes = 4 };
// Sources are assembled as kGlslVersion + parts: the vertex shader is "#define OSSA_MODE m" (one program per
// mode: a software rasteriser such as llvmpipe runs every side of a branch on a uniform, so one shader for
// all paths made each pay for the others) + kCharacterVertexInputs + kBakedSampling + kMorphVertexFunctions
// (morph_shaders.h) + kBakedMorphFunctions + kCharacterVertexMain (with kInstancePosesDefine first where
// vertex shaders may read shader storage); the compute pass is kBakedSampling + kBakedPoseComputeShader.
inline const char* kGlslVersion = "#version 450 core\n";
inline const char* kInstancePosesDefine = "#define OSSA_INSTANCE_POSES 1\n";

// The baked animation texture and its clip table, read by the vertex shader (per-vertex evaluation) and by
// the per-instance compute pass: one copy of the sampling, so the two evaluations agree.
inline const char* kBakedSampling = R"(
layout(std140, binding = 2) uniform Clips { vec4 u_clip[64]; };  // frames, frame rate, duration, layer
layout(binding = 2) uniform sampler2DArray u_baked;

mat4 baked_matrix(int joint, int frame, int layer) {
  vec4 r0 = texelFetch(u_baked, ivec3(joint * 3 + 0, frame, layer), 0);
  vec4 r1 = texelFetch(u_baked, ivec3(joint * 3 + 1, frame, layer), 0);
  vec4 r2 = texelFetch(u_baked, ivec3(joint * 3 + 2, frame, layer), 0);
  return transpose(mat4(r0, r1, r2, vec4(0, 0, 0, 1)));
}

mat4 lerp_matrix(mat4 a, mat4 b, float t) { return a + (b - a) * t; }

// The two frames around looped time t in clip `clip` and the weight of the second: (f0, f1, weight, layer).
vec4 baked_frames(int clip, float t) {
  vec4 info = u_clip[clip];
  int frames = int(info.x);
  float rate = info.y, duration = info.z;
  t = duration > 0.0 ? mod(t, duration) : 0.0;
  float f = t * rate;
  int f0 = min(int(floor(f)), frames - 1);
  int f1 = min(f0 + 1, frames - 1);
  float a = f - float(f0);
  if (f0 == frames - 2) {  // the last frame sits at the clip's end, possibly closer than a full frame
    float start = float(f0) / rate;
    a = duration > start ? clamp((t - start) / (duration - start), 0.0, 1.0) : 0.0;
  }
  if (f0 >= frames - 1) a = 0.0;
  return vec4(f0, f1, a, info.w);
}

// A morph weight of the bake (baked_morph_plan.h: its texel `column`, its component `mask`) in frames `f`
// (baked_frames()), interpolated as the matrices are.
float baked_weight(vec4 f, int column, vec4 mask) {
  const float w0 = dot(texelFetch(u_baked, ivec3(column, int(f.x), int(f.w)), 0), mask);
  return w0 + (dot(texelFetch(u_baked, ivec3(column, int(f.y), int(f.w)), 0), mask) - w0) * f.z;
}

// Skinning matrix of `joint` in clip `clip` at looped time t, interpolated between the two frames around it.
mat4 baked_model(int joint, int clip, float t) {
  const vec4 f = baked_frames(clip, t);
  const int layer = int(f.w);
  return lerp_matrix(baked_matrix(joint, int(f.x), layer), baked_matrix(joint, int(f.y), layer), f.z);
}

)";

inline const char* kCharacterVertexInputs = R"(layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec4 a_tangent;
layout(location = 3) in vec2 a_uv;
layout(location = 4) in uvec4 a_joints;
layout(location = 5) in vec4 a_weights;
layout(location = 6) in vec4 i_world0;
layout(location = 7) in vec4 i_world1;
layout(location = 8) in vec4 i_world2;
layout(location = 9) in vec4 i_world3;
layout(location = 10) in vec4 i_anim;   // clip, time, speed, clip2 (-1: none)
layout(location = 11) in float i_blend; // weight of clip2

layout(std140, binding = 0) uniform Palette { mat4 u_palette[256]; };
layout(std140, binding = 1) uniform MeshBind { mat4 u_bind_correction[256]; ivec4 u_remap[64]; };

#ifdef OSSA_INSTANCE_POSES
uniform int u_palette_base;   // mode 3: this mesh's first palette matrix, for this draw's first instance
uniform int u_slots;          // mode 3: palette matrices per instance for this mesh
uniform int u_influences;     // mode 3: influences used (4; 2 at a reduced level of detail)
layout(std430, binding = 3) readonly buffer InstancePalettes { vec4 p_rows[]; };  // mode 3: rows 0-2 per matrix
#endif
uniform mat4 u_world;
uniform mat4 u_view_proj;
uniform float u_time;
uniform bool u_corrected;  // the mesh's inverse binds differ from the skeleton's: apply u_bind_correction

out vec3 v_position;
out vec3 v_normal;
out vec4 v_tangent;
out vec2 v_uv;
)";

// Morph targets on the baked path (slots: src/render/baked_morph_plan.h), after kMorphVertexFunctions (its
// delta texture): MorphJob's sum over the mesh's slots for the vertices inside each window, before skinning,
// with the instance's weights interpolated between the frames and clips its matrices are: by this vertex
// (mode 2), or once per instance by kBakedWeightComputeShader (mode 3).
inline const char* kBakedMorphFunctions = R"(
uniform int u_baked_morph_count;  // the mesh's slots (0: none)
uniform vec4 u_baked_morph[16];   // per slot: weight texel, first texel, first vertex, vertex count; mask
#if OSSA_MODE == 3 && defined(OSSA_INSTANCE_POSES)
uniform int u_weight_base;  // this mesh's first weight vector, for this draw's first instance
layout(std430, binding = 4) readonly buffer InstanceWeights { vec4 p_weights[]; };  // 2 per instance
#endif

void apply_baked_morphs(inout vec3 position, inout vec3 normal, inout vec3 tangent) {
#if OSSA_MODE != 3 || !defined(OSSA_INSTANCE_POSES)
  const int clip2 = int(i_anim.w);
  const float t = i_anim.y + u_time * i_anim.z;
  const bool blend = clip2 >= 0 && i_blend > 0.0;
  const vec4 frames = baked_frames(int(i_anim.x), t), frames2 = blend ? baked_frames(clip2, t) : vec4(0.0);
#endif
  for (int s = 0; s < u_baked_morph_count; ++s) {
    const vec4 target = u_baked_morph[2 * s];
    const int local = gl_VertexID - int(target.z);
    if (local < 0 || local >= int(target.w)) continue;
#if OSSA_MODE == 3 && defined(OSSA_INSTANCE_POSES)
    const float w = p_weights[u_weight_base + gl_InstanceID * 2 + (s >> 2)][s & 3];
#else
    const vec4 mask = u_baked_morph[2 * s + 1];
    float w = baked_weight(frames, int(target.x), mask);
    if (blend) w += (baked_weight(frames2, int(target.x), mask) - w) * i_blend;
#endif
    const int texel = int(target.y) + u_morph_texels * local;
    position += w * morph_delta(texel);
    normal += w * morph_delta(texel + 1);
    if (u_morph_texels == 3) tangent += w * morph_delta(texel + 2);
  }
}
)";

// Per-instance evaluation of the morph weights (after kBakedSampling): one invocation per instance writes the
// mesh's slots' weights for it (2 vectors of 4), interpolated between frames and clips as the vertex
// shader's mode 2 interpolates them; the instanced vertex shader (mode 3) then reads one value per slot.
inline const char* kBakedWeightComputeShader = R"(
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer Instances { float i_data[]; };  // 24 floats per instance
layout(std430, binding = 4) writeonly buffer InstanceWeights { vec4 p_weights[]; };
uniform int u_instances;
uniform int u_weight_base;  // where the mesh's weights start in p_weights
uniform float u_time;
uniform int u_baked_morph_count;
uniform vec4 u_baked_morph[16];  // the mesh's slots, as kBakedMorphFunctions reads them

void main() {
  const int instance = int(gl_GlobalInvocationID.x);
  if (instance >= u_instances) return;
  const int at = instance * 24 + 16;  // after the world matrix: clip, time, speed, clip2, weight
  const int clip2 = int(i_data[at + 3]);
  const float t = i_data[at + 1] + u_time * i_data[at + 2], blend_weight = i_data[at + 4];
  const bool blend = clip2 >= 0 && blend_weight > 0.0;
  const vec4 frames = baked_frames(int(i_data[at]), t), frames2 = blend ? baked_frames(clip2, t) : vec4(0.0);
  vec4 weights[2] = vec4[2](vec4(0.0), vec4(0.0));
  for (int s = 0; s < u_baked_morph_count; ++s) {
    const int column = int(u_baked_morph[2 * s].x);
    const vec4 mask = u_baked_morph[2 * s + 1];
    float w = baked_weight(frames, column, mask);
    if (blend) w += (baked_weight(frames2, column, mask) - w) * blend_weight;
    weights[s >> 2][s & 3] = w;
  }
  p_weights[u_weight_base + instance * 2] = weights[0];
  p_weights[u_weight_base + instance * 2 + 1] = weights[1];
}
)";

inline const char* kCharacterVertexMain = R"(
void main() {
  mat4 skin = mat4(1.0);
  mat4 world = u_world;
  if (OSSA_MODE == 0) {
    skin = a_weights.x * u_palette[a_joints.x] + a_weights.y * u_palette[a_joints.y] +
           a_weights.z * u_palette[a_joints.z] + a_weights.w * u_palette[a_joints.w];
  } else if (OSSA_MODE == 2) {
    world = mat4(i_world0, i_world1, i_world2, i_world3);
    int clip = int(i_anim.x), clip2 = int(i_anim.w);
    float t = i_anim.y + u_time * i_anim.z;
    skin = mat4(0.0);
    for (int i = 0; i < 4; ++i) {
      float w = a_weights[i];
      if (w == 0.0) continue;
      uint slot = a_joints[i];
      int joint = u_remap[slot / 4u][slot % 4u];
      mat4 model = baked_model(joint, clip, t);
      if (clip2 >= 0 && i_blend > 0.0) model = lerp_matrix(model, baked_model(joint, clip2, t), i_blend);
      skin += w * (u_corrected ? model * u_bind_correction[slot] : model);
    }
  }
#ifdef OSSA_INSTANCE_POSES
  else if (OSSA_MODE == 3) {  // the palette path's blend on this instance's palette (world included), by rows
    world = mat4(1.0);
    const ivec4 at = (u_palette_base + gl_InstanceID * u_slots + ivec4(a_joints)) * 3;
    vec4 w = a_weights;
    if (u_influences <= 2) w = vec4(w.xy / max(w.x + w.y, 1e-6), 0.0, 0.0);  // the two strongest, renormalised
    vec4 r0 = w.x * p_rows[at.x] + w.y * p_rows[at.y];
    vec4 r1 = w.x * p_rows[at.x + 1] + w.y * p_rows[at.y + 1];
    vec4 r2 = w.x * p_rows[at.x + 2] + w.y * p_rows[at.y + 2];
    if (u_influences > 2) {  // uniform: every vertex of the draw takes the same branch
      r0 += w.z * p_rows[at.z] + w.w * p_rows[at.w];
      r1 += w.z * p_rows[at.z + 1] + w.w * p_rows[at.w + 1];
      r2 += w.z * p_rows[at.z + 2] + w.w * p_rows[at.w + 2];
    }
    skin = transpose(mat4(r0, r1, r2, vec4(0, 0, 0, 1)));
  }
#endif
  mat4 m = world * skin;
  vec3 position = a_position, normal = a_normal, tangent = a_tangent.xyz;
  if (OSSA_MODE == 0) apply_morphs(position, normal, tangent);  // morph_shaders.h: before skinning
  if ((OSSA_MODE == 2 || OSSA_MODE == 3) && u_baked_morph_count > 0) apply_baked_morphs(position, normal, tangent);
  vec4 p = m * vec4(position, 1.0);
  v_position = p.xyz;
  v_normal = mat3(m) * normal;
  v_tangent = vec4(mat3(m) * tangent, a_tangent.w);
  v_uv = a_uv;
  gl_Position = u_view_proj * p;
}
)";

// Per-instance evaluation of the bake: one invocation per (instance, palette slot of one mesh) writes that
// slot's skinning matrix for the instance, with the bind correction and the instance's world matrix applied
// (rows 0-2; the last is 0 0 0 1). The instanced vertex shader then blends 4 matrices per vertex (12 loads)
// and needs no world transform of its own: less work per vertex than palette skinning, instead of sampling
// and interpolating the bake per vertex and influence.
inline const char* kBakedPoseComputeShader = R"(
layout(local_size_x = 64) in;
layout(std140, binding = 1) uniform MeshBind { mat4 u_bind_correction[256]; ivec4 u_remap[64]; };
layout(std430, binding = 0) readonly buffer Instances { float i_data[]; };  // 24 floats per instance
layout(std430, binding = 3) writeonly buffer InstancePalettes { vec4 p_rows[]; };  // rows 0-2 per matrix
uniform int u_slots;         // palette slots of the mesh
uniform int u_instances;     // instances to evaluate
uniform int u_palette_base;  // where the mesh's palettes start in p_palette
uniform float u_time;
uniform bool u_corrected;

void main() {
  const int id = int(gl_GlobalInvocationID.x);
  if (id >= u_slots * u_instances) return;
  const int instance = id / u_slots, slot = id - instance * u_slots;
  const int joint = u_remap[slot / 4][slot % 4];
  const int at = instance * 24 + 16;  // after the world matrix: clip, time, speed, clip2, weight
  const int clip = int(i_data[at]), clip2 = int(i_data[at + 3]);
  const float t = i_data[at + 1] + u_time * i_data[at + 2], weight = i_data[at + 4];
  mat4 model = baked_model(joint, clip, t);
  if (clip2 >= 0 && weight > 0.0) model = lerp_matrix(model, baked_model(joint, clip2, t), weight);
  const int w = instance * 24;  // the instance's world matrix, column-major
  const mat4 world = mat4(i_data[w], i_data[w + 1], i_data[w + 2], i_data[w + 3], i_data[w + 4], i_data[w + 5],
                          i_data[w + 6], i_data[w + 7], i_data[w + 8], i_data[w + 9], i_data[w + 10], i_data[w + 11],
                          i_data[w + 12], i_data[w + 13], i_data[w + 14], i_data[w + 15]);
  const mat4 rows = transpose(world * (u_corrected ? model * u_bind_correction[slot] : model));
  const int row = (u_palette_base + id) * 3;
  p_rows[row] = rows[0];
  p_rows[row + 1] = rows[1];
  p_rows[row + 2] = rows[2];
}
)";

inline const char* kCharacterFragmentShader = R"(#version 450 core
in vec3 v_position;
in vec3 v_normal;
in vec4 v_tangent;
in vec2 v_uv;
out vec4 o_color;

layout(binding = 0) uniform sampler2D u_diffuse;
layout(binding = 1) uniform sampler2D u_normal_map;
uniform int u_lighting;  // 0 Phong, 1 Blinn-Phong, 2 Lambert, 3 unlit, 4 texture-only
uniform vec4 u_base_color;
uniform bool u_has_diffuse;
uniform bool u_has_normal_map;
uniform bool u_has_tangents;
uniform vec3 u_eye;

const vec3 kLightDirection = normalize(vec3(0.4, 1.0, 0.6));  // towards the light
const float kAmbient = 0.25;

void main() {
  vec4 texel = u_has_diffuse ? texture(u_diffuse, v_uv) : vec4(1.0);
  if (u_lighting == 4) { o_color = vec4(u_has_diffuse ? texel.rgb : u_base_color.rgb, 1.0); return; }
  vec3 albedo = u_base_color.rgb * texel.rgb;
  if (u_lighting == 3) { o_color = vec4(albedo, 1.0); return; }
  vec3 n = normalize(v_normal);
  if (u_has_normal_map && u_has_tangents) {
    vec3 t = normalize(v_tangent.xyz - n * dot(n, v_tangent.xyz));
    vec3 b = cross(n, t) * v_tangent.w;
    vec3 m = texture(u_normal_map, v_uv).xyz * 2.0 - 1.0;
    n = normalize(mat3(t, b, n) * m);
  }
  vec3 v = normalize(u_eye - v_position);
  if (dot(n, v) < 0.0) n = -n;  // two-sided: capes and thin props are seen from both sides
  float diffuse = max(dot(n, kLightDirection), 0.0);
  float specular = 0.0;
  if (u_lighting == 0) specular = pow(max(dot(reflect(-kLightDirection, n), v), 0.0), 24.0) * 0.35;
  if (u_lighting == 1) specular = pow(max(dot(n, normalize(kLightDirection + v)), 0.0), 64.0) * 0.35;
  if (diffuse == 0.0) specular = 0.0;
  o_color = vec4(albedo * (kAmbient + (1.0 - kAmbient) * diffuse) + vec3(specular), 1.0);
}
)";

inline const char* kLineVertexShader = R"(#version 450 core
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_color;
uniform mat4 u_view_proj;
out vec3 v_color;
void main() { v_color = a_color; gl_Position = u_view_proj * vec4(a_position, 1.0); }
)";

inline const char* kLineFragmentShader = R"(#version 450 core
in vec3 v_color;
out vec4 o_color;
void main() { o_color = vec4(v_color, 1.0); }
)";

}  // namespace ossa::detail
