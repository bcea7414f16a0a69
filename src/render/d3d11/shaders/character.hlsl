// The character pipeline of the Direct3D 11 backend: one vertex shader for every skinning path, one pixel
// shader for the five lighting modes. The same computation as the GL backend's GLSL (src/render/gl/shaders.h);
// the tests compare their pixels.
//
// Written for the HLSL compilers Ossa meets: Microsoft's d3dcompiler_47 and Wine 8's (vkd3d-shader 1.6), which
// refuses dynamic indexing of constant-buffer arrays and of local arrays, Buffer<> and StructuredBuffer<>. So
// every table indexed per vertex (palette, bind corrections, slot -> joint map, clip table) is a texture read
// with Load(), and matrices are affine 3x4 rows (three float4), combined with dot products: no matrix packing
// rules to get wrong.

cbuffer Frame : register(b0) {
  float4 view_proj[4];  // columns of the view-projection (Direct3D depth: [0, 1])
  float4 world[4];      // columns of the draw's world matrix (palette and CPU paths)
  float4 eye;           // camera position (xyz)
  int mode;             // 0: palette, 1: static (CPU-skinned), 2: baked (per vertex)
  int lighting;         // 0 Phong, 1 Blinn-Phong, 2 Lambert, 3 unlit, 4 texture-only
  int corrected;        // baked: the mesh's inverse binds differ from the skeleton's: apply the corrections
  float global_time;    // baked: the crowd clock
  float4 base_color;
  int has_diffuse;
  int has_normal_map;
  int has_tangents;
  int padding;
};

Texture2D<float4> palette_rows : register(t0);      // palette: 3 texels (rows 0-2) per palette slot
Texture2D<float4> bind_table : register(t1);        // baked: 3 texels per slot (correction), then its joint
Texture2DArray<float4> baked : register(t2);  // baked: rows 0-2 of each joint's model matrix per frame
Texture2D<float4> clip_table : register(t3);        // baked: per clip frames, frame rate, duration, layer
Texture2D<float4> diffuse_map : register(t4);
Texture2D<float4> normal_map : register(t5);
SamplerState linear_repeat : register(s0);

// Morph targets on the palette path (src/render/morph_plan.h), applied before skinning as MorphJob does.
cbuffer Morph : register(b1) {
  float4 morph_slots[8];  // per active target: weight, first texel, first vertex, vertex count
  int morph_count;        // active targets in morph_slots (0: none)
  int morph_texels;       // texels per vertex: 2 (position, normal delta) or 3 (and tangent delta)
  int2 morph_padding;
};
Texture2D<float4> morph_deltas : register(t6);  // 4096 texels a row

// Morph targets on the baked path (src/render/baked_morph_plan.h): the mesh's slots, the same for every
// instance; each instance's weights come from the bake's rows, interpolated as its matrices are.
cbuffer BakedMorph : register(b2) {
  float4 baked_morph[16];  // per slot: weight texel, first texel, first vertex, vertex count; then the
                           // one-hot mask of the weight's component
  int baked_morph_count;   // slots in baked_morph (0: none)
  int baked_morph_texels;  // texels per vertex on morph_deltas: 2, or 3 with tangent deltas
  int2 baked_morph_padding;
};

static const int kRemapTexel = 768;  // bind_table: 256 slots x 3 rows of corrections, then each slot's joint

// Wine 8's compiler (vkd3d-shader 1.6) has no calls to user-defined functions, no ternary operator, skips an
// `if` whose block holds a loop, does not end the shader at a `return` inside an `if`, and its preprocessor
// does not substitute a macro's parameters inside another macro's arguments (tests/test_d3d11.cpp caught each).
// So the shared steps are flat macros over 3-row affine matrices (rows 0-2 of a 4x4 matrix whose last row is
// 0 0 0 1), named by a prefix: M##0, M##1, M##2, used only directly in the shader bodies; no loops.
#define AFFINE(M) float4 M##0, M##1, M##2
#define AFFINE_ZERO(M) M##0 = float4(0, 0, 0, 0); M##1 = M##0; M##2 = M##0
#define AFFINE_LOAD(M, TEXTURE, FIRST)            \
  M##0 = TEXTURE.Load(int3((FIRST), 0, 0));       \
  M##1 = TEXTURE.Load(int3((FIRST) + 1, 0, 0));   \
  M##2 = TEXTURE.Load(int3((FIRST) + 2, 0, 0))
#define AFFINE_ADD(M, A, W) M##0 += (W) * A##0; M##1 += (W) * A##1; M##2 += (W) * A##2
// M = A * B
#define AFFINE_MUL(M, A, B)                                                                     \
  M##0 = A##0.x * B##0 + A##0.y * B##1 + A##0.z * B##2 + float4(0, 0, 0, A##0.w);                \
  M##1 = A##1.x * B##0 + A##1.y * B##1 + A##1.z * B##2 + float4(0, 0, 0, A##1.w);                \
  M##2 = A##2.x * B##0 + A##2.y * B##1 + A##2.z * B##2 + float4(0, 0, 0, A##2.w)
#define AFFINE_COLUMNS(M, C0, C1, C2, C3)          \
  M##0 = float4(C0.x, C1.x, C2.x, C3.x);           \
  M##1 = float4(C0.y, C1.y, C2.y, C3.y);           \
  M##2 = float4(C0.z, C1.z, C2.z, C3.z)
#define AFFINE_POINT(M, P) float3(dot(M##0, float4(P, 1.0)), dot(M##1, float4(P, 1.0)), dot(M##2, float4(P, 1.0)))
#define AFFINE_VECTOR(M, D) float3(dot(M##0.xyz, D), dot(M##1.xyz, D), dot(M##2.xyz, D))

// POSITION, NORMAL and TANGENT += the weighted deltas of active target S (a literal) for vertex v, when v
// lies in the target's window (TANGENT when the mesh's vertices have 3 texels). Flat for the compiler
// (above): one expansion per slot, no loop; each texel's row and column by float division (exact: texels <
// 2^24, the width a power of two), so a vertex's texels may straddle a row.
#define MORPH_TARGET(S)                                                               \
  if (morph_count > S) {                                                              \
    float4 morph_slot = morph_slots[S];                                               \
    float local = float(v.vertex_id) - morph_slot.z;                                  \
    if (local >= 0.0 && local < morph_slot.w) {                                       \
      float texel = morph_slot.y + float(morph_texels) * local;                       \
      float row = floor(texel / 4096.0);                                              \
      int3 at = int3(int(texel - row * 4096.0), int(row), 0);                         \
      position += morph_slot.x * morph_deltas.Load(at).xyz;                           \
      texel += 1.0;                                                                   \
      row = floor(texel / 4096.0);                                                    \
      at = int3(int(texel - row * 4096.0), int(row), 0);                              \
      normal += morph_slot.x * morph_deltas.Load(at).xyz;                             \
      if (morph_texels == 3) {                                                        \
        texel += 1.0;                                                                 \
        row = floor(texel / 4096.0);                                                  \
        at = int3(int(texel - row * 4096.0), int(row), 0);                            \
        tangent += morph_slot.x * morph_deltas.Load(at).xyz;                          \
      }                                                                               \
    }                                                                                 \
  }

// The two frames around the instance's time in clip C (a variable) and the second one's weight, into F0, F1
// and A, its layer into L (variables declared by the caller), as baked_frames() of the GLSL: the last frame
// sits at the clip's end, maybe nearer than a full frame. Computed once per vertex for each clip.
#define BAKED_FRAMES(C, F0, F1, A, L)                                                               \
  {                                                                                                 \
    float4 info = clip_table.Load(int3(C, 0, 0));                                                   \
    int frames = int(info.x);                                                                       \
    L = int(info.w);                                                                                \
    float t = clip_time - info.z * floor(clip_time / max(info.z, 1e-30));                           \
    float f = t * info.y;                                                                           \
    F0 = min(int(floor(f)), frames - 1);                                                            \
    F1 = min(F0 + 1, frames - 1);                                                                   \
    A = f - float(F0);                                                                              \
    if (F0 == frames - 2) {                                                                         \
      float start = float(F0) / info.y;                                                             \
      A = 0.0;                                                                                      \
      if (info.z > start) A = clamp((t - start) / (info.z - start), 0.0, 1.0);                      \
    }                                                                                               \
    if (F0 >= frames - 1) A = 0.0;                                                                  \
  }

// SKIN += W * (palette slot SLOT's matrix in the bake: frames f0, f1 (weight a) of `layer`, blended towards
// frames g0, g1 (weight b) of `layer2` by v.blend when `blending`, bind-corrected), as baked_model() and the
// per-vertex path of the GLSL. The correction multiplies on the right.
#define BAKED_INFLUENCE(SKIN, SLOT, W)                                                                \
  if ((W) != 0.0) {                                                                                   \
    int joint = int(bind_table.Load(int3(kRemapTexel + (SLOT), 0, 0)).x);                            \
    float4 m0 = baked.Load(int4(joint * 3, f0, layer, 0));                                             \
    float4 m1 = baked.Load(int4(joint * 3 + 1, f0, layer, 0));                                         \
    float4 m2 = baked.Load(int4(joint * 3 + 2, f0, layer, 0));                                         \
    m0 += (baked.Load(int4(joint * 3, f1, layer, 0)) - m0) * a;                                        \
    m1 += (baked.Load(int4(joint * 3 + 1, f1, layer, 0)) - m1) * a;                                    \
    m2 += (baked.Load(int4(joint * 3 + 2, f1, layer, 0)) - m2) * a;                                    \
    if (blending != 0) {                                                                              \
      float4 n0 = baked.Load(int4(joint * 3, g0, layer2, 0));                                          \
      float4 n1 = baked.Load(int4(joint * 3 + 1, g0, layer2, 0));                                      \
      float4 n2 = baked.Load(int4(joint * 3 + 2, g0, layer2, 0));                                      \
      n0 += (baked.Load(int4(joint * 3, g1, layer2, 0)) - n0) * b;                                     \
      n1 += (baked.Load(int4(joint * 3 + 1, g1, layer2, 0)) - n1) * b;                                 \
      n2 += (baked.Load(int4(joint * 3 + 2, g1, layer2, 0)) - n2) * b;                                 \
      m0 += (n0 - m0) * v.blend;                                                                      \
      m1 += (n1 - m1) * v.blend;                                                                      \
      m2 += (n2 - m2) * v.blend;                                                                      \
    }                                                                                                 \
    if (corrected != 0) {                                                                             \
      float4 c0 = bind_table.Load(int3((SLOT) * 3, 0, 0));                                            \
      float4 c1 = bind_table.Load(int3((SLOT) * 3 + 1, 0, 0));                                        \
      float4 c2 = bind_table.Load(int3((SLOT) * 3 + 2, 0, 0));                                        \
      float4 p0 = m0.x * c0 + m0.y * c1 + m0.z * c2 + float4(0, 0, 0, m0.w);                          \
      float4 p1 = m1.x * c0 + m1.y * c1 + m1.z * c2 + float4(0, 0, 0, m1.w);                          \
      float4 p2 = m2.x * c0 + m2.y * c1 + m2.z * c2 + float4(0, 0, 0, m2.w);                          \
      m0 = p0;                                                                                        \
      m1 = p1;                                                                                        \
      m2 = p2;                                                                                        \
    }                                                                                                 \
    SKIN##0 += (W) * m0;                                                                              \
    SKIN##1 += (W) * m1;                                                                              \
    SKIN##2 += (W) * m2;                                                                              \
  }

// POSITION and NORMAL += the instance's weight of baked slot S (a literal) x its deltas for vertex v, when v
// lies in the slot's window: the weight interpolated between frames f0 and f1 (and blended towards the
// second clip's g0, g1), as BAKED_INFLUENCE interpolates matrices; the deltas as MORPH_TARGET finds them.
#define BAKED_MORPH_TARGET(S)                                                                       \
  if (baked_morph_count > S) {                                                                      \
    float4 morph_slot = baked_morph[2 * S];                                                         \
    float local = float(v.vertex_id) - morph_slot.z;                                                \
    if (local >= 0.0 && local < morph_slot.w) {                                                     \
      float4 mask = baked_morph[2 * S + 1];                                                         \
      int column = int(morph_slot.x);                                                               \
      float w0 = dot(baked.Load(int4(column, f0, layer, 0)), mask);                                 \
      float weight = w0 + (dot(baked.Load(int4(column, f1, layer, 0)), mask) - w0) * a;             \
      if (blending != 0) {                                                                          \
        float u0 = dot(baked.Load(int4(column, g0, layer2, 0)), mask);                              \
        float weight2 = u0 + (dot(baked.Load(int4(column, g1, layer2, 0)), mask) - u0) * b;         \
        weight += (weight2 - weight) * v.blend;                                                     \
      }                                                                                             \
      float texel = morph_slot.y + float(baked_morph_texels) * local;                               \
      float row = floor(texel / 4096.0);                                                            \
      int3 at = int3(int(texel - row * 4096.0), int(row), 0);                                       \
      position += weight * morph_deltas.Load(at).xyz;                                               \
      texel += 1.0;                                                                                 \
      row = floor(texel / 4096.0);                                                                  \
      at = int3(int(texel - row * 4096.0), int(row), 0);                                            \
      normal += weight * morph_deltas.Load(at).xyz;                                                 \
      if (baked_morph_texels == 3) {                                                                \
        texel += 1.0;                                                                               \
        row = floor(texel / 4096.0);                                                                \
        at = int3(int(texel - row * 4096.0), int(row), 0);                                          \
        tangent += weight * morph_deltas.Load(at).xyz;                                              \
      }                                                                                             \
    }                                                                                               \
  }

struct VertexIn {
  float3 position : POSITION;
  float3 normal : NORMAL;
  float4 tangent : TANGENT;
  float2 uv : TEXCOORD0;
  uint4 joints : BLENDINDICES;
  float4 weights : BLENDWEIGHT;
  float4 world0 : INSTANCE_WORLD0;  // baked: per-instance world matrix columns
  float4 world1 : INSTANCE_WORLD1;
  float4 world2 : INSTANCE_WORLD2;
  float4 world3 : INSTANCE_WORLD3;
  float4 anim : INSTANCE_ANIM;      // clip, time, speed, clip2 (-1: none)
  float blend : INSTANCE_BLEND;     // weight of clip2
  uint vertex_id : SV_VertexID;     // morph targets: the vertex's index in its mesh
};

struct VertexOut {
  float4 clip_position : SV_Position;
  float3 position : POSITION;
  float3 normal : NORMAL;
  float4 tangent : TANGENT;
  float2 uv : TEXCOORD0;
};

VertexOut vs_main(VertexIn v) {
  AFFINE(skin);
  AFFINE_COLUMNS(skin, float4(1, 0, 0, 0), float4(0, 1, 0, 0), float4(0, 0, 1, 0), float4(0, 0, 0, 1));
  AFFINE(place);  // the world matrix
  AFFINE_COLUMNS(place, world[0], world[1], world[2], world[3]);
  int4 slots = int4(v.joints);
  if (mode == 0) {
    AFFINE_ZERO(skin);
    AFFINE(bone);
    AFFINE_LOAD(bone, palette_rows, slots.x * 3);
    AFFINE_ADD(skin, bone, v.weights.x);
    AFFINE_LOAD(bone, palette_rows, slots.y * 3);
    AFFINE_ADD(skin, bone, v.weights.y);
    AFFINE_LOAD(bone, palette_rows, slots.z * 3);
    AFFINE_ADD(skin, bone, v.weights.z);
    AFFINE_LOAD(bone, palette_rows, slots.w * 3);
    AFFINE_ADD(skin, bone, v.weights.w);
  }
  // Baked: the frames of the instance's clip (and of the second clip it blends towards), once per vertex.
  int f0 = 0;
  int f1 = 0;
  int layer = 0;
  float a = 0.0;
  int g0 = 0;
  int g1 = 0;
  int layer2 = 0;
  float b = 0.0;
  int blending = 0;
  if (mode == 2) {
    AFFINE_COLUMNS(place, v.world0, v.world1, v.world2, v.world3);
    int clip = int(v.anim.x);
    int clip2 = int(v.anim.w);
    float clip_time = v.anim.y + global_time * v.anim.z;
    BAKED_FRAMES(clip, f0, f1, a, layer)
    if (clip2 >= 0 && v.blend > 0.0) blending = 1;
    if (blending != 0) BAKED_FRAMES(clip2, g0, g1, b, layer2)
    AFFINE_ZERO(skin);
    BAKED_INFLUENCE(skin, slots.x, v.weights.x)
    BAKED_INFLUENCE(skin, slots.y, v.weights.y)
    BAKED_INFLUENCE(skin, slots.z, v.weights.z)
    BAKED_INFLUENCE(skin, slots.w, v.weights.w)
  }
  float3 position = v.position;
  float3 normal = v.normal;
  float3 tangent = v.tangent.xyz;
  if (mode == 0) {  // morph targets, before skinning
    MORPH_TARGET(0)
    MORPH_TARGET(1)
    MORPH_TARGET(2)
    MORPH_TARGET(3)
    MORPH_TARGET(4)
    MORPH_TARGET(5)
    MORPH_TARGET(6)
    MORPH_TARGET(7)
  }
  if (mode == 2) {  // baked morph targets, before skinning
    BAKED_MORPH_TARGET(0)
    BAKED_MORPH_TARGET(1)
    BAKED_MORPH_TARGET(2)
    BAKED_MORPH_TARGET(3)
    BAKED_MORPH_TARGET(4)
    BAKED_MORPH_TARGET(5)
    BAKED_MORPH_TARGET(6)
    BAKED_MORPH_TARGET(7)
  }
  AFFINE(m);
  AFFINE_MUL(m, place, skin);
  VertexOut o;
  o.position = AFFINE_POINT(m, position);
  o.normal = AFFINE_VECTOR(m, normal);
  o.tangent = float4(AFFINE_VECTOR(m, tangent), v.tangent.w);
  o.uv = v.uv;
  o.clip_position = view_proj[0] * o.position.x + view_proj[1] * o.position.y + view_proj[2] * o.position.z +
                    view_proj[3];
  return o;
}

// normalize(0.4, 1.0, 0.6): towards the light (a literal: no sqrt in static initialisers here)
static const float3 kLightDirection = float3(0.324442834, 0.811107099, 0.486664265);
static const float kAmbient = 0.25;

// One return, at the end: Wine 8's compiler does not end the shader at a return inside an if.
float4 ps_main(VertexOut i) : SV_Target {
  float4 texel = float4(1, 1, 1, 1);
  if (has_diffuse != 0) texel = diffuse_map.Sample(linear_repeat, i.uv);
  float3 albedo = base_color.rgb * texel.rgb;
  float3 color = albedo;  // unlit (3)
  if (lighting == 4) {
    color = base_color.rgb;
    if (has_diffuse != 0) color = texel.rgb;
  } else if (lighting != 3) {
    float3 n = normalize(i.normal);
    if (has_normal_map != 0 && has_tangents != 0) {
      float3 t = normalize(i.tangent.xyz - n * dot(n, i.tangent.xyz));
      float3 b = cross(n, t) * i.tangent.w;
      float3 m = normal_map.Sample(linear_repeat, i.uv).xyz * 2.0 - 1.0;
      n = normalize(t * m.x + b * m.y + n * m.z);
    }
    float3 v = normalize(eye.xyz - i.position);
    if (dot(n, v) < 0.0) n = -n;  // two-sided: capes and thin props are seen from both sides
    float diffuse = max(dot(n, kLightDirection), 0.0);
    float specular = 0.0;
    if (lighting == 0) {
      float3 r = 2.0 * dot(n, kLightDirection) * n - kLightDirection;  // reflect(-L, n)
      specular = pow(max(dot(r, v), 0.0), 24.0) * 0.35;
    }
    if (lighting == 1) specular = pow(max(dot(n, normalize(kLightDirection + v)), 0.0), 64.0) * 0.35;
    if (diffuse == 0.0) specular = 0.0;
    color = albedo * (kAmbient + (1.0 - kAmbient) * diffuse) + float3(specular, specular, specular);
  }
  return float4(color, 1.0);
}
